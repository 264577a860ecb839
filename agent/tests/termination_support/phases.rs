//! The phases of a run the matrix ends the agent in: the settings and extension each needs, how
//! the client drives the agent there, and how it lets a held run go on (what the mock answers is
//! in scripts.rs).

use std::time::Duration;

use anyhow::Result;
use serde_json::{Value, json};

use super::client::{self, Client};

/// Where the run is when the client acts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The answer is done and the agent settled.
    Idle,
    /// A `bash` tool call (which left a `sleep` running in the background), then the answer:
    /// the agent settled.
    ToolsAnswered,
    /// The answer was an HTTP 400, which is not retried: the run ended with the error and the
    /// agent settled.
    ProviderError,
    /// The provider sent its headers (and an SSE comment), then nothing: a stalled provider.
    FirstByte,
    /// The model's text is streaming (held at a gate of the mock).
    MidText,
    /// A tool call's arguments are streaming (held at a gate inside the call).
    MidToolArgs,
    /// A `bash` tool call runs (a `sleep`).
    Tool,
    /// The first answer was an HTTP 500; the agent waits to retry (`auto_retry_start` read).
    RetryWait,
    /// Every attempt was an HTTP 500 (`retry.maxRetries` 2, `baseDelayMs` 50): the run ended
    /// with the error and the agent settled.
    RetryExhausted,
    /// A stalled provider's stream was ended by `httpIdleTimeoutMs` (500 ms): the run ended with
    /// the error `terminated` and the agent settled.
    IdleTimeout,
    /// After an answer near the context window, the threshold compaction's summary request is
    /// held (after `agent_end`, before `agent_settled`).
    ThresholdCompaction,
    /// A `compact` command's summary request is held.
    ManualCompaction,
    /// The second prompt's request overflowed the context window (HTTP 400 `prompt is too
    /// long`): after its `agent_end` (`willRetry: false`), the overflow compaction's summary
    /// request is held; the turn is retried once it ends.
    Overflow,
    /// An extension's command (`/ask`) awaits a `confirm` dialog.
    ExtensionCommand,
}

/// The fixture extension of [`Phase::ExtensionCommand`]: its command writes the pid of the
/// process running it (the extension host, or the reference itself), then asks.
pub const ASK_EXTENSION: &str = r#"import { writeFileSync } from "node:fs";
import { join } from "node:path";

export default function ask(pi) {
	pi.registerCommand("ask", {
		description: "asks before going on",
		handler: async (_args, ctx) => {
			writeFileSync(join(ctx.cwd, "ext.pid"), String(process.pid));
			const yes = await ctx.ui.confirm("Go on?", "The termination matrix ends the agent here.");
			ctx.ui.notify(`confirm -> ${yes}`, "info");
		},
	});
}
"#;

