//! Comparing our provider streams with the reference's, for the formats recorded in
//! `provider_fixtures/<format>_streams.json`: each case is a mock-llm script and the lines the
//! reference pi 0.84.1 printed for it in RPC mode (`message_update`s and `message_end`, with
//! the timestamp zeroed; `message_start` is left out since the reference serialises it late).
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use mock_llm::{MockServer, Script};
use pi_agent::provider::ProviderEvent;
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use serde_json::Value;

use super::provider_common::{as_rpc_lines, js, request, run};

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

/// The lines the reference printed for `case`.
pub fn reference_lines(case: &Value) -> Vec<&str> {
    case["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| line.as_str().unwrap())
        .collect()
}

/// Runs a case's script (with `framing` on its first response) and compares our lines with
/// the reference's, as text; returns whether the stream began with `Start` (the provider
/// accepted the request).
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
    assert_eq!(ours, reference_lines(case), "case {}", case["name"]);
    matches!(events.first(), Some(ProviderEvent::Start(_)))
}

/// Streams `Hel`, holds the stream at a gate, cancels once `Hel` arrived and everything before
/// the gate was read (as a client's abort comes, after a round trip), and returns our lines
/// (`message_start` left out, timestamps zeroed) for comparison with the reference's abort.
pub async fn abort_mid_stream(format: Format) -> Vec<String> {
    use pi_agent::provider::stream;
    use pi_rpc_protocol::event::AssistantMessageEvent;
    use tokio_util::sync::CancellationToken;

    /// How long the stream must stay quiet at the gate before the abort.
    const QUIET: std::time::Duration = std::time::Duration::from_millis(200);

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
        let mut text_seen = false;
        loop {
            let event = if text_seen && !cancel.is_cancelled() {
                match tokio::time::timeout(QUIET, rx.recv()).await {
                    Ok(event) => event,
                    Err(_) => {
                        // Everything before the gate is read: the abort comes now.
                        cancel.cancel();
                        continue;
                    }
                }
            } else {
                rx.recv().await
            };
            let Some(event) = event else { break };
            if let ProviderEvent::Deltas(deltas) = &event
                && deltas
                    .iter()
                    .any(|delta| matches!(delta, AssistantMessageEvent::TextDelta(_)))
                && !text_seen
            {
                text_seen = true;
                mock.wait_for_gate("g1", super::provider_common::TIMEOUT)
                    .await
                    .unwrap();
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

/// The recorded cases of one format (`provider_fixtures/<format>_streams.json`, a list of
/// named cases) and the checks the stream tests run over them.
pub struct Recorded {
    format: Format,
    cases: Vec<Value>,
}

impl Recorded {
    /// The cases of `fixture` (a fixture file's text), recorded for `format`.
    pub fn new(format: Format, fixture: &str) -> Self {
        Self {
            format,
            cases: cases(fixture),
        }
    }

    /// The case named `name`.
    pub fn case(&self, name: &str) -> &Value {
        case(&self.cases, name)
    }

    /// Compares each named case with the reference, and checks that our stream began with
    /// `Start` (the provider accepted the request).
    pub async fn assert_streams(&self, names: &[&str]) {
        let cases: Vec<(&str, bool)> = names.iter().map(|name| (*name, true)).collect();
        self.assert_starts(&cases).await;
    }

    /// Compares each named case with the reference (whether `Start` came is not checked).
    pub async fn assert_lines(&self, names: &[&str]) {
        for name in names {
            assert_matches_reference(self.format, self.case(name), None).await;
        }
    }

    /// Compares each named case with the reference, and checks that our stream began with
    /// `Start` exactly when the second of its pair says that the provider accepted the request.
    pub async fn assert_starts(&self, cases: &[(&str, bool)]) {
        for (name, accepted) in cases {
            let began = assert_matches_reference(self.format, self.case(name), None).await;
            assert_eq!(began, *accepted, "{name}");
        }
    }

    /// Compares each named case with the reference under each framing of its first response.
    pub async fn assert_framings(&self, names: &[&str], framings: &[Value]) {
        for name in names {
            for framing in framings {
                assert_matches_reference(self.format, self.case(name), Some(framing.clone())).await;
            }
        }
    }

    /// Aborts a stream once its first text arrived ([`abort_mid_stream`]) and compares our lines
    /// with the reference's for the case `abort_mid_stream`.
    pub async fn assert_abort(&self) {
        let theirs = reference_lines(self.case("abort_mid_stream"));
        assert_eq!(abort_mid_stream(self.format).await, theirs);
    }
}
