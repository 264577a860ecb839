//! Acceptance: the reference pi's own provider layer accepts every rendering.
//!
//! Runs the reference pi 0.84.1 (`$PI_REFERENCE`, else `~/.cache/pi-reference/bin/pi`) in RPC
//! mode against the mock for each of the four wire formats, for text, thinking, tool calls and
//! errors, and checks the assistant messages it reports. Skipped, saying so, when the reference
//! is not installed.

#![allow(clippy::expect_used)] // helpers outside #[test] functions

mod common;

use common::reference::Pi;
use mock_llm::{MockServer, Script};
use serde_json::json;

const SCRIPT: &str = r#"
responses:
  - match: { last_message_text: "say-text" }
    text: ["Hello ", "from ", "the mock"]
    usage: { input: 21, output: 7 }
  - match: { last_message_text: "use-tool" }
    content:
      - thinking: ["Let me ", "read it"]
        signature: "sig-abc"
      - text: "Reading."
      - tool_call: { id: "call_01", name: "read", arguments: { path: "a.txt" }, chunks: 3 }
  - match: { last_message_role: toolResult, has_tool_result: "call_01" }
    text: "The file says hello"
  - match: { last_message_text: "cut-short" }
    text: "This was cut"
    stop: length
  - match: { last_message_text: "break-mid" }
    text: ["one ", "two ", "three"]
    fault: { kind: error, after_chunks: 2, message: "mock broke mid-stream" }
  - match: { last_message_text: "fail-now" }
    error: { status: 400, message: "mock says no" }
"#;

async fn check_format(api: &str, suffix: &str, expected_path: &str) {
    let Some(launcher) = pi_reference::launcher_or_skip(api) else {
        return;
    };
    let script = Script::from_yaml_str(SCRIPT, "reference_pi.rs").expect("script");
    let server = MockServer::start(script).await.expect("server");
    let mut pi = Pi::spawn(&launcher, api, &format!("{}{suffix}", server.uri())).await;

    let text = pi.prompt("say-text").await;
    assert_eq!(text.len(), 1, "{text:?}");
    assert_eq!(
        text[0]["content"].as_array().map(Vec::len),
        Some(1),
        "{api}"
    );
    assert_eq!(text[0]["content"][0]["type"], "text", "{api}");
    assert_eq!(
        text[0]["content"][0]["text"], "Hello from the mock",
        "{api}"
    );
    assert_eq!(text[0]["stopReason"], "stop", "{api}");
    assert_eq!(text[0]["usage"]["input"], 21, "{api}");
    assert_eq!(text[0]["usage"]["output"], 7, "{api}");

    let tool = pi.prompt("use-tool").await;
    assert_eq!(tool.len(), 2, "{api}: {tool:?}");
    let content = tool[0]["content"].as_array().expect("content");
    assert_eq!(content.len(), 3, "{api}: {content:?}");
    assert_eq!(content[0]["type"], "thinking", "{api}");
    assert_eq!(content[0]["thinking"], "Let me read it", "{api}");
    assert_eq!(content[1]["text"], "Reading.", "{api}");
    assert_eq!(content[2]["type"], "toolCall", "{api}");
    assert_eq!(content[2]["name"], "read", "{api}");
    assert_eq!(content[2]["arguments"], json!({"path": "a.txt"}), "{api}");
    let id = content[2]["id"].as_str().expect("id");
    assert!(id == "call_01" || id.starts_with("call_01|"), "{api}: {id}");
    assert_eq!(tool[0]["stopReason"], "toolUse", "{api}");
    assert_eq!(
        tool[1]["content"][0]["text"], "The file says hello",
        "{api}"
    );
    assert_eq!(tool[1]["stopReason"], "stop", "{api}");

    let cut = pi.prompt("cut-short").await;
    assert_eq!(cut.len(), 1, "{cut:?}");
    assert_eq!(cut[0]["stopReason"], "length", "{api}");
    assert_eq!(cut[0]["content"][0]["text"], "This was cut", "{api}");

    let broken = pi.prompt("break-mid").await;
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert_eq!(broken[0]["stopReason"], "error", "{api}");
    let message = broken[0]["errorMessage"].as_str().expect("errorMessage");
    // Gemini's client ignores in-band error chunks and reports the missing finish reason.
    assert!(
        message.contains("mock broke mid-stream") || message.contains("without a finish reason"),
        "{api}: {message}"
    );

    let failed = pi.prompt("fail-now").await;
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(failed[0]["stopReason"], "error", "{api}");
    let message = failed[0]["errorMessage"].as_str().expect("errorMessage");
    assert!(message.contains("mock says no"), "{api}: {message}");

    let journal = server.journal();
    assert_eq!(journal.len(), 6, "{api}");
    assert!(
        journal.iter().all(|e| e.path == expected_path),
        "{api}: {:?}",
        journal.iter().map(|e| &e.path).collect::<Vec<_>>()
    );
    assert!(
        journal
            .iter()
            .all(|e| e.headers.values().all(|v| !v.contains("mock-key")))
    );
}

#[tokio::test]
async fn the_reference_accepts_anthropic_messages() {
    check_format("anthropic-messages", "", "/v1/messages").await;
}

#[tokio::test]
async fn the_reference_accepts_openai_completions() {
    check_format("openai-completions", "/v1", "/v1/chat/completions").await;
}

#[tokio::test]
async fn the_reference_accepts_openai_responses() {
    check_format("openai-responses", "/v1", "/v1/responses").await;
}

#[tokio::test]
async fn the_reference_accepts_google_generative_ai() {
    check_format(
        "google-generative-ai",
        "/v1beta",
        "/v1beta/models/mock-model-1:streamGenerateContent",
    )
    .await;
}
