//! `switch_session`, `fork`, `clone` and `export_html` against the real binary and real session
//! files.

mod support;

use anyhow::{Context, Result};
use serde_json::{Value, json};
use support::TestEnv;

/// A session with one exchange, then a second user message whose answer is on the active
/// branch: root model/thinking entries, q1, a1, q2, a2.
fn write_session(env: &TestEnv, name: &str) -> Result<std::path::PathBuf> {
    let dir = env.root.path().join("sessions");
    std::fs::create_dir_all(&dir)?;
    let cwd = env.work_dir();
    let assistant = |id: &str, parent: &str, text: &str| {
        json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T10:00:02.000Z",
               "message": {"role": "assistant", "content": [{"type": "text", "text": text}],
                           "api": "anthropic-messages", "provider": "mock", "model": "mock-model-2",
                           "usage": {"input": 100, "output": 20, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 120,
                                     "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0.5}},
                           "stopReason": "stop", "timestamp": 1}})
    };
    let user = |id: &str, parent: &str, text: &str| {
        json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T10:00:01.000Z",
               "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}})
    };
    let lines = [
        json!({"type": "session", "version": 3, "id": "0197a000-0000-7000-8000-000000000001",
               "timestamp": "2026-01-01T10:00:00.000Z", "cwd": cwd}),
        json!({"type": "model_change", "id": "a0000001", "parentId": null,
               "timestamp": "2026-01-01T10:00:00.001Z", "provider": "mock", "modelId": "mock-model-2"}),
        json!({"type": "thinking_level_change", "id": "a0000002", "parentId": "a0000001",
               "timestamp": "2026-01-01T10:00:00.002Z", "thinkingLevel": "off"}),
        user("a0000003", "a0000002", "First question"),
        assistant("a0000004", "a0000003", "First answer"),
        user("a0000005", "a0000004", "Second question"),
        assistant("a0000006", "a0000005", "Second answer"),
    ];
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let path = dir.join(name);
    std::fs::write(&path, text)?;
    Ok(path)
}

fn data(response: &Value) -> &Value {
    &response["data"]
}

#[tokio::test]
async fn switch_session_restores_the_branch_model_and_thinking_level_of_the_file() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let path = write_session(&env, "s.jsonl")?;
    // Without --model: a --model on the command line would win over the file's (cli.053).
    let mut agent = env.spawn(&[])?;
    let switched = agent
        .request(json!({"id": 1, "type": "switch_session", "sessionPath": path}))
        .await?;
    assert_eq!(
        switched,
        json!({"id": 1, "type": "response", "command": "switch_session", "success": true, "data": {"cancelled": false}})
    );
    let state = agent.request(json!({"type": "get_state"})).await?;
    assert_eq!(data(&state)["model"]["id"], "mock-model-2");
    assert_eq!(data(&state)["thinkingLevel"], "off");
    assert_eq!(data(&state)["messageCount"], 4);
    assert_eq!(
        data(&state)["sessionId"],
        "0197a000-0000-7000-8000-000000000001"
    );
    assert_eq!(data(&state)["sessionFile"], json!(path));
    let stats = agent.request(json!({"type": "get_session_stats"})).await?;
    assert_eq!(
        data(&stats)["tokens"],
        json!({"input": 200, "output": 40, "cacheRead": 0, "cacheWrite": 0, "total": 240})
    );
    assert_eq!(data(&stats)["cost"], 1.0);
    assert_eq!(
        data(&stats)["contextUsage"],
        json!({"tokens": 120, "contextWindow": 100000, "percent": 0.12})
    );
    Ok(())
}

#[tokio::test]
async fn fork_starts_a_new_file_before_the_chosen_message_and_returns_its_text() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let path = write_session(&env, "s.jsonl")?;
    let mut agent = env.spawn_default(&[])?;
    agent
        .request(json!({"type": "switch_session", "sessionPath": path}))
        .await?;
    let unknown = agent
        .request(json!({"id": "f", "type": "fork", "entryId": "a0000004"}))
        .await?;
    assert_eq!(unknown["error"], "Invalid entry ID for forking");
    let forked = agent
        .request(json!({"id": "f", "type": "fork", "entryId": "a0000005"}))
        .await?;
    assert_eq!(
        data(&forked),
        &json!({"text": "Second question", "cancelled": false})
    );
    let state = agent.request(json!({"type": "get_state"})).await?;
    assert_eq!(data(&state)["messageCount"], 2);
    let file = data(&state)["sessionFile"]
        .as_str()
        .context("sessionFile")?
        .to_owned();
    assert_ne!(file, path.to_string_lossy());
    let written = std::fs::read_to_string(&file)?;
    let header: Value = serde_json::from_str(written.lines().next().context("header")?)?;
    assert_eq!(header["parentSession"], json!(path));
    assert_eq!(
        written.lines().count(),
        5,
        "header and the four entries before the fork point"
    );
    let cloned = agent.request(json!({"id": "c", "type": "clone"})).await?;
    assert_eq!(data(&cloned), &json!({"cancelled": false}));
    let clone_state = agent.request(json!({"type": "get_state"})).await?;
    assert_ne!(data(&clone_state)["sessionFile"], json!(file));
    assert_eq!(data(&clone_state)["messageCount"], 2);
    Ok(())
}

#[tokio::test]
async fn clone_of_an_in_memory_session_copies_its_entries_under_a_new_id() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_default(&[])?;
    let before = agent.request(json!({"type": "get_entries"})).await?;
    let state = agent.request(json!({"type": "get_state"})).await?;
    let response = agent.request(json!({"id": "c", "type": "clone"})).await?;
    assert_eq!(
        response,
        json!({"id": "c", "type": "response", "command": "clone", "success": true,
               "data": {"cancelled": false}})
    );
    let after = agent.request(json!({"type": "get_entries"})).await?;
    // Like a new runtime on a session without messages, the clone records the model and
    // thinking level again after the copied entries.
    let kinds: Vec<&str> = data(&after)["entries"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|entry| entry["type"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        kinds,
        [
            "model_change",
            "thinking_level_change",
            "model_change",
            "thinking_level_change"
        ]
    );
    assert_eq!(data(&after)["entries"][0], data(&before)["entries"][0]);
    let cloned = agent.request(json!({"type": "get_state"})).await?;
    assert_ne!(data(&cloned)["sessionId"], data(&state)["sessionId"]);
    Ok(())
}

#[tokio::test]
async fn export_html_writes_a_page_named_after_the_session_file() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let path = write_session(&env, "talk.jsonl")?;
    let mut agent = env.spawn_default(&[])?;
    agent
        .request(json!({"type": "switch_session", "sessionPath": path}))
        .await?;
    let exported = agent.request(json!({"type": "export_html"})).await?;
    assert_eq!(data(&exported), &json!({"path": "pi-session-talk.html"}));
    let html = std::fs::read_to_string(env.work_dir().join("pi-session-talk.html"))?;
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("Second answer"));
    let missing = agent
        .request(json!({"type": "export_html", "outputPath": "no-dir/x.html"}))
        .await?;
    assert_eq!(
        missing["error"],
        "ENOENT: no such file or directory, open 'no-dir/x.html'"
    );
    Ok(())
}
