//! The formats beyond the four SSE ones: Bedrock's binary event stream, Mistral's chunks, the
//! Vertex, Azure and Codex routes with their providers' auth and error bodies, and the OAuth
//! token endpoints.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::start;
use mock_llm::MockServer;
use serde_json::{Value, json};

const SCRIPT: &str = r#"
responses:
  - match: { last_message_text: "tools" }
    content:
      - thinking: ["Let me ", "look"]
        signature: "sig-1"
      - text: "Reading."
      - tool_call: { name: "read", arguments: { path: "a.txt" }, chunks: 2 }
    usage: { input: 20, output: 9, cache_read: 5 }
    repeat: true
  - match: { last_message_text: "fail" }
    error: { status: 429 }
    repeat: true
  - text: ["Hel", "lo"]
    repeat: true
"#;

async fn post(
    server: &MockServer,
    path: &str,
    headers: &[(&str, &str)],
    body: Value,
) -> (u16, reqwest::header::HeaderMap, Vec<u8>) {
    let mut request = reqwest::Client::new().post(format!("{}{path}", server.uri()));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.json(&body).send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.bytes().await.unwrap().to_vec())
}

/// Decodes event-stream messages: (`:event-type` or `:exception-type`, payload), checking both
/// checksums of each.
fn decode_frames(mut bytes: &[u8]) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let total = u32::from_be_bytes(bytes[0..4].try_into().unwrap()) as usize;
        let headers_len = u32::from_be_bytes(bytes[4..8].try_into().unwrap()) as usize;
        let prelude_crc = u32::from_be_bytes(bytes[8..12].try_into().unwrap());
        assert_eq!(prelude_crc, crc32(&bytes[..8]));
        let message_crc = u32::from_be_bytes(bytes[total - 4..total].try_into().unwrap());
        assert_eq!(message_crc, crc32(&bytes[..total - 4]));
        let mut headers = &bytes[12..12 + headers_len];
        let mut kind = String::new();
        while !headers.is_empty() {
            let name_len = headers[0] as usize;
            let name = std::str::from_utf8(&headers[1..1 + name_len]).unwrap();
            assert_eq!(headers[1 + name_len], 7, "string header");
            let start = 2 + name_len;
            let value_len = u16::from_be_bytes([headers[start], headers[start + 1]]) as usize;
            let value = std::str::from_utf8(&headers[start + 2..start + 2 + value_len]).unwrap();
            if name == ":event-type" || name == ":exception-type" {
                kind = value.to_owned();
            }
            headers = &headers[start + 2 + value_len..];
        }
        let payload = &bytes[12 + headers_len..total - 4];
        let mut payload: Value = serde_json::from_slice(payload).unwrap();
        payload.as_object_mut().unwrap().remove("p");
        out.push((kind, payload));
        bytes = &bytes[total..];
    }
    out
}

/// CRC-32 (IEEE), bit by bit: an independent check of the server's checksums.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for byte in bytes {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn bedrock_body(text: &str) -> Value {
    json!({"messages": [{"role": "user", "content": [{"text": text}]}]})
}

const SIGV4: &str = "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

