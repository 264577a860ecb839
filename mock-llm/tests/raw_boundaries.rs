//! Raw responses and framing options reach the client byte for byte, one HTTP chunk per write.

mod common;

use std::time::Duration;

use common::{parse_chunked, raw_exchange, request_body, send_raw, start};
use tokio::io::AsyncReadExt;

#[tokio::test]
async fn raw_chunks_are_written_exactly_with_their_boundaries() {
    let server = start(
        r#"
responses:
  - raw:
      headers: { content-type: "text/event-stream", x-custom: "yes" }
      chunks:
        - "event: message_start\r"
        - "\ndata: {\"a\":"
        - { hex: "22 e2 82" }
        - { hex: "ac 22 7d 0d 0a 0d 0a" }
        - ": comment only\r\r"
"#,
    )
    .await;
    let raw = raw_exchange(&server, "/v1/messages", &request_body("/v1/messages", "hi")).await;
    let (head, chunks, terminated) = parse_chunked(&raw);
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    assert!(head.contains("x-custom: yes"), "{head}");
    assert!(head.contains("transfer-encoding: chunked"), "{head}");
    let expected: Vec<Vec<u8>> = vec![
        b"event: message_start\r".to_vec(),
        b"\ndata: {\"a\":".to_vec(),
        vec![0x22, 0xe2, 0x82],
        vec![0xac, 0x22, 0x7d, 0x0d, 0x0a, 0x0d, 0x0a],
        b": comment only\r\r".to_vec(),
    ];
    assert_eq!(chunks, expected);
    assert!(terminated);
}

#[tokio::test]
async fn split_bytes_framing_cuts_events_into_writes_of_that_size() {
    let server = start(
        r#"
responses:
  - text: "é"
    framing: { split_bytes: 3, omit: [ping, message_start, content_block_start, content_block_stop, message_delta, message_stop] }
"#,
    )
    .await;
    let raw = raw_exchange(&server, "/v1/messages", &request_body("/v1/messages", "hi")).await;
    let (_, chunks, _) = parse_chunked(&raw);
    assert!(chunks.iter().all(|c| c.len() <= 3));
    assert!(chunks[..chunks.len() - 1].iter().all(|c| c.len() == 3));
    let joined: Vec<u8> = chunks.concat();
    let text = String::from_utf8(joined).expect("UTF-8 overall");
    assert_eq!(
        text,
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"é\"}}\n\n"
    );
    // The two bytes of é land in different writes.
    let cut = chunks.iter().any(|c| c.last() == Some(&0xc3));
    assert!(cut, "é is split across writes: {chunks:?}");
}

#[tokio::test]
async fn each_write_reaches_the_socket_before_the_next_step() {
    // A gate between two writes: the first write must be readable while the stream waits.
    let server = start(
        r#"
responses:
  - raw:
      chunks: ["first", { gate: g }, "second"]
"#,
    )
    .await;
    let mut stream = send_raw(
        server.addr(),
        "/v1/messages",
        &request_body("/v1/messages", "hi"),
    )
    .await;
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("5\r\nfirst\r\n") {
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf))
            .await
            .expect("the first write arrives while the gate is closed")
            .expect("reads");
        assert!(n > 0, "connection closed early");
        seen.extend_from_slice(&buf[..n]);
    }
    assert!(!String::from_utf8_lossy(&seen).contains("second"));
    server.release_gate("g").expect("gate exists");
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest).await.expect("reads the rest");
    assert_eq!(String::from_utf8_lossy(&rest), "6\r\nsecond\r\n0\r\n\r\n");
}

#[tokio::test]
async fn framing_options_change_line_endings_comments_and_event_lines() {
    let server = start(
        r#"
responses:
  - text: "hi"
    framing: { line_ending: cr, comment: ": OPENROUTER PROCESSING", no_event_lines: true, omit: [ping] }
  - text: "hi"
    framing: { multiline_data: true, coalesce: true }
"#,
    )
    .await;
    let body = request_body("/v1/messages", "hi");
    let raw = raw_exchange(&server, "/v1/messages", &body).await;
    let (_, chunks, _) = parse_chunked(&raw);
    assert_eq!(chunks.len(), 6);
    let first = String::from_utf8(chunks[0].clone()).expect("UTF-8");
    assert!(
        first.starts_with(": OPENROUTER PROCESSING\rdata: {\"type\":\"message_start\""),
        "{first:?}"
    );
    assert!(first.ends_with("}\r\r"), "{first:?}");
    assert!(!first.contains('\n'));
    let raw = raw_exchange(&server, "/v1/messages", &body).await;
    let (_, chunks, _) = parse_chunked(&raw);
    assert_eq!(chunks.len(), 1, "coalesced into one write");
    let text = String::from_utf8(chunks[0].clone()).expect("UTF-8");
    assert!(
        text.starts_with("event: message_start\ndata: {\ndata:   \"type\": \"message_start\",\n"),
        "{text}"
    );
}
