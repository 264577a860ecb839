//! The Responses request as sent over HTTP: bodies compared byte for byte with what the
//! reference pi 0.84.1 sent for the same conversation
//! (`provider_fixtures/openai_responses_requests.json`, recorded from the mock server's
//! journal; the system prompt is replaced by a text of the same length), once with the
//! defaults and once with compat overrides (system role, strict tools), and the headers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod provider_common;

use pi_agent::provider::openai_responses::request_body;
use pi_rpc_protocol::message::StopReason;
use pi_rpc_protocol::model::Model;
use provider_common::{assert_case_body, done, js, request, run, sse_server, user};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer};

const REPLY: &str = "event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"output_index\":0,\"item\":{\"type\":\"message\",\"id\":\"msg_1\",\"content\":[]}}\n\nevent: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,\"delta\":\"ok\"}\n\nevent: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"status\":\"completed\"}}\n\n";

async fn server() -> MockServer {
    sse_server(
        Mock::given(method("POST")).and(path("/v1/responses")),
        REPLY,
    )
    .await
}

fn fixtures() -> Value {
    serde_json::from_str(include_str!(
        "provider_fixtures/openai_responses_requests.json"
    ))
    .unwrap()
}

fn responses_model(base_url: &str) -> Model {
    let mut model = provider_common::model(base_url);
    model.api = "openai-responses".to_owned();
    model
}

#[tokio::test]
async fn request_bodies_match_the_reference_byte_for_byte() {
    let fixtures = fixtures();
    let cases = fixtures["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 6);
    for case in cases {
        assert_case_body(&fixtures, case, &server().await, "/v1").await;
    }
}

#[tokio::test]
async fn headers_carry_the_key_and_the_session() {
    let server = server().await;
    let mut request = request(responses_model(&format!("{}/v1", server.uri())), "hi");
    request.session_id = Some("sess-1".to_owned());
    let events = run(request).await;
    assert_eq!(done(&events).stop_reason, StopReason::Stop);
    let received = server.received_requests().await.unwrap();
    let headers = &received[0].headers;
    assert_eq!(headers["authorization"], "Bearer mock-key");
    assert_eq!(headers["session_id"], "sess-1");
    assert_eq!(headers["x-client-request-id"], "sess-1");
}

#[tokio::test]
async fn thinking_off_asks_for_no_reasoning_and_tool_images_go_in_the_output() {
    let mut model = responses_model("http://127.0.0.1:9/v1");
    model.input = vec!["text".into(), "image".into()];
    let mut request = request(model, "hi");
    request.system_prompt = String::new();
    request.messages = provider_common::shared(serde_json::from_value(json!([
        {"role": "user", "content": "look", "timestamp": 1},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "call_1|fc_1", "name": "read",
            "arguments": {"path": "p.png"}}], "api": "openai-responses", "provider": "mock",
         "model": "mock-model-1", "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
            "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
         "stopReason": "toolUse", "timestamp": 2},
        {"role": "toolResult", "toolCallId": "call_1|fc_1", "toolName": "read",
         "content": [{"type": "text", "text": "an image"},
                     {"type": "image", "data": "REVG", "mimeType": "image/jpeg"}], "isError": false, "timestamp": 3},
    ]))
    .unwrap());
    let body = request_body(&request).unwrap();
    assert_eq!(
        js(&body["input"]),
        js(&json!([
            {"role": "user", "content": [{"type": "input_text", "text": "look"}]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read",
             "arguments": "{\"path\":\"p.png\"}"},
            {"type": "function_call_output", "call_id": "call_1", "output": [
                {"type": "input_text", "text": "an image"},
                {"type": "input_image", "detail": "auto", "image_url": "data:image/jpeg;base64,REVG"}]},
        ]))
    );
    assert_eq!(body["reasoning"], json!({"effort": "none"}));
    assert!(body.get("include").is_none());
}

#[tokio::test]
async fn a_thinking_signature_that_is_not_json_fails_before_sending() {
    let mut request = request(responses_model("http://127.0.0.1:9/v1"), "hi");
    request.messages = provider_common::shared(serde_json::from_value(json!([
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "t",
            "thinkingSignature": "reasoning_content"}], "api": "openai-responses", "provider": "mock",
         "model": "mock-model-1", "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
            "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
         "stopReason": "stop", "timestamp": 2},
    ]))
    .unwrap());
    request
        .messages
        .push(pi_agent::provider::SharedMessage::new(user("next")));
    let events = run(request).await;
    assert_eq!(events.len(), 1);
    assert_eq!(
        done(&events).error_message.as_deref(),
        Some("Unexpected token 'r', \"reasoning_content\" is not valid JSON")
    );
}

#[tokio::test]
async fn caching_off_sends_no_session_and_asks_for_explicit_caching_where_supported() {
    let server = server().await;
    let mut model = responses_model(&format!("{}/v1", server.uri()));
    let mut request = request(model.clone(), "hi");
    request.session_id = Some("sess-1".to_owned());
    request.cache_retention = pi_agent::provider::CacheRetention::Off;
    assert_eq!(
        done(&run(request.clone()).await).stop_reason,
        StopReason::Stop
    );
    model.compat = Some(
        json!({"supportsExplicitPromptCacheMode": true})
            .as_object()
            .unwrap()
            .clone(),
    );
    request.model = model;
    run(request).await;
    let received = server.received_requests().await.unwrap();
    let body = |index: usize| -> Value { serde_json::from_slice(&received[index].body).unwrap() };
    for sent in &received {
        assert!(sent.headers.get("session_id").is_none());
        assert!(sent.headers.get("x-client-request-id").is_none());
    }
    assert!(body(0).get("prompt_cache_key").is_none());
    assert!(body(0).get("prompt_cache_options").is_none());
    assert!(body(1).get("prompt_cache_key").is_none());
    assert_eq!(body(1)["prompt_cache_options"], json!({"mode": "explicit"}));
}
