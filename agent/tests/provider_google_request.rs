//! The Gemini request as sent over HTTP: bodies compared byte for byte with what the reference
//! pi 0.84.1 sent (through the Google SDK) for the same conversation
//! (`provider_fixtures/google_requests.json`, recorded from the mock server's journal; the
//! system prompt is replaced by a text of the same length), the URL and headers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod provider_common;

use pi_agent::provider::google::request_body;
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use provider_common::{assert_case_body, js, request, sse_server};
use serde_json::{Value, json};
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer};

const REPLY: &str = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"ok\"}]},\"finishReason\":\"STOP\",\"index\":0}],\"responseId\":\"r1\"}\r\n\r\n";

async fn server() -> MockServer {
    let mock = Mock::given(method("POST"))
        .and(path("/v1beta/models/mock-model-1:streamGenerateContent"))
        .and(query_param("alt", "sse"));
    sse_server(mock, REPLY).await
}

fn fixtures() -> Value {
    serde_json::from_str(include_str!("provider_fixtures/google_requests.json")).unwrap()
}

fn gemini_model(id: &str) -> Model {
    let mut model = provider_common::model("http://127.0.0.1:9/v1beta");
    model.api = "google-generative-ai".to_owned();
    model.id = id.to_owned();
    model
}

#[tokio::test]
async fn request_bodies_match_the_reference_byte_for_byte() {
    let fixtures = fixtures();
    let cases = fixtures["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 3);
    for case in cases {
        let received = assert_case_body(&fixtures, case, &server().await, "/v1beta").await;
        assert_eq!(received.headers["x-goog-api-key"], "mock-key");
    }
}

#[test]
fn thinking_settings_follow_the_model_family() {
    let config = |id: &str, level: ThinkingLevel| {
        let mut request = request(gemini_model(id), "hi");
        request.thinking_level = level;
        request_body(&request)["generationConfig"]["thinkingConfig"].clone()
    };
    assert_eq!(
        config("gemini-2.5-pro", ThinkingLevel::Off),
        json!({"thinkingBudget": 0})
    );
    assert_eq!(
        config("gemini-2.5-flash", ThinkingLevel::Medium),
        json!({"includeThoughts": true, "thinkingBudget": 8192})
    );
    assert_eq!(
        config("gemini-3-pro-preview", ThinkingLevel::Minimal),
        json!({"includeThoughts": true, "thinkingLevel": "LOW"})
    );
    assert_eq!(
        config("gemini-3.1-flash", ThinkingLevel::Off),
        json!({"thinkingLevel": "MINIMAL"})
    );
    assert_eq!(
        config("gemini-3-flash", ThinkingLevel::Medium),
        json!({"includeThoughts": true, "thinkingLevel": "MEDIUM"})
    );
}

#[test]
fn gemini_3_sends_call_ids_and_results_merge_into_one_turn() {
    // The test model takes text only: the tool's image becomes the placeholder text.
    let mut request = request(gemini_model("gemini-3-pro"), "hi");
    request.system_prompt = String::new();
    request.messages = provider_common::shared(serde_json::from_value(json!([
        {"role": "user", "content": "go", "timestamp": 1},
        {"role": "assistant", "content": [
            {"type": "toolCall", "id": "c|1", "name": "read", "arguments": {"path": "a"}},
            {"type": "toolCall", "id": "c2", "name": "read", "arguments": {"path": "b"}}],
         "api": "anthropic-messages", "provider": "other", "model": "claude",
         "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
         "stopReason": "toolUse", "timestamp": 2},
        {"role": "toolResult", "toolCallId": "c|1", "toolName": "read",
         "content": [{"type": "text", "text": "A"}], "isError": false, "timestamp": 3},
        {"role": "toolResult", "toolCallId": "c2", "toolName": "read",
         "content": [{"type": "image", "data": "REVG", "mimeType": "image/png"}], "isError": false, "timestamp": 4},
    ]))
    .unwrap());
    let body = request_body(&request);
    assert_eq!(
        js(&body["contents"]),
        js(&json!([
            {"parts": [{"text": "go"}], "role": "user"},
            {"parts": [
                {"functionCall": {"id": "c_1", "args": {"path": "a"}, "name": "read"}},
                {"functionCall": {"id": "c2", "args": {"path": "b"}, "name": "read"}}], "role": "model"},
            {"parts": [
                {"functionResponse": {"name": "read", "response": {"output": "A"}, "id": "c_1"}},
                {"functionResponse": {"name": "read", "response": {"output": "(tool image omitted: model does not support images)"}, "id": "c2"}}],
             "role": "user"},
        ]))
    );
}
