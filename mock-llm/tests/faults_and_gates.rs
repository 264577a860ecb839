//! Mid-stream faults, pre-header faults, stalls and gates.

mod common;

use std::time::Duration;

use common::{parse_chunked, raw_exchange, request_body, send_raw, start};
use mock_llm::Outcome;
use tokio::io::AsyncReadExt;

const PATH: &str = "/v1/messages";

#[tokio::test]
async fn drop_after_chunks_closes_the_connection_mid_body() {
    let server =
        start("responses:\n  - text: [a, b, c]\n    fault: { kind: drop, after_chunks: 3 }\n")
            .await;
    let raw = raw_exchange(&server, PATH, &request_body(PATH, "hi")).await;
    let (head, chunks, terminated) = parse_chunked(&raw);
    assert!(head.starts_with("HTTP/1.1 200"));
    assert_eq!(chunks.len(), 3);
    assert!(!terminated, "the body never gets its last chunk");
    let journal = server.journal();
    assert_eq!(
        journal[0].outcome,
        Outcome::Fault {
            fault: "drop".to_owned(),
            after_chunks: 3
        }
    );
}

#[tokio::test]
async fn reset_before_headers_sends_no_byte() {
    let server = start("responses:\n  - text: x\n    fault: { kind: reset }\n  - text: ok\n").await;
    let mut stream = send_raw(server.addr(), PATH, &request_body(PATH, "hi")).await;
    let mut out = Vec::new();
    let read = stream.read_to_end(&mut out).await;
    assert!(out.is_empty(), "no byte before the reset: {out:?}");
    let err = read.expect_err("the connection is reset");
    assert_eq!(err.kind(), std::io::ErrorKind::ConnectionReset);
    assert_eq!(
        server.journal()[0].outcome,
        Outcome::Fault {
            fault: "reset".to_owned(),
            after_chunks: 0
        }
    );
    // The server keeps serving.
    let raw = raw_exchange(&server, PATH, &request_body(PATH, "hi")).await;
    assert!(String::from_utf8_lossy(&raw).contains("\"text\":\"ok\""));
}

#[tokio::test]
async fn drop_before_headers_closes_without_a_response() {
    let server = start("responses:\n  - text: x\n    fault: { kind: drop }\n").await;
    let raw = raw_exchange(&server, PATH, &request_body(PATH, "hi")).await;
    assert!(raw.is_empty());
}

#[tokio::test]
async fn an_in_band_error_ends_the_stream_after_n_chunks() {
    let server = start("responses:\n  - text: [a, b]\n    fault: { kind: error, after_chunks: 4, type: api_error, message: boom }\n").await;
    let raw = raw_exchange(&server, PATH, &request_body(PATH, "hi")).await;
    let (_, chunks, terminated) = parse_chunked(&raw);
    assert!(terminated);
    assert_eq!(chunks.len(), 5);
    assert_eq!(
        String::from_utf8_lossy(&chunks[4]),
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"boom\"},\"request_id\":\"req_mock_0001\"}\n\n"
    );
}

#[tokio::test]
async fn a_stall_pauses_then_the_stream_goes_on() {
    let server = start("responses:\n  - text: [a, b]\n    fault: { kind: stall, after_chunks: 2, stall_ms: 150 }\n").await;
    let started = std::time::Instant::now();
    let raw = raw_exchange(&server, PATH, &request_body(PATH, "hi")).await;
    assert!(started.elapsed() >= Duration::from_millis(150));
    let (_, chunks, terminated) = parse_chunked(&raw);
    assert!(terminated);
    assert_eq!(chunks.len(), 8);
}

