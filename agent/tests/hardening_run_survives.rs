//! Commands that fail their own checks during a run leave the run alone, where the reference
//! aborts the run first (so no scenario can hold both agents to one record sequence): the
//! answer held at a mock gate streams on to its end once the gate opens.

mod support;

use anyhow::Result;
use serde_json::{Value, json};
use support::{scenario, types};

/// An answer whose second half waits at the gate `hold`.
const HELD_ANSWER: &str = r#"
responses:
  - content: [{text: ["First half"]}, {gate: hold}, {text: ["Second half"]}]
"#;

/// Starts a prompt and reads up to the first half's `text_end`.
async fn start_held_run() -> Result<(mock_llm::MockServer, support::TestEnv, support::Agent)> {
    let (server, env, mut agent) = scenario(HELD_ANSWER).await?;
    agent.prompt("Stream").await?;
    agent
        .until(|r| r["assistantMessageEvent"]["type"] == "text_end")
        .await?;
    Ok((server, env, agent))
}

/// Releases the gate and checks that the answer ends whole, `stop`, without an abort.
async fn finish_held_run(server: &mock_llm::MockServer, agent: &mut support::Agent) -> Result<()> {
    server.release_gate("hold")?;
    let rest = agent.until(|r| r["type"] == "agent_settled").await?;
    let end = rest
        .iter()
        .find(|r| r["type"] == "message_end")
        .cloned()
        .unwrap_or_default();
    assert_eq!(end["message"]["stopReason"], "stop", "{rest:#?}");
    assert_eq!(
        end["message"]["content"],
        json!([{"type": "text", "text": "First half"}, {"type": "text", "text": "Second half"}])
    );
    Ok(())
}

#[tokio::test]
async fn compact_with_nothing_to_compact_during_a_run_fails_at_once_and_the_run_goes_on()
-> Result<()> {
    let (server, _env, mut agent) = start_held_run().await?;
    agent.send(json!({"id": "c", "type": "compact"})).await?;
    let records = agent.until(|r| r["id"] == "c").await?;
    assert_eq!(
        types(&records),
        ["compaction_start", "compaction_end", "response:compact"]
    );
    assert_eq!(
        records[1]["errorMessage"],
        "Compaction failed: Nothing to compact (session too small)"
    );
    assert_eq!(records[2]["success"], false);
    assert_eq!(
        records[2]["error"],
        "Nothing to compact (session too small)"
    );
    finish_held_run(&server, &mut agent).await
}

#[tokio::test]
async fn commands_with_arguments_of_the_wrong_type_during_a_run_leave_it_alone() -> Result<()> {
    let (server, _env, mut agent) = start_held_run().await?;
    // The reference takes each of these as valid, aborts the run, then acts on the value.
    let commands = [
        json!({"id": "n", "type": "new_session", "parentSession": 5}),
        json!({"id": "c", "type": "compact", "customInstructions": 5}),
        json!({"id": "f", "type": "fork", "entryId": ["a"]}),
    ];
    for command in commands {
        let id = command["id"].clone();
        agent.send(command).await?;
        let records = agent.until(|r| r["id"] == id).await?;
        let response: &Value = records.last().unwrap_or(&Value::Null);
        assert_eq!(response["success"], false, "{records:#?}");
        assert_eq!(records.len(), 1, "{records:#?}");
    }
    finish_held_run(&server, &mut agent).await
}
