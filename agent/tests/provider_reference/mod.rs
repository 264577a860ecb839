//! Comparing our provider streams with the reference's, for the formats recorded in
//! `provider_fixtures/<format>_streams.json`: each case is a mock-llm script and the lines the
//! reference pi 0.84.1 printed for it in RPC mode (`message_update`s and `message_end`, with
//! the timestamp zeroed; `message_start` is left out since the reference serialises it late).
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use mock_llm::{MockServer, Script};
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use serde_json::Value;

use super::provider_common::{as_rpc_lines, js, request, run, started};

/// One wire format under test: its `api` and the path the base URL gets.
#[derive(Debug, Clone, Copy)]
pub struct Format {
    /// The models.json `api`.
    pub api: &'static str,
    /// Appended to the mock's URL to make the model's `baseUrl`.
    pub base_suffix: &'static str,
}

impl Format {
    /// The test model of provider `mock` for this format at the mock's `uri`.
    pub fn model(&self, uri: &str) -> Model {
        let mut model = super::provider_common::model(&format!("{uri}{}", self.base_suffix));
        model.api = self.api.to_owned();
        model
    }
}

/// The cases of a fixture file's text.
pub fn cases(fixture: &str) -> Vec<Value> {
    serde_json::from_str::<Value>(fixture)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// The case named `name`.
pub fn case<'a>(cases: &'a [Value], name: &str) -> &'a Value {
    cases
        .iter()
        .find(|case| case["name"] == name)
        .unwrap_or_else(|| panic!("no fixture {name}"))
}

/// A mock server running `script`.
pub async fn server(script: Value) -> MockServer {
    let script = Script::from_json_value(script, "test").unwrap();
    MockServer::start(script).await.unwrap()
}

/// Runs a case's script (with `framing` on its first response) and compares our lines with
/// the reference's, as text; returns whether `Start` was sent.
pub async fn assert_matches_reference(
    format: Format,
    case: &Value,
    framing: Option<Value>,
) -> bool {
    let mut script = case["script"].clone();
    if let Some(framing) = framing {
        script["responses"][0]["framing"] = framing;
    }
    let mock = server(script).await;
    let mut request = request(format.model(&mock.uri()), "hi");
    request.thinking_level =
        ThinkingLevel::parse(case["thinkingLevel"].as_str().unwrap_or("off")).unwrap();
    let events = run(request).await;
    let ours: Vec<String> = as_rpc_lines(&events)
        .into_iter()
        .filter(|line| line["type"] != "message_start")
        .map(|line| js(&line))
        .collect();
    let theirs: Vec<&str> = case["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| line.as_str().unwrap())
        .collect();
    assert_eq!(ours, theirs, "case {}", case["name"]);
    started(&events)
}

/// Streams `Hel`, holds the stream at a gate, cancels once `Hel` arrived and returns our lines
/// (`message_start` left out, timestamps zeroed) for comparison with the reference's abort.
pub async fn abort_mid_stream(format: Format) -> Vec<String> {
    use pi_agent::provider::{ProviderEvent, stream};
    use pi_rpc_protocol::event::AssistantMessageEvent;
    use tokio_util::sync::CancellationToken;

    let mock = server(serde_json::json!({"responses": [{
        "content": [{"text": "Hel"}, {"gate": "g1"}, {"text": "lo"}],
    }]}))
    .await;
    let cancel = CancellationToken::new();
    let http = reqwest::Client::new();
    let mut rx = stream(
        &http,
        request(format.model(&mock.uri()), "hi"),
        cancel.clone(),
    );
    let mut events = Vec::new();
    let read = async {
        while let Some(event) = rx.recv().await {
            if matches!(
                &event,
                ProviderEvent::Delta(AssistantMessageEvent::TextDelta(_))
            ) {
                cancel.cancel();
            }
            let finished = matches!(event, ProviderEvent::Done(_));
            events.push(event);
            if finished {
                break;
            }
        }
    };
    tokio::time::timeout(super::provider_common::TIMEOUT, read)
        .await
        .expect("the stream ends in time");
    as_rpc_lines(&events)
        .into_iter()
        .filter(|line| line["type"] != "message_start")
        .map(|line| js(&line))
        .collect()
}
