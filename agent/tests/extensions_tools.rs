//! Extension tools and runs seen by a client: an abort reaching a tool through its signal, a
//! host that ends in the middle of a call, messages an extension sends during a run, and a
//! turn a command triggers. Skipped (saying so) when no Node.js >= 20.6 is found, unless
//! `PI_REQUIRE_REFERENCE` is set.

mod extensions_support;
mod support;

use anyhow::Result;
use extensions_support::harness::{Ext, Harness};
use serde_json::{Value, json};
use support::{check_eq, mock, types};

/// Extension tools for the tests of aborts and of a host that goes away mid-call.
const SLOW_TOOLS: Ext = Ext::Inline(
    "slow-tools.ts",
    r#"
export default function slowTools(pi: any) {
	pi.registerTool({
		name: "wait_for_abort",
		description: "Waits until the call is aborted",
		parameters: { type: "object", properties: {} },
		execute(_id: string, _params: unknown, signal: AbortSignal, onUpdate: any) {
			onUpdate({ content: [{ type: "text", text: "waiting" }] });
			return new Promise((resolve) => {
				signal.addEventListener("abort", () =>
					resolve({ content: [{ type: "text", text: "stopped by the signal" }], details: { aborted: signal.aborted } }),
				);
			});
		},
	});
	pi.registerTool({
		name: "exit_host",
		description: "Ends the extension host in the middle of the call",
		parameters: { type: "object", properties: {} },
		async execute() {
			process.exit(4);
		},
	});
}
"#,
);

/// A mock whose first answer calls `tool`, and whose answer to its result is `Done.`.
async fn calling(tool: &str) -> Result<mock_llm::MockServer> {
    mock(&format!(
        "responses:\n  - content: [{{tool_call: {{id: call_1, name: {tool}, arguments: {{}}}}}}]\n  - match: {{last_message_role: toolResult}}\n    text: Done.\n"
    ))
    .await
}

#[tokio::test]
async fn abort_reaches_an_extension_tool_through_its_signal() -> Result<()> {
    let server = calling("wait_for_abort").await?;
    let Some(mut h) = Harness::start(Some(&server), &[SLOW_TOOLS], &[]).await? else {
        return Ok(());
    };
    h.agent
        .send(json!({"id": 1, "type": "prompt", "message": "wait"}))
        .await?;
    // The partial result shows that the tool is running; then the abort.
    h.agent
        .until(|r| r["type"] == "tool_execution_update")
        .await?;
    h.agent.send(json!({"id": 2, "type": "abort"})).await?;
    let records = h.agent.until(|r| r["type"] == "tool_execution_end").await?;
    check_eq(
        records.last().unwrap_or(&Value::Null),
        &json!({"type": "tool_execution_end", "toolCallId": "call_1", "toolName": "wait_for_abort", "result": {"content": [{"type": "text", "text": "stopped by the signal"}], "details": {"aborted": true}}, "isError": false}),
    )?;
    h.agent.until(|r| r["type"] == "agent_settled").await?;
    Ok(())
}

#[tokio::test]
async fn a_tool_call_whose_host_ends_fails_and_the_run_goes_on() -> Result<()> {
    let server = calling("exit_host").await?;
    let Some(mut h) = Harness::start(Some(&server), &[SLOW_TOOLS], &[]).await? else {
        return Ok(());
    };
    h.agent
        .send(json!({"id": 1, "type": "prompt", "message": "exit"}))
        .await?;
    let records = h.agent.until(|r| r["type"] == "tool_execution_end").await?;
    check_eq(
        records.last().unwrap_or(&Value::Null),
        &json!({"type": "tool_execution_end", "toolCallId": "call_1", "toolName": "exit_host", "result": {"content": [{"type": "text", "text": "The extension host ended before the tool finished"}], "details": {}}, "isError": true}),
    )?;
    let rest = h.agent.until(|r| r["type"] == "agent_settled").await?;
    assert!(
        rest.iter()
            .any(|r| r["type"] == "message_end" && r["message"]["content"][0]["text"] == "Done."),
        "{rest:#?}"
    );
    Ok(())
}

#[tokio::test]
async fn send_user_message_during_a_run_is_queued_as_the_extension_asks() -> Result<()> {
    let queueing = Ext::Inline(
        "queueing.ts",
        r#"
export default function queueing(pi: any) {
	pi.registerCommand("later", {
		handler: async (args: string) => pi.sendUserMessage(args, { deliverAs: "followUp" }),
	});
}
"#,
    );
    let server = mock(
        "responses:\n  - content: [{text: first}, {gate: g}, {text: ' answer'}]\n  - text: second answer\n",
    )
    .await?;
    let Some(mut h) = Harness::start(Some(&server), &[queueing], &[]).await? else {
        return Ok(());
    };
    let records = h.prompt_during_run(&server, "/later and then this").await?;
    let queued: Vec<&Value> = records
        .iter()
        .filter(|r| r["type"] == "queue_update")
        .collect();
    check_eq(
        queued.first().copied().unwrap_or(&Value::Null),
        &json!({"type": "queue_update", "steering": [], "followUp": ["and then this"]}),
    )?;
    server.release_gate("g")?;
    let rest = h.agent.until(|r| r["type"] == "agent_settled").await?;
    let users: Vec<&Value> = rest
        .iter()
        .filter(|r| r["type"] == "message_end" && r["message"]["role"] == "user")
        .map(|r| &r["message"]["content"][0]["text"])
        .collect();
    assert_eq!(users, [&json!("and then this")], "{rest:#?}");
    assert_eq!(server.journal().len(), 2);
    Ok(())
}

#[tokio::test]
async fn a_turn_triggered_by_a_command_runs_past_agent_start_handlers() -> Result<()> {
    let triggering = Ext::Inline(
        "triggering.ts",
        r#"
export default function triggering(pi: any) {
	pi.on("agent_start", async (_event: unknown, ctx: any) => ctx.ui.notify("started", "info"));
	pi.registerCommand("nudge", {
		handler: async (args: string) =>
			pi.sendMessage({ customType: "nudge", content: args, display: true }, { triggerTurn: true }),
	});
}
"#,
    );
    let server = mock("responses:\n  - text: nudged\n").await?;
    let Some(mut h) = Harness::start(Some(&server), &[triggering], &[]).await? else {
        return Ok(());
    };
    h.agent
        .send(json!({"id": 1, "type": "prompt", "message": "/nudge go"}))
        .await?;
    let records = h.agent.until(|r| r["type"] == "agent_settled").await?;
    let kinds = types(&records);
    let at = |kind: &str| kinds.iter().position(|k| k == kind);
    // The handler's request, then agent_start, then the command's answer, then the turn.
    assert_eq!(
        kinds[..4],
        [
            "extension_ui_request",
            "agent_start",
            "response:prompt",
            "turn_start"
        ],
        "{records:#?}"
    );
    assert!(at("agent_end").is_some(), "{records:#?}");
    Ok(())
}
