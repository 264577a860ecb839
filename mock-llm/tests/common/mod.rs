//! Helpers shared by the integration tests.
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used)]

pub mod reference;

use std::net::SocketAddr;
use std::path::PathBuf;

use mock_llm::{MockServer, Script};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Starts a server with a YAML script.
pub async fn start(yaml: &str) -> MockServer {
    let script = Script::from_yaml_str(yaml, "test.yaml").expect("script parses");
    MockServer::start(script).await.expect("server starts")
}

/// A minimal streaming request body for `path`'s format.
pub fn request_body(path: &str, text: &str) -> Value {
    if path.contains("/models/") {
        json!({"contents": [{"role": "user", "parts": [{"text": text}]}]})
    } else if path.ends_with("/responses") {
        json!({"model": "m1", "stream": true, "input": [{"role": "user", "content": [{"type": "input_text", "text": text}]}]})
    } else if path.ends_with("/chat/completions") {
        json!({"model": "m1", "stream": true, "stream_options": {"include_usage": true}, "messages": [{"role": "user", "content": text}]})
    } else {
        json!({"model": "m1", "stream": true, "max_tokens": 100, "messages": [{"role": "user", "content": text}]})
    }
}

/// The paths of the four formats (Gemini with model `m1`).
pub const PATHS: [&str; 4] = [
    "/v1/messages",
    "/v1/chat/completions",
    "/v1/responses",
    "/v1beta/models/m1:streamGenerateContent?alt=sse",
];

/// Posts JSON with every provider's key header; returns status, content-type and body text.
pub async fn post(server: &MockServer, path: &str, body: &Value) -> (u16, String, String) {
    let client = reqwest::Client::new();
    let response = client
        .post(format!("{}{path}", server.uri()))
        .header("x-api-key", "test-key")
        .header("authorization", "Bearer test-key")
        .header("x-goog-api-key", "test-key")
        .json(body)
        .send()
        .await
        .expect("request is answered");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    let text = response.text().await.expect("body reads");
    (status, content_type, text)
}

/// Connects to `addr` (a server's) and writes a raw HTTP/1.1 request with `Connection: close`;
/// the answer is left unread on the returned connection.
pub async fn send_raw(addr: SocketAddr, path: &str, body: &Value) -> tokio::net::TcpStream {
    let mut stream = tokio::net::TcpStream::connect(addr)
        .await
        .expect("connects");
    stream
        .write_all(raw_request(path, body).as_bytes())
        .await
        .expect("writes");
    stream
}

/// Sends a raw HTTP/1.1 request with `Connection: close` and returns every byte of the answer.
pub async fn raw_exchange(server: &MockServer, path: &str, body: &Value) -> Vec<u8> {
    let mut stream = send_raw(server.addr(), path, body).await;
    let mut out = Vec::new();
    let _ = stream.read_to_end(&mut out).await;
    out
}

/// The text of a raw POST request.
pub fn raw_request(path: &str, body: &Value) -> String {
    let body = body.to_string();
    format!(
        "POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: k\r\nauthorization: Bearer k\r\nx-goog-api-key: k\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Splits a raw HTTP/1.1 response into its head and its chunked-body chunks.
pub fn parse_chunked(raw: &[u8]) -> (String, Vec<Vec<u8>>, bool) {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("has a head");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut rest = &raw[split + 4..];
    let mut chunks = Vec::new();
    let mut terminated = false;
    while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(std::str::from_utf8(&rest[..eol]).expect("hex"), 16)
            .expect("chunk size");
        rest = &rest[eol + 2..];
        if size == 0 {
            terminated = true;
            break;
        }
        if rest.len() < size + 2 {
            chunks.push(rest.to_vec());
            break;
        }
        chunks.push(rest[..size].to_vec());
        rest = &rest[size + 2..];
    }
    (head, chunks, terminated)
}

/// Compares `actual` with the golden file `tests/golden/<name>`; `MOCK_LLM_BLESS=1` rewrites it.
pub fn golden(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("MOCK_LLM_BLESS").is_some() {
        std::fs::write(&path, actual).expect("golden written");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
        panic!(
            "missing golden {}; run with MOCK_LLM_BLESS=1",
            path.display()
        )
    });
    if expected != actual {
        let diff = similar::TextDiff::from_lines(expected.as_str(), actual);
        panic!(
            "{name} differs from its golden file (MOCK_LLM_BLESS=1 rewrites it):\n{}",
            diff.unified_diff().header("expected", "actual")
        );
    }
}
