//! The journal and the `/__mock/` control API.

mod common;

use std::time::Duration;

use common::{post, request_body, start};
use mock_llm::{MockServer, Outcome};
use reqwest::Method;
use serde_json::{Value, json};

#[tokio::test]
async fn the_journal_records_requests_with_keys_redacted() {
    let server = start("responses:\n  - text: hi\n    repeat: true\n").await;
    let path = "/v1/messages";
    post(
        &server,
        &format!("{path}?beta=true"),
        &request_body(path, "hello"),
    )
    .await;
    server
        .wait_for_requests(1, Duration::from_secs(1))
        .await
        .expect("one request");
    let entry = &server.journal()[0];
    assert_eq!(entry.method, "POST");
    assert_eq!(entry.path, "/v1/messages");
    assert_eq!(entry.query.as_deref(), Some("beta=true"));
    assert_eq!(entry.headers["x-api-key"], "[redacted]");
    assert_eq!(entry.headers["authorization"], "Bearer [redacted]");
    assert_eq!(entry.headers["x-goog-api-key"], "[redacted]");
    assert_eq!(entry.body["messages"][0]["content"], "hello");
    assert_eq!(entry.format.as_deref(), Some("anthropic-messages"));
    assert_eq!(entry.model.as_deref(), Some("m1"));
    assert_eq!(entry.response_index, Some(0));
    assert_eq!(entry.outcome, Outcome::Completed { chunks: 7 });
    let serialized = serde_json::to_value(entry).expect("serializes");
    assert_eq!(
        serialized["outcome"],
        json!({"kind": "completed", "chunks": 7})
    );
}

#[tokio::test]
async fn wait_for_requests_times_out_with_a_clear_error() {
    let server = start("responses:\n  - text: hi\n").await;
    let err = server
        .wait_for_requests(1, Duration::from_millis(20))
        .await
        .expect_err("no request");
    assert!(
        err.to_string().contains("waiting for 1 requests (got 0)"),
        "{err}"
    );
}

#[tokio::test]
async fn wrong_routes_methods_keys_and_bodies_get_provider_errors() {
    let server = start("responses:\n  - text: hi\n").await;
    let client = reqwest::Client::new();
    let uri = server.uri();
    let response = client
        .post(format!("{uri}/v1/nothing"))
        .header("authorization", "Bearer k")
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"]["message"], "Invalid URL (POST /v1/nothing)");
    let response = client
        .get(format!("{uri}/v1/messages"))
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 405);
    let response = client
        .post(format!("{uri}/v1/messages"))
        .json(&json!({}))
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 401);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"]["type"], "authentication_error");
    let response = client
        .post(format!(
            "{uri}/v1beta/models/m:streamGenerateContent?alt=sse"
        ))
        .header("x-goog-api-key", "k")
        .body("not json")
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["error"]["status"], "INVALID_ARGUMENT");
    let response = client
        .post(format!(
            "{uri}/v1beta/models/m:streamGenerateContent?alt=sse&key=secret-key"
        ))
        .json(&json!({}))
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), 400, "a key in the query is accepted");
    let journal = server.journal();
    assert_eq!(journal[4].query.as_deref(), Some("alt=sse&key=[redacted]"));
    let journal = &journal[..4];
    assert_eq!(journal.len(), 4);
    assert!(
        journal
            .iter()
            .all(|e| matches!(e.outcome, Outcome::Error { .. }))
    );
    assert_eq!(journal[3].body, json!("not json"));
}

#[tokio::test]
async fn missing_required_fields_get_the_providers_400() {
    let server = start("responses:\n  - text: hi\n").await;
    let cases = [
        (
            "/v1/messages",
            json!({"model": "m", "messages": []}),
            "max_tokens: Field required",
        ),
        (
            "/v1/chat/completions",
            json!({"messages": []}),
            "you must provide a model parameter",
        ),
        (
            "/v1/responses",
            json!({"input": "x"}),
            "Missing required parameter: 'model'.",
        ),
        (
            "/v1beta/models/m:streamGenerateContent?alt=sse",
            json!({}),
            "* GenerateContentRequest.contents: contents is not specified",
        ),
    ];
    for (path, body, message) in cases {
        let (status, _, text) = post(&server, path, &body).await;
        assert_eq!(status, 400, "{path}");
        assert!(text.contains(message), "{path}: {text}");
    }
    assert!(server.journal().iter().all(|e| e.response_index.is_none()));
}

/// Calls the control API: `method` on the server's `path` with `body`; returns the status and
/// the answer as JSON (`null` when it is not JSON).
#[allow(clippy::expect_used)] // a test helper outside #[test] functions
async fn control(server: &MockServer, method: Method, path: &str, body: &str) -> (u16, Value) {
    let response = reqwest::Client::new()
        .request(method, format!("{}{path}", server.uri()))
        .body(body.to_owned())
        .send()
        .await
        .expect("ok");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or_default())
}

#[tokio::test]
async fn the_control_api_serves_journal_script_gates_and_reset() {
    let server = start("responses:\n  - content: [{ gate: g }, { text: a }]\n").await;
    let (_, journal) = control(&server, Method::GET, "/__mock/journal", "").await;
    assert_eq!(journal, json!([]));
    let (status, _) = control(&server, Method::POST, "/__mock/gates/g/release", "").await;
    assert_eq!(status, 200);
    let (status, _) = control(&server, Method::POST, "/__mock/gates/zzz/release", "").await;
    assert_eq!(status, 404);
    let loaded = "responses:\n  - text: loaded\n";
    let (status, _) = control(&server, Method::PUT, "/__mock/script", loaded).await;
    assert_eq!(status, 200);
    let (_, _, text) = post(&server, "/v1/messages", &request_body("/v1/messages", "x")).await;
    assert!(text.contains("\"text\":\"loaded\""), "{text}");
    let (_, journal) = control(&server, Method::GET, "/__mock/journal", "").await;
    assert_eq!(journal.as_array().map(Vec::len), Some(1));
    assert_eq!(journal[0]["outcome"]["kind"], "completed");
    let bogus = "responses:\n  - bogus: 1\n";
    let (status, body) = control(&server, Method::PUT, "/__mock/script", bogus).await;
    assert_eq!(status, 400);
    assert!(
        body["error"].as_str().unwrap_or_default().contains("bogus"),
        "{body}"
    );
    let (status, _) = control(&server, Method::POST, "/__mock/reset", "").await;
    assert_eq!(status, 200);
    assert_eq!(server.request_count(), 0);
    let (_, script) = control(&server, Method::GET, "/__mock/script", "").await;
    assert_eq!(script["responses"][0]["text"], "loaded");
}

#[tokio::test]
async fn shutdown_stops_the_server() {
    let server = start("responses:\n  - text: hi\n").await;
    let addr = server.addr();
    server.shutdown().await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}
