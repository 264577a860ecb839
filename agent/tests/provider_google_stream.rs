//! The Google Gemini provider against the mock LLM server: streamed events and final messages
//! compared with what the reference pi 0.84.1 emitted for the same scripted responses
//! (`provider_fixtures/google_streams.json`, recorded from the reference's RPC output,
//! `message_start` left out since the reference serialises it late). The Google SDK splits
//! the body itself, so framing quirks that an SSE parser absorbs (comments, multi-line data)
//! break Gemini streams in the reference, and must here too.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod provider_common;
mod provider_reference;

use pi_rpc_protocol::message::StopReason;
use provider_common::{done, js, request, run};
use provider_reference::{Format, Recorded, server};
use serde_json::json;

const FORMAT: Format = Format {
    api: "google-generative-ai",
    base_suffix: "/v1beta",
};

fn recorded() -> Recorded {
    Recorded::new(
        FORMAT,
        include_str!("provider_fixtures/google_streams.json"),
    )
}

#[tokio::test]
async fn thoughts_and_text_stream_like_the_reference() {
    recorded().assert_streams(&["thinking_then_text"]).await;
}

#[tokio::test]
async fn text_and_parallel_function_calls_stream_like_the_reference() {
    recorded()
        .assert_streams(&["thinking_text_and_two_tool_calls"])
        .await;
}

#[tokio::test]
async fn finish_reasons_map_like_the_reference() {
    recorded()
        .assert_streams(&[
            "length",
            "safety",
            "gemini-stop-without-parts",
            "overloaded-mid-stream",
            "unicode-line-separators",
        ])
        .await;
}

#[tokio::test]
async fn body_splitting_quirks_end_like_the_reference() {
    recorded()
        .assert_streams(&[
            "gemini-cut-mid-json",
            "tool-args-control-chars",
            "keepalive-comments",
            "multiline-data",
            "cr-line-endings",
            "lf-line-endings",
            "split_bytes_7",
        ])
        .await;
}

#[tokio::test]
async fn http_and_connection_errors_are_worded_like_the_reference() {
    recorded()
        .assert_starts(&[
            ("http_429", false),
            ("http_500_no_body", false),
            ("http_502_text", false),
            ("connection-dropped", true),
            ("connection-reset-before-headers", false),
        ])
        .await;
}

#[tokio::test]
async fn byte_level_splits_give_the_same_events() {
    let framings = [
        json!({"split_bytes": 1}),
        json!({"split_bytes": 5, "line_ending": "lf"}),
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
async fn a_read_that_is_an_error_object_fails_the_stream() {
    let mock = server(json!({"responses": [{"raw": {"chunks": [
        "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"so far\"}]},\"index\":0}],\"responseId\":\"r1\"}\r\n\r\n",
        "{\"error\":{\"code\":503,\"message\":\"overloaded\",\"status\":\"UNAVAILABLE\"}}",
    ]}}]}))
    .await;
    let events = run(request(FORMAT.model(&mock.uri()), "hi")).await;
    let message = done(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some(
            r#"got status: UNAVAILABLE. {"error":{"code":503,"message":"overloaded","status":"UNAVAILABLE"}}"#
        )
    );
    assert_eq!(js(&message.content), r#"[{"type":"text","text":"so far"}]"#);
    assert_eq!(message.response_id.as_deref(), Some("r1"));
}

#[tokio::test]
async fn calls_without_ids_get_generated_ones() {
    let mock = server(json!({"responses": [{"raw": {"chunks": [
        "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"read\",\"args\":{\"path\":\"a\"}}},{\"functionCall\":{\"name\":\"read\",\"args\":{\"path\":\"b\"}}}]},\"finishReason\":\"STOP\",\"index\":0}]}\r\n\r\n",
    ]}}]}))
    .await;
    let events = run(request(FORMAT.model(&mock.uri()), "hi")).await;
    let message = done(&events);
    assert_eq!(message.stop_reason, StopReason::ToolUse);
    let ids: Vec<String> = message
        .content
        .iter()
        .map(|block| {
            serde_json::to_value(block).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert!(ids.iter().all(|id| id.starts_with("read_")), "{ids:?}");
    assert_ne!(ids[0], ids[1]);
}

#[tokio::test]
async fn an_abort_mid_stream_ends_like_the_reference() {
    recorded().assert_abort().await;
}
