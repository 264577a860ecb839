//! The OpenAI Chat Completions provider against the mock LLM server: streamed events and final
//! messages compared with what the reference pi 0.84.1 emitted for the same scripted responses
//! (`provider_fixtures/openai_completions_streams.json`, recorded from the reference's RPC
//! output, `message_start` left out since the reference serialises it late).
//!
//! Lines are compared as text, after one normalisation: the reference puts `usage.reasoning`
//! before `totalTokens`, the shared `Usage` type serialises it after `cost`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod provider_common;
mod provider_reference;

use pi_rpc_protocol::message::StopReason;
use pi_rpc_protocol::model::Model;
use provider_common::{done, js, request, run};
use provider_reference::{Format, Recorded, server};
use serde_json::json;

const FORMAT: Format = Format {
    api: "openai-completions",
    base_suffix: "/v1",
};

fn recorded() -> Recorded {
    Recorded::new(
        FORMAT,
        include_str!("provider_fixtures/openai_completions_streams.json"),
    )
}

fn model(uri: &str) -> Model {
    FORMAT.model(uri)
}

#[tokio::test]
async fn thinking_and_text_stream_like_the_reference() {
    recorded().assert_streams(&["thinking_then_text"]).await;
}

#[tokio::test]
async fn text_and_parallel_tool_calls_stream_like_the_reference() {
    recorded()
        .assert_streams(&["thinking_text_and_two_tool_calls"])
        .await;
}

#[tokio::test]
async fn finish_reasons_map_like_the_reference() {
    recorded()
        .assert_streams(&[
            "length",
            "content_filter",
            "odd_finish_reason",
            "chat-no-done",
            "chat-no-finish-reason",
        ])
        .await;
}

#[tokio::test]
async fn tool_call_index_quirks_end_like_the_reference() {
    recorded()
        .assert_lines(&[
            "chat-tool-index-missing",
            "chat-tool-index-gaps",
            "chat-tool-id-changes",
            "chat-parallel-tools-same-index",
            "tool-args-control-chars",
        ])
        .await;
}

#[tokio::test]
async fn reasoning_usage_and_unicode_variants_end_like_the_reference() {
    recorded()
        .assert_lines(&[
            "chat-reasoning-and-content-together",
            "chat-usage-variants",
            "unicode-line-separators",
        ])
        .await;
}

#[tokio::test]
async fn in_band_errors_keep_the_partial_text_like_the_reference() {
    recorded()
        .assert_streams(&["openrouter-error-chunk", "overloaded-mid-stream"])
        .await;
}

#[tokio::test]
async fn http_and_connection_errors_are_worded_like_the_reference() {
    recorded()
        .assert_starts(&[
            ("http_429", false),
            ("http_500_no_body", false),
            ("http_502_text", false),
            ("http_404_message_only", false),
            ("http_400_metadata_raw", false),
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
        json!({"comment": ": OPENROUTER PROCESSING", "line_ending": "crlf"}),
        json!({"multiline_data": true, "split_bytes": 3}),
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
async fn a_missing_key_fails_before_any_request() {
    let mock = server(json!({"responses": [{"text": "never"}]})).await;
    let mut request = request(model(&mock.uri()), "hi");
    request.auth = Ok(Default::default());
    let events = run(request).await;
    assert_eq!(events.len(), 1);
    let message = done(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("No API key for provider: mock")
    );
    assert!(mock.journal().is_empty());
}

#[tokio::test]
async fn an_error_chunk_with_upstream_detail_appends_it() {
    let mock = server(json!({"responses": [{"raw": {"chunks": [
        {"data": {"id": "c1", "choices": [{"index": 0, "delta": {"content": "so far"}, "finish_reason": null}]}},
        {"data": {"error": {"message": "Provider returned error", "code": 502,
                            "metadata": {"raw": "upstream timed out"}}}},
    ]}}]}))
    .await;
    let events = run(request(model(&mock.uri()), "hi")).await;
    let message = done(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("Provider returned error\nupstream timed out")
    );
    assert_eq!(js(&message.content), r#"[{"type":"text","text":"so far"}]"#);
}

#[tokio::test]
async fn a_chunk_that_is_not_json_fails_with_the_parse_error() {
    let mock = server(json!({"responses": [{"raw": {"chunks": [
        {"data": "{\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}"},
        {"data": "xyz"},
    ]}}]}))
    .await;
    let events = run(request(model(&mock.uri()), "hi")).await;
    let message = done(&events);
    assert_eq!(
        message.error_message.as_deref(),
        Some(r#"Unexpected token 'x', "xyz" is not valid JSON"#)
    );
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(js(&message.content), r#"[{"type":"text","text":"a"}]"#);
}

#[tokio::test]
async fn an_abort_mid_stream_ends_like_the_reference() {
    recorded().assert_abort().await;
}
