//! The RPC commands that need no model call, against the real binary: their data, key order,
//! events and errors as the reference gives them.

mod support;

use anyhow::Result;
use serde_json::{Value, json};
use support::{TestEnv, redact};

const MODEL_1: &str = r#"{"id":"mock-model-1","name":"mock-model-1","api":"anthropic-messages","provider":"mock","baseUrl":"http://127.0.0.1:9","reasoning":true,"input":["text"],"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0},"contextWindow":200000,"maxTokens":8192}"#;
const MODEL_2: &str = r#"{"id":"mock-model-2","name":"mock-model-2","api":"anthropic-messages","provider":"mock","baseUrl":"http://127.0.0.1:9","reasoning":false,"input":["text"],"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0},"contextWindow":100000,"maxTokens":4096}"#;

fn text(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

#[tokio::test]
async fn get_state_reports_the_model_and_defaults_in_the_reference_key_order() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_default(&[])?;
    let mut state = agent
        .request(json!({"id": "a", "type": "get_state"}))
        .await?;
    let session_id = state["data"]["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert_eq!(session_id.len(), 36, "a UUID: {session_id}");
    assert_eq!(&session_id[14..15], "7", "a UUIDv7: {session_id}");
    redact(&mut state, "sessionId");
    let expected = format!(
        r#"{{"id":"a","type":"response","command":"get_state","success":true,"data":{{"model":{MODEL_1},"thinkingLevel":"medium","isStreaming":false,"isCompacting":false,"steeringMode":"one-at-a-time","followUpMode":"one-at-a-time","sessionId":"<redacted>","autoCompactionEnabled":true,"messageCount":0,"pendingMessageCount":0}}}}"#
    );
    assert_eq!(text(&state), expected);
    Ok(())
}

#[tokio::test]
async fn get_available_models_lists_models_with_credentials_only() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut models = serde_json::from_str::<Value>(&std::fs::read_to_string(
        env.agent_dir().join("models.json"),
    )?)?;
    models["providers"]["locked"] = json!({
        "baseUrl": "http://127.0.0.1:9", "api": "anthropic-messages",
        "apiKey": "$PI_AGENT_TEST_VARIABLE_THAT_IS_NOT_SET", "models": [{"id": "hidden"}]
    });
    env.write_models(&models)?;
    let mut agent = env.spawn_default(&[])?;
    let response = agent
        .request(json!({"id": 1, "type": "get_available_models"}))
        .await?;
    let expected = format!(
        r#"{{"id":1,"type":"response","command":"get_available_models","success":true,"data":{{"models":[{MODEL_1},{MODEL_2}]}}}}"#
    );
    assert_eq!(text(&response), expected);
    Ok(())
}

#[tokio::test]
async fn bad_lines_get_clear_errors_and_the_agent_keeps_serving() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_default(&[])?;
    let cases: [(&str, &str); 5] = [
        (
            r#"{"type":"bogus"}"#,
            r#"{"type":"response","command":"bogus","success":false,"error":"Unknown command: bogus"}"#,
        ),
        (
            "",
            r#"{"type":"response","command":"parse","success":false,"error":"Failed to parse command: Unexpected end of JSON input"}"#,
        ),
        (
            "null",
            r#"{"type":"response","success":false,"error":"Unknown command: undefined (a command must be a JSON object)"}"#,
        ),
        (
            r#"{"id":"p","type":"prompt"}"#,
            r#"{"id":"p","type":"response","command":"prompt","success":false,"error":"Invalid prompt command: missing field `message`"}"#,
        ),
        (
            r#"{"type":"set_session_name","name":"  "}"#,
            r#"{"type":"response","command":"set_session_name","success":false,"error":"Session name cannot be empty"}"#,
        ),
    ];
    for (line, expected) in cases {
        agent.send_line(line).await?;
        let response = agent.next().await?;
        assert_eq!(text(&response), expected, "input {line:?}");
    }
    let state = agent.request(json!({"type": "get_state"})).await?;
    assert_eq!(state["success"], true);
    Ok(())
}

