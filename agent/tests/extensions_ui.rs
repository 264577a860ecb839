//! Extensions run by the Node.js extension host: commands, dialogs and their answers, events,
//! errors and entries, seen by a client as the reference shows them. Skipped (saying so) when
//! no Node.js >= 22.6 is found, unless `PI_REQUIRE_REFERENCE` is set.

mod extensions_support;
mod support;

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde_json::{Value, json};
use support::{Agent, TestEnv, check_eq, mock, types};

/// Spawns the agent with the extensions `files` (names in the working folder) and `args`.
fn spawn(env: &TestEnv, node: &Path, files: &[&str], args: &[&str]) -> Result<Agent> {
    let paths: Vec<String> = files
        .iter()
        .map(|file| env.work_dir().join(file).display().to_string())
        .collect();
    let mut all: Vec<&str> = Vec::new();
    for path in &paths {
        all.extend(["-e", path.as_str()]);
    }
    all.extend_from_slice(args);
    env.spawn_with_env(&all, &[("PI_AGENT_NODE", node)])
}

/// Copies a fixture of the scenario corpus into the working folder.
fn copy_fixture(env: &TestEnv, name: &str) -> Result<PathBuf> {
    let target = env.work_dir().join(name);
    std::fs::copy(extensions_support::fixture(name), &target)?;
    Ok(target)
}

/// The extension UI request with the fields of `expected`, its `id` checked to be a UUID and
/// then left out.
fn check_ui_request(record: &Value, expected: Value) -> Result<String> {
    let mut record = record.clone();
    let id = record
        .as_object_mut()
        .and_then(|map| map.shift_remove("id"))
        .and_then(|id| id.as_str().map(str::to_owned))
        .unwrap_or_default();
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "id {id:?} of {record}");
    let mut full = json!({"type": "extension_ui_request"});
    if let (Some(full), Some(fields)) = (full.as_object_mut(), expected.as_object()) {
        full.extend(fields.clone());
    }
    check_eq(&record, &full)?;
    Ok(id)
}

#[tokio::test]
async fn extension_commands_are_listed_before_the_built_in_ones() -> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    let path = copy_fixture(&env, "ui-fixture.ts")?;
    let mut agent = spawn(&env, &node, &["ui-fixture.ts"], &[])?;
    let response = agent
        .request(json!({"id": 1, "type": "get_commands"}))
        .await?;
    let commands = response["data"]["commands"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let names: Vec<&str> = commands.iter().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(
        names,
        [
            "ui-select",
            "ui-confirm",
            "ui-input",
            "ui-editor",
            "ui-show",
            "llama"
        ]
    );
    let source = json!({"path": path.display().to_string(), "source": "cli", "scope": "temporary", "origin": "top-level"});
    check_eq(
        &commands[0],
        &json!({"name": "ui-select", "description": "select between two colours", "source": "extension", "sourceInfo": source}),
    )?;
    Ok(())
}

#[tokio::test]
async fn a_dialog_answer_reaches_the_extension_and_the_prompt_is_answered_after_it() -> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    copy_fixture(&env, "ui-fixture.ts")?;
    let mut agent = spawn(&env, &node, &["ui-fixture.ts"], &[])?;
    agent
        .send(json!({"id": "p", "type": "prompt", "message": "/ui-input"}))
        .await?;
    let request = agent.next().await?;
    let id = check_ui_request(
        &request,
        json!({"method": "input", "title": "Your name", "placeholder": "e.g. Ada"}),
    )?;
    agent
        .send(
            json!({"type": "extension_ui_response", "id": id, "value": "Ada \u{1F600}\nLovelace"}),
        )
        .await?;
    let notify = agent.next().await?;
    check_ui_request(
        &notify,
        json!({"method": "notify", "message": "input -> \"Ada \u{1F600}\\nLovelace\"", "notifyType": "info"}),
    )?;
    check_eq(
        &agent.next().await?,
        &json!({"id": "p", "type": "response", "command": "prompt", "success": true}),
    )?;
    Ok(())
}

