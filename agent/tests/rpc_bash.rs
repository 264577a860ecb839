//! The `bash` and `abort_bash` RPC commands against the real binary: streamed chunks, the
//! result, truncation with the full log on disk, cancellation and the recorded message.

mod support;

use anyhow::{Context, Result};
use serde_json::{Value, json};
use support::TestEnv;

fn deltas(records: &[Value]) -> String {
    records
        .iter()
        .filter(|record| record["type"] == "bash_execution_update")
        .filter_map(|record| record["delta"].as_str())
        .collect()
}

#[tokio::test]
async fn long_output_is_cut_to_the_last_2000_lines_with_the_whole_log_in_a_file() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_default(&[])?;
    agent
        .send(json!({"id": "b", "type": "bash", "command": "seq 1 2500; printf '\\033[1mbold\\033[0m\\r\\n' >&2"}))
        .await?;
    let records = agent.until(|r| r["type"] == "response").await?;
    let response = records.last().context("no response")?;
    let data = &response["data"];
    assert_eq!(deltas(&records).lines().count(), 2501);
    let output = data["output"].as_str().unwrap_or_default();
    assert_eq!(output.lines().count(), 2000);
    assert!(output.starts_with("502\n"), "{}", &output[..20]);
    assert!(
        output.ends_with("2500\nbold"),
        "cleaned and without the final newline"
    );
    assert_eq!(data["exitCode"], 0);
    assert_eq!(data["truncated"], true);
    let path = data["fullOutputPath"].as_str().context("fullOutputPath")?;
    let full = std::fs::read_to_string(path)?;
    assert_eq!(full.lines().count(), 2501);
    assert!(full.starts_with("1\n2\n"));
    std::fs::remove_file(path)?;
    Ok(())
}

#[tokio::test]
async fn abort_bash_kills_the_command_which_answers_cancelled_and_joins_the_messages() -> Result<()>
{
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_default(&[])?;
    agent
        .send(json!({"id": 7, "type": "bash", "command": "echo started; sleep 30; echo never"}))
        .await?;
    let first = agent.next().await?;
    assert_eq!(
        first,
        json!({"type": "bash_execution_update", "id": 7, "delta": "started\n"})
    );
    agent.send(json!({"id": "a", "type": "abort_bash"})).await?;
    let abort = agent.next().await?;
    assert_eq!(
        abort,
        json!({"id": "a", "type": "response", "command": "abort_bash", "success": true})
    );
    let bash = agent.next().await?;
    assert_eq!(
        bash,
        json!({"id": 7, "type": "response", "command": "bash", "success": true,
               "data": {"output": "started\n", "cancelled": true, "truncated": false}})
    );
    let mut messages = agent
        .request(json!({"type": "get_messages"}))
        .await?
        .pointer("/data/messages")
        .cloned()
        .context("messages")?;
    messages[0]["timestamp"] = json!(0);
    assert_eq!(
        messages,
        json!([{"role": "bashExecution", "command": "echo started; sleep 30; echo never",
                "output": "started\n", "cancelled": true, "truncated": false, "timestamp": 0}])
    );
    Ok(())
}

#[tokio::test]
async fn a_command_that_cannot_start_answers_an_error() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    env.write_settings(&json!({"shellPath": "/no/such/shell"}))?;
    let mut agent = env.spawn_default(&[])?;
    let response = agent
        .request(json!({"id": "b", "type": "bash", "command": "true"}))
        .await?;
    assert_eq!(
        response,
        json!({"id": "b", "type": "response", "command": "bash", "success": false,
               "error": "Custom shell path not found: /no/such/shell"})
    );
    Ok(())
}

#[tokio::test]
async fn new_session_kills_a_running_command_whose_message_stays_out_of_the_new_session()
-> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_default(&[])?;
    agent
        .send(json!({"id": "b", "type": "bash", "command": "echo started; sleep 30"}))
        .await?;
    agent
        .until(|r| r["type"] == "bash_execution_update")
        .await?;
    agent
        .send(json!({"id": "n", "type": "new_session"}))
        .await?;
    let mut records = agent
        .until(|r| r["type"] == "response" && r["command"] == "bash")
        .await?;
    if !records.iter().any(|r| r["command"] == "new_session") {
        records.extend(
            agent
                .until(|r| r["type"] == "response" && r["command"] == "new_session")
                .await?,
        );
    }
    let bash = records
        .iter()
        .find(|r| r["command"] == "bash")
        .context("bash response")?;
    assert_eq!(bash["data"]["cancelled"], true);
    let messages = agent.request(json!({"type": "get_messages"})).await?;
    assert_eq!(messages["data"]["messages"], json!([]));
    Ok(())
}