#[tokio::test]
async fn a_content_gate_holds_the_stream_until_released() {
    let server = start(
        "responses:\n  - content:\n      - text: before\n      - gate: mid\n      - text: after\n",
    )
    .await;
    let addr = server.addr();
    let client = tokio::spawn(async move {
        let mut stream = send_raw(addr, PATH, &request_body(PATH, "hi")).await;
        let mut out = Vec::new();
        stream.read_to_end(&mut out).await.expect("reads");
        out
    });
    server
        .wait_for_gate("mid", Duration::from_secs(5))
        .await
        .expect("the stream reaches the gate");
    assert_eq!(server.journal()[0].outcome, Outcome::InProgress);
    server.release_gate("mid").expect("gate exists");
    let raw = client.await.expect("client task");
    let text = String::from_utf8_lossy(&raw);
    assert!(text.contains("before") && text.contains("after"));
    server
        .wait_for_requests(1, Duration::from_secs(1))
        .await
        .expect("one request");
    assert!(matches!(
        server.journal()[0].outcome,
        Outcome::Completed { .. }
    ));
}

#[tokio::test]
async fn a_response_gate_holds_the_headers() {
    let server = start("responses:\n  - gate: open\n    text: hi\n").await;
    let addr = server.addr();
    let client = tokio::spawn(async move {
        let mut stream = send_raw(addr, PATH, &request_body(PATH, "hi")).await;
        let mut first = [0u8; 1];
        stream.read(&mut first).await.expect("reads")
    });
    server
        .wait_for_gate("open", Duration::from_secs(5))
        .await
        .expect("reached");
    assert!(!client.is_finished(), "no byte before the gate opens");
    server.release_gate("open").expect("gate exists");
    assert_eq!(client.await.expect("client"), 1);
}

#[tokio::test]
async fn releasing_an_unknown_gate_is_an_error_naming_the_script() {
    let server = start("responses:\n  - content: [{ gate: g1 }, { text: x }]\n").await;
    let err = server.release_gate("nope").expect_err("unknown gate");
    let text = err.to_string();
    assert!(
        text.contains("nope") && text.contains("test.yaml") && text.contains("g1"),
        "{text}"
    );
}

#[tokio::test]
async fn a_client_that_goes_away_is_journaled_with_the_chunk_count() {
    let server = start("responses:\n  - content: [{ text: a }, { gate: g }, { text: b }]\n").await;
    let stream = send_raw(server.addr(), PATH, &request_body(PATH, "hi")).await;
    server
        .wait_for_gate("g", Duration::from_secs(5))
        .await
        .expect("reached");
    drop(stream);
    server.release_gate("g").expect("gate exists");
    server
        .wait_for_outcomes(1, Duration::from_secs(5))
        .await
        .expect("the answer ends");
    let outcome = server.journal()[0].outcome.clone();
    // message_start, ping, block start, delta and block stop were sent before the gate.
    assert!(
        matches!(outcome, Outcome::ClientDisconnected { after_chunks } if after_chunks >= 5),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn pacing_spreads_writes_over_time() {
    let server =
        start("responses:\n  - text: [a, b, c]\n    tokens_per_second: 100\n    delay_ms: 50\n")
            .await;
    let started = std::time::Instant::now();
    let raw = raw_exchange(&server, PATH, &request_body(PATH, "hi")).await;
    // 50 ms before headers, then 9 writes 10 ms apart.
    assert!(
        started.elapsed() >= Duration::from_millis(130),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(parse_chunked(&raw).1.len(), 9);
}

#[tokio::test]
async fn raw_bodies_take_faults_and_pacing_too() {
    let server = start(
        "responses:\n  - raw: { chunks: [\"a\", \"b\", \"c\"] }\n    fault: { kind: drop, after_chunks: 2 }\n    chunk_delay_ms: 20\n",
    )
    .await;
    let started = std::time::Instant::now();
    let raw = raw_exchange(&server, PATH, &request_body(PATH, "hi")).await;
    assert!(started.elapsed() >= Duration::from_millis(20));
    let (_, chunks, terminated) = parse_chunked(&raw);
    assert_eq!(chunks, vec![b"a".to_vec(), b"b".to_vec()]);
    assert!(!terminated);
}