#[tokio::test]
async fn a_pending_dialog_does_not_hold_other_commands_and_unknown_answers_are_ignored()
-> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    copy_fixture(&env, "ui-fixture.ts")?;
    let mut agent = spawn(&env, &node, &["ui-fixture.ts"], &[])?;
    agent
        .send(json!({"id": "p", "type": "prompt", "message": "/ui-select"}))
        .await?;
    let id = check_ui_request(
        &agent.next().await?,
        json!({"method": "select", "title": "Pick a colour", "options": ["red", "green"]}),
    )?;
    agent
        .send(json!({"type": "extension_ui_response", "id": "not-a-request", "value": "red"}))
        .await?;
    // Nothing answers the unknown id: the next record is the answer to get_state.
    agent.send(json!({"id": "g", "type": "get_state"})).await?;
    let state = agent.next().await?;
    assert_eq!(
        (state["id"].as_str(), state["success"].as_bool()),
        (Some("g"), Some(true)),
        "{state}"
    );
    agent
        .send(json!({"type": "extension_ui_response", "id": id, "value": "green"}))
        .await?;
    check_ui_request(
        &agent.next().await?,
        json!({"method": "notify", "message": "select -> \"green\"", "notifyType": "info"}),
    )?;
    check_eq(
        &agent.next().await?,
        &json!({"id": "p", "type": "response", "command": "prompt", "success": true}),
    )?;
    Ok(())
}

#[tokio::test]
async fn an_unanswered_confirm_times_out_to_false_and_a_cancelled_one_is_false() -> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    copy_fixture(&env, "ui-fixture.ts")?;
    let mut agent = spawn(&env, &node, &["ui-fixture.ts"], &[])?;
    agent
        .send(json!({"id": 1, "type": "prompt", "message": "/ui-confirm 150"}))
        .await?;
    check_ui_request(
        &agent.next().await?,
        json!({"method": "confirm", "title": "Proceed?", "message": "The fixture asks before going on.", "timeout": 150}),
    )?;
    check_ui_request(
        &agent.next().await?,
        json!({"method": "notify", "message": "confirm -> false", "notifyType": "warning"}),
    )?;
    check_eq(
        &agent.next().await?,
        &json!({"id": 1, "type": "response", "command": "prompt", "success": true}),
    )?;
    agent
        .send(json!({"id": 2, "type": "prompt", "message": "/ui-confirm"}))
        .await?;
    let id = check_ui_request(
        &agent.next().await?,
        json!({"method": "confirm", "title": "Proceed?", "message": "The fixture asks before going on."}),
    )?;
    agent
        .send(json!({"type": "extension_ui_response", "id": id, "cancelled": true}))
        .await?;
    check_ui_request(
        &agent.next().await?,
        json!({"method": "notify", "message": "confirm -> false", "notifyType": "warning"}),
    )?;
    check_eq(
        &agent.next().await?,
        &json!({"id": 2, "type": "response", "command": "prompt", "success": true}),
    )?;
    Ok(())
}

#[tokio::test]
async fn session_start_requests_come_before_the_first_answer() -> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    copy_fixture(&env, "ui-on-start.ts")?;
    let mut agent = spawn(&env, &node, &["ui-on-start.ts"], &[])?;
    agent.send(json!({"id": 1, "type": "get_state"})).await?;
    let records = agent.until(|r| r["type"] == "response").await?;
    assert_eq!(records.len(), 4, "{records:#?}");
    check_ui_request(
        &records[0],
        json!({"method": "setTitle", "title": "fixture (startup)"}),
    )?;
    check_ui_request(
        &records[1],
        json!({"method": "setWidget", "widgetKey": "boot", "widgetLines": ["booted"], "widgetPlacement": "aboveEditor"}),
    )?;
    check_ui_request(
        &records[2],
        json!({"method": "setStatus", "statusKey": "boot", "statusText": "ready"}),
    )?;
    Ok(())
}

