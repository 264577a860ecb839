//! The `mock-llm` binary: the one-line quick start and script files.

#![allow(clippy::expect_used)] // helpers outside #[test] functions

use std::process::Stdio;

use predicates::prelude::PredicateBooleanExt;
use serde_json::{Value, json};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

fn binary() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("mock-llm")
}

/// Spawns `mock-llm serve ARGS` and returns the child and the URL it printed first.
async fn serve(args: &[&str]) -> (Child, String) {
    let mut child = Command::new(binary())
        .arg("serve")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("spawns");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let first = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
        .await
        .expect("prints in time")
        .expect("reads")
        .expect("a first line");
    (child, first)
}

/// POSTs `body` as JSON to the server at `url`, with the key header `key` (name and value).
async fn post(url: &str, path: &str, key: (&str, &str), body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{url}{path}"))
        .header(key.0, key.1)
        .json(body)
        .send()
        .await
        .expect("answered")
}

#[tokio::test]
async fn serve_reply_prints_the_url_and_answers_in_every_format() {
    let (mut child, url) = serve(&["--reply", "Hi there"]).await;
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let chat =
        json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "x"}]});
    let response = post(
        &url,
        "/v1/chat/completions",
        ("authorization", "Bearer k"),
        &chat,
    )
    .await;
    let text = response.text().await.expect("body");
    assert!(text.contains("\"content\":\"Hi there\""), "{text}");
    assert!(text.ends_with("data: [DONE]\n\n"));
    let messages = json!({"model": "m", "stream": true, "max_tokens": 64, "messages": [{"role": "user", "content": "x"}]});
    let response = post(&url, "/v1/messages", ("x-api-key", "k"), &messages).await;
    let text = response.text().await.expect("body");
    assert!(text.contains("\"text\":\"Hi there\""), "{text}");
    child.kill().await.expect("killed");
}

#[tokio::test]
async fn serve_script_uses_the_file_and_port() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.yaml");
    std::fs::write(&path, "responses:\n  - error: { status: 529 }\n").expect("write");
    let (mut child, url) = serve(&[
        "--script",
        path.to_str().expect("utf-8"),
        "--host",
        "127.0.0.1",
    ])
    .await;
    let body = json!({"model": "m", "max_tokens": 64, "messages": []});
    let response = post(&url, "/v1/messages", ("x-api-key", "k"), &body).await;
    assert_eq!(response.status(), 529);
    child.kill().await.expect("killed");
}

#[test]
fn a_bad_script_fails_with_its_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("broken.yaml");
    std::fs::write(&path, "responses:\n  - txet: hi\n").expect("write");
    assert_cmd::Command::new(binary())
        .args(["serve", "--script"])
        .arg(&path)
        .assert()
        .failure()
        .stderr(predicates::str::contains("broken.yaml").and(predicates::str::contains("`txet`")));
}

#[test]
fn quirks_are_listed() {
    let output = assert_cmd::Command::new(binary())
        .arg("quirks")
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&output.get_output().stdout).into_owned();
    assert!(stdout.lines().count() >= 20, "{stdout}");
}