#[tokio::test]
async fn thinking_levels_clamp_cycle_and_announce_changes() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_default(&["--thinking", "high"])?;
    let levels = agent
        .request(json!({"type": "get_available_thinking_levels"}))
        .await?;
    assert_eq!(
        levels["data"],
        json!({"levels": ["off", "minimal", "low", "medium", "high"]})
    );
    agent
        .send(json!({"type": "set_thinking_level", "level": "max"}))
        .await?;
    // high is already the highest level this model has: no change, no event.
    assert_eq!(
        text(&agent.next().await?),
        r#"{"type":"response","command":"set_thinking_level","success":true}"#
    );
    agent.send(json!({"type": "cycle_thinking_level"})).await?;
    assert_eq!(
        text(&agent.next().await?),
        r#"{"type":"thinking_level_changed","level":"off"}"#
    );
    assert_eq!(
        text(&agent.next().await?),
        r#"{"type":"response","command":"cycle_thinking_level","success":true,"data":{"level":"off"}}"#
    );
    let settings: Value = serde_json::from_str(&std::fs::read_to_string(
        env.agent_dir().join("settings.json"),
    )?)?;
    assert_eq!(settings["defaultThinkingLevel"], "off");
    Ok(())
}

#[tokio::test]
async fn set_model_and_cycle_model_switch_models_and_clamp_thinking() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_default(&[])?;
    agent
        .send(json!({"type": "set_model", "provider": "x", "modelId": "y"}))
        .await?;
    assert_eq!(
        text(&agent.next().await?),
        r#"{"type":"response","command":"set_model","success":false,"error":"Model not found: x/y"}"#
    );
    agent.send(json!({"type": "cycle_model"})).await?;
    assert_eq!(
        text(&agent.next().await?),
        r#"{"type":"thinking_level_changed","level":"off"}"#
    );
    assert_eq!(
        text(&agent.next().await?),
        format!(
            r#"{{"type":"response","command":"cycle_model","success":true,"data":{{"model":{MODEL_2},"thinkingLevel":"off","isScoped":false}}}}"#
        )
    );
    agent
        .send(json!({"type": "set_model", "provider": "mock", "modelId": "mock-model-1"}))
        .await?;
    assert_eq!(
        text(&agent.next().await?),
        r#"{"type":"thinking_level_changed","level":"medium"}"#
    );
    assert_eq!(
        text(&agent.next().await?),
        format!(r#"{{"type":"response","command":"set_model","success":true,"data":{MODEL_1}}}"#)
    );
    Ok(())
}

#[tokio::test]
async fn queue_modes_and_session_name_are_set() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_default(&["--name", "first"])?;
    let response = agent
        .request(json!({"type": "set_steering_mode", "mode": "all"}))
        .await?;
    assert_eq!(response["success"], true);
    agent
        .request(json!({"type": "set_follow_up_mode", "mode": "all"}))
        .await?;
    agent
        .send(json!({"type": "set_session_name", "name": " nm "}))
        .await?;
    assert_eq!(
        text(&agent.next().await?),
        r#"{"type":"session_info_changed","name":"nm"}"#
    );
    agent.next().await?;
    let state = agent.request(json!({"type": "get_state"})).await?;
    assert_eq!(state["data"]["steeringMode"], "all");
    assert_eq!(state["data"]["followUpMode"], "all");
    assert_eq!(state["data"]["sessionName"], "nm");
    let last = agent
        .request(json!({"type": "get_last_assistant_text"}))
        .await?;
    assert_eq!(
        text(&last),
        r#"{"type":"response","command":"get_last_assistant_text","success":true,"data":{}}"#
    );
    Ok(())
}

#[tokio::test]
async fn steer_and_follow_up_while_idle_only_queue() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_default(&[])?;
    agent
        .send(json!({"type": "steer", "message": "s1"}))
        .await?;
    assert_eq!(
        text(&agent.next().await?),
        r#"{"type":"queue_update","steering":["s1"],"followUp":[]}"#
    );
    assert_eq!(
        text(&agent.next().await?),
        r#"{"type":"response","command":"steer","success":true}"#
    );
    agent
        .send(json!({"type": "follow_up", "message": "f1"}))
        .await?;
    assert_eq!(
        text(&agent.next().await?),
        r#"{"type":"queue_update","steering":["s1"],"followUp":["f1"]}"#
    );
    agent.next().await?;
    let state = agent.request(json!({"type": "get_state"})).await?;
    assert_eq!(state["data"]["pendingMessageCount"], 2);
    assert_eq!(state["data"]["isStreaming"], false);
    Ok(())
}

