//! Extensions run by the Node.js extension host: commands, dialogs and their answers, events,
//! errors and entries, seen by a client as the reference shows them. Skipped (saying so) when
//! no Node.js >= 20.6 is found, unless `PI_REQUIRE_REFERENCE` is set.

mod extensions_support;
mod support;

use anyhow::Result;
use extensions_support::harness::{Ext, Harness, check_ui_request, spawn};
use serde_json::{Value, json};
use support::{Agent, TestEnv, check_eq, mock, types};

#[tokio::test]
async fn extension_commands_are_listed_before_the_built_in_ones() -> Result<()> {
    let Some(mut h) = Harness::start(None, &[UI], &[]).await? else {
        return Ok(());
    };
    let response = h
        .agent
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
    let source = json!({"path": h.path("ui-fixture.ts"), "source": "cli", "scope": "temporary", "origin": "top-level"});
    check_eq(
        &commands[0],
        &json!({"name": "ui-select", "description": "select between two colours", "source": "extension", "sourceInfo": source}),
    )?;
    Ok(())
}

/// The UI fixture of the corpus: one command per dialog.
const UI: Ext = Ext::Fixture("ui-fixture.ts");

#[tokio::test]
async fn a_dialog_answer_reaches_the_extension_and_the_prompt_is_answered_after_it() -> Result<()> {
    let Some(mut h) = Harness::start(None, &[UI], &[]).await? else {
        return Ok(());
    };
    h.agent
        .send(json!({"id": "p", "type": "prompt", "message": "/ui-input"}))
        .await?;
    let id = h
        .ui(json!({"method": "input", "title": "Your name", "placeholder": "e.g. Ada"}))
        .await?;
    h.agent
        .send(
            json!({"type": "extension_ui_response", "id": id, "value": "Ada \u{1F600}\nLovelace"}),
        )
        .await?;
    h.ui(json!({"method": "notify", "message": "input -> \"Ada \u{1F600}\\nLovelace\"", "notifyType": "info"}))
        .await?;
    h.prompt_answered(json!("p")).await
}

#[tokio::test]
async fn a_pending_dialog_does_not_hold_other_commands_and_unknown_answers_are_ignored()
-> Result<()> {
    let Some(mut h) = Harness::start(None, &[UI], &[]).await? else {
        return Ok(());
    };
    h.agent
        .send(json!({"id": "p", "type": "prompt", "message": "/ui-select"}))
        .await?;
    let id = h
        .ui(json!({"method": "select", "title": "Pick a colour", "options": ["red", "green"]}))
        .await?;
    h.agent
        .send(json!({"type": "extension_ui_response", "id": "not-a-request", "value": "red"}))
        .await?;
    // Nothing answers the unknown id: the next record is the answer to get_state.
    h.agent
        .send(json!({"id": "g", "type": "get_state"}))
        .await?;
    let state = h.agent.next().await?;
    assert_eq!(
        (state["id"].as_str(), state["success"].as_bool()),
        (Some("g"), Some(true)),
        "{state}"
    );
    h.agent
        .send(json!({"type": "extension_ui_response", "id": id, "value": "green"}))
        .await?;
    h.ui(json!({"method": "notify", "message": "select -> \"green\"", "notifyType": "info"}))
        .await?;
    h.prompt_answered(json!("p")).await
}

#[tokio::test]
async fn an_unanswered_confirm_times_out_to_false_and_a_cancelled_one_is_false() -> Result<()> {
    let Some(mut h) = Harness::start(None, &[UI], &[]).await? else {
        return Ok(());
    };
    let refused =
        json!({"method": "notify", "message": "confirm -> false", "notifyType": "warning"});
    h.agent
        .send(json!({"id": 1, "type": "prompt", "message": "/ui-confirm 150"}))
        .await?;
    h.ui(json!({"method": "confirm", "title": "Proceed?", "message": "The fixture asks before going on.", "timeout": 150}))
        .await?;
    h.ui(refused.clone()).await?;
    h.prompt_answered(json!(1)).await?;
    h.agent
        .send(json!({"id": 2, "type": "prompt", "message": "/ui-confirm"}))
        .await?;
    let id = h
        .ui(json!({"method": "confirm", "title": "Proceed?", "message": "The fixture asks before going on."}))
        .await?;
    h.agent
        .send(json!({"type": "extension_ui_response", "id": id, "cancelled": true}))
        .await?;
    h.ui(refused).await?;
    h.prompt_answered(json!(2)).await
}

