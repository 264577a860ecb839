//! The Chat Completions request as sent over HTTP: bodies compared byte for byte with what the
//! reference pi 0.84.1 sent for the same conversation
//! (`provider_fixtures/openai_completions_requests.json`, recorded from the mock server's
//! journal; the system prompt is replaced by a text of the same length, since its length feeds
//! the context estimate), once with the detected defaults and once with compat overrides
//! (system role, no `store`, `max_tokens`, tool result names, thinking as text, DeepSeek
//! thinking fields), and the headers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod provider_common;

use pi_agent::provider::RequestDetails;
use pi_agent::provider::openai_completions::request_body;
use pi_rpc_protocol::message::{AgentMessage, StopReason};
use pi_rpc_protocol::model::Model;
use provider_common::{
    assert_case_body, done, js, request, run, sent_cached_then_uncached, sse_server, user,
};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer};

const REPLY: &str = "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":null}]}\n\ndata: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";

async fn server() -> MockServer {
    sse_server(
        Mock::given(method("POST")).and(path("/v1/chat/completions")),
        REPLY,
    )
    .await
}

fn fixtures() -> Value {
    serde_json::from_str(include_str!(
        "provider_fixtures/openai_completions_requests.json"
    ))
    .unwrap()
}

fn chat_model(base_url: &str) -> Model {
    let mut model = provider_common::model(base_url);
    model.api = "openai-completions".to_owned();
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
async fn headers_carry_the_bearer_key_and_model_headers_win() {
    let server = server().await;
    let mut model = chat_model(&format!("{}/v1/", server.uri()));
    model.headers = Some(
        json!({"x-custom": "yes", "authorization": "Bearer from-model"})
            .as_object()
            .unwrap()
            .clone(),
    );
    let events = run(request(model, "hi")).await;
    assert_eq!(done(&events).stop_reason, StopReason::Stop);
    let received = server.received_requests().await.unwrap();
    let headers = &received[0].headers;
    assert_eq!(headers["authorization"], "Bearer from-model");
    assert_eq!(headers["x-custom"], "yes");
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(received[0].url.path(), "/v1/chat/completions");
}

#[tokio::test]
async fn images_go_as_data_urls_and_tool_images_follow_the_results() {
    let mut model = chat_model("http://127.0.0.1:9/v1");
    model.input = vec!["text".into(), "image".into()];
    model.reasoning = false;
    let mut request = request(model, "hi");
    request.system_prompt = String::new();
    let history: Vec<AgentMessage> = serde_json::from_value(json!([
        {"role": "user", "content": [{"type": "text", "text": "look"},
            {"type": "image", "data": "QUJD", "mimeType": "image/png"}], "timestamp": 1},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "call_1", "name": "read",
            "arguments": {"path": "p.png"}}], "api": "openai-completions", "provider": "mock",
         "model": "mock-model-1", "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
            "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
         "stopReason": "toolUse", "timestamp": 2},
        {"role": "toolResult", "toolCallId": "call_1", "toolName": "read",
         "content": [{"type": "image", "data": "REVG", "mimeType": "image/jpeg"}], "isError": false, "timestamp": 3},
    ]))
    .unwrap();
    request.messages = provider_common::shared(history);
    let body = request_body(&request);
    assert_eq!(
        js(&body["messages"]),
        js(&json!([
            {"role": "user", "content": [{"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJD"}}]},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "read", "arguments": "{\"path\":\"p.png\"}"}}]},
            {"role": "tool", "content": "(see attached image)", "tool_call_id": "call_1"},
            {"role": "user", "content": [{"type": "text", "text": "Attached image(s) from tool result:"},
                {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,REVG"}}]},
        ]))
    );
    // No tools offered, but the history has calls: an empty list is sent.
    assert_eq!(body["tools"], json!([]));
    assert!(body.get("reasoning_effort").is_none());
}

#[tokio::test]
async fn responses_call_ids_are_shortened_for_chat() {
    let mut request = request(chat_model("http://127.0.0.1:9/v1"), "hi");
    let long_item = "fc_".to_owned() + &"x".repeat(60);
    let history: Vec<AgentMessage> = serde_json::from_value(json!([
        {"role": "assistant", "content": [
            {"type": "toolCall", "id": "call_1|fc_1", "name": "read", "arguments": {}},
            {"type": "toolCall", "id": format!("call_2|{long_item}"), "name": "read", "arguments": {}}],
         "api": "openai-responses", "provider": "openai", "model": "gpt",
         "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
         "stopReason": "toolUse", "timestamp": 2},
    ]))
    .unwrap();
    request.messages = provider_common::shared(history);
    request
        .messages
        .push(pi_agent::provider::SharedMessage::new(user("next")));
    let body = request_body(&request);
    let calls = &body["messages"][1]["tool_calls"];
    assert_eq!(calls[0]["id"], "call_1_fc_1");
    // Too long joined: the call id and eight characters of the reference's hash (computed
    // with the reference's own `shortHash`).
    let second = calls[1]["id"].as_str().unwrap();
    assert_eq!(second, "call_2_1aeapur1");
    // Unanswered calls get synthetic results under the new ids.
    assert_eq!(body["messages"][2]["tool_call_id"], "call_1_fc_1");
    assert_eq!(body["messages"][3]["tool_call_id"], second);
}

#[test]
fn from_1_6_0_only_openai_itself_gets_the_developer_role_by_default() {
    let role = |provider: &str, base_url: &str, details: RequestDetails| {
        let mut model = chat_model(base_url);
        model.provider = provider.to_owned();
        let mut request = request(model, "Hi");
        request.details = details;
        request_body(&request)["messages"][0]["role"].clone()
    };
    let older = RequestDetails::default();
    let newer = RequestDetails {
        developer_role_for_openai_only: true,
        ..RequestDetails::default()
    };
    let cases = [
        // A reasoning model of a compatible host: developer before 1.6.0, system from it.
        ("mock", "http://127.0.0.1:1/v1", older, "developer"),
        ("mock", "http://127.0.0.1:1/v1", newer, "system"),
        // OpenAI's own API keeps it.
        ("openai", "http://127.0.0.1:1/v1", newer, "developer"),
        ("x", "https://api.openai.com/v1", newer, "developer"),
    ];
    for (provider, base_url, details, expected) in cases {
        assert_eq!(
            role(provider, base_url, details),
            json!(expected),
            "{provider} at {base_url}"
        );
    }
}

#[tokio::test]
async fn caching_off_sends_no_anthropic_cache_control_and_no_affinity_headers() {
    let server = server().await;
    let mut model = chat_model(&format!("{}/v1", server.uri()));
    model.compat = Some(
        json!({"cacheControlFormat": "anthropic", "sendSessionAffinityHeaders": true})
            .as_object()
            .unwrap()
            .clone(),
    );
    let received = sent_cached_then_uncached(&server, request(model, "hi")).await;
    let body = |index: usize| String::from_utf8(received[index].body.clone()).unwrap();
    assert_eq!(received[0].headers["x-session-affinity"], "sess-1");
    assert!(body(0).contains("cache_control"), "{}", body(0));
    for header in ["session_id", "x-client-request-id", "x-session-affinity"] {
        assert!(received[1].headers.get(header).is_none(), "{header}");
    }
    assert!(!body(1).contains("cache_control"), "{}", body(1));
}
