//! Which response answers which request: order, matchers, use counts, exhaustion.

mod common;

use common::{post, start};
use mock_llm::Outcome;
use serde_json::json;

fn anthropic(messages: serde_json::Value) -> serde_json::Value {
    json!({"model": "claude-x", "stream": true, "max_tokens": 64, "messages": messages})
}

async fn text_of(server: &mock_llm::MockServer, body: &serde_json::Value) -> String {
    let (status, _, text) = post(server, "/v1/messages", body).await;
    assert_eq!(status, 200, "{text}");
    text.lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<serde_json::Value>(d).ok())
        .filter_map(|v| {
            v.pointer("/delta/text")
                .and_then(|t| t.as_str())
                .map(str::to_owned)
        })
        .collect()
}

#[tokio::test]
async fn responses_are_served_in_order_then_the_script_is_exhausted() {
    let server = start("responses:\n  - text: one\n  - text: two\n").await;
    let body = anthropic(json!([{"role": "user", "content": "hi"}]));
    assert_eq!(text_of(&server, &body).await, "one");
    assert_eq!(text_of(&server, &body).await, "two");
    let (status, content_type, text) = post(&server, "/v1/messages", &body).await;
    assert_eq!(status, 500);
    assert_eq!(content_type, "application/json");
    let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(value["type"], "error");
    assert_eq!(value["error"]["type"], "api_error");
    let message = value["error"]["message"].as_str().expect("message");
    assert!(message.contains("request #2"), "{message}");
    assert!(message.contains("test.yaml"), "{message}");
    assert!(message.contains("exhausted"), "{message}");
    let journal = server.journal();
    assert_eq!(journal.len(), 3);
    assert_eq!(journal[2].response_index, None);
    assert!(
        matches!(&journal[2].outcome, Outcome::Error { status: 500, message: m } if m.contains("exhausted"))
    );
}

#[tokio::test]
async fn matchers_pick_responses_regardless_of_order() {
    let server = start(
        r#"
responses:
  - match: { last_message_role: toolResult, has_tool_result: "toolu_9" }
    text: after-tool
  - match: { model: "other-model" }
    text: other-model
  - match: { last_message_pattern: "^re+gex$" }
    text: by-pattern
  - match: { request_index: 0 }
    text: first
  - match: { format: openai-completions }
    text: chat-only
  - match: { last_message_text: "plain" }
    text: by-text
"#,
    )
    .await;
    let user = |text: &str| anthropic(json!([{"role": "user", "content": text}]));
    assert_eq!(text_of(&server, &user("whatever")).await, "first");
    let tool_result = anthropic(json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_9", "name": "read", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "ok"}]}
    ]));
    assert_eq!(text_of(&server, &tool_result).await, "after-tool");
    assert_eq!(text_of(&server, &user("reeegex")).await, "by-pattern");
    assert_eq!(text_of(&server, &user("some plain words")).await, "by-text");
    let mut other = user("x");
    other["model"] = json!("other-model");
    assert_eq!(text_of(&server, &other).await, "other-model");
    let chat =
        json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "x"}]});
    let (status, _, text) = post(&server, "/v1/chat/completions", &chat).await;
    assert_eq!(status, 200);
    assert!(text.contains("\"content\":\"chat-only\""), "{text}");
    let indexes: Vec<Option<usize>> = server.journal().iter().map(|e| e.response_index).collect();
    assert_eq!(
        indexes,
        vec![Some(3), Some(0), Some(2), Some(5), Some(1), Some(4)]
    );
}

#[tokio::test]
async fn an_unmatched_request_fails_loudly_and_names_the_request() {
    let server = start("responses:\n  - match: { last_message_text: never }\n    text: x\n").await;
    let body = anthropic(json!([{"role": "user", "content": "hello"}]));
    let (status, _, text) = post(&server, "/v1/messages", &body).await;
    assert_eq!(status, 500);
    assert!(
        text.contains("no response with uses left matches"),
        "{text}"
    );
    assert!(text.contains("request #0"), "{text}");
    assert!(text.contains("hello"), "{text}");
}

#[tokio::test]
async fn times_and_repeat_control_how_often_a_response_is_used() {
    let server =
        start("responses:\n  - text: twice\n    times: 2\n  - text: forever\n    repeat: true\n")
            .await;
    let body = anthropic(json!([{"role": "user", "content": "hi"}]));
    let mut seen = Vec::new();
    for _ in 0..5 {
        seen.push(text_of(&server, &body).await);
    }
    assert_eq!(seen, ["twice", "twice", "forever", "forever", "forever"]);
    server.reset();
    assert_eq!(text_of(&server, &body).await, "twice");
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn tool_results_are_recognised_in_every_format() {
    let script = r#"
responses:
  - match: { has_tool_result: "call_1", last_message_role: toolResult }
    text: ok
    repeat: true
"#;
    let server = start(script).await;
    let cases = [
        (
            "/v1/chat/completions",
            json!({"model": "m", "stream": true, "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "done"}]}),
        ),
        (
            "/v1/responses",
            json!({"model": "m", "stream": true, "input": [
            {"role": "user", "content": [{"type": "input_text", "text": "go"}]},
            {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "done"}]}),
        ),
        (
            "/v1beta/models/m:streamGenerateContent?alt=sse",
            json!({"contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}, "id": "call_1"}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "f", "id": "call_1", "response": {"output": "done"}}}]}]}),
        ),
    ];
    for (path, body) in cases {
        let (status, _, text) = post(&server, path, &body).await;
        assert_eq!(status, 200, "{path}: {text}");
    }
}
