//! Automatic retry of transient provider errors: `willRetry`, `auto_retry_start`/`_end`, the
//! failed attempt dropped from the next request, `abort_retry` and `set_auto_retry`.

mod support;

use anyhow::Result;
use serde_json::{Value, json};
use support::{TestEnv, mock, scenario, types};

fn find<'a>(records: &'a [Value], kind: &str) -> Vec<&'a Value> {
    records.iter().filter(|r| r["type"] == kind).collect()
}

#[tokio::test]
async fn an_overloaded_provider_is_retried_and_the_failure_is_dropped_from_context() -> Result<()> {
    let server = mock("responses:\n  - error: {status: 529}\n  - text: fine\n").await?;
    let env = TestEnv::new(&server.uri())?;
    env.write_settings(&json!({"retry": {"baseDelayMs": 1}}))?;
    let mut agent = env.spawn_default(&[])?;
    agent.prompt("go").await?;
    let records = agent.until_settled().await?;
    let kinds = types(&records);
    let after_failure: Vec<&str> = kinds[8..].iter().map(String::as_str).collect();
    assert_eq!(
        after_failure,
        [
            "agent_end",
            "auto_retry_start",
            "agent_start",
            "turn_start",
            "message_start:assistant",
            "message_update:text_start",
            "message_update:text_delta",
            "message_update:text_end",
            "message_end:assistant",
            "auto_retry_end",
            "turn_end",
            "agent_end",
            "agent_settled",
        ]
    );
    let ends = find(&records, "agent_end");
    assert_eq!(ends[0]["willRetry"], true);
    assert_eq!(ends[1]["willRetry"], false);
    let start = find(&records, "auto_retry_start")[0];
    assert_eq!(start["attempt"], 1);
    assert_eq!(start["maxAttempts"], 3);
    assert_eq!(start["delayMs"], 1);
    assert!(
        start["errorMessage"]
            .as_str()
            .unwrap_or_default()
            .starts_with("529 ")
    );
    assert_eq!(
        *find(&records, "auto_retry_end")[0],
        json!({"type": "auto_retry_end", "success": true, "attempt": 1})
    );
    let journal = server.journal();
    assert_eq!(journal.len(), 2);
    assert_eq!(journal[0].body["messages"], journal[1].body["messages"]);
    let messages = agent.request(json!({"type": "get_messages"})).await?;
    let roles: Vec<&str> = messages["data"]["messages"]
        .as_array()
        .map(|all| all.iter().filter_map(|m| m["role"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(roles, ["user", "assistant"]);
    Ok(())
}

#[tokio::test]
async fn abort_retry_ends_the_wait_before_its_answer_and_settles_after_it() -> Result<()> {
    let server = mock("responses:\n  - error: {status: 503}\n  - text: never\n").await?;
    let env = TestEnv::new(&server.uri())?;
    env.write_settings(&json!({"retry": {"baseDelayMs": 60000}}))?;
    let mut agent = env.spawn_default(&[])?;
    agent.prompt("go").await?;
    agent.until(|r| r["type"] == "auto_retry_start").await?;
    let state = agent.request(json!({"type": "get_state"})).await?;
    assert_eq!(state["data"]["isStreaming"], true);
    agent
        .send(json!({"id": "a", "type": "abort_retry"}))
        .await?;
    let records = agent.until_settled().await?;
    assert_eq!(
        records,
        [
            json!({"type": "auto_retry_end", "success": false, "attempt": 1, "finalError": "Retry cancelled"}),
            json!({"id": "a", "type": "response", "command": "abort_retry", "success": true}),
            json!({"type": "agent_settled"}),
        ]
    );
    assert_eq!(server.request_count(), 1);
    Ok(())
}

#[tokio::test]
async fn with_auto_retry_off_an_error_ends_the_run() -> Result<()> {
    let (_server, env, mut agent) = scenario("responses:\n  - error: {status: 529}\n").await?;
    agent
        .request(json!({"type": "set_auto_retry", "enabled": false}))
        .await?;
    let settings: Value = serde_json::from_str(&std::fs::read_to_string(
        env.agent_dir().join("settings.json"),
    )?)?;
    assert_eq!(settings["retry"], json!({"enabled": false}));
    agent.prompt("go").await?;
    let records = agent.until_settled().await?;
    assert_eq!(find(&records, "agent_end")[0]["willRetry"], false);
    assert!(find(&records, "auto_retry_start").is_empty());
    Ok(())
}
