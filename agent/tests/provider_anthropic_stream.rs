//! The Anthropic provider against the mock LLM server: streamed events and final messages
//! compared with what the reference pi 0.84.1 emitted for the same scripted responses
//! (`provider_fixtures/anthropic_streams.json`, recorded from the reference's RPC output).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod provider_common;
mod provider_reference;

use mock_llm::MockServer;
use pi_agent::provider::ProviderEvent;
use pi_rpc_protocol::message::StopReason;
use provider_common::{as_rpc_lines, done, js, model, request, run, started};
use provider_reference::{Format, server};
use serde_json::{Value, json};

const FORMAT: Format = Format {
    api: "anthropic-messages",
    base_suffix: "",
};

fn fixtures() -> Value {
    serde_json::from_str(include_str!("provider_fixtures/anthropic_streams.json")).unwrap()
}

/// Runs a case's script (with `framing` on its first response), compares our lines with the
/// reference's and checks that the stream began with `Start`.
async fn assert_stream_matches_reference(case: &Value, framing: Option<Value>) {
    let began = provider_reference::assert_matches_reference(FORMAT, case, framing).await;
    assert!(began, "case {} does not begin with Start", case["name"]);
}

#[tokio::test]
async fn thinking_and_text_stream_like_the_reference() {
    let fixtures = fixtures();
    assert_stream_matches_reference(&fixtures["streams"][0], None).await;
}

#[tokio::test]
async fn tool_calls_stream_like_the_reference() {
    let fixtures = fixtures();
    assert_stream_matches_reference(&fixtures["streams"][1], None).await;
}

#[tokio::test]
async fn redacted_thinking_cache_usage_refusal_and_truncation_end_like_the_reference() {
    let fixtures = fixtures();
    for case in &fixtures["streams"].as_array().unwrap()[2..] {
        assert_stream_matches_reference(case, None).await;
    }
}

#[tokio::test]
async fn every_framing_quirk_gives_the_same_events() {
    let fixtures = fixtures();
    let framings = [
        json!({"split_bytes": 1}),
        json!({"split_bytes": 7, "line_ending": "crlf"}),
        json!({"split_bytes": 5, "line_ending": "cr"}),
        json!({"comment": ": ping", "line_ending": "crlf"}),
        json!({"multiline_data": true, "split_bytes": 3}),
        json!({"coalesce": true}),
    ];
    // Raw responses are written as scripted; framing applies to the rendered ones.
    let rendered = fixtures["streams"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|case| case["script"]["responses"][0].get("raw").is_none());
    for case in rendered {
        for framing in &framings {
            assert_stream_matches_reference(case, Some(framing.clone())).await;
        }
    }
}

#[tokio::test]
async fn failures_end_with_the_reference_error_messages() {
    let fixtures = fixtures();
    let failures = &fixtures["failures"];
    let mock = server(failures["script"].clone()).await;
    // Whether the provider accepted the request (HTTP 2xx): only then does `Start` come.
    let accepted = [
        false, false, true, true, true, true, false, true, true, false,
    ];
    let ends = failures["ends"].as_array().unwrap();
    assert_eq!(ends.len(), accepted.len());
    for (expected, accepted) in ends.iter().zip(accepted) {
        let events = run(request(model(&mock.uri()), "hi")).await;
        let line = &as_rpc_lines(&events)[events.len() - 1];
        assert_eq!(js(line), expected.as_str().unwrap());
        assert_eq!(started(&events), accepted, "{expected}");
    }
}

#[tokio::test]
async fn an_in_band_error_keeps_the_partial_text() {
    let mock = server(json!({"responses": [{
        "text": ["Hel", "lo"],
        "fault": {"kind": "error", "after_chunks": 4, "type": "overloaded_error", "message": "Overloaded"},
    }]}))
    .await;
    let events = run(request(model(&mock.uri()), "hi")).await;
    let message = done(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        js(&message.content),
        r#"[{"type":"text","text":"Hel"}]"#,
        "no scratch fields remain"
    );
    assert!(
        message.error_message.as_deref().unwrap().starts_with(
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}"#
        ),
        "{message:?}"
    );
}

