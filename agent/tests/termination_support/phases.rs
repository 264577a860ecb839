//! The phases of a run the matrix ends the agent in: what the mock answers, the settings and
//! extension each needs, and how the client drives the agent there.

use std::time::Duration;

use anyhow::Result;
use serde_json::{Value, json};

use super::client::Client;

/// Where the run is when the client acts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The answer is done and the agent settled.
    Idle,
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
    /// After an answer near the context window, the threshold compaction's summary request is
    /// held (after `agent_end`, before `agent_settled`).
    ThresholdCompaction,
    /// A `compact` command's summary request is held.
    ManualCompaction,
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

/// The opening of an Anthropic answer that calls `bash`, up to part of its arguments.
const TOOL_CALL_OPENING: [(&str, &str); 3] = [
    (
        "message_start",
        r#"{"type":"message_start","message":{"id":"msg_args","type":"message","role":"assistant","model":"mock-model-1","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}"#,
    ),
    (
        "content_block_start",
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_args","name":"bash","input":{}}}"#,
    ),
    (
        "content_block_delta",
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"command\": \"ec"}}"#,
    ),
];

/// The summary requests of a compaction (the reference's and pi-agent's summary prompts).
const SUMMARY_MATCH: &str = r#"match: { last_message_pattern: "<conversation>|# Conversation" }"#;

impl Phase {
    pub const ALL: [Phase; 9] = [
        Phase::Idle,
        Phase::FirstByte,
        Phase::MidText,
        Phase::MidToolArgs,
        Phase::Tool,
        Phase::RetryWait,
        Phase::ThresholdCompaction,
        Phase::ManualCompaction,
        Phase::ExtensionCommand,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Phase::Idle => "after the answer",
            Phase::FirstByte => "before the first byte (stalled provider)",
            Phase::MidText => "mid-text",
            Phase::MidToolArgs => "mid tool-call arguments",
            Phase::Tool => "during a tool",
            Phase::RetryWait => "during the retry wait",
            Phase::ThresholdCompaction => "during a threshold compaction",
            Phase::ManualCompaction => "during a `compact` command",
            Phase::ExtensionCommand => "an extension command's dialog",
        }
    }

    /// The mock's script for the phase.
    pub fn script(self) -> String {
        match self {
            Phase::Idle | Phase::ExtensionCommand => "responses:\n  - text: Done\n".to_owned(),
            // Hyper sends the headers with the first write: an SSE comment, which no client
            // reads as an event.
            Phase::FirstByte => {
                "responses:\n  - raw:\n      chunks:\n        - \": waiting\\n\\n\"\n        - { gate: first }\n".to_owned()
            }
            Phase::MidText => {
                "responses:\n  - content:\n      - text: before\n      - gate: mid\n      - text: after\n".to_owned()
            }
            Phase::MidToolArgs => {
                let chunks: String = TOOL_CALL_OPENING
                    .iter()
                    .map(|(event, data)| format!("        - {{ event: {event}, data: '{data}' }}\n"))
                    .collect();
                format!("responses:\n  - raw:\n      chunks:\n{chunks}        - {{ gate: args }}\n")
            }
            Phase::Tool => {
                "responses:\n  - content:\n      - tool_call: { id: toolu_t, name: bash, arguments: { command: \"echo $$ > tool.pid; exec sleep 30\" } }\n    stop: tool_use\n  - text: Done\n".to_owned()
            }
            Phase::RetryWait => {
                "responses:\n  - error: { status: 500 }\n  - text: Recovered\n".to_owned()
            }
            Phase::ThresholdCompaction => format!(
                "responses:\n  - {{ {SUMMARY_MATCH}, text: Held summary, gate: summary }}\n  - match: {{ last_message_text: Hi }}\n    text: Answer one, with some words to take up room in the context.\n  - match: {{ last_message_text: Turn two }}\n    text: Answer two, near the limit.\n    usage: {{ input: 190000, output: 100 }}\n"
            ),
            Phase::ManualCompaction => format!(
                "responses:\n  - {{ {SUMMARY_MATCH}, text: Held summary, gate: summary }}\n  - match: {{ last_message_text: Hi }}\n    text: Answer one, with some words to take up room in the context.\n  - match: {{ last_message_text: Turn two }}\n    text: Answer two, with some words to take up room in the context.\n"
            ),
        }
    }

    /// The agent's `settings.json`, if the phase needs one.
    pub fn settings(self) -> Option<Value> {
        match self {
            // The wait outlasts the cell: the client acts in it.
            Phase::RetryWait => Some(json!({"retry": {"baseDelayMs": 60000}})),
            Phase::ThresholdCompaction | Phase::ManualCompaction => {
                Some(json!({"compaction": {"keepRecentTokens": 20}}))
            }
            _ => None,
        }
    }

    /// The files in the work folder whose pids must not outlive the agent.
    pub fn pid_files(self) -> &'static [&'static str] {
        match self {
            Phase::Tool => &["tool.pid"],
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
            Phase::ThresholdCompaction => {
                client.until_type("agent_settled").await?;
                client.prompt("p2", "Turn two").await?;
                client.until_type("compaction_start").await?;
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
}
