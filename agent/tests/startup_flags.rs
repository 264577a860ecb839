//! Start-up flags: model resolution, their warnings and errors on stderr and the exit codes, as
//! the reference gives them.

mod support;

use anyhow::Result;
use serde_json::json;
use support::TestEnv;

/// Runs the agent with [`support::RPC_ARGS`] plus `args`, `stdin` as input, and returns (exit
/// code, stdout, stderr).
async fn run(env: &TestEnv, args: &[&str], stdin: &str) -> Result<(i32, String, String)> {
    env.run_rpc(args, stdin, &[]).await
}

const GET_STATE: &str = "{\"type\":\"get_state\"}\n";

#[tokio::test]
async fn an_unknown_provider_is_an_error_with_exit_code_one() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let args = ["--provider", "nope", "--model", "x"];
    let (code, stdout, stderr) = run(&env, &args, GET_STATE).await?;
    assert_eq!(code, 1);
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "Error: Unknown provider \"nope\". Use --list-models to see available providers/models.\n"
    );
    Ok(())
}

#[tokio::test]
async fn an_unknown_model_id_of_a_known_provider_clones_its_first_model() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let args = ["--provider", "mock", "--model", "nothere"];
    let (code, stdout, stderr) = run(&env, &args, GET_STATE).await?;
    assert_eq!(code, 0);
    assert_eq!(
        stderr,
        "Warning: Model \"nothere\" not found for provider \"mock\". Using custom model id.\n"
    );
    let state: serde_json::Value = serde_json::from_str(stdout.trim_end())?;
    assert_eq!(state["data"]["model"]["id"], "nothere");
    assert_eq!(state["data"]["model"]["name"], "nothere");
    assert_eq!(state["data"]["model"]["contextWindow"], 200000);
    assert_eq!(state["data"]["thinkingLevel"], "medium");
    Ok(())
}

#[tokio::test]
async fn an_unknown_model_without_provider_is_an_error() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let args = ["--model", "zzz"];
    let (code, _, stderr) = run(&env, &args, GET_STATE).await?;
    assert_eq!(code, 1);
    assert_eq!(
        stderr,
        "Error: Model \"zzz\" not found. Use --list-models to see available models.\n"
    );
    Ok(())
}

#[tokio::test]
async fn a_thinking_suffix_is_clamped_to_what_the_model_supports() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let args = ["--model", "mock/mock-model-2:high"];
    let (code, stdout, stderr) = run(&env, &args, GET_STATE).await?;
    assert_eq!((code, stderr.as_str()), (0, ""));
    let state: serde_json::Value = serde_json::from_str(stdout.trim_end())?;
    assert_eq!(state["data"]["model"]["id"], "mock-model-2");
    assert_eq!(state["data"]["thinkingLevel"], "off");
    Ok(())
}

#[tokio::test]
async fn an_invalid_thinking_flag_is_a_warning_and_ignored() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let args = ["--thinking", "bogus"];
    let (code, stdout, stderr) = run(&env, &args, GET_STATE).await?;
    assert_eq!(code, 0);
    assert_eq!(
        stderr,
        "Warning: Invalid thinking level \"bogus\". Valid values: off, minimal, low, medium, high, xhigh, max\n"
    );
    let state: serde_json::Value = serde_json::from_str(stdout.trim_end())?;
    assert_eq!(state["data"]["model"]["id"], "mock-model-1");
    assert_eq!(state["data"]["thinkingLevel"], "medium");
    Ok(())
}

#[tokio::test]
async fn settings_choose_the_default_model_and_thinking_level() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    env.write_settings(&json!({
        "defaultProvider": "mock", "defaultModel": "mock-model-2",
        "defaultThinkingLevel": "low", "steeringMode": "all"
    }))?;
    std::fs::create_dir_all(env.work_dir().join(".pi"))?;
    std::fs::write(
        env.work_dir().join(".pi/settings.json"),
        json!({"followUpMode": "all"}).to_string(),
    )?;
    // The project's settings count for a trusted project only (scenarios/settings).
    let (code, stdout, _) = run(&env, &["--approve"], GET_STATE).await?;
    assert_eq!(code, 0);
    let state: serde_json::Value = serde_json::from_str(stdout.trim_end())?;
    assert_eq!(state["data"]["model"]["id"], "mock-model-2");
    assert_eq!(state["data"]["thinkingLevel"], "off");
    assert_eq!(state["data"]["steeringMode"], "all");
    assert_eq!(state["data"]["followUpMode"], "all");
    Ok(())
}