#[tokio::test]
async fn tool_arguments_with_raw_control_characters_are_repaired() {
    let mock = server(json!({"responses": [{
        "content": [{"tool_call": {"id": "toolu_1", "name": "bash",
            "arguments_raw": "{\"command\": \"printf 'a\tb'\", \"path\": \"C:\\dir\"}", "chunks": 4}}],
        "stop": "tool_use",
    }]}))
    .await;
    let events = run(request(model(&mock.uri()), "hi")).await;
    let message = done(&events);
    assert_eq!(message.stop_reason, StopReason::ToolUse);
    assert_eq!(
        js(&message.content),
        r#"[{"type":"toolCall","id":"toolu_1","name":"bash","arguments":{"command":"printf 'a\tb'","path":"C:\\dir"}}]"#
    );
}

#[tokio::test]
async fn a_utf8_character_split_across_reads_survives() {
    let mock = server(json!({"responses": [{
        "text": "h\u{e9}llo \u{1f600} \u{2028}!",
        "framing": {"split_bytes": 1},
    }]}))
    .await;
    let events = run(request(model(&mock.uri()), "hi")).await;
    let message = done(&events);
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(
        js(&message.content),
        "[{\"type\":\"text\",\"text\":\"h\u{e9}llo \u{1f600} \u{2028}!\"}]"
    );
}

#[tokio::test]
async fn a_missing_key_fails_before_any_request() {
    let mock = server(json!({"responses": [{"text": "never"}]})).await;
    let mut request = request(model(&mock.uri()), "hi");
    request.auth = Ok(Default::default());
    let events = run(request).await;
    assert!(!started(&events));
    assert_eq!(
        done(&events).error_message.as_deref(),
        Some("No API key for provider: mock")
    );
    assert_eq!(mock.request_count(), 0);
}

