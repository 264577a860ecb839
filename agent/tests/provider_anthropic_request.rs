//! The Anthropic request as sent over HTTP: bodies compared byte for byte with what the
//! reference pi 0.84.1 sent for the same conversation (`provider_fixtures/anthropic_requests.json`,
//! recorded from the mock server's journal; the system prompt is replaced by a text of the same
//! length, since its length feeds the context estimate), and the headers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod provider_common;

use pi_agent::provider::anthropic::request_body;
use pi_rpc_protocol::message::StopReason;
use pi_rpc_protocol::model::ThinkingLevel;
use provider_common::{
    assert_case_body, case_request, done, js, model, request, run, sent_cached_then_uncached,
    sse_server, tools,
};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer};

const REPLY: &str = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":10,\"output_tokens\":1,\"cache_read_input_tokens\":0,\"cache_creation_input_tokens\":0}}}\n\nevent: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\nevent: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"ok\"}}\n\nevent: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\nevent: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":2}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

async fn server() -> MockServer {
    sse_server(Mock::given(method("POST")).and(path("/v1/messages")), REPLY).await
}

fn fixtures() -> Value {
    serde_json::from_str(include_str!("provider_fixtures/anthropic_requests.json")).unwrap()
}

#[tokio::test]
async fn request_bodies_match_the_reference_byte_for_byte() {
    let fixtures = fixtures();
    for case in fixtures["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let expected = js(&case["body"]);
        let request = case_request(&fixtures, case, "http://127.0.0.1:9");
        assert_eq!(js(&request_body(&request)), expected, "{name}");
        assert_case_body(&fixtures, case, &server().await, "").await;
    }
}

#[tokio::test]
async fn headers_carry_the_key_version_and_betas_and_model_headers_win() {
    let server = server().await;
    let mut model = model(&server.uri());
    model.headers = Some(
        json!({"x-custom": "yes", "anthropic-version": "2099-01-01"})
            .as_object()
            .unwrap()
            .clone(),
    );
    run(request(model, "hi")).await;
    let received = server.received_requests().await.unwrap();
    let header = |name: &str| {
        received[0]
            .headers
            .get(name)
            .map(|value| value.to_str().unwrap().to_owned())
    };
    assert_eq!(header("x-api-key").as_deref(), Some("mock-key"));
    assert_eq!(header("anthropic-version").as_deref(), Some("2099-01-01"));
    assert_eq!(
        header("anthropic-beta").as_deref(),
        Some("interleaved-thinking-2025-05-14")
    );
    assert_eq!(header("content-type").as_deref(), Some("application/json"));
    assert_eq!(header("accept").as_deref(), Some("application/json"));
    assert_eq!(header("x-custom").as_deref(), Some("yes"));
    assert_eq!(header("authorization"), None);
}

#[tokio::test]
async fn a_header_with_a_key_replaces_the_api_key() {
    let server = server().await;
    let mut model = model(&format!("{}/", server.uri()));
    model.headers = Some(
        json!({"Authorization": "Bearer from-config"})
            .as_object()
            .unwrap()
            .clone(),
    );
    let mut request = request(model, "hi");
    request.auth = Ok(Default::default());
    let events = run(request).await;
    assert_eq!(done(&events).stop_reason, StopReason::Stop);
    let received = server.received_requests().await.unwrap();
    assert_eq!(received[0].url.path(), "/v1/messages");
    assert_eq!(
        received[0].headers.get("authorization").unwrap(),
        "Bearer from-config"
    );
    assert!(received[0].headers.get("x-api-key").is_none());
}

#[test]
fn adaptive_thinking_models_send_an_effort_and_no_budget() {
    let mut model = model("http://127.0.0.1:9");
    model.compat = Some(
        json!({"forceAdaptiveThinking": true})
            .as_object()
            .unwrap()
            .clone(),
    );
    model.thinking_level_map = Some(json!({"xhigh": "xhigh"}).as_object().unwrap().clone());
    let mut request = request(model, "hi");
    for (level, effort) in [
        (ThinkingLevel::Minimal, "low"),
        (ThinkingLevel::Medium, "medium"),
        (ThinkingLevel::Xhigh, "xhigh"),
        (ThinkingLevel::Max, "high"),
    ] {
        request.thinking_level = level;
        let body = request_body(&request);
        assert_eq!(body["max_tokens"], 8192);
        assert_eq!(
            body["thinking"],
            json!({"type": "adaptive", "display": "summarized"})
        );
        assert_eq!(body["output_config"], json!({"effort": effort}));
    }
}