#[tokio::test]
async fn bedrock_streams_converse_events_in_checksummed_binary_messages() {
    let server = start(SCRIPT).await;
    let auth = [("authorization", SIGV4), ("x-amz-date", "20260101T000000Z")];
    let (status, headers, body) = post(
        &server,
        "/model/anthropic.claude%3A0/converse-stream",
        &auth,
        bedrock_body("tools"),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        headers["content-type"],
        "application/vnd.amazon.eventstream"
    );
    let frames = decode_frames(&body);
    let expected = vec![
        ("messageStart", json!({"role": "assistant"})),
        (
            "contentBlockDelta",
            json!({"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "Let me "}}}),
        ),
        (
            "contentBlockDelta",
            json!({"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "look"}}}),
        ),
        (
            "contentBlockDelta",
            json!({"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "sig-1"}}}),
        ),
        ("contentBlockStop", json!({"contentBlockIndex": 0})),
        (
            "contentBlockDelta",
            json!({"contentBlockIndex": 1, "delta": {"text": "Reading."}}),
        ),
        ("contentBlockStop", json!({"contentBlockIndex": 1})),
        (
            "contentBlockStart",
            json!({"contentBlockIndex": 2, "start": {"toolUse": {"toolUseId": "tooluse_mock_1_1", "name": "read"}}}),
        ),
        (
            "contentBlockDelta",
            json!({"contentBlockIndex": 2, "delta": {"toolUse": {"input": "{\"path\":"}}}),
        ),
        (
            "contentBlockDelta",
            json!({"contentBlockIndex": 2, "delta": {"toolUse": {"input": "\"a.txt\"}"}}}),
        ),
        ("contentBlockStop", json!({"contentBlockIndex": 2})),
        ("messageStop", json!({"stopReason": "tool_use"})),
        (
            "metadata",
            json!({"usage": {"inputTokens": 20, "outputTokens": 9, "totalTokens": 34, "cacheReadInputTokens": 5, "cacheWriteInputTokens": 0}, "metrics": {"latencyMs": 100}}),
        ),
    ];
    let expected: Vec<(String, Value)> = expected
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    assert_eq!(frames, expected);
    assert_eq!(
        server.journal()[0].model.as_deref(),
        Some("anthropic.claude:0")
    );
}

#[tokio::test]
async fn bedrock_refuses_missing_or_malformed_signatures_and_sends_aws_errors() {
    let server = start(SCRIPT).await;
    let (status, headers, body) =
        post(&server, "/model/m/converse-stream", &[], bedrock_body("hi")).await;
    assert_eq!(status, 403);
    assert!(
        headers["x-amzn-errortype"]
            .to_str()
            .unwrap()
            .starts_with("MissingAuthenticationTokenException:")
    );
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        json!({"message": "Missing Authentication Token"})
    );
    let wrong_day = [("authorization", SIGV4), ("x-amz-date", "20260102T000000Z")];
    let (status, headers, _) = post(
        &server,
        "/model/m/converse-stream",
        &wrong_day,
        bedrock_body("hi"),
    )
    .await;
    assert_eq!(status, 403);
    assert!(
        headers["x-amzn-errortype"]
            .to_str()
            .unwrap()
            .starts_with("IncompleteSignatureException:")
    );
    let bearer = [("authorization", "Bearer bedrock-api-key")];
    let (status, headers, body) = post(
        &server,
        "/model/m/converse-stream",
        &bearer,
        bedrock_body("fail"),
    )
    .await;
    assert_eq!(status, 429);
    assert_eq!(
        headers["x-amzn-errortype"],
        "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"
    );
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap(),
        json!({"message": "Too many requests, please wait before trying again."})
    );
}

#[tokio::test]
async fn mistral_sends_thinking_parts_whole_tool_calls_and_usage_last() {
    let server = start(SCRIPT).await;
    let body = json!({"model": "mistral-large", "stream": true, "messages": [{"role": "user", "content": "tools"}]});
    let (status, _, bytes) = post(
        &server,
        "/mistral/v1/chat/completions",
        &[("authorization", "Bearer k")],
        body,
    )
    .await;
    assert_eq!(status, 200);
    let text = String::from_utf8(bytes).unwrap();
    let chunks: Vec<&str> = text.split("\n\n").filter(|c| !c.is_empty()).collect();
    assert_eq!(chunks.last(), Some(&"data: [DONE]"));
    let parsed: Vec<Value> = chunks[..chunks.len() - 1]
        .iter()
        .map(|c| serde_json::from_str(c.strip_prefix("data: ").unwrap()).unwrap())
        .collect();
    assert_eq!(
        parsed[1]["choices"][0]["delta"]["content"],
        json!([{"type": "thinking", "thinking": [{"type": "text", "text": "Let me "}]}])
    );
    assert_eq!(
        parsed[4]["choices"][0]["delta"]["tool_calls"][0],
        json!({"id": "mock01c001", "function": {"name": "read", "arguments": "{\"path\":"}, "index": 0})
    );
    let last = parsed.last().unwrap();
    assert_eq!(last["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(
        last["usage"],
        json!({"prompt_tokens": 25, "total_tokens": 34, "completion_tokens": 9, "prompt_tokens_details": {"cached_tokens": 5}})
    );
    let (status, _, _) = post(
        &server,
        "/mistral/v1/chat/completions",
        &[],
        json!({"model": "m", "messages": []}),
    )
    .await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn vertex_azure_and_codex_routes_check_their_providers_auth() {
    let server = start(SCRIPT).await;
    let gemini = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    let vertex = "/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
    let (status, _, _) = post(
        &server,
        vertex,
        &[("authorization", "Bearer token")],
        gemini.clone(),
    )
    .await;
    assert_eq!(status, 200);
    let (status, _, body) = post(&server, vertex, &[], gemini).await;
    assert_eq!(status, 403);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap()["error"]["status"],
        "PERMISSION_DENIED"
    );
    let responses = json!({"model": "gpt-4.1", "stream": true, "input": "fail"});
    let (status, _, body) = post(
        &server,
        "/openai/v1/responses?api-version=v1",
        &[("api-key", "k")],
        responses.clone(),
    )
    .await;
    assert_eq!(status, 429);
    assert_eq!(
        serde_json::from_slice::<Value>(&body).unwrap()["error"]["code"],
        "429"
    );
    let (status, _, _) = post(
        &server,
        "/backend-api/codex/responses",
        &[("authorization", "Bearer t")],
        responses.clone(),
    )
    .await;
    assert_eq!(status, 401, "Codex wants the account id too");
    let codex = [("authorization", "Bearer t"), ("chatgpt-account-id", "acc")];
    let (status, _, body) = post(&server, "/backend-api/codex/responses", &codex, responses).await;
    assert_eq!(status, 429);
    let error = serde_json::from_slice::<Value>(&body).unwrap();
    assert_eq!(error["error"]["type"], "usage_limit_reached");
    let formats: Vec<Option<String>> = server.journal().into_iter().map(|e| e.format).collect();
    assert_eq!(
        formats,
        [
            "google-vertex",
            "google-vertex",
            "azure-openai-responses",
            "openai-codex-responses",
            "openai-codex-responses"
        ]
        .map(|f| Some(f.to_owned()))
    );
}

#[tokio::test]
async fn token_endpoints_issue_tokens_that_the_journal_shows() {
    let server = start(SCRIPT).await;
    let client = reqwest::Client::new();
    let form = |body: &str| {
        client
            .post(format!("{}/token", server.uri()))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body.to_owned())
            .send()
    };
    let response = form("grant_type=refresh_token&refresh_token=r1&client_id=c")
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let token: Value = response.json().await.unwrap();
    assert_eq!(
        token,
        json!({"access_token": "mock-access-token-1", "expires_in": 3599, "token_type": "Bearer"})
    );
    let response = form("grant_type=refresh_token&refresh_token=revoked")
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    let response =
        form("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=a.b.c")
            .await
            .unwrap();
    assert_eq!(
        response.status(),
        400,
        "an assertion that is no JWT is refused"
    );
    let vertex = "/v1/publishers/google/models/g:streamGenerateContent?alt=sse";
    let gemini = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    post(
        &server,
        vertex,
        &[("authorization", "Bearer mock-access-token-1")],
        gemini,
    )
    .await;
    let journal = server.journal();
    assert_eq!(journal[0].format.as_deref(), Some("google-oauth-token"));
    assert_eq!(
        journal[3].headers["authorization"],
        "Bearer mock-access-token-1"
    );
    let refreshed: Value = client
        .post(format!("{}/oauth/token", server.uri()))
        .json(&json!({"grant_type": "refresh_token", "refresh_token": "r", "client_id": "app"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(refreshed["access_token"], mock_llm::chatgpt_access_token(5));
    assert_eq!(refreshed["refresh_token"], "mock-refresh-token-5");
    assert_eq!(refreshed["expires_in"], 864000);
}
