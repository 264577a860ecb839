//! Extensions at start-up: no Node is looked for without extensions; a missing or too old Node
//! or a missing extension file is a clear error; extensions that fail to load are all reported
//! (where a usable Node.js is found), and `--help` lists the flags of those that loaded.

mod extensions_support;
mod support;

use std::path::Path;
use std::process::Stdio;

use anyhow::Result;
use serde_json::json;
use support::TestEnv;

/// Runs `pi-agent --mode rpc --no-session` plus `args` with `vars`; returns (exit code,
/// stdout, stderr). Stdin is closed at once.
async fn run(
    env: &TestEnv,
    args: &[&str],
    vars: &[(&str, &Path)],
) -> Result<(i32, String, String)> {
    let mut all = vec!["--mode", "rpc", "--no-session"];
    all.extend_from_slice(args);
    let mut command = env.command(&all);
    command
        .envs(vars.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let output = tokio::time::timeout(support::TIMEOUT, command.output()).await??;
    Ok((
        output.status.code().unwrap_or(-1),
        String::from_utf8(output.stdout)?,
        String::from_utf8(output.stderr)?,
    ))
}

#[tokio::test]
async fn without_extensions_no_node_is_looked_for() -> Result<()> {
    let env = TestEnv::empty()?;
    let missing = env.root.path().join("no-such-node");
    let mut agent = env.spawn_with_env(&[], &[("PI_AGENT_NODE", &missing)])?;
    let response = agent.request(json!({"id": 1, "type": "get_state"})).await?;
    assert_eq!(response["success"], true, "{response}");
    Ok(())
}

#[tokio::test]
async fn a_missing_node_is_a_clear_startup_error() -> Result<()> {
    let env = TestEnv::empty()?;
    let missing = env.root.path().join("no-such-node");
    let fixture = extensions_support::fixture("ui-fixture.ts");
    let fixture = fixture.to_str().unwrap_or_default();
    let (code, stdout, stderr) =
        run(&env, &["-e", fixture], &[("PI_AGENT_NODE", &missing)]).await?;
    assert_eq!(code, 1, "stderr: {stderr}");
    assert_eq!(stdout, "");
    let expected = format!(
        "Error: extensions need Node.js 20.6 or newer (or 18.19 or a later 18), and `{}` cannot be run",
        missing.display()
    );
    assert!(stderr.starts_with(&expected), "stderr: {stderr}");
    assert!(
        stderr.contains("name it with PI_AGENT_NODE"),
        "stderr: {stderr}"
    );
    Ok(())
}

#[tokio::test]
async fn a_node_too_old_is_a_clear_startup_error() -> Result<()> {
    let env = TestEnv::empty()?;
    let old_node = env.root.path().join("old-node");
    // A Node.js as old as 20.5: asked its version, it says so; running the host, it has no
    // module hooks (a preload takes them away), and the host must end without a word. Without
    // a real Node.js here, a stand-in that ends as the host then does.
    let run_host = match extensions_support::node() {
        Some(node) => {
            let strip = env.root.path().join("no-hooks.cjs");
            std::fs::write(
                &strip,
                "const m = require('node:module');\ndelete m.register;\ndelete m.registerHooks;\nm.syncBuiltinESMExports();\n",
            )?;
            format!("exec '{}' -r '{}' \"$@\"", node.display(), strip.display())
        }
        None => "exit 3".to_owned(),
    };
    std::fs::write(
        &old_node,
        format!("#!/bin/sh\n[ \"$1\" = --version ] && echo v20.5.1 && exit 0\n{run_host}\n"),
    )?;
    std::fs::set_permissions(
        &old_node,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )?;
    let fixture = extensions_support::fixture("ui-fixture.ts");
    let fixture = fixture.to_str().unwrap_or_default();
    let (code, stdout, stderr) = run(
        &env,
        &["--extension", fixture],
        &[("PI_AGENT_NODE", &old_node)],
    )
    .await?;
    assert_eq!(code, 1, "stderr: {stderr}");
    assert_eq!(stdout, "");
    let expected = format!(
        "Error: extensions need Node.js 20.6 or newer (or 18.19 or a later 18), but `{}` is v20.5.1; install a newer one or name it with PI_AGENT_NODE\n",
        old_node.display()
    );
    assert_eq!(stderr, expected);
    Ok(())
}

#[tokio::test]
async fn a_missing_extension_file_fails_as_the_reference_says() -> Result<()> {
    let env = TestEnv::empty()?;
    let missing = env.root.path().join("no-such-node");
    let (code, stdout, stderr) =
        run(&env, &["-e", "nope.ts"], &[("PI_AGENT_NODE", &missing)]).await?;
    assert_eq!(code, 1, "stderr: {stderr}");
    assert_eq!(stdout, "");
    let path = env.work_dir().join("nope.ts");
    let path = path.display();
    assert_eq!(
        stderr,
        format!(
            "Error: Failed to load extension \"{path}\": Extension path does not exist: {path}\n{HINT}\n"
        )
    );
    Ok(())
}

/// What follows the errors when an extension failed to load.
const HINT: &str = "Hint: Start without extensions using \"pi-agent -ne\".";

/// Writes a good extension (registering `--plan`) and one that registers `--never`, then
/// throws, in the working folder; gives their paths.
fn good_and_broken(env: &TestEnv) -> Result<(String, String)> {
    let good = env.work_dir().join("good.ts");
    std::fs::write(
        &good,
        "export default function (pi) {\n\tpi.registerFlag(\"plan\", { description: \"Start in plan mode\", type: \"boolean\" });\n}\n",
    )?;
    let broken = env.work_dir().join("broken.ts");
    std::fs::write(
        &broken,
        "export default function (pi) {\n\tpi.registerFlag(\"never\", { type: \"boolean\" });\n\tthrow new Error(\"broken on purpose\");\n}\n",
    )?;
    Ok((good.display().to_string(), broken.display().to_string()))
}

#[tokio::test]
async fn every_start_up_failure_is_reported_at_once_then_the_hint() -> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    let (good, broken) = good_and_broken(&env)?;
    let missing = env.work_dir().join("missing.ts").display().to_string();
    let args = [
        "-e", &missing, "-e", &broken, "-e", &good, "--plan", "--never",
    ];
    let (code, stdout, stderr) = run(&env, &args, &[("PI_AGENT_NODE", &node)]).await?;
    assert_eq!(code, 1, "stderr: {stderr}");
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        format!(
            "Error: Unknown option: --never\n\
             Error: Failed to load extension \"{broken}\": Failed to load extension: broken on purpose\n\
             Error: Failed to load extension \"{missing}\": Extension path does not exist: {missing}\n\
             {HINT}\n"
        )
    );
    Ok(())
}