#[tokio::test]
async fn an_api_key_flag_makes_a_keyless_provider_available() -> Result<()> {
    let env = TestEnv::empty()?;
    env.write_models(&json!({"providers": {"keyless": {
        "baseUrl": "http://127.0.0.1:9", "api": "anthropic-messages",
        "models": [{"id": "k1"}]
    }}}))?;
    let input = "{\"type\":\"get_available_models\"}\n";
    let (_, stdout, _) = run(&env, &[], input).await?;
    assert!(stdout.contains(r#""models":[]"#), "{stdout}");
    let args = ["--model", "keyless/k1", "--api-key", "sk"];
    let (code, stdout, _) = run(&env, &args, input).await?;
    assert_eq!(code, 0);
    assert!(stdout.contains(r#""id":"k1""#), "{stdout}");
    Ok(())
}

#[tokio::test]
async fn the_anthropic_key_in_the_environment_makes_the_built_in_models_available() -> Result<()> {
    let env = TestEnv::empty()?;
    let input = "{\"type\":\"get_available_models\"}\n{\"type\":\"get_state\"}\n";
    let key = [("ANTHROPIC_API_KEY", "sk-test")];
    let (code, stdout, stderr) = env.run_rpc(&[], input, &key).await?;
    assert_eq!((code, stderr.as_str()), (0, ""));
    let mut lines = stdout.lines();
    let models: serde_json::Value = serde_json::from_str(lines.next().unwrap_or_default())?;
    let ids: Vec<&str> = models["data"]["models"]
        .as_array()
        .map(|models| models.iter().filter_map(|m| m["id"].as_str()).collect())
        .unwrap_or_default();
    assert!(ids.contains(&"claude-sonnet-4-6"), "{ids:?}");
    let state: serde_json::Value = serde_json::from_str(lines.next().unwrap_or_default())?;
    assert_eq!(state["data"]["model"]["id"], "claude-opus-4-8");
    assert_eq!(state["data"]["thinkingLevel"], "medium");
    let levels_input = "{\"type\":\"get_available_thinking_levels\"}\n";
    let (_, stdout, _) = env.run_rpc(&[], levels_input, &key).await?;
    assert!(
        stdout.contains(r#""levels":["off","minimal","low","medium","high","xhigh","max"]"#),
        "{stdout}"
    );
    Ok(())
}

#[tokio::test]
async fn unknown_short_options_and_a_bare_double_dash_are_named_with_exit_code_one() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    // The reference's words for each, observed with pi 0.84.1.
    for (args, message) in [
        (&["-x"][..], "Error: Unknown option: -x\n"),
        (&["-xq"][..], "Error: Unknown option: -xq\n"),
        (&["--"][..], "Error: Unknown option: --\n"),
        (&["--", "hello"][..], "Error: Unknown option: --\n"),
    ] {
        let (code, stdout, stderr) = run(&env, args, GET_STATE).await?;
        assert_eq!((code, stdout.as_str()), (1, ""), "{args:?}");
        assert_eq!(stderr, message, "{args:?}");
    }
    Ok(())
}

#[tokio::test]
async fn messages_on_the_command_line_are_ignored_but_file_arguments_are_refused() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let (code, stdout, stderr) = run(&env, &["hello", "there"], GET_STATE).await?;
    assert_eq!(code, 0, "{stderr}");
    let state: serde_json::Value = serde_json::from_str(stdout.trim_end())?;
    assert_eq!(state["command"], json!("get_state"));
    assert_eq!(state["data"]["messageCount"], json!(0));

    let (code, stdout, stderr) = run(&env, &["hello", "@notes.md"], GET_STATE).await?;
    assert_eq!((code, stdout.as_str()), (1, ""));
    assert_eq!(
        stderr,
        "Error: @file arguments are not supported in RPC mode\n"
    );
    Ok(())
}

#[tokio::test]
async fn version_names_the_release_chosen_by_the_flag_or_the_setting() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let version = |args: &[&str]| {
        let output = env.command(args).output();
        async move {
            let output = output.await?;
            anyhow::Ok((
                output.status.code(),
                String::from_utf8(output.stdout)?,
                String::from_utf8(output.stderr)?,
            ))
        }
    };
    assert_eq!(
        version(&["--version"]).await?,
        (Some(0), "0.84.1\n".into(), String::new())
    );
    env.write_settings(&json!({"rpcRelease": "1.6.0"}))?;
    assert_eq!(
        version(&["-v"]).await?,
        (Some(0), "1.6.0\n".into(), String::new())
    );
    // The flag wins over the setting.
    let flagged = version(&["--rpc-release", "0.99.1", "--version"]).await?;
    assert_eq!(flagged, (Some(0), "0.99.1\n".into(), String::new()));
    // A release pi-agent cannot speak (a session start refuses it) leaves the default.
    env.write_settings(&json!({"rpcRelease": "9.0.0"}))?;
    assert_eq!(
        version(&["--version"]).await?,
        (Some(0), "0.84.1\n".into(), String::new())
    );
    Ok(())
}