#[tokio::test]
async fn an_unknown_api_fails_with_the_reference_message() {
    let mut model = model("http://127.0.0.1:9");
    model.api = "carrier-pigeon".to_owned();
    let events = run(request(model, "hi")).await;
    assert_eq!(events.len(), 1);
    let message = done(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(
        message.error_message.as_deref(),
        Some("No API provider registered for api: carrier-pigeon")
    );
}

/// A body whose first write is the message start, a text block and its first delta; then the
/// stream waits at gate `g` before the rest.
fn gated_text() -> Value {
    let first = concat!(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_g\",\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"He\"}}\n\n",
    );
    let rest = concat!(
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"llo\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    );
    json!({"responses": [{"raw": {"chunks": [first, {"gate": "g"}, rest]}}]})
}

#[tokio::test]
async fn start_comes_with_the_first_delta_and_holds_the_first_block() {
    let mock = server(gated_text()).await;
    let http = reqwest::Client::new();
    let mut rx = pi_agent::provider::stream(
        &http,
        request(model(&mock.uri()), "hi"),
        tokio_util::sync::CancellationToken::new(),
    );
    let first = tokio::time::timeout(provider_common::TIMEOUT, rx.recv())
        .await
        .unwrap()
        .unwrap();
    mock.release_gate("g").unwrap();
    let mut events = vec![first];
    events.extend(provider_common::collect(rx).await);
    let lines: Vec<String> = as_rpc_lines(&events).iter().map(js).collect();
    assert_eq!(
        lines[0],
        r#"{"type":"message_start","message":{"role":"assistant","content":[{"type":"text","text":"He","index":0}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":11,"cost":{"input":0.00003,"output":0.000015,"cacheRead":0,"cacheWrite":0,"total":0.000045},"cacheWrite1h":0},"stopReason":"pending","timestamp":0,"responseId":"msg_g"}}"#
    );
    assert_eq!(
        lines[1..].to_vec(),
        vec![
            r#"{"type":"message_update","assistantMessageEvent":{"type":"text_start","contentIndex":0}}"#,
            r#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"He"}}"#,
            r#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"llo"}}"#,
            r#"{"type":"message_update","assistantMessageEvent":{"type":"text_end","contentIndex":0,"content":"Hello"}}"#,
            r#"{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"Hello"}],"api":"anthropic-messages","provider":"mock","model":"mock-model-1","usage":{"input":10,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":12,"cost":{"input":0.00003,"output":0.00003,"cacheRead":0,"cacheWrite":0,"total":0.00006},"cacheWrite1h":0},"stopReason":"stop","timestamp":0,"responseId":"msg_g","rawStopReason":"end_turn"}}"#,
        ]
    );
}

/// Waits until the journal's first entry satisfies `done`.
async fn wait_for_outcome(mock: &MockServer, done: impl Fn(&mock_llm::Outcome) -> bool) {
    let wait = async {
        loop {
            if mock
                .journal()
                .first()
                .is_some_and(|entry| done(&entry.outcome))
            {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(provider_common::TIMEOUT, wait)
        .await
        .unwrap_or_else(|_| panic!("journal: {:?}", mock.journal()));
}

#[tokio::test]
async fn abort_while_streaming_closes_the_connection_and_keeps_the_text() {
    let mock = server(gated_text()).await;
    let http = reqwest::Client::new();
    let cancel = tokio_util::sync::CancellationToken::new();
    let mut rx =
        pi_agent::provider::stream(&http, request(model(&mock.uri()), "hi"), cancel.clone());
    let mut events = Vec::new();
    // Start, text_start and the first delta come before the gate.
    let mut deltas = 0;
    while deltas < 2 {
        let event = tokio::time::timeout(provider_common::TIMEOUT, rx.recv())
            .await
            .unwrap()
            .unwrap();
        if let ProviderEvent::Deltas(batch) = &event {
            deltas += batch.len();
        }
        events.push(event);
    }
    assert_eq!(deltas, 2, "nothing beyond the gate: {events:?}");
    mock.wait_for_gate("g", provider_common::TIMEOUT)
        .await
        .unwrap();
    cancel.cancel();
    events.extend(provider_common::collect(rx).await);
    let message = done(&events);
    assert_eq!(message.stop_reason, StopReason::Aborted);
    assert_eq!(
        message.error_message.as_deref(),
        Some("This operation was aborted")
    );
    assert_eq!(js(&message.content), r#"[{"type":"text","text":"He"}]"#);
    assert_eq!(message.response_id.as_deref(), Some("msg_g"));
    wait_for_outcome(&mock, |outcome| {
        matches!(outcome, mock_llm::Outcome::ClientDisconnected { .. })
    })
    .await;
}

#[tokio::test]
async fn abort_before_the_response_says_request_aborted_without_start() {
    let mock = server(json!({"responses": [{"text": "late", "gate": "h"}]})).await;
    let http = reqwest::Client::new();
    let cancel = tokio_util::sync::CancellationToken::new();
    let rx = pi_agent::provider::stream(&http, request(model(&mock.uri()), "hi"), cancel.clone());
    // The call runs while its stream is read.
    let events = tokio::spawn(provider_common::collect(rx));
    mock.wait_for_gate("h", provider_common::TIMEOUT)
        .await
        .unwrap();
    cancel.cancel();
    let events = events.await.unwrap();
    assert_eq!(events.len(), 1, "{events:?}");
    let message = done(&events);
    assert_eq!(message.stop_reason, StopReason::Aborted);
    assert_eq!(message.error_message.as_deref(), Some("Request aborted"));
    assert_eq!(js(&message.content), "[]");
}

#[tokio::test]
async fn a_cancelled_token_sends_nothing() {
    let mock = server(json!({"responses": [{"text": "never"}]})).await;
    let http = reqwest::Client::new();
    let cancel = tokio_util::sync::CancellationToken::new();
    cancel.cancel();
    let rx = pi_agent::provider::stream(&http, request(model(&mock.uri()), "hi"), cancel);
    let events = provider_common::collect(rx).await;
    assert_eq!(
        done(&events).error_message.as_deref(),
        Some("Request aborted")
    );
    assert_eq!(mock.request_count(), 0);
}

fn with_idle_timeout(millis: u64) -> pi_agent::provider::StreamOptions {
    pi_agent::provider::StreamOptions {
        idle_timeout: Some(std::time::Duration::from_millis(millis)),
        ..pi_agent::provider::StreamOptions::default()
    }
}

#[tokio::test]
async fn a_stalled_body_ends_as_terminated_after_the_idle_timeout() {
    let mock = server(json!({"responses": [{
        "text": ["Hel", "lo"],
        "fault": {"kind": "stall", "after_chunks": 4},
    }]}))
    .await;
    let http = reqwest::Client::new();
    let rx = pi_agent::provider::stream_with(
        &http,
        request(model(&mock.uri()), "hi"),
        with_idle_timeout(500),
        tokio_util::sync::CancellationToken::new(),
    );
    let events = provider_common::collect(rx).await;
    let message = done(&events);
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(message.error_message.as_deref(), Some("terminated"));
    assert_eq!(js(&message.content), r#"[{"type":"text","text":"Hel"}]"#);
}

#[tokio::test]
async fn late_headers_end_as_request_timed_out() {
    let mock = server(json!({"responses": [{"text": "late", "gate": "never"}]})).await;
    let http = reqwest::Client::new();
    let rx = pi_agent::provider::stream_with(
        &http,
        request(model(&mock.uri()), "hi"),
        with_idle_timeout(200),
        tokio_util::sync::CancellationToken::new(),
    );
    let events = provider_common::collect(rx).await;
    assert!(!started(&events));
    assert_eq!(
        done(&events).error_message.as_deref(),
        Some("Request timed out.")
    );
}

#[tokio::test]
async fn dropping_the_receiver_closes_the_connection() {
    let mock = server(gated_text()).await;
    let http = reqwest::Client::new();
    let mut rx = pi_agent::provider::stream(
        &http,
        request(model(&mock.uri()), "hi"),
        tokio_util::sync::CancellationToken::new(),
    );
    let first = tokio::time::timeout(provider_common::TIMEOUT, rx.recv()).await;
    assert!(matches!(first, Ok(Some(ProviderEvent::Start(_)))));
    mock.wait_for_gate("g", provider_common::TIMEOUT)
        .await
        .unwrap();
    drop(rx);
    mock.release_gate("g").unwrap();
    wait_for_outcome(&mock, |outcome| {
        !matches!(outcome, mock_llm::Outcome::InProgress)
    })
    .await;
}

#[tokio::test]
async fn start_goes_out_when_the_body_goes_quiet_before_any_block() {
    let first = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_q\",\"usage\":{\"input_tokens\":4,\"output_tokens\":1}}}\n\n";
    let rest = concat!(
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    );
    let mock =
        server(json!({"responses": [{"raw": {"chunks": [first, {"gate": "g"}, rest]}}]})).await;
    let http = reqwest::Client::new();
    let mut rx = pi_agent::provider::stream(
        &http,
        request(model(&mock.uri()), "hi"),
        tokio_util::sync::CancellationToken::new(),
    );
    // The gate holds the rest back until `Start` has been seen.
    let first = tokio::time::timeout(provider_common::TIMEOUT, rx.recv())
        .await
        .unwrap()
        .unwrap();
    let ProviderEvent::Start(start) = &first else {
        panic!("not a start: {first:?}");
    };
    assert_eq!(js(&start.content), "[]");
    assert_eq!(start.response_id.as_deref(), Some("msg_q"));
    assert_eq!(start.usage.input, 4);
    mock.release_gate("g").unwrap();
    let events = provider_common::collect(rx).await;
    assert_eq!(done(&events).stop_reason, StopReason::Stop);
    assert!(!started(&events), "one start only");
}

#[tokio::test]
async fn a_paced_stream_reads_on_after_a_long_delta_only_once_it_is_written() {
    let long = "x".repeat(2 * 1024 * 1024);
    // Events a moment apart: `Start` goes out before the long delta comes (pacing starts
    // after it).
    let script = json!({"responses": [{"text": [long.clone(), "tail"], "chunk_delay_ms": 50}]});
    let http = reqwest::Client::new();
    let paced = pi_agent::provider::StreamOptions {
        paced: true,
        ..pi_agent::provider::StreamOptions::default()
    };
    let mock = server(script.clone()).await;
    let mut rx = pi_agent::provider::stream_with(
        &http,
        request(model(&mock.uri()), "hi"),
        paced,
        tokio_util::sync::CancellationToken::new(),
    );
    let mut events = Vec::new();
    let mut waits = 0;
    while let Some(event) = rx.recv().await {
        let ProviderEvent::Written(signal) = event else {
            events.push(event);
            continue;
        };
        waits += 1;
        // The stream holds still until the long delta is said to be written.
        let held = tokio::time::timeout(std::time::Duration::from_millis(300), rx.recv()).await;
        assert!(held.is_err(), "the stream went on before the signal");
        signal.written();
    }
    // The long delta, and the long `text_end` after it.
    assert_eq!(waits, 2);
    let text = format!("{long}tail");
    assert_eq!(
        js(&done(&events).content),
        js(&json!([{"type": "text", "text": text}]))
    );
    // Unpaced (the default), the same stream never waits.
    let mock = server(script).await;
    let rx = pi_agent::provider::stream(
        &http,
        request(model(&mock.uri()), "hi"),
        tokio_util::sync::CancellationToken::new(),
    );
    let unpaced = provider_common::collect(rx).await;
    assert!(
        !unpaced
            .iter()
            .any(|event| matches!(event, ProviderEvent::Written(_)))
    );
    assert_eq!(js(&done(&unpaced).content), js(&done(&events).content));
}