#[tokio::test]
async fn session_start_requests_come_before_the_first_answer() -> Result<()> {
    let Some(mut h) = Harness::start(None, &[Ext::Fixture("ui-on-start.ts")], &[]).await? else {
        return Ok(());
    };
    h.agent.send(json!({"id": 1, "type": "get_state"})).await?;
    let records = h.agent.until(|r| r["type"] == "response").await?;
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

const EVENTS: Ext = Ext::Inline(
    "events.ts",
    r#"
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
"#,
);

#[tokio::test]
async fn handler_errors_come_before_their_event_and_handler_requests_before_the_event() -> Result<()>
{
    let server = mock("responses:\n  - text: still answering\n").await?;
    let Some(mut h) = Harness::start(Some(&server), &[EVENTS], &[]).await? else {
        return Ok(());
    };
    h.agent
        .send(json!({"id": 1, "type": "prompt", "message": "hi"}))
        .await?;
    let records = h.agent.until(|r| r["type"] == "agent_settled").await?;
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
    check_eq(
        &records[2],
        &json!({"type": "extension_error", "extensionPath": h.path("events.ts"), "event": "turn_start", "error": "turn 0 refused"}),
    )?;
    check_ui_request(
        &records[12],
        json!({"method": "notify", "message": "agent_end with 2 messages"}),
    )?;
    Ok(())
}

#[tokio::test]
async fn a_throwing_command_is_reported_and_its_prompt_still_succeeds() -> Result<()> {
    let Some(mut h) = Harness::start(None, &[EVENTS], &[]).await? else {
        return Ok(());
    };
    h.agent
        .send(json!({"id": 1, "type": "prompt", "message": "/fail now"}))
        .await?;
    check_eq(
        &h.agent.next().await?,
        &json!({"type": "extension_error", "extensionPath": "command:fail", "event": "command", "error": "command failed on purpose"}),
    )?;
    h.prompt_answered(json!(1)).await
}

#[tokio::test]
async fn append_entry_emits_entry_appended_and_keeps_the_entry() -> Result<()> {
    let Some(mut h) = Harness::start(None, &[EVENTS], &[]).await? else {
        return Ok(());
    };
    h.agent
        .send(json!({"id": 1, "type": "prompt", "message": "/note a b"}))
        .await?;
    let mut appended = h.agent.next().await?;
    for key in ["id", "parentId", "timestamp"] {
        let value = appended["entry"][key].take();
        assert!(value.is_string() || key == "parentId", "{key}: {value}");
    }
    check_eq(
        &appended,
        &json!({"type": "entry_appended", "entry": {"type": "custom", "customType": "test-note", "data": {"args": "a b"}, "id": null, "parentId": null, "timestamp": null}}),
    )?;
    h.prompt_answered(json!(1)).await?;
    let entries = h
        .agent
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
            "Error: Failed to load extension \"{}\": Failed to load extension: boom at load\n\
             Hint: Start without extensions using \"pi-agent -ne\".\n",
            path.display()
        )
    );
    Ok(())
}

#[tokio::test]
async fn the_end_of_input_during_a_dialog_ends_the_agent() -> Result<()> {
    let Some(mut h) = Harness::start(None, &[UI], &[]).await? else {
        return Ok(());
    };
    h.agent
        .send(json!({"id": 1, "type": "prompt", "message": "/ui-editor"}))
        .await?;
    h.ui(
        json!({"method": "editor", "title": "Edit the note", "prefill": "first line\nsecond line"}),
    )
    .await?;
    h.agent.close_stdin();
    assert_eq!(h.agent.wait_exit().await?, 0);
    Ok(())
}

#[tokio::test]
async fn typescript_enums_load_and_the_agent_outlives_a_host_that_exits() -> Result<()> {
    let exits = Ext::Inline(
        "exits.ts",
        r#"
enum Mood { Calm = "calm", Gone = "gone" }
export default function exits(pi: any) {
	pi.registerCommand("quit", { description: Mood.Calm, handler: async () => process.exit(3) });
}
"#,
    );
    let Some(mut h) = Harness::start(None, &[exits], &[]).await? else {
        return Ok(());
    };
    let commands = h
        .agent
        .request(json!({"id": 1, "type": "get_commands"}))
        .await?;
    assert_eq!(
        commands["data"]["commands"][0]["description"], "calm",
        "{commands}"
    );
    h.agent
        .send(json!({"id": 2, "type": "prompt", "message": "/quit"}))
        .await?;
    h.prompt_answered(json!(2)).await?;
    // The command is gone with its host: the prompt is now an ordinary one (no model here).
    let state = h
        .agent
        .request(json!({"id": 3, "type": "get_state"}))
        .await?;
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
    // The reference's short form of --no-extensions.
    let mut short = spawn(&env, &node, &[], &["-ne", "--approve"])?;
    assert_eq!(command_names(&mut short).await?, ["llama"]);

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
    let server =
        mock("responses:\n  - content: [{text: partial}, {gate: g}, {text: ' end'}]\n").await?;
    let Some(mut h) = Harness::start(Some(&server), &[UI], &[]).await? else {
        return Ok(());
    };
    // No streamingBehavior: an extension command is not a message to queue.
    let records = h.prompt_during_run(&server, "/ui-confirm 50").await?;
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
    let rest = h.agent.until(|r| r["type"] == "agent_settled").await?;
    assert!(rest.iter().any(|r| r["type"] == "agent_end"));
    assert_eq!(
        server.journal().len(),
        1,
        "the command did not reach the model"
    );
    Ok(())
}

#[tokio::test]
async fn the_theme_styles_text_as_pis_dark_theme_in_256_colours() -> Result<()> {
    let themed = Ext::Inline(
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
    );
    let Some(mut h) = Harness::start(None, &[themed], &[]).await? else {
        return Ok(());
    };
    h.agent
        .send(json!({"id": 1, "type": "prompt", "message": "/themed"}))
        .await?;
    // A cleared environment: no truecolor hint, no background hint, no FORCE_COLOR (chalk's
    // bold styles nothing on a pipe).
    h.ui(json!({"method": "notify", "message": "\u{1b}[38;5;109mplain\u{1b}[39m", "notifyType": "info"}))
        .await?;
    Ok(())
}