#[tokio::test]
async fn help_lists_the_flags_of_the_extensions_that_loaded() -> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    let (good, broken) = good_and_broken(&env)?;
    let missing = env.work_dir().join("missing.ts").display().to_string();
    let help = |release: &'static str| {
        let mut command = env.command(&[
            "--rpc-release",
            release,
            "--help",
            "-e",
            &broken,
            "-e",
            &missing,
            "-e",
            &good,
        ]);
        command
            .env("PI_AGENT_NODE", &node)
            .stdin(Stdio::null())
            .kill_on_drop(true);
        command
    };
    let flags = "\nExtension CLI Flags:\n  --plan                      Start in plan mode\n\n";
    // Until 1.4.0 the failures are left unsaid.
    let output = tokio::time::timeout(support::TIMEOUT, help("1.4.0").output()).await??;
    let stdout = String::from_utf8(output.stdout)?;
    assert_eq!(output.status.code(), Some(0));
    assert!(stdout.contains(flags), "stdout: {stdout}");
    assert!(!stdout.contains("--never"), "stdout: {stdout}");
    assert_eq!(String::from_utf8(output.stderr)?, "");
    // From 1.5.0 they are errors on stderr, without the hint.
    let output = tokio::time::timeout(support::TIMEOUT, help("1.5.0").output()).await??;
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8(output.stdout)?.contains(flags));
    assert_eq!(
        String::from_utf8(output.stderr)?,
        format!(
            "Error: Failed to load extension \"{broken}\": Failed to load extension: broken on purpose\n\
             Error: Failed to load extension \"{missing}\": Extension path does not exist: {missing}\n"
        )
    );
    Ok(())
}