#[tokio::test]
async fn end_of_input_ends_the_agent_with_exit_code_zero() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_default(&[])?;
    agent.send(json!({"type": "get_state"})).await?;
    agent.close_stdin();
    let response = agent.next().await?;
    assert_eq!(response["command"], "get_state");
    assert_eq!(agent.wait_exit().await?, 0);
    Ok(())
}

#[tokio::test]
async fn without_any_model_the_state_shows_the_unknown_placeholder_and_prompt_fails() -> Result<()>
{
    let env = TestEnv::empty()?;
    let mut agent = env.spawn(&[])?;
    let state = agent.request(json!({"type": "get_state"})).await?;
    assert_eq!(
        text(&state["data"]["model"]),
        r#"{"id":"unknown","name":"unknown","api":"unknown","provider":"unknown","baseUrl":"","reasoning":false,"input":[],"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0},"contextWindow":0,"maxTokens":0}"#
    );
    assert_eq!(state["data"]["thinkingLevel"], "off");
    let prompt = agent
        .request(json!({"id": 1, "type": "prompt", "message": "hi"}))
        .await?;
    assert_eq!(prompt["success"], false);
    let error = prompt["error"].as_str().unwrap_or_default();
    assert!(
        error.starts_with("No API key found for the selected model."),
        "{error}"
    );
    Ok(())
}

#[tokio::test]
async fn sigterm_ends_the_agent_with_exit_code_143() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_default(&[])?;
    agent.request(json!({"type": "get_state"})).await?;
    let pid = agent
        .child
        .id()
        .and_then(|id| i32::try_from(id).ok())
        .and_then(rustix::process::Pid::from_raw)
        .ok_or_else(|| anyhow::anyhow!("no pid"))?;
    rustix::process::kill_process(pid, rustix::process::Signal::TERM)?;
    assert_eq!(agent.wait_exit().await?, 143);
    Ok(())
}

#[tokio::test]
async fn a_type_that_is_not_a_string_is_echoed_as_an_unknown_command() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_default(&[])?;
    agent.send_line(r#"{"id":"n","type":5}"#).await?;
    assert_eq!(
        text(&agent.next().await?),
        r#"{"id":"n","type":"response","command":5,"success":false,"error":"Unknown command: 5"}"#
    );
    agent.send_line(r#"{"type":null}"#).await?;
    assert_eq!(
        text(&agent.next().await?),
        r#"{"type":"response","command":null,"success":false,"error":"Unknown command: null"}"#
    );
    Ok(())
}

#[tokio::test]
async fn session_names_are_trimmed_as_javascript_trims() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_default(&[])?;
    agent
        .send(json!({"type": "set_session_name", "name": "\u{feff} a\r\n\nb \u{85}"}))
        .await?;
    assert_eq!(
        text(&agent.next().await?),
        "{\"type\":\"session_info_changed\",\"name\":\"a b \u{85}\"}"
    );
    Ok(())
}

#[tokio::test]
async fn with_models_cycle_model_walks_only_the_scope() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut models = serde_json::from_str::<Value>(&std::fs::read_to_string(
        env.agent_dir().join("models.json"),
    )?)?;
    if let Some(list) = models["providers"]["mock"]["models"].as_array_mut() {
        list.push(json!({"id": "mock-model-3", "reasoning": true}));
    }
    env.write_models(&models)?;
    let mut agent = env.spawn(&["--models", "mock/mock-model-3:low, mock/*-1"])?;
    let state = agent.request(json!({"type": "get_state"})).await?;
    assert_eq!(state["data"]["model"]["id"], "mock-model-3");
    assert_eq!(state["data"]["thinkingLevel"], "low");
    let first = agent.request(json!({"type": "cycle_model"})).await?;
    assert_eq!(first["data"]["model"]["id"], "mock-model-1");
    assert_eq!(first["data"]["thinkingLevel"], "low");
    assert_eq!(first["data"]["isScoped"], true);
    let second = agent.request(json!({"type": "cycle_model"})).await?;
    assert_eq!(second["data"]["model"]["id"], "mock-model-3");
    Ok(())
}