const EVENTS_EXTENSION: &str = r#"
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function events(pi: ExtensionAPI) {
	console.log("printed while loading");
	pi.on("turn_start", async (event) => {
		throw new Error(`turn ${event.turnIndex} refused`);
	});
	pi.on("agent_end", async (event, ctx) => {
		console.log("printed in a handler");
		ctx.ui.notify(`agent_end with ${event.messages.length} messages`);
	});
	pi.registerCommand("fail", {
		description: "throws",
		handler: async () => {
			throw new Error("command failed on purpose");
		},
	});
	pi.registerCommand("note", {
		handler: async (args) => {
			pi.appendEntry("test-note", { args });
		},
	});
}
"#;

#[tokio::test]
async fn handler_errors_come_before_their_event_and_handler_requests_before_the_event() -> Result<()>
{
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let server = mock("responses:\n  - text: still answering\n").await?;
    let env = TestEnv::new(&server.uri())?;
    support::write_file(&env.work_dir(), "events.ts", EVENTS_EXTENSION)?;
    let mut agent = spawn(
        &env,
        &node,
        &["events.ts"],
        &["--provider", "mock", "--model", "mock-model-1"],
    )?;
    agent
        .send(json!({"id": 1, "type": "prompt", "message": "hi"}))
        .await?;
    let records = agent.until(|r| r["type"] == "agent_settled").await?;
    assert_eq!(
        types(&records),
        [
            "response:prompt",
            "agent_start",
            "extension_error",
            "turn_start",
            "message_start:user",
            "message_end:user",
            "message_start:assistant",
            "message_update:text_start",
            "message_update:text_delta",
            "message_update:text_end",
            "message_end:assistant",
            "turn_end",
            "extension_ui_request",
            "agent_end",
            "agent_settled",
        ]
    );
    let path = env.work_dir().join("events.ts").display().to_string();
    check_eq(
        &records[2],
        &json!({"type": "extension_error", "extensionPath": path, "event": "turn_start", "error": "turn 0 refused"}),
    )?;
    check_ui_request(
        &records[12],
        json!({"method": "notify", "message": "agent_end with 2 messages"}),
    )?;
    Ok(())
}

#[tokio::test]
async fn a_throwing_command_is_reported_and_its_prompt_still_succeeds() -> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    support::write_file(&env.work_dir(), "events.ts", EVENTS_EXTENSION)?;
    let mut agent = spawn(&env, &node, &["events.ts"], &[])?;
    agent
        .send(json!({"id": 1, "type": "prompt", "message": "/fail now"}))
        .await?;
    check_eq(
        &agent.next().await?,
        &json!({"type": "extension_error", "extensionPath": "command:fail", "event": "command", "error": "command failed on purpose"}),
    )?;
    check_eq(
        &agent.next().await?,
        &json!({"id": 1, "type": "response", "command": "prompt", "success": true}),
    )?;
    Ok(())
}

#[tokio::test]
async fn append_entry_emits_entry_appended_and_keeps_the_entry() -> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    support::write_file(&env.work_dir(), "events.ts", EVENTS_EXTENSION)?;
    let mut agent = spawn(&env, &node, &["events.ts"], &[])?;
    agent
        .send(json!({"id": 1, "type": "prompt", "message": "/note a b"}))
        .await?;
    let mut appended = agent.next().await?;
    for key in ["id", "parentId", "timestamp"] {
        let value = appended["entry"][key].take();
        assert!(value.is_string() || key == "parentId", "{key}: {value}");
    }
    check_eq(
        &appended,
        &json!({"type": "entry_appended", "entry": {"type": "custom", "customType": "test-note", "data": {"args": "a b"}, "id": null, "parentId": null, "timestamp": null}}),
    )?;
    check_eq(
        &agent.next().await?,
        &json!({"id": 1, "type": "response", "command": "prompt", "success": true}),
    )?;
    let entries = agent
        .request(json!({"id": 2, "type": "get_entries"}))
        .await?;
    let kinds: Vec<&str> = entries["data"]["entries"]
        .as_array()
        .map(|all| all.iter().filter_map(|e| e["type"].as_str()).collect())
        .unwrap_or_default();
    assert!(kinds.contains(&"custom"), "{entries}");
    Ok(())
}