impl Phase {
    pub const ALL: [Phase; 14] = [
        Phase::Idle,
        Phase::ToolsAnswered,
        Phase::ProviderError,
        Phase::FirstByte,
        Phase::MidText,
        Phase::MidToolArgs,
        Phase::Tool,
        Phase::RetryWait,
        Phase::RetryExhausted,
        Phase::IdleTimeout,
        Phase::ThresholdCompaction,
        Phase::ManualCompaction,
        Phase::Overflow,
        Phase::ExtensionCommand,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Phase::Idle => "after the answer",
            Phase::ToolsAnswered => "after tool calls and the answer",
            Phase::ProviderError => "after a provider error (not retried)",
            Phase::FirstByte => "before the first byte (stalled provider)",
            Phase::MidText => "mid-text",
            Phase::MidToolArgs => "mid tool-call arguments",
            Phase::Tool => "during a tool",
            Phase::RetryWait => "during the retry wait",
            Phase::RetryExhausted => "after the retries ran out",
            Phase::IdleTimeout => "after a stalled stream timed out",
            Phase::ThresholdCompaction => "during a threshold compaction",
            Phase::ManualCompaction => "during a `compact` command",
            Phase::Overflow => "during an overflow compaction",
            Phase::ExtensionCommand => "an extension command's dialog",
        }
    }

    /// The mock's script for the phase.
    pub fn script(self) -> String {
        super::scripts::script(self)
    }

    /// The agent's `settings.json`, if the phase needs one.
    pub fn settings(self) -> Option<Value> {
        match self {
            // The wait outlasts the cell: the client acts in it.
            Phase::RetryWait => Some(json!({"retry": {"baseDelayMs": 60000}})),
            Phase::RetryExhausted => Some(json!({"retry": {"baseDelayMs": 50, "maxRetries": 2}})),
            Phase::IdleTimeout => {
                Some(json!({"httpIdleTimeoutMs": 500, "retry": {"enabled": false}}))
            }
            Phase::ThresholdCompaction | Phase::ManualCompaction | Phase::Overflow => {
                Some(json!({"compaction": {"keepRecentTokens": 20}}))
            }
            _ => None,
        }
    }

    /// The files in the work folder whose pids must not outlive the agent.
    pub fn pid_files(self) -> &'static [&'static str] {
        match self {
            Phase::Tool | Phase::ToolsAnswered => &["tool.pid"],
            Phase::ExtensionCommand => &["ext.pid"],
            _ => &[],
        }
    }

    /// Drives the agent to the phase.
    pub async fn reach(self, client: &mut Client, server: &mock_llm::MockServer) -> Result<()> {
        let gate_wait = Duration::from_secs(20);
        client.prompt("p", "Hi").await?;
        match self {
            Phase::Idle => client.until_type("agent_settled").await,
            Phase::ToolsAnswered => {
                client.until_type("agent_settled").await?;
                let tools = client.count("tool_execution_end");
                anyhow::ensure!(tools == 1, "{tools} tool calls ran, not 1");
                Ok(())
            }
            Phase::ProviderError => {
                client.until_type("agent_settled").await?;
                let retries = client.count("auto_retry_start");
                anyhow::ensure!(retries == 0, "{retries} retries, not 0");
                client.last_error_is("400")
            }
            Phase::FirstByte => {
                client.until_response("p").await?;
                server.wait_for_gate("first", gate_wait).await?;
                Ok(())
            }
            Phase::MidText => {
                client
                    .until(|r| {
                        r["type"] == "message_update"
                            && r["assistantMessageEvent"]["delta"] == "before"
                    })
                    .await
            }
            Phase::MidToolArgs => {
                client
                    .until(|r| {
                        r["type"] == "message_update"
                            && r["assistantMessageEvent"]["type"] == "toolcall_delta"
                    })
                    .await
            }
            Phase::Tool => client.until_type("tool_execution_start").await,
            Phase::RetryWait => client.until_type("auto_retry_start").await,
            Phase::RetryExhausted => {
                client.until_type("agent_settled").await?;
                let retries = client.count("auto_retry_start");
                anyhow::ensure!(retries == 2, "{retries} retries, not 2");
                client.last_error_is("500")
            }
            Phase::IdleTimeout => {
                client.until_type("agent_settled").await?;
                client.last_error_is("terminated")
            }
            Phase::ThresholdCompaction => {
                client.until_type("agent_settled").await?;
                client.prompt("p2", "Turn two").await?;
                client.until_type("compaction_start").await?;
                server.wait_for_gate("summary", gate_wait).await?;
                Ok(())
            }
            Phase::Overflow => {
                client.until_type("agent_settled").await?;
                // Long enough to leave something to summarise past `keepRecentTokens`.
                let text = "Turn two: and the colour blue, with some words to take up room.";
                client.prompt("p2", text).await?;
                client
                    .until(|r| r["type"] == "compaction_start" && r["reason"] == "overflow")
                    .await?;
                server.wait_for_gate("summary", gate_wait).await?;
                Ok(())
            }
            Phase::ManualCompaction => {
                client.until_type("agent_settled").await?;
                client.prompt("p2", "Turn two").await?;
                client.until_type("agent_settled").await?;
                client.send(json!({"id": "c", "type": "compact"})).await?;
                client.until_type("compaction_start").await?;
                server.wait_for_gate("summary", gate_wait).await?;
                Ok(())
            }
            Phase::ExtensionCommand => {
                client.until_type("agent_settled").await?;
                client.command_prompt("ask", "/ask").await?;
                client
                    .until(|r| r["type"] == "extension_ui_request" && r["method"] == "confirm")
                    .await
            }
        }
    }

    /// Lets the held run go on (for the client that sends more prompts): the held stream's
    /// gate, the tool's `sleep` killed, the extension's dialog confirmed (the retry wait, 1 s
    /// for this client, ends by itself).
    pub async fn release(self, client: &mut Client, server: &mock_llm::MockServer) -> Result<()> {
        let gate = match self {
            Phase::FirstByte => "first",
            Phase::MidText => "mid",
            Phase::MidToolArgs => "args",
            Phase::ThresholdCompaction | Phase::ManualCompaction | Phase::Overflow => "summary",
            Phase::Tool => {
                let pid = client::pid_in(&client.work_dir.join("tool.pid")).await?;
                if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                    let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                }
                return Ok(());
            }
            Phase::ExtensionCommand => {
                let request = client
                    .records
                    .iter()
                    .find(|r| r["type"] == "extension_ui_request" && r["method"] == "confirm")
                    .map(|r| r["id"].clone())
                    .unwrap_or_default();
                return client
                    .send(
                        json!({"type": "extension_ui_response", "id": request, "confirmed": true}),
                    )
                    .await;
            }
            Phase::Idle
            | Phase::ToolsAnswered
            | Phase::ProviderError
            | Phase::RetryWait
            | Phase::RetryExhausted
            | Phase::IdleTimeout => {
                return Ok(());
            }
        };
        Ok(server.release_gate(gate)?)
    }
}
