//! The extension API calls that change the session: `pi.setActiveTools`, `pi.setModel`,
//! `pi.setThinkingLevel` and a command's `ctx.waitForIdle` / `ctx.fork`, seen by a client and
//! by the model. Skipped (saying so) when no Node.js >= 20.6 is found, unless
//! `PI_REQUIRE_REFERENCE` is set.

mod extensions_support;
mod support;

use anyhow::Result;
use serde_json::{Value, json};
use support::{Agent, TestEnv, check_eq, mock};

/// The agent on the mock model of `server` (when given) with the corpus fixture `fixture`
/// loaded by `-e`; `None` (the test is skipped, saying why) without a Node.js.
fn start(server: Option<&mock_llm::MockServer>, fixture: &str) -> Result<Option<(TestEnv, Agent)>> {
    let Some(node) = extensions_support::node() else {
        return Ok(None);
    };
    let env = match server {
        Some(server) => TestEnv::new(&server.uri())?,
        None => TestEnv::empty()?,
    };
    let path = env.work_dir().join(fixture);
    std::fs::copy(extensions_support::fixture(fixture), &path)?;
    let path = path.display().to_string();
    let mut args = vec!["-e", path.as_str()];
    if server.is_some() {
        args.extend(["--provider", "mock", "--model", "mock-model-1"]);
    }
    let agent = env.spawn_with_env(&args, &[("PI_AGENT_NODE", &node)])?;
    Ok(Some((env, agent)))
}

/// The `message` of the notification the next record must be.
async fn notified(agent: &mut Agent) -> Result<String> {
    let record = agent.next().await?;
    assert_eq!(record["method"], "notify", "not a notification: {record}");
    Ok(record["message"].as_str().unwrap_or_default().to_owned())
}

/// Sends the prompt `message` as `id`: its notifications up to its (successful) answer.
async fn command(agent: &mut Agent, id: &str, message: &str) -> Result<Vec<String>> {
    agent
        .send(json!({"id": id, "type": "prompt", "message": message}))
        .await?;
    let records = agent.until(|record| record["id"] == id).await?;
    let (answer, rest) = records.split_last().unwrap_or((&Value::Null, &[]));
    check_eq(
        answer,
        &json!({"id": id, "type": "response", "command": "prompt", "success": true}),
    )?;
    Ok(rest
        .iter()
        .filter_map(|record| record["message"].as_str().map(str::to_owned))
        .collect())
}

#[tokio::test]
async fn set_active_tools_chooses_the_known_tools_the_next_request_offers() -> Result<()> {
    let server = mock("responses:\n  - text: Done.\n").await?;
    let Some((_env, mut agent)) = start(Some(&server), "active-tools.ts")? else {
        return Ok(());
    };
    assert_eq!(
        command(&mut agent, "c", "/choose probe nosuch bash").await?,
        ["active probe,bash"]
    );
    agent.prompt("Hello").await?;
    agent.until_settled().await?;
    let journal = server.journal();
    let tools: Vec<&str> = journal[0].body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|tool| tool["name"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(tools, ["probe", "bash"]);
    Ok(())
}

/// A models.json with two reasoning models and one without reasoning, all with keys.
fn write_models(env: &TestEnv, url: &str) -> Result<()> {
    env.write_models(&json!({"providers": {
        "mock": {"baseUrl": url, "api": "anthropic-messages", "apiKey": "k", "models": [
            {"id": "mock-model-1", "reasoning": true},
            {"id": "mock-model-2", "reasoning": true}]},
        "chat": {"baseUrl": url, "api": "openai-completions", "apiKey": "k", "models": [
            {"id": "chat-model", "reasoning": false}]}
    }}))
}

#[tokio::test]
async fn set_model_clamps_the_level_and_a_model_without_a_key_is_refused() -> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let server = mock("responses:\n  - text: Done.\n").await?;
    let env = TestEnv::new(&server.uri())?;
    write_models(&env, &server.uri())?;
    let path = env.work_dir().join("set-model.ts");
    std::fs::copy(extensions_support::fixture("set-model.ts"), &path)?;
    let path = path.display().to_string();
    let args = [
        "-e",
        path.as_str(),
        "--provider",
        "mock",
        "--model",
        "mock-model-1",
    ];
    let mut agent = env.spawn_with_env(&args, &[("PI_AGENT_NODE", &node)])?;
    agent
        .send(json!({"id": "u", "type": "prompt", "message": "/use chat/chat-model"}))
        .await?;
    check_eq(
        &agent.next().await?,
        &json!({"type": "thinking_level_changed", "level": "off"}),
    )?;
    assert_eq!(
        notified(&mut agent).await?,
        "model_select set: mock-model-1 -> chat-model"
    );
    assert_eq!(
        notified(&mut agent).await?,
        "use chat/chat-model: true; now chat-model off"
    );
    agent.until(|record| record["id"] == "u").await?;
    assert_eq!(
        command(&mut agent, "n", "/use anthropic/claude-sonnet-4-5").await?,
        ["use anthropic/claude-sonnet-4-5: false; now chat-model off"]
    );
    let state = agent
        .request(json!({"id": "s", "type": "get_state"}))
        .await?;
    assert_eq!(state["data"]["model"]["id"], "chat-model");
    assert_eq!(state["data"]["thinkingLevel"], "off");
    Ok(())
}

#[tokio::test]
async fn wait_for_idle_in_a_command_ends_after_the_run_settles() -> Result<()> {
    let server =
        mock("responses:\n  - content: [{text: \"Working\"}, {gate: g}, {text: \" on it.\"}]\n")
            .await?;
    let Some((_env, mut agent)) = start(Some(&server), "wait-for-idle.ts")? else {
        return Ok(());
    };
    assert_eq!(
        command(&mut agent, "w1", "/wait").await?,
        ["waiting, idle true", "waited, idle true"]
    );
    agent.prompt("Start").await?;
    server.wait_for_gate("g", support::TIMEOUT).await?;
    agent
        .send(json!({"id": "w2", "type": "prompt", "message": "/wait"}))
        .await?;
    agent
        .until(|record| record["message"] == "waiting, idle false")
        .await?;
    server.release_gate("g")?;
    let records = agent.until(|record| record["id"] == "w2").await?;
    let kinds: Vec<String> = records
        .iter()
        .rev()
        .take(3)
        .map(|record| {
            record["message"]
                .as_str()
                .or(record["type"].as_str())
                .unwrap_or_default()
                .to_owned()
        })
        .collect();
    assert_eq!(kinds, ["response", "waited, idle true", "agent_settled"]);
    Ok(())
}

#[tokio::test]
async fn a_command_fork_at_no_user_message_rejects_and_keeps_the_session() -> Result<()> {
    let Some((_env, mut agent)) = start(None, "command-replace.ts")? else {
        return Ok(());
    };
    assert_eq!(notified(&mut agent).await?, "session_start startup");
    let before = agent
        .request(json!({"id": "a", "type": "get_state"}))
        .await?;
    assert_eq!(
        command(&mut agent, "f", "/forkat nosuch").await?,
        ["fork failed"]
    );
    let after = agent
        .request(json!({"id": "b", "type": "get_state"}))
        .await?;
    assert_eq!(after["data"]["sessionId"], before["data"]["sessionId"]);
    Ok(())
}
