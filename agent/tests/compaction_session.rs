//! Compaction seen from outside, where no scenario looks: the `compaction` entry in the session
//! file and a resumed session that starts from it, prompts refused while `compact` runs, and
//! the compaction a prompt runs first when the last answer crossed the threshold while
//! automatic compaction was off (and `set_auto_compaction` saved in the settings).

mod support;

use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::{Value, json};
use support::{TestEnv, mock, types};

/// Three turns whose answers take about 15 tokens each, and a summary.
const THREE_TURNS: &str = r#"
responses:
  - {match: {last_message_text: "<conversation>"}, text: "Summary of one and two", repeat: true}
  - {match: {last_message_text: "Turn one"}, text: "Answer one, with some words to take up room in the context."}
  - {match: {last_message_text: "Turn two"}, text: "Answer two, with some words to take up room in the context."}
  - {match: {last_message_text: "Turn three"}, text: "Answer three, with some words to take up room in the context."}
  - {match: {last_message_text: "Turn four"}, text: "Answer four"}
"#;

async fn prompt_and_settle(agent: &mut support::Agent, text: &str) -> Result<Vec<Value>> {
    agent
        .send(json!({"type": "prompt", "message": text}))
        .await?;
    agent.until(|r| r["type"] == "agent_settled").await
}

