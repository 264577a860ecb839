//! The OpenAI Responses provider against the mock LLM server: streamed events and final
//! messages compared with what the reference pi 0.84.1 emitted for the same scripted responses
//! (`provider_fixtures/openai_responses_streams.json`, recorded from the reference's RPC
//! output, `message_start` left out since the reference serialises it late).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod provider_common;
mod provider_reference;

use pi_rpc_protocol::message::StopReason;
use provider_common::{done, js, request, run};
use provider_reference::{Format, Recorded, server};
use serde_json::{Value, json};

const FORMAT: Format = Format {
    api: "openai-responses",
    base_suffix: "/v1",
};

fn recorded() -> Recorded {
    Recorded::new(
        FORMAT,
        include_str!("provider_fixtures/openai_responses_streams.json"),
    )
}

#[tokio::test]
async fn reasoning_and_text_stream_like_the_reference() {
    recorded().assert_streams(&["thinking_then_text"]).await;
}

#[tokio::test]
async fn text_and_parallel_function_calls_stream_like_the_reference() {
    recorded()
        .assert_streams(&["thinking_text_and_two_tool_calls"])
        .await;
}

#[tokio::test]
async fn terminal_events_map_like_the_reference() {
    recorded()
        .assert_streams(&[
            "length",
            "failed",
            "responses-no-terminal-event",
            "tool-args-control-chars",
            "unicode-line-separators",
        ])
        .await;
}

#[tokio::test]
async fn an_error_event_keeps_the_partial_message_like_the_reference() {
    recorded().assert_streams(&["overloaded-mid-stream"]).await;
}

#[tokio::test]
async fn http_and_connection_errors_are_worded_like_the_reference() {
    recorded()
        .assert_starts(&[
            ("http_429", false),
            ("http_500_no_body", false),
            ("http_502_text", false),
            ("http_404_message_only", false),
            ("connection-dropped", true),
            ("connection-reset-before-headers", false),
        ])
        .await;
}

#[tokio::test]
async fn every_framing_quirk_gives_the_same_events() {
    let framings = [
        json!({"split_bytes": 1}),
        json!({"split_bytes": 7, "line_ending": "crlf"}),
        json!({"split_bytes": 5, "line_ending": "cr"}),
        json!({"comment": ": keep-alive", "line_ending": "crlf"}),
        json!({"multiline_data": true, "split_bytes": 3}),
        json!({"no_event_lines": true}),
        json!({"coalesce": true}),
    ];
    recorded()
        .assert_framings(
            &["thinking_then_text", "thinking_text_and_two_tool_calls"],
            &framings,
        )
        .await;
}

#[tokio::test]
async fn incomplete_responses_and_failures_without_details_are_errors() {
    let events = [
        json!({"type": "response.created", "response": {"id": "resp_1"}}),
        json!({"type": "response.output_item.added", "output_index": 0,
               "item": {"type": "message", "id": "msg_1", "content": []}}),
        json!({"type": "response.output_text.delta", "output_index": 0, "delta": "cut"}),
        json!({"type": "response.incomplete", "response": {"id": "resp_1", "status": "incomplete",
               "incomplete_details": {"reason": "content_filter"}}}),
    ];
    let chunks: Vec<Value> = events
        .iter()
        .map(|data| json!({"event": data["type"], "data": data}))
        .collect();
    let mock = server(json!({"responses": [
        {"raw": {"chunks": chunks}},
        {"raw": {"chunks": [
            {"event": "response.failed", "data": {"type": "response.failed", "response": {"status": "failed"}}},
        ]}},
    ]}))
    .await;
    let events = run(request(FORMAT.model(&mock.uri()), "hi")).await;
    let message = done(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("Response incomplete: content_filter")
    );
    assert_eq!(
        message.raw_stop_reason.as_deref(),
        Some("incomplete.content_filter")
    );
    assert_eq!(js(&message.content[0]), r#"{"type":"text","text":"cut"}"#);
    let events = run(request(FORMAT.model(&mock.uri()), "hi")).await;
    let message = done(&events);
    assert_eq!(
        message.error_message.as_deref(),
        Some("Unknown error (no error details in response)")
    );
    assert_eq!(message.raw_stop_reason.as_deref(), Some("failed"));
}

#[tokio::test]
async fn an_abort_mid_stream_ends_like_the_reference() {
    recorded().assert_abort().await;
}
