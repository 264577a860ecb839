//! What the reference pi reports for each quirk fixture (automatic retry off).
//!
//! One reference process per format; the mock loads each quirk in turn. Skipped, saying so,
//! when the reference is not installed.

#![allow(clippy::expect_used)] // helpers outside #[test] functions

mod common;

use common::reference::Pi;
use mock_llm::{MockServer, Script, quirk};
use serde_json::Value;

/// (quirk, stopReason of the first assistant message, errorMessage fragment, a fragment of its
/// content as JSON).
type Expectation = (&'static str, &'static str, &'static str, &'static str);

const ANTHROPIC: &[Expectation] = &[
    ("sse-split-mid-json", "stop", "", "Split across writes"),
    (
        "utf8-split-across-writes",
        "stop",
        "",
        "héllo wörld ✓ 🎉 日本",
    ),
    ("crlf-line-endings", "stop", "", "CRLF framed"),
    ("cr-line-endings", "stop", "", "CR framed"),
    ("keepalive-comments", "stop", "", "kept alive"),
    ("anthropic-ping-events", "stop", "", "pinged"),
    (
        "anthropic-no-event-lines",
        "error",
        "ended without a stop reason",
        "[]",
    ),
    ("multiline-data", "stop", "", "multiline"),
    (
        "unicode-line-separators",
        "stop",
        "",
        "line\u{2028}separator paragraph\u{2029}separator next\u{85}line",
    ),
    ("tool-args-control-chars", "toolUse", "", "bad \\\\q escape"),
    (
        "anthropic-no-message-stop",
        "error",
        "ended before message_stop",
        "no stop",
    ),
    (
        "overloaded-mid-stream",
        "error",
        "overloaded_error",
        "partial ",
    ),
    (
        "tool-args-single-chunk",
        "toolUse",
        "",
        "{\"path\":\"a.txt\"}",
    ),
    (
        "tool-args-char-by-char",
        "toolUse",
        "",
        "{\"path\":\"a.txt\"}",
    ),
    (
        "anthropic-no-usage-in-message-delta",
        "stop",
        "",
        "no usage",
    ),
    ("truncated-length", "length", "", "This answer was cut"),
    ("rate-limited-retry-after", "error", "429", "[]"),
    ("overloaded-529", "error", "529 {", "[]"),
    (
        "overloaded-529-no-body",
        "error",
        "529 status code (no body)",
        "[]",
    ),
    ("slow-stream", "stop", "", "slow and steady stream"),
    ("stall-mid-stream", "stop", "", "before the stall after"),
    ("connection-dropped", "error", "terminated", ""),
    (
        "connection-reset-before-headers",
        "error",
        "Connection error",
        "[]",
    ),
];

const CHAT: &[Expectation] = &[
    ("chat-no-done", "stop", "", "no DONE"),
    (
        "chat-no-finish-reason",
        "error",
        "Stream ended without finish_reason",
        "no finish",
    ),
    (
        "openrouter-error-chunk",
        "error",
        "Provider returned error",
        "partial",
    ),
    ("chat-tool-index-missing", "toolUse", "", "call_noidx"),
    ("chat-tool-index-gaps", "toolUse", "", "\"b.txt\""),
    ("chat-tool-id-changes", "toolUse", "", "call_first"),
    ("chat-parallel-tools-same-index", "toolUse", "", "call_x"),
    (
        "chat-reasoning-and-content-together",
        "stop",
        "",
        "think more",
    ),
    ("chat-usage-variants", "stop", "", "usage on finish"),
];

const RESPONSES: &[Expectation] = &[(
    "responses-no-terminal-event",
    "error",
    "before a terminal response event",
    "no terminal event",
)];

const GEMINI: &[Expectation] = &[
    (
        "gemini-cut-mid-json",
        "error",
        "Incomplete JSON segment",
        "Hello",
    ),
    ("gemini-stop-without-parts", "stop", "", "[]"),
];