#[tokio::test]
async fn an_extension_that_throws_while_loading_stops_the_start() -> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    support::write_file(
        &env.work_dir(),
        "bad.ts",
        "export default function bad(): void { throw new Error(\"boom at load\"); }\n",
    )?;
    let mut command = env.command(&["--mode", "rpc", "--no-session", "-e", "bad.ts"]);
    command
        .env("PI_AGENT_NODE", &node)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let output = tokio::time::timeout(support::TIMEOUT, command.output()).await??;
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(String::from_utf8(output.stdout)?, "");
    let path = env.work_dir().join("bad.ts");
    assert_eq!(
        String::from_utf8(output.stderr)?,
        format!(
            "Error: Failed to load extension \"{}\": Failed to load extension: boom at load\n",
            path.display()
        )
    );
    Ok(())
}

#[tokio::test]
async fn the_end_of_input_during_a_dialog_ends_the_agent() -> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    copy_fixture(&env, "ui-fixture.ts")?;
    let mut agent = spawn(&env, &node, &["ui-fixture.ts"], &[])?;
    agent
        .send(json!({"id": 1, "type": "prompt", "message": "/ui-editor"}))
        .await?;
    check_ui_request(
        &agent.next().await?,
        json!({"method": "editor", "title": "Edit the note", "prefill": "first line\nsecond line"}),
    )?;
    agent.close_stdin();
    assert_eq!(agent.wait_exit().await?, 0);
    Ok(())
}

#[tokio::test]
async fn typescript_enums_load_and_the_agent_outlives_a_host_that_exits() -> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    support::write_file(
        &env.work_dir(),
        "exits.ts",
        r#"
enum Mood { Calm = "calm", Gone = "gone" }
export default function exits(pi: any) {
	pi.registerCommand("quit", { description: Mood.Calm, handler: async () => process.exit(3) });
}
"#,
    )?;
    let mut agent = spawn(&env, &node, &["exits.ts"], &[])?;
    let commands = agent
        .request(json!({"id": 1, "type": "get_commands"}))
        .await?;
    assert_eq!(
        commands["data"]["commands"][0]["description"], "calm",
        "{commands}"
    );
    agent
        .send(json!({"id": 2, "type": "prompt", "message": "/quit"}))
        .await?;
    check_eq(
        &agent.next().await?,
        &json!({"id": 2, "type": "response", "command": "prompt", "success": true}),
    )?;
    // The command is gone with its host: the prompt is now an ordinary one (no model here).
    let state = agent.request(json!({"id": 3, "type": "get_state"})).await?;
    assert_eq!(state["success"], true, "{state}");
    Ok(())
}

/// An extension registering one command `name`.
fn command_extension(name: &str) -> String {
    format!(
        "export default function (pi: any) {{ pi.registerCommand(\"{name}\", {{ description: \"{name} command\", handler: async () => {{}} }}); }}\n"
    )
}

