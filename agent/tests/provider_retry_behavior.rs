//! Provider-level retries (settings `retry.provider.maxRetries`) against the mock LLM server
//! on loopback: what the scenarios in `scenarios/retry` cannot pin, the backoff path without
//! retry headers up to the last allowed attempt, and no retry at all by default.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod provider_common;

use mock_llm::{MockServer, Script};
use pi_agent::provider::StreamOptions;
use pi_rpc_protocol::message::StopReason;
use provider_common::{collect, done, model, request};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

async fn server(script: Value) -> MockServer {
    let script = Script::from_json_value(script, "test").unwrap();
    MockServer::start(script).await.unwrap()
}

async fn run_with(
    mock: &MockServer,
    max_retries: u32,
) -> pi_rpc_protocol::message::AssistantMessage {
    let options = StreamOptions {
        max_retries,
        ..StreamOptions::default()
    };
    let http = reqwest::Client::new();
    let rx = pi_agent::provider::stream_with(
        &http,
        request(model(&mock.uri()), "hi"),
        options,
        CancellationToken::new(),
    );
    done(&collect(rx).await).clone()
}

#[tokio::test]
async fn without_retry_headers_the_provider_layer_backs_off_until_its_retries_are_used_up() {
    let mock = server(json!({"responses": [
        {"error": {"status": 503}},
        {"error": {"status": 502}},
        {"error": {"status": 500, "message": "third"}},
        {"text": "never"},
    ]}))
    .await;
    let message = run_with(&mock, 2).await;
    assert_eq!(message.stop_reason, StopReason::Error);
    let text = message.error_message.unwrap_or_default();
    assert!(text.starts_with("500 ") && text.contains("third"), "{text}");
    assert_eq!(mock.request_count(), 3);
}

#[tokio::test]
async fn a_retried_request_ends_as_the_answer_alone() {
    let mock = server(json!({"responses": [
        {"error": {"status": 529}},
        {"text": "Hello"},
    ]}))
    .await;
    let message = run_with(&mock, 1).await;
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.error_message, None);
    assert_eq!(mock.request_count(), 2);
    // Both attempts carry the same body.
    let journal = mock.journal();
    assert_eq!(journal[0].body, journal[1].body);
}

#[tokio::test]
async fn by_default_a_failed_request_is_sent_once() {
    let mock = server(json!({"responses": [
        {"error": {"status": 503, "headers": {"x-should-retry": "true"}}},
        {"text": "never"},
    ]}))
    .await;
    let message = run_with(&mock, 0).await;
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(mock.request_count(), 1);
}