async fn check(api: &str, suffix: &str, expectations: &[Expectation]) {
    let Some(launcher) = pi_reference::launcher_or_skip(&format!("{api} quirks")) else {
        return;
    };
    let server = MockServer::start(Script::reply("unused"))
        .await
        .expect("server");
    let mut pi = Pi::spawn(&launcher, api, &format!("{}{suffix}", server.uri())).await;
    let mut failures = Vec::new();
    for (name, stop, error, content) in expectations {
        let script = quirk(name).expect("quirk exists");
        // After the fixture's own responses, anything else (tool follow-ups) gets a plain answer.
        let mut value = serde_json::to_value(&script).expect("serializes");
        if let Some(list) = value["responses"].as_array_mut() {
            list.push(serde_json::json!({"text": "fallback", "repeat": true}));
        }
        server.load_script(Script::from_json_value(value, name).expect("valid"));
        let messages = pi.prompt("go").await;
        let Some(first) = messages.first() else {
            failures.push(format!("{name}: no assistant message"));
            continue;
        };
        let got_stop = first["stopReason"].as_str().unwrap_or_default();
        let got_error = first["errorMessage"].as_str().unwrap_or_default();
        let got_content = first["content"].to_string();
        let content_ok = content.is_empty()
            || got_content.contains(content)
            || (*content == "[]" && first["content"] == Value::Array(Vec::new()));
        if got_stop != *stop || !got_error.contains(error) || !content_ok {
            failures.push(format!(
                "{name}: got {got_stop} {got_error:?} {got_content}"
            ));
        }
    }
    assert!(failures.is_empty(), "{api}:\n{}", failures.join("\n"));
}

/// Bedrock: a custom provider with a key, so the AWS SDK signs with it as a bearer token.
const BEDROCK: &[Expectation] = &[
    ("sse-split-mid-json", "stop", "", "Split across writes"),
    (
        "utf8-split-across-writes",
        "stop",
        "",
        "héllo wörld ✓ 🎉 日本",
    ),
    (
        "bedrock-message-split-across-reads",
        "stop",
        "",
        "Split event-stream messages",
    ),
    (
        "bedrock-bad-crc",
        "error",
        "The message checksum (",
        "partial text",
    ),
    (
        "bedrock-exception-frame",
        "error",
        "Throttling error: Too many tokens, please wait before trying again.",
        "partial answer ",
    ),
    (
        "bedrock-error-frame",
        "error",
        "The request processing has failed because of an unknown error.",
        "partial",
    ),
    ("bedrock-throttling", "stop", "", "after throttling"),
    (
        "overloaded-mid-stream",
        "error",
        "Service unavailable: Bedrock is unable to process your request.",
        "partial ",
    ),
    ("truncated-length", "length", "", "This answer was cut"),
    ("connection-dropped", "error", "aborted", ""),
];

#[tokio::test]
async fn bedrock_quirks_behave_as_documented() {
    check("bedrock-converse-stream", "", BEDROCK).await;
}

#[tokio::test]
async fn anthropic_and_neutral_quirks_behave_as_documented() {
    check("anthropic-messages", "", ANTHROPIC).await;
}

#[tokio::test]
async fn chat_quirks_behave_as_documented() {
    check("openai-completions", "/v1", CHAT).await;
}

#[tokio::test]
async fn responses_quirks_behave_as_documented() {
    check("openai-responses", "/v1", RESPONSES).await;
}

#[tokio::test]
async fn gemini_quirks_behave_as_documented() {
    check("google-generative-ai", "/v1beta", GEMINI).await;
}

#[test]
fn every_quirk_is_checked_against_the_reference() {
    let checked: Vec<&str> = [ANTHROPIC, CHAT, RESPONSES, GEMINI, BEDROCK]
        .iter()
        .flat_map(|list| list.iter().map(|e| e.0))
        .collect();
    for name in mock_llm::quirk_names() {
        assert!(
            checked.contains(&name),
            "{name} has no reference expectation"
        );
    }
}
