//! `provider::replay` reads a recorded body exactly as a live exchange does: for each wire
//! format, the mock's body fetched once over HTTP and replayed (whole, and one byte per read)
//! gives the deltas and final message the live stream gave.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod provider_common;

use mock_llm::{MockServer, Script};
use pi_agent::provider::ProviderEvent;
use pi_agent::provider::replay::replay;
use pi_rpc_protocol::message::AssistantMessage;
use provider_common::{model, request, run};

const SCRIPT: &str = r#"
responses:
  - repeat: true
    content:
      - {thinking: "hmm", signature: sig}
      - {text: ["Hello", " world"]}
      - {tool_call: {id: call_1, name: read, arguments: {path: a.txt}, chunks: 3}}
    usage: {input: 10, output: 5}
"#;

/// The live stream's deltas and final message.
fn live_parts(
    events: Vec<ProviderEvent>,
) -> (
    Vec<pi_rpc_protocol::event::AssistantMessageEvent>,
    AssistantMessage,
) {
    let mut deltas = Vec::new();
    let mut last = None;
    for event in events {
        match event {
            ProviderEvent::Start(_) | ProviderEvent::Usage(_) | ProviderEvent::Written(_) => {}
            ProviderEvent::Deltas(more) => deltas.extend(more),
            ProviderEvent::Done(message) => last = Some(message),
        }
    }
    (deltas, last.expect("a final message"))
}

#[tokio::test]
async fn a_replayed_body_gives_what_the_live_stream_gave_in_every_format() {
    let server = MockServer::start(Script::from_yaml_str(SCRIPT, "replay").unwrap())
        .await
        .unwrap();
    let http = reqwest::Client::new();
    for api in [
        "anthropic-messages",
        "openai-completions",
        "openai-responses",
        "google-generative-ai",
    ] {
        let mut model = model(&server.uri());
        model.api = api.to_owned();
        // The request the provider sends, then its answer kept as bytes, then the live stream
        // of that answer: each from a fresh journal, as ids count the requests.
        run(request(model.clone(), "hi")).await;
        let sent = server.journal().last().cloned().expect("a request");
        server.reset();
        let url = format!("{}{}", server.uri(), sent.path)
            + &sent
                .query
                .map(|query| format!("?{query}"))
                .unwrap_or_default();
        let mut again = http.post(url).json(&sent.body);
        for (name, value) in &sent.headers {
            if !matches!(name.as_str(), "host" | "content-length") {
                again = again.header(name, value);
            }
        }
        let body = again.send().await.unwrap().bytes().await.unwrap();
        server.reset();
        let (deltas, mut message) = live_parts(run(request(model.clone(), "hi")).await);
        server.reset();
        for pieces in [vec![&body[..]], body.chunks(1).collect()] {
            let replayed = replay(&model, pieces).unwrap();
            assert_eq!(replayed.deltas, deltas, "{api}");
            message.timestamp = replayed.message.timestamp;
            assert_eq!(replayed.message, message, "{api}");
        }
        assert_eq!(
            message.stop_reason,
            pi_rpc_protocol::message::StopReason::ToolUse,
            "{api}"
        );
    }
}

#[test]
fn an_unknown_api_is_named() {
    let mut model = model("http://127.0.0.1:9");
    model.api = "carrier-pigeon".to_owned();
    let error = replay(&model, [&b""[..]]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "No API provider registered for api: carrier-pigeon"
    );
}
