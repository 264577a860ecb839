//! The session around the runs: the session file written with `--session-dir`, the entries the
//! commands record, and `new_session`.

mod support;

use anyhow::{Context, Result};
use serde_json::{Value, json};
use support::{TestEnv, mock, scenario};

fn entry_types(path: &str) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {path}"))?;
    text.lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line)?;
            let kind = value["type"].as_str().unwrap_or_default().to_owned();
            Ok(match value["message"]["role"].as_str() {
                Some(role) => format!("{kind}:{role}"),
                None => kind,
            })
        })
        .collect()
}

#[tokio::test]
async fn a_session_dir_gets_a_session_file_with_every_entry() -> Result<()> {
    let server = mock("responses:\n  - text: hello\n").await?;
    let env = TestEnv::new(&server.uri())?;
    let sessions = env.root.path().join("sessions");
    let sessions_arg = sessions.to_string_lossy().into_owned();
    let mut command_args = support::session_dir_args(&sessions_arg);
    command_args.extend(["--name", "first"]);
    let mut agent = env.spawn_raw(&command_args)?;
    let state = agent.request(json!({"type": "get_state"})).await?;
    let file = state["data"]["sessionFile"]
        .as_str()
        .context("sessionFile")?
        .to_owned();
    let session_id = state["data"]["sessionId"].as_str().unwrap_or_default();
    assert!(file.starts_with(&sessions_arg), "{file}");
    assert!(file.ends_with(&format!("_{session_id}.jsonl")), "{file}");
    assert_eq!(state["data"]["sessionName"], "first");
    assert!(
        !std::path::Path::new(&file).exists(),
        "written lazily, with the first assistant message"
    );
    agent.prompt("hi").await?;
    agent.until_settled().await?;
    agent
        .request(json!({"type": "set_thinking_level", "level": "low"}))
        .await?;
    assert_eq!(
        entry_types(&file)?,
        [
            "session",
            "session_info",
            "model_change",
            "thinking_level_change",
            "message:user",
            "message:assistant",
            "thinking_level_change",
        ]
    );
    Ok(())
}

#[tokio::test]
async fn new_session_starts_an_empty_conversation_with_a_new_id() -> Result<()> {
    let (_server, _env, mut agent) = scenario("responses:\n  - text: hello\n").await?;
    agent.prompt("hi").await?;
    agent.until_settled().await?;
    let before = agent.request(json!({"type": "get_state"})).await?;
    assert_eq!(before["data"]["messageCount"], 2);
    let response = agent
        .request(json!({"id": 5, "type": "new_session"}))
        .await?;
    assert_eq!(
        serde_json::to_string(&response)?,
        r#"{"id":5,"type":"response","command":"new_session","success":true,"data":{"cancelled":false}}"#
    );
    let after = agent.request(json!({"type": "get_state"})).await?;
    assert_eq!(after["data"]["messageCount"], 0);
    assert_ne!(after["data"]["sessionId"], before["data"]["sessionId"]);
    let messages = agent.request(json!({"type": "get_messages"})).await?;
    assert_eq!(messages["data"], json!({"messages": []}));
    Ok(())
}

#[tokio::test]
async fn new_session_during_a_run_aborts_it_first() -> Result<()> {
    let (server, _env, mut agent) =
        scenario("responses:\n  - content: [{text: a}, {gate: g}]\n").await?;
    agent.prompt("hi").await?;
    server
        .wait_for_gate("g", std::time::Duration::from_secs(10))
        .await?;
    agent.send(json!({"type": "new_session"})).await?;
    let records = agent
        .until(|r| r["type"] == "response" && r["command"] == "new_session")
        .await?;
    let kinds = support::types(&records);
    assert_eq!(
        kinds[kinds.len() - 3..],
        ["agent_end", "agent_settled", "response:new_session"]
    );
    let state = agent.request(json!({"type": "get_state"})).await?;
    assert_eq!(state["data"]["messageCount"], 0);
    assert_eq!(state["data"]["isStreaming"], false);
    Ok(())
}

#[tokio::test]
async fn entries_tree_and_fork_messages_describe_the_session() -> Result<()> {
    let (_server, _env, mut agent) = scenario("responses:\n  - text: hello\n").await?;
    agent.prompt("hi").await?;
    agent.until_settled().await?;
    let entries = agent.request(json!({"type": "get_entries"})).await?;
    let kinds: Vec<&str> = entries["data"]["entries"]
        .as_array()
        .map(|all| all.iter().filter_map(|e| e["type"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        kinds,
        [
            "model_change",
            "thinking_level_change",
            "message",
            "message"
        ]
    );
    let user_entry = entries["data"]["entries"][2]["id"].clone();
    let last_entry = entries["data"]["entries"][3]["id"].clone();
    assert_eq!(entries["data"]["leafId"], last_entry);
    let since = agent
        .request(json!({"type": "get_entries", "since": user_entry}))
        .await?;
    assert_eq!(since["data"]["entries"].as_array().map(Vec::len), Some(1));
    let missing = agent
        .request(json!({"id": 2, "type": "get_entries", "since": "nope1234"}))
        .await?;
    assert_eq!(
        serde_json::to_string(&missing)?,
        r#"{"id":2,"type":"response","command":"get_entries","success":false,"error":"Entry not found: nope1234"}"#
    );
    let tree = agent.request(json!({"type": "get_tree"})).await?;
    assert_eq!(tree["data"]["tree"][0]["entry"]["type"], "model_change");
    assert_eq!(tree["data"]["leafId"], last_entry);
    let forks = agent.request(json!({"type": "get_fork_messages"})).await?;
    assert_eq!(
        forks["data"],
        json!({"messages": [{"entryId": user_entry, "text": "hi"}]})
    );
    Ok(())
}
