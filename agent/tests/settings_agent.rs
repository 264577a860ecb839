//! Settings acting on a running agent: what reaches the provider request (thinking budgets,
//! blocked images), how a stalled provider ends the run (idle and request timeouts), and which
//! settings files count (project trust).

mod support;

use anyhow::Result;
use serde_json::{Value, json};
use support::{TestEnv, first_of, mock};

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/// The error of the run's last message (the assistant's).
fn error_of(records: &[Value]) -> Value {
    records
        .iter()
        .rev()
        .find(|record| record["type"] == "message_end")
        .map(|record| record["message"]["errorMessage"].clone())
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn custom_thinking_budgets_and_blocked_images_reach_the_request() -> Result<()> {
    let server = mock("responses:\n  - text: ok\n    times: 2\n").await?;
    let env = TestEnv::new(&server.uri())?;
    env.write_models(&json!({"providers": {"mock": {
        "baseUrl": server.uri(), "api": "anthropic-messages", "apiKey": "mock-key",
        "models": [{"id": "mock-model-1", "reasoning": true, "input": ["text", "image"],
                    "contextWindow": 200000, "maxTokens": 8192}]
    }}}))?;
    env.write_settings(&json!({
        "thinkingBudgets": {"medium": 1500},
        "images": {"blockImages": true}
    }))?;
    let mut agent = env.spawn_default(&[])?;
    let image = json!({"type": "image", "data": PNG, "mimeType": "image/png"});
    agent
        .send(json!({"type": "prompt", "message": "see", "images": [image, image]}))
        .await?;
    let records = agent.until_settled().await?;
    // The session keeps the images; only the request loses them.
    let user = first_of(&records, "message_end");
    assert_eq!(user["message"]["content"][1]["type"], "image");
    let journal = server.journal();
    assert_eq!(
        journal[0].body["thinking"],
        json!({"type": "enabled", "budget_tokens": 1500, "display": "summarized"})
    );
    assert_eq!(
        journal[0].body["messages"][0]["content"],
        json!([
            {"type": "text", "text": "see"},
            {"type": "text", "text": "Image reading is disabled.", "cache_control": {"type": "ephemeral"}}
        ])
    );
    Ok(())
}

#[tokio::test]
async fn a_stream_silent_longer_than_the_idle_timeout_ends_terminated() -> Result<()> {
    let server =
        mock("responses:\n  - text: [a, b, c]\n    fault: {kind: stall, after_chunks: 2}\n")
            .await?;
    let env = TestEnv::new(&server.uri())?;
    env.write_settings(&json!({"httpIdleTimeoutMs": 300, "retry": {"enabled": false}}))?;
    let mut agent = env.spawn_default(&[])?;
    agent.prompt("hi").await?;
    let records = agent.until_settled().await?;
    assert_eq!(error_of(&records), "terminated");
    Ok(())
}

#[tokio::test]
async fn late_headers_end_the_request_after_the_provider_timeout() -> Result<()> {
    let server = mock("responses:\n  - text: late\n    delay_ms: 5000\n").await?;
    let env = TestEnv::new(&server.uri())?;
    env.write_settings(&json!({"retry": {"enabled": false, "provider": {"timeoutMs": 300}}}))?;
    let mut agent = env.spawn_default(&[])?;
    let started = std::time::Instant::now();
    agent.prompt("hi").await?;
    let records = agent.until_settled().await?;
    assert_eq!(error_of(&records), "Request timed out.");
    assert!(started.elapsed() < std::time::Duration::from_secs(4));
    Ok(())
}

#[tokio::test]
async fn project_settings_count_only_for_a_trusted_project() -> Result<()> {
    let server = mock("responses: []\n").await?;
    let env = TestEnv::new(&server.uri())?;
    std::fs::create_dir_all(env.work_dir().join(".pi"))?;
    std::fs::write(
        env.work_dir().join(".pi/settings.json"),
        r#"{"steeringMode": "all"}"#,
    )?;
    let mode = |response: Value| response["data"]["steeringMode"].clone();
    let mut untrusted = env.spawn_default(&[])?;
    assert_eq!(
        mode(untrusted.request(json!({"type": "get_state"})).await?),
        "one-at-a-time"
    );
    let mut approved = env.spawn_default(&["--approve"])?;
    assert_eq!(
        mode(approved.request(json!({"type": "get_state"})).await?),
        "all"
    );
    env.write_settings(&json!({"defaultProjectTrust": "always"}))?;
    let mut by_default = env.spawn_default(&[])?;
    assert_eq!(
        mode(by_default.request(json!({"type": "get_state"})).await?),
        "all"
    );
    let mut refused = env.spawn_default(&["--no-approve"])?;
    assert_eq!(
        mode(refused.request(json!({"type": "get_state"})).await?),
        "one-at-a-time"
    );
    Ok(())
}

#[tokio::test]
async fn http_proxy_carries_model_calls_and_reaches_bash() -> Result<()> {
    let server = mock("responses:\n  - text: never\n").await?;
    let env = TestEnv::new(&server.uri())?;
    // Port 9 (discard) refuses connections on loopback: the call fails at the proxy.
    env.write_settings(&json!({"httpProxy": "http://127.0.0.1:9", "retry": {"enabled": false}}))?;
    let mut agent = env.spawn_default(&[])?;
    let bash = agent
        .request(json!({"type": "bash", "command": "printf %s \"$HTTPS_PROXY\""}))
        .await?;
    assert_eq!(bash["data"]["output"], "http://127.0.0.1:9");
    agent.prompt("hi").await?;
    let records = agent.until_settled().await?;
    assert_eq!(error_of(&records), "Connection error.");
    assert!(server.journal().is_empty());
    Ok(())
}

#[tokio::test]
async fn a_lower_case_proxy_variable_wins_over_http_proxy_as_in_the_reference() -> Result<()> {
    // undici reads `http_proxy` before `HTTP_PROXY`, and `httpProxy` only fills in the
    // upper-case one: the environment's lower-case proxy (here the mock itself, which answers
    // the proxied request) carries the call, not the refusing port of the settings.
    let server = mock("responses:\n  - text: through the proxy\n").await?;
    let env = TestEnv::new(&server.uri())?;
    env.write_settings(&json!({"httpProxy": "http://127.0.0.1:9", "retry": {"enabled": false}}))?;
    let proxy = server.uri();
    let vars = [("http_proxy", std::path::Path::new(proxy.as_str()))];
    let mut agent = env.spawn_with_env(&support::DEFAULT_ARGS[3..], &vars)?;
    agent.prompt("hi").await?;
    let records = agent.until_settled().await?;
    assert_eq!(error_of(&records), Value::Null);
    assert_eq!(server.journal().len(), 1);
    Ok(())
}