#[test]
fn a_subscription_token_speaks_as_claude_code() {
    let mut request = request(model("http://127.0.0.1:9"), "hi");
    request.auth = Ok(pi_agent::config::RequestAuth {
        api_key: Some("sk-ant-oat01-secret".to_owned()),
        ..Default::default()
    });
    request.tools = tools(&[json!({
        "name": "read", "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    })]);
    let body = request_body(&request);
    assert_eq!(
        body["system"],
        json!([
            {"type": "text", "text": "You are Claude Code, Anthropic's official CLI for Claude.", "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "You are a test.", "cache_control": {"type": "ephemeral"}},
        ])
    );
    assert_eq!(body["tools"][0]["name"], "Read");
}

#[test]
fn foreign_history_is_normalised_for_anthropic() {
    let mut request = request(model("http://127.0.0.1:9"), "hi");
    let usage = json!({"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,
        "cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}});
    request.messages = provider_common::shared(serde_json::from_value(json!([
        {"role":"user","content":"  ","timestamp":1},
        {"role":"user","content":"question","timestamp":2},
        {"role":"assistant","content":[
            {"type":"thinking","thinking":"reasoning","thinkingSignature":"rs_1"},
            {"type":"toolCall","id":"call_1|fc_1","name":"read","arguments":{"path":"a"}}],
         "api":"openai-responses","provider":"openai","model":"gpt-5","usage":usage,"stopReason":"toolUse","timestamp":3},
        {"role":"toolResult","toolCallId":"call_1|fc_1","toolName":"read",
         "content":[{"type":"image","data":"AAAA","mimeType":"image/png"}],"isError":false,"timestamp":4},
    ]))
    .unwrap());
    request.model.input = vec!["text".to_owned(), "image".to_owned()];
    let body = request_body(&request);
    assert_eq!(
        body["messages"],
        json!([
            {"role":"user","content":"question"},
            {"role":"assistant","content":[
                {"type":"text","text":"reasoning"},
                {"type":"tool_use","id":"call_1_fc_1","name":"read","input":{"path":"a"}}]},
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1_fc_1","content":[
                {"type":"text","text":"(see attached image)"},
                {"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}],
              "is_error":false,"cache_control":{"type":"ephemeral"}}]},
        ])
    );
}

#[tokio::test]
async fn caching_off_sends_no_cache_control_and_no_session_affinity() {
    let server = server().await;
    let mut model = model(&server.uri());
    model.compat = Some(
        json!({"sendSessionAffinityHeaders": true})
            .as_object()
            .unwrap()
            .clone(),
    );
    let mut request = request(model, "hi");
    request.tools = tools(&[json!({"name": "read", "description": "Read a file",
        "parameters": {"type": "object", "properties": {}}})]);
    let received = sent_cached_then_uncached(&server, request).await;
    let body = |index: usize| String::from_utf8(received[index].body.clone()).unwrap();
    assert_eq!(received[0].headers["x-session-affinity"], "sess-1");
    assert_eq!(body(0).matches("\"cache_control\"").count(), 3);
    assert!(received[1].headers.get("x-session-affinity").is_none());
    assert!(!body(1).contains("cache_control"), "{}", body(1));
    let sent: Value = serde_json::from_str(&body(1)).unwrap();
    assert_eq!(
        sent["system"],
        json!([{"type": "text", "text": "You are a test."}])
    );
    assert_eq!(
        sent["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "hi"}]}])
    );
}

#[tokio::test]
async fn a_long_history_is_sent_in_pieces_with_its_length_and_the_same_bytes() {
    let server = server().await;
    let mut request = request(model(&server.uri()), "hi");
    // About 600 KiB of history: several pieces of the streamed body, tool results grouped.
    let mut history = Vec::new();
    for turn in 0..200 {
        history.push(json!({"role": "user", "content": format!("question {turn} {}", "q".repeat(1000)), "timestamp": 1}));
        history.push(json!({"role": "assistant", "content": [
            {"type": "text", "text": "a".repeat(1500)},
            {"type": "toolCall", "id": format!("call_{turn}"), "name": "read", "arguments": {"path": "x"}}],
            "api": "anthropic-messages", "provider": "mock", "model": "mock-model-1",
            "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "toolUse", "timestamp": 2}));
        history.push(json!({"role": "toolResult", "toolCallId": format!("call_{turn}"), "toolName": "read",
            "content": [{"type": "text", "text": "r".repeat(500)}], "isError": false, "timestamp": 3}));
    }
    history.push(json!({"role": "user", "content": "last", "timestamp": 4}));
    request.messages = provider_common::shared(serde_json::from_value(json!(history)).unwrap());
    let expected = js(&request_body(&request));
    assert!(expected.len() > 500_000);
    let events = run(request).await;
    assert_eq!(done(&events).stop_reason, StopReason::Stop);
    let received = server.received_requests().await.unwrap();
    assert_eq!(String::from_utf8_lossy(&received[0].body), expected);
    assert_eq!(
        received[0]
            .headers
            .get("content-length")
            .unwrap()
            .to_str()
            .unwrap(),
        expected.len().to_string()
    );
    assert!(received[0].headers.get("transfer-encoding").is_none());
}