/// The command names `get_commands` lists.
async fn command_names(agent: &mut Agent) -> Result<Vec<String>> {
    let response = agent.request(json!({"type": "get_commands"})).await?;
    Ok(response["data"]["commands"]
        .as_array()
        .map(|all| {
            all.iter()
                .filter_map(|c| c["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default())
}

#[tokio::test]
async fn extension_folders_are_discovered_the_project_s_only_when_trusted() -> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    let user = env.agent_dir().join("extensions");
    std::fs::create_dir_all(user.join("pkg"))?;
    std::fs::write(user.join("user.ts"), command_extension("from-user"))?;
    std::fs::write(user.join("pkg/index.ts"), command_extension("from-package"))?;
    let project = env.work_dir().join(".pi/extensions");
    std::fs::create_dir_all(&project)?;
    std::fs::write(
        project.join("project.ts"),
        command_extension("from-project"),
    )?;

    let mut agent = spawn(&env, &node, &[], &[])?;
    assert_eq!(
        command_names(&mut agent).await?,
        ["from-package", "from-user", "llama"]
    );
    let response = agent.request(json!({"type": "get_commands"})).await?;
    let base = env.agent_dir().display().to_string();
    check_eq(
        &response["data"]["commands"][1]["sourceInfo"],
        &json!({"path": user.join("user.ts").display().to_string(), "source": "auto", "scope": "user", "origin": "top-level", "baseDir": base}),
    )?;

    let mut trusted = spawn(&env, &node, &[], &["--approve"])?;
    assert_eq!(
        command_names(&mut trusted).await?,
        ["from-project", "from-package", "from-user", "llama"]
    );

    // Without discovery nothing is left to load, so no Node.js is needed at all.
    let missing = env.root.path().join("no-such-node");
    let mut bare = env.spawn_with_env(
        &["--no-extensions", "--approve"],
        &[("PI_AGENT_NODE", &missing)],
    )?;
    assert_eq!(command_names(&mut bare).await?, ["llama"]);
    Ok(())
}

#[tokio::test]
async fn an_extension_command_runs_at_once_during_a_run() -> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let server =
        mock("responses:\n  - content: [{text: partial}, {gate: g}, {text: ' end'}]\n").await?;
    let env = TestEnv::new(&server.uri())?;
    copy_fixture(&env, "ui-fixture.ts")?;
    let mut agent = spawn(
        &env,
        &node,
        &["ui-fixture.ts"],
        &["--provider", "mock", "--model", "mock-model-1"],
    )?;
    agent
        .send(json!({"id": 1, "type": "prompt", "message": "hi"}))
        .await?;
    server.wait_for_gate("g", support::TIMEOUT).await?;
    // No streamingBehavior: an extension command is not a message to queue.
    agent
        .send(json!({"id": 2, "type": "prompt", "message": "/ui-confirm 50"}))
        .await?;
    let records = agent.until(|r| r["id"] == 2).await?;
    // The run's own events may interleave; the command's records come in order, its answer last.
    let methods: Vec<&str> = records
        .iter()
        .filter(|r| r["type"] == "extension_ui_request")
        .filter_map(|r| r["method"].as_str())
        .collect();
    assert_eq!(methods, ["confirm", "notify"], "{records:#?}");
    check_eq(
        records.last().unwrap_or(&Value::Null),
        &json!({"id": 2, "type": "response", "command": "prompt", "success": true}),
    )?;
    assert!(
        !records.iter().any(|r| r["type"] == "agent_end"),
        "{records:#?}"
    );
    server.release_gate("g")?;
    let rest = agent.until(|r| r["type"] == "agent_settled").await?;
    assert!(rest.iter().any(|r| r["type"] == "agent_end"));
    assert_eq!(
        server.journal().len(),
        1,
        "the command did not reach the model"
    );
    Ok(())
}

#[tokio::test]
async fn theme_functions_give_the_text_back() -> Result<()> {
    let Some(node) = extensions_support::node() else {
        return Ok(());
    };
    let env = TestEnv::empty()?;
    support::write_file(
        &env.work_dir(),
        "themed.ts",
        r#"
export default function themed(pi: any) {
	pi.registerCommand("themed", {
		handler: async (_args: string, ctx: any) => {
			ctx.ui.notify(ctx.ui.theme.bold(ctx.ui.theme.fg("accent", "plain")), "info");
		},
	});
}
"#,
    )?;
    let mut agent = spawn(&env, &node, &["themed.ts"], &[])?;
    agent
        .send(json!({"id": 1, "type": "prompt", "message": "/themed"}))
        .await?;
    check_ui_request(
        &agent.next().await?,
        json!({"method": "notify", "message": "plain", "notifyType": "info"}),
    )?;
    Ok(())
}
