//! Exact bytes of every wire format, compared with golden files (`MOCK_LLM_BLESS=1` rewrites).

mod common;

use common::{PATHS, golden, post, request_body, start};
use serde_json::json;

const CASES: &str = r#"
responses:
  - match: { last_message_text: "text" }
    text: ["Hel", "lo"]
    usage: { input: 12, output: 3 }
    repeat: true
  - match: { last_message_text: "tools" }
    content:
      - thinking: ["Let me ", "look"]
        signature: "sig-1"
      - redacted_thinking: "opaque-data"
      - text: "Reading."
      - tool_call: { id: "toolu_01", name: "read", arguments: { path: "a.txt" }, chunks: 2 }
      - tool_call: { id: "toolu_02", name: "ls", arguments: {} }
    usage: { input: 20, output: 9, cache_read: 5, cache_write: 2, reasoning: 4 }
    repeat: true
  - match: { last_message_text: "length" }
    text: "cut"
    stop: length
    repeat: true
  - match: { last_message_text: "overloaded" }
    error: { status: 529 }
    repeat: true
  - match: { last_message_text: "rate" }
    error: { status: 429, headers: { retry-after: "3" } }
    repeat: true
  - match: { last_message_text: "in-band" }
    text: ["a", "b", "c"]
    fault: { kind: error, after_chunks: 2 }
    repeat: true
"#;

fn name_of(path: &str) -> &'static str {
    if path.contains("/models/") {
        "gemini"
    } else if path.ends_with("/responses") {
        "responses"
    } else if path.ends_with("/chat/completions") {
        "chat"
    } else {
        "anthropic"
    }
}

/// Status, content type and body, with CR shown as `␍` so goldens stay plain text.
fn shown(status: u16, content_type: &str, body: &str) -> String {
    format!(
        "status: {status}\ncontent-type: {content_type}\n\n{}",
        body.replace('\r', "␍")
    )
}

async fn check_case(case: &str) {
    let server = start(CASES).await;
    for path in PATHS {
        let (status, content_type, body) = post(&server, path, &request_body(path, case)).await;
        golden(
            &format!("{}_{case}.txt", name_of(path)),
            &shown(status, &content_type, &body),
        );
    }
}

#[tokio::test]
async fn text_streams_match_golden_bytes() {
    check_case("text").await;
}

#[tokio::test]
async fn thinking_and_tool_streams_match_golden_bytes() {
    check_case("tools").await;
}

#[tokio::test]
async fn length_stops_match_golden_bytes() {
    check_case("length").await;
}

#[tokio::test]
async fn http_error_bodies_are_provider_shaped() {
    check_case("overloaded").await;
    check_case("rate").await;
}

#[tokio::test]
async fn in_band_errors_are_provider_shaped() {
    check_case("in-band").await;
}

#[tokio::test]
async fn gemini_streams_use_crlf_and_no_event_lines() {
    let server = start(CASES).await;
    let path = PATHS[3];
    let (_, _, body) = post(&server, path, &request_body(path, "text")).await;
    assert!(body.starts_with("data: {"), "{body:?}");
    assert!(body.ends_with("}\r\n\r\n"), "{body:?}");
    assert!(!body.contains("event:"));
    assert_eq!(body.matches("\r\n\r\n").count(), 2);
}

#[tokio::test]
async fn non_streaming_requests_get_whole_json_bodies() {
    let server = start(CASES).await;
    let cases = [
        (
            "/v1/messages",
            json!({"model": "m1", "max_tokens": 10, "messages": [{"role": "user", "content": "tools"}]}),
        ),
        (
            "/v1/chat/completions",
            json!({"model": "m1", "messages": [{"role": "user", "content": "tools"}]}),
        ),
        ("/v1/responses", json!({"model": "m1", "input": "tools"})),
        (
            "/v1beta/models/m1:generateContent",
            json!({"contents": [{"role": "user", "parts": [{"text": "tools"}]}]}),
        ),
    ];
    for (path, body) in cases {
        let (status, content_type, text) = post(&server, path, &body).await;
        assert_eq!(status, 200, "{path}");
        assert_eq!(content_type, "application/json", "{path}");
        let value: serde_json::Value = serde_json::from_str(&text).expect("JSON body");
        let pretty = serde_json::to_string_pretty(&value).expect("pretty");
        golden(
            &format!("{}_whole.json", name_of(path)),
            &format!("{pretty}\n"),
        );
    }
}
