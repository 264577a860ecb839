//! Programs that others wrote for pi's RPC mode see from pi-agent what they see from the
//! reference. pi-acp, the ACP adapter that Zed and other ACP editors use to run pi (it starts
//! the agent as `--mode rpc --no-themes`, and `--session FILE` to load a session), is driven
//! through one session by `conformance/clients/pi-acp/drive.mjs`, once with each agent behind it,
//! against the same mock provider; everything the editor sees must be the same, but for ids,
//! times and the scratch folder.
//!
//! Needs the reference install and pi-acp (`conformance/clients/pi-acp/install.sh`): without
//! them the test says so and passes, unless `PI_REQUIRE_REFERENCE` is set.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests, outside #[test] functions

use std::path::{Path, PathBuf};
use std::process::Stdio;

use mock_llm::{MockServer, Script};
use pi_conformance::agent::AgentCommand;
use regex::Regex;
use serde_json::{Value, json};

#[path = "support/ours.rs"]
mod ours;

fn client_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/pi-acp")
}

/// The reference's Node.js and pi-acp's entry point, or `None` (skipped).
fn installed() -> Option<(PathBuf, PathBuf)> {
    let launcher = pi_reference::launcher_or_skip("pi-acp against both agents")?;
    let node = pi_reference::or_skip(
        pi_reference::bundled_node(&launcher),
        "the reference install has no Node.js where install.sh puts it",
    )?;
    let entry = launcher
        .parent()?
        .parent()?
        .join("clients/pi-acp/node_modules/pi-acp/dist/index.js");
    let entry = pi_reference::or_skip(
        entry.is_file().then_some(entry),
        "pi-acp is not installed: run conformance/clients/pi-acp/install.sh",
    )?;
    Some((node, entry))
}

/// What the editor saw with `agent` behind pi-acp, normalised.
async fn drive(node: &Path, entry: &Path, agent: &Path) -> Value {
    let script_text = std::fs::read_to_string(client_dir().join("script.yaml")).unwrap();
    let script = Script::from_yaml_str(&script_text, "script.yaml").unwrap();
    let mock = MockServer::start(script).await.unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let (home, agent_dir, cwd) = (
        scratch.path().join("home"),
        scratch.path().join("agent"),
        scratch.path().join("cwd"),
    );
    for dir in [&home, &agent_dir, &cwd] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(cwd.join("notes.txt"), "hello from the notes\n").unwrap();
    let model = |id: &str, window: u64| json!({"id": id, "reasoning": true, "contextWindow": window, "maxTokens": 4096});
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("http://{}", mock.addr()),
        "api": "anthropic-messages",
        "apiKey": "mock-key",
        "models": [model("mock-model-1", 200_000), model("mock-model-2", 100_000)],
    }}});
    std::fs::write(agent_dir.join("models.json"), models.to_string()).unwrap();
    let settings = json!({"defaultProvider": "mock", "defaultModel": "mock-model-1"});
    std::fs::write(agent_dir.join("settings.json"), settings.to_string()).unwrap();

    let output = tokio::process::Command::new(node)
        .arg(client_dir().join("drive.mjs"))
        .arg(entry)
        .arg(&cwd)
        .current_dir(&cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("PI_CODING_AGENT_DIR", &agent_dir)
        .env("PI_ACP_PI_COMMAND", agent)
        .envs(pi_reference::extension_node().map(|node| ("PI_AGENT_NODE", node)))
        .envs([
            ("PI_OFFLINE", "1"),
            ("PI_SKIP_VERSION_CHECK", "1"),
            ("PI_TELEMETRY", "0"),
            ("TZ", "UTC"),
        ])
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    mock.shutdown().await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "drive.mjs failed:\n{stderr}");
    let text = String::from_utf8(output.stdout).unwrap();
    let scratch_text = scratch.path().display().to_string();
    serde_json::from_str(&normalise(&text, &scratch_text)).unwrap()
}

/// `text` with what differs from run to run replaced: ids, times, the scratch folder.
fn normalise(text: &str, scratch: &str) -> String {
    let text = text.replace(scratch, "SCRATCH");
    let rules = [
        (r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_", "STAMP_"),
        (
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "UUID",
        ),
        (r#""\d{4}-\d\d-\d\dT[0-9:.]+Z""#, r#""TIME""#),
        (r#""timestamp": \d+"#, r#""timestamp": 0"#),
    ];
    rules.iter().fold(text, |text, (pattern, with)| {
        Regex::new(pattern)
            .unwrap()
            .replace_all(&text, *with)
            .into_owned()
    })
}

/// The texts of the agent's message chunks, in order.
fn agent_texts(seen: &Value) -> Vec<&str> {
    seen.as_array()
        .unwrap()
        .iter()
        .filter_map(|entry| entry.pointer("/params/update"))
        .filter(|update| update["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|update| update.pointer("/content/text").and_then(Value::as_str))
        .collect()
}

#[tokio::test]
async fn pi_acp_sees_the_same_session_from_both_agents() {
    let Some((node, entry)) = installed() else {
        return;
    };
    let ours = ours::build_ours().unwrap();
    let reference = AgentCommand::resolve("reference").unwrap().program;
    let from_ours = drive(&node, &entry, &ours).await;
    let from_reference = drive(&node, &entry, &reference).await;

    // The session really happened: every answer reached the editor, the tool call too, and
    // nothing timed out or failed.
    for (agent, seen) in [("reference", &from_reference), ("pi-agent", &from_ours)] {
        let texts = agent_texts(seen).concat();
        for answer in [
            "The notes say hello.",
            "Hi!",
            "Model two here.",
            "Still here after the restart.",
        ] {
            assert!(
                texts.contains(answer),
                "{agent}: no {answer:?} in {texts:?}"
            );
        }
        let entries = seen.as_array().unwrap();
        assert!(
            entries
                .iter()
                .any(|e| e.pointer("/params/update/sessionUpdate") == Some(&json!("tool_call"))),
            "{agent}: no tool call reached the editor"
        );
        let broken: Vec<&Value> = entries
            .iter()
            .filter(|e| e.get("timeout").is_some() || e.get("error").is_some())
            .collect();
        assert!(broken.is_empty(), "{agent}: {broken:#?}");
    }
    let (expected, actual) = (
        serde_json::to_string_pretty(&from_reference).unwrap(),
        serde_json::to_string_pretty(&from_ours).unwrap(),
    );
    if expected != actual {
        let diff = similar::TextDiff::from_lines(&expected, &actual);
        panic!(
            "pi-acp saw something else from pi-agent (-reference +pi-agent):\n{}",
            diff.unified_diff().context_radius(4)
        );
    }
}