#[tokio::test]
async fn long_flags_without_an_extension_to_take_them_are_unknown_options() -> Result<()> {
    let env = TestEnv::empty()?;
    let missing = env.root.path().join("no-such-node");
    let (code, stdout, stderr) = run(
        &env,
        &["--plan", "--target", "staging", "--level=3"],
        &[("PI_AGENT_NODE", &missing)],
    )
    .await?;
    assert_eq!(code, 1, "stderr: {stderr}");
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "Error: Unknown options: --plan, --target, --level\n"
    );
    let (code, _, stderr) = run(&env, &["--plan"], &[("PI_AGENT_NODE", &missing)]).await?;
    assert_eq!(code, 1, "stderr: {stderr}");
    assert_eq!(stderr, "Error: Unknown option: --plan\n");
    Ok(())
}

#[tokio::test]
async fn extension_flags_missing_a_value_or_unregistered_are_reported_as_the_reference_does()
-> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    let fixture = extensions_support::fixture("flags.ts");
    let fixture = fixture.to_str().unwrap_or_default();
    let args = ["-e", fixture, "--nope", "--plan", "--target", "--also=1"];
    let (code, stdout, stderr) = run(&env, &args, &[("PI_AGENT_NODE", &node)]).await?;
    assert_eq!(code, 1, "stderr: {stderr}");
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "Error: Extension flag \"--target\" requires a value\nError: Unknown options: --nope, --also\n"
    );
    Ok(())
}

/// Writes an extension registering the provider `proxy` (and `bad` without a base URL when
/// `with_bad`) in its factory, and `late`, without a base URL either, from `session_start`.
fn providers_extension(env: &TestEnv, with_bad: bool) -> Result<String> {
    let path = env.work_dir().join("providers.ts");
    let bad = if with_bad {
        "\tpi.registerProvider(\"bad\", { apiKey: \"k\", api: \"anthropic-messages\", models: [{ id: \"b\" }] });\n"
    } else {
        ""
    };
    std::fs::write(
        &path,
        format!(
            "export default function (pi) {{\n\
             \tpi.registerProvider(\"proxy\", {{ baseUrl: \"http://127.0.0.1:9\", apiKey: \"k\", api: \"anthropic-messages\", models: [{{ id: \"proxy-model\" }}] }});\n\
             {bad}\
             \tpi.on(\"session_start\", () => pi.registerProvider(\"late\", {{ apiKey: \"k\", api: \"anthropic-messages\", models: [{{ id: \"l\" }}] }}));\n\
             }}\n"
        ),
    )?;
    Ok(path.display().to_string())
}

#[tokio::test]
async fn providers_registered_while_loading_can_be_chosen_and_a_later_refusal_is_the_handlers_error()
-> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    let extension = providers_extension(&env, false)?;
    let args = [
        "--provider",
        "proxy",
        "--model",
        "proxy-model",
        "-e",
        &extension,
    ];
    let (code, stdout, stderr) = run(&env, &args, &[("PI_AGENT_NODE", &node)]).await?;
    assert_eq!(code, 0, "stderr: {stderr}");
    assert!(!stderr.contains("not found"), "{stderr}");
    let refused = json!({
        "type": "extension_error",
        "extensionPath": extension,
        "event": "session_start",
        "error": "Provider late: \"baseUrl\" is required when defining custom models.",
    });
    assert_eq!(stdout, format!("{refused}\n"));
    let extension = providers_extension(&env, true)?;
    let args = ["--provider", "proxy", "--model", "nope", "-e", &extension];
    let (code, _, stderr) = run(&env, &args, &[("PI_AGENT_NODE", &node)]).await?;
    assert_eq!(code, 1, "stderr: {stderr}");
    assert_eq!(
        stderr,
        format!(
            "Error: Extension \"{extension}\" error: Provider bad: \"baseUrl\" is required when defining custom models.\n\
             Warning: Model \"nope\" not found for provider \"proxy\". Using custom model id.\n"
        )
    );
    Ok(())
}