fn session_lines(dir: &std::path::Path) -> Result<(std::path::PathBuf, Vec<Value>)> {
    let file = std::fs::read_dir(dir)?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .find(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .context("no session file")?;
    let lines = std::fs::read_to_string(&file)?
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<Vec<Value>, _>>()?;
    Ok((file, lines))
}

#[tokio::test]
async fn the_compaction_entry_is_saved_and_a_resumed_session_starts_from_its_summary() -> Result<()>
{
    let server = mock(THREE_TURNS).await?;
    let env = TestEnv::new(&server.uri())?;
    env.write_settings(&json!({"compaction": {"keepRecentTokens": 20}}))?;
    let sessions = env.root.path().join("sessions");
    let sessions_arg = sessions.to_string_lossy().into_owned();
    let args = support::session_dir_args(&sessions_arg);
    let mut agent = env.spawn_raw(&args)?;
    for text in [
        "Turn one: 17",
        "Turn two: blue",
        "Turn three: what did I say?",
    ] {
        prompt_and_settle(&mut agent, text).await?;
    }
    let compacted = agent.request(json!({"type": "compact"})).await?;
    assert_eq!(compacted["success"], true, "{compacted}");
    let (file, lines) = session_lines(&sessions)?;
    let entry = lines.last().context("empty session file")?;
    let keys: Vec<&str> = entry
        .as_object()
        .map(|map| map.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(
        keys,
        [
            "type",
            "id",
            "parentId",
            "timestamp",
            "summary",
            "firstKeptEntryId",
            "tokensBefore",
            "details",
            "usage",
            "fromHook"
        ]
    );
    assert_eq!(entry["type"], "compaction");
    assert_eq!(entry["summary"], "Summary of one and two");
    assert_eq!(entry["tokensBefore"], 15);
    assert_eq!(entry["fromHook"], false);
    assert_eq!(
        entry["details"],
        json!({"readFiles": [], "modifiedFiles": []})
    );
    assert_eq!(entry["usage"]["totalTokens"], 15);
    assert_eq!(entry["parentId"], lines[lines.len() - 2]["id"]);
    // The first kept entry is the third prompt.
    let third = lines
        .iter()
        .find(|line| line["message"]["content"][0]["text"] == "Turn three: what did I say?")
        .context("third prompt not saved")?;
    assert_eq!(entry["firstKeptEntryId"], third["id"]);
    assert_eq!(compacted["data"]["firstKeptEntryId"], third["id"]);
    drop(agent);

    // A new process that switches to the file sees the summary, then the kept turn.
    let mut resumed = env.spawn_raw(&args)?;
    let path = file.to_string_lossy().into_owned();
    let switched = resumed
        .request(json!({"type": "switch_session", "sessionPath": path}))
        .await?;
    assert_eq!(switched["success"], true, "{switched}");
    let messages = resumed.request(json!({"type": "get_messages"})).await?;
    let roles: Vec<&str> = messages["data"]["messages"]
        .as_array()
        .map(|all| all.iter().filter_map(|m| m["role"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(roles, ["compactionSummary", "user", "assistant"]);
    prompt_and_settle(&mut resumed, "Turn four").await?;
    let journal = server.journal();
    let last = journal.last().context("no request")?;
    let texts: Vec<&str> = last.body["messages"]
        .as_array()
        .map(|all| {
            all.iter()
                .filter_map(|m| m["content"][0]["text"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        texts,
        [
            "The conversation history before this point was compacted into the following summary:\n\n<summary>\nSummary of one and two\n</summary>",
            "Turn three: what did I say?",
            "Answer three, with some words to take up room in the context.",
            "Turn four",
        ]
    );
    Ok(())
}

#[tokio::test]
async fn a_prompt_while_compact_runs_is_refused_and_accepted_after_it() -> Result<()> {
    let script = THREE_TURNS.replace(
        "text: \"Summary of one and two\", repeat: true",
        "text: \"Held summary\", gate: summary",
    );
    let server = mock(&script).await?;
    let env = TestEnv::new(&server.uri())?;
    env.write_settings(&json!({"compaction": {"keepRecentTokens": 20}}))?;
    let mut agent = env.spawn_default(&[])?;
    for text in [
        "Turn one: 17",
        "Turn two: blue",
        "Turn three: what did I say?",
    ] {
        prompt_and_settle(&mut agent, text).await?;
    }
    agent.send(json!({"id": "c", "type": "compact"})).await?;
    server
        .wait_for_gate("summary", Duration::from_secs(10))
        .await?;
    let refused = agent
        .request(json!({"type": "prompt", "message": "Turn four"}))
        .await?;
    assert_eq!(
        refused["error"],
        "Cannot submit a prompt while compaction is in progress. Wait for compaction to finish and retry."
    );
    server.release_gate("summary")?;
    let records = agent
        .until(|r| r["type"] == "response" && r["command"] == "compact")
        .await?;
    assert_eq!(types(&records), ["compaction_end", "response:compact"]);
    let records = prompt_and_settle(&mut agent, "Turn four").await?;
    assert_eq!(types(&records)[0], "response:prompt");
    Ok(())
}

#[tokio::test]
async fn a_prompt_first_compacts_when_the_last_answer_crossed_the_threshold_unchecked() -> Result<()>
{
    let server = mock(
        r#"
responses:
  - {match: {last_message_text: "<conversation>"}, text: "Late summary"}
  - {match: {last_message_text: "Turn one"}, text: "Answer one, with some words to take up room in the context."}
  - {match: {last_message_text: "Turn two"}, text: "Answer two, near the limit.", usage: {input: 190000, output: 100}}
  - {match: {last_message_text: "Turn three"}, text: "Answer three"}
"#,
    )
    .await?;
    let env = TestEnv::new(&server.uri())?;
    env.write_settings(&json!({"compaction": {"keepRecentTokens": 20}}))?;
    let mut agent = env.spawn_default(&[])?;
    let off = json!({"type": "set_auto_compaction", "enabled": false});
    assert_eq!(agent.request(off).await?["success"], true);
    // Saved in the global settings, as the reference saves it, beside the other keys.
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(
        env.agent_dir().join("settings.json"),
    )?)?;
    assert_eq!(
        saved["compaction"],
        json!({"keepRecentTokens": 20, "enabled": false})
    );
    prompt_and_settle(&mut agent, "Turn one: 17").await?;
    let records = prompt_and_settle(&mut agent, "Turn two: blue").await?;
    assert!(!types(&records).iter().any(|t| t.starts_with("compaction")));
    let on = json!({"type": "set_auto_compaction", "enabled": true});
    assert_eq!(agent.request(on).await?["success"], true);
    let records = prompt_and_settle(&mut agent, "Turn three").await?;
    let kinds = types(&records);
    assert_eq!(
        kinds[..4],
        [
            "compaction_start",
            "compaction_end",
            "response:prompt",
            "agent_start"
        ]
    );
    assert_eq!(records[0]["reason"], "threshold");
    assert_eq!(records[1]["result"]["tokensBefore"], 190_100);
    let journal = server.journal();
    assert_eq!(journal.len(), 4);
    let first = &journal[3].body["messages"][0]["content"][0]["text"];
    assert!(
        first
            .as_str()
            .is_some_and(|text| text.contains("<summary>\nNo prior history.")),
        "{first}"
    );
    Ok(())
}

#[tokio::test]
async fn the_summary_call_is_sent_again_by_the_provider_retries_the_settings_ask_for() -> Result<()>
{
    // As in the reference, the summary goes through the same transport as the session's model
    // calls: `retry.provider.maxRetries` resends a failed request before the compaction sees
    // it, even with the session's own retries off.
    let script = THREE_TURNS.replace(
        "  - {match: {last_message_text: \"<conversation>\"}",
        "  - {match: {last_message_text: \"<conversation>\"}, error: {status: 503}}\n  - {match: {last_message_text: \"<conversation>\"}",
    );
    let server = mock(&script).await?;
    let env = TestEnv::new(&server.uri())?;
    env.write_settings(&json!({
        "compaction": {"keepRecentTokens": 20},
        "retry": {"enabled": false, "provider": {"maxRetries": 1}},
    }))?;
    let mut agent = env.spawn_default(&[])?;
    for text in ["Turn one: 17", "Turn two: blue"] {
        prompt_and_settle(&mut agent, text).await?;
    }
    let compacted = agent.request(json!({"type": "compact"})).await?;
    assert_eq!(compacted["success"], true, "{compacted}");
    let summary = compacted["data"]["summary"].as_str().unwrap_or_default();
    assert!(summary.contains("Summary of one and two"), "{summary}");
    Ok(())
}
