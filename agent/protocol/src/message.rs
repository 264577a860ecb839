//! Conversation messages (`AgentMessage` in the reference), tagged by `role`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::content::{AssistantContent, MessageContent, UserContent};
use crate::usage::Usage;

/// Why an assistant message ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    /// Still streaming (seen in `message_start`).
    Pending,
    /// The model finished.
    Stop,
    /// The output limit was reached.
    Length,
    /// The model called tools.
    ToolUse,
    /// The provider or the stream failed; see `errorMessage`.
    Error,
    /// The client aborted.
    Aborted,
    /// Deferred (batch) processing.
    Deferred,
}

/// A message typed or sent by the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct UserMessage {
    /// Text, or text and image blocks.
    pub content: MessageContent,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
    /// Fields this crate does not model, kept in order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A model's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    /// Text, thinking and tool-call blocks in stream order.
    pub content: Vec<AssistantContent>,
    /// Wire format used.
    pub api: String,
    /// Provider name.
    pub provider: String,
    /// Model id requested.
    pub model: String,
    /// Model id the provider says answered, when it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_model: Option<String>,
    /// Tokens and cost.
    pub usage: Usage,
    /// Why the message ended.
    pub stop_reason: StopReason,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
    /// The provider's message id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// The provider's own stop reason (`end_turn`, `tool_use`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_stop_reason: Option<String>,
    /// What failed, for `stopReason` `error` and `aborted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// Fields this crate does not model, kept in order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of one tool call, sent back to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolResultMessage {
    /// The call this answers.
    pub tool_call_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// Text and image blocks.
    pub content: Vec<UserContent>,
    /// Tool-specific details (a diff, truncation info), when the tool gives any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Nested model usage performed by the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Whether the tool failed.
    pub is_error: bool,
    /// How long the tool ran (from pi 1.3.0; absent when it did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
    /// Fields this crate does not model, kept in order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A shell command run by the `bash` RPC command (not by the model).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BashExecutionMessage {
    /// The command line.
    pub command: String,
    /// Combined stdout and stderr, possibly truncated.
    pub output: String,
    /// Exit code; absent when the process was killed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// Whether `abort_bash` cancelled it.
    pub cancelled: bool,
    /// Whether `output` was truncated.
    pub truncated: bool,
    /// File with the full output, when truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
    /// Whether the output is kept out of the model's context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_from_context: Option<bool>,
    /// Fields this crate does not model, kept in order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A message injected by an extension.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CustomMessage {
    /// The extension's message kind.
    pub custom_type: String,
    /// Text or blocks.
    pub content: MessageContent,
    /// Whether a UI shows it; left out when the extension did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<bool>,
    /// Extension data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
    /// Fields this crate does not model, kept in order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The summary that replaces compacted history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CompactionSummaryMessage {
    /// The summary text.
    pub summary: String,
    /// Context tokens before compaction.
    pub tokens_before: u64,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
    /// Fields this crate does not model, kept in order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The summary of a branch the conversation came back from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BranchSummaryMessage {
    /// The summary text.
    pub summary: String,
    /// Entry id the branch was left from.
    pub from_id: String,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
    /// Fields this crate does not model, kept in order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What the conversation declares to the model (from pi 0.86.1): prompt sections and tool
/// changes. The first one of a conversation declares everything; a later one only what changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SystemMessage {
    /// The whole prompt as one text; empty when it comes in `sections`.
    pub content: String,
    /// Named sections of the prompt (in a later message: the changed ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sections: Option<Map<String, Value>>,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
    /// Tools the model may call from here on (`{name, description, parameters}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_added: Option<Vec<Value>>,
    /// Tools the model may no longer call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_removed: Option<Vec<Value>>,
    /// Fields this crate does not model, kept in order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Any message of the conversation, tagged by `role`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "role", rename_all = "camelCase")]
pub enum AgentMessage {
    /// `role: "user"`
    User(UserMessage),
    /// `role: "assistant"`
    Assistant(AssistantMessage),
    /// `role: "toolResult"`
    ToolResult(ToolResultMessage),
    /// `role: "bashExecution"`
    BashExecution(BashExecutionMessage),
    /// `role: "custom"`
    Custom(CustomMessage),
    /// `role: "compactionSummary"`
    CompactionSummary(CompactionSummaryMessage),
    /// `role: "branchSummary"`
    BranchSummary(BranchSummaryMessage),
    /// `role: "system"` (from pi 0.86.1)
    System(SystemMessage),
}

/// A tool result with its `"role":"toolResult"` tag, where the wire carries one on its own
/// (`turn_end.toolResults`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "role")]
pub enum TaggedToolResult {
    /// `{"role":"toolResult",...}`
    #[serde(rename = "toolResult")]
    ToolResult(ToolResultMessage),
}
