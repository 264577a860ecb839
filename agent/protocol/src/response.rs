//! Responses: exactly one per command, `{"id","type":"response","command","success","data"|"error"}`.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::command::QueueMode;
use crate::id::{RequestId, deserialize_optional_id};
use crate::message::AgentMessage;
use crate::model::{Model, ThinkingLevel};
use crate::session::{SessionEntry, SessionTreeNode};
use crate::usage::Usage;

/// The response envelope. Key order on the wire: `id, type, command, success, data|error`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Response {
    /// The command's id, as given; absent when the command had none.
    #[serde(
        default,
        deserialize_with = "deserialize_optional_id",
        skip_serializing_if = "Option::is_none"
    )]
    pub id: Option<RequestId>,
    /// Always `"response"`.
    #[serde(rename = "type")]
    pub kind: ResponseTag,
    /// The command's type (`parse` for unparsable lines); absent when the input was not an object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Whether the command succeeded.
    pub success: bool,
    /// Result data; `Some(Value::Null)` is written as `"data":null` (cycle_model with one model).
    #[serde(
        default,
        deserialize_with = "deserialize_present",
        skip_serializing_if = "Option::is_none"
    )]
    pub data: Option<Value>,
    /// What went wrong, when `success` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The constant `"response"` tag.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ResponseTag {
    /// `"response"`
    #[default]
    #[serde(rename = "response")]
    Response,
}

fn deserialize_present<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl Response {
    /// A success without data.
    pub fn ok(id: Option<RequestId>, command: &str) -> Self {
        Self {
            id,
            kind: ResponseTag::Response,
            command: Some(command.to_owned()),
            success: true,
            data: None,
            error: None,
        }
    }

    /// A success carrying `data` (serialised with `serde_json`; `None` fields are omitted).
    pub fn with_data<T: Serialize>(
        id: Option<RequestId>,
        command: &str,
        data: &T,
    ) -> serde_json::Result<Self> {
        let mut response = Self::ok(id, command);
        response.data = Some(serde_json::to_value(data)?);
        Ok(response)
    }

    /// A failure.
    pub fn error(id: Option<RequestId>, command: Option<&str>, message: impl Into<String>) -> Self {
        Self {
            id,
            kind: ResponseTag::Response,
            command: command.map(str::to_owned),
            success: false,
            data: None,
            error: Some(message.into()),
        }
    }
}

/// `get_state` data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionState {
    /// The current model, or absent when none is available.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<Model>,
    /// Effective thinking level.
    pub thinking_level: ThinkingLevel,
    /// Whether a run is in progress.
    pub is_streaming: bool,
    /// Whether compaction is in progress.
    pub is_compacting: bool,
    /// `all` or `one-at-a-time`.
    pub steering_mode: QueueMode,
    /// `all` or `one-at-a-time`.
    pub follow_up_mode: QueueMode,
    /// Session file; absent with `--no-session`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_file: Option<String>,
    /// Session id (UUIDv7).
    pub session_id: String,
    /// Display name, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_name: Option<String>,
    /// Whether automatic compaction is on.
    pub auto_compaction_enabled: bool,
    /// Messages in the conversation.
    pub message_count: u64,
    /// Queued steering and follow-up messages.
    pub pending_message_count: u64,
}

/// `cycle_model` data (the response carries `data: null` when there is nothing to cycle to).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CycleModelResult {
    /// The model switched to.
    pub model: Model,
    /// The thinking level now in effect.
    pub thinking_level: ThinkingLevel,
    /// Whether cycling is limited to a `--models` scope.
    pub is_scoped: bool,
}

/// `get_available_models` data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AvailableModels {
    /// Every model with credentials.
    pub models: Vec<Model>,
}

/// `cycle_thinking_level` data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ThinkingLevelResult {
    /// The level now in effect.
    pub level: ThinkingLevel,
}

/// `get_available_thinking_levels` data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AvailableThinkingLevels {
    /// Levels the model supports, `["off"]` for a model without reasoning.
    pub levels: Vec<ThinkingLevel>,
}

/// `new_session`, `switch_session` and `clone` data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CancelledResult {
    /// Whether an extension cancelled the switch.
    pub cancelled: bool,
}

/// `fork` data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ForkResult {
    /// Text of the message forked from; absent when an extension cancelled the fork.
    #[cfg_attr(feature = "schema", schemars(default))]
    pub text: String,
    /// Whether an extension cancelled the fork.
    pub cancelled: bool,
}

/// `compact` data and `compaction_end.result`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CompactionResult {
    /// The summary that replaces the compacted history.
    pub summary: String,
    /// First entry kept verbatim.
    pub first_kept_entry_id: String,
    /// Context tokens before.
    pub tokens_before: u64,
    /// Heuristic estimate of context tokens after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_tokens_after: Option<u64>,
    /// Usage of the summarisation call(s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Extension-specific data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// `bash` data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BashResult {
    /// Combined stdout and stderr, truncated to the tail when long.
    pub output: String,
    /// Exit code; absent when the process was killed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// Whether `abort_bash` cancelled it.
    pub cancelled: bool,
    /// Whether `output` was truncated.
    pub truncated: bool,
    /// The full output's file, when truncated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
}

/// Token totals of `get_session_stats`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TokenTotals {
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Cache reads.
    pub cache_read: u64,
    /// Cache writes.
    pub cache_write: u64,
    /// Sum of the above.
    pub total: u64,
}

/// Context window usage of `get_session_stats`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContextUsage {
    /// Estimated context tokens; `null` right after compaction.
    #[cfg_attr(
        feature = "schema",
        schemars(required, schema_with = "crate::schema::nullable::<u64>")
    )]
    pub tokens: Option<u64>,
    /// The model's context window.
    pub context_window: u64,
    /// tokens / contextWindow × 100; `null` right after compaction.
    #[cfg_attr(
        feature = "schema",
        schemars(required, schema_with = "crate::schema::nullable::<f64>")
    )]
    pub percent: Option<f64>,
}

/// `get_session_stats` data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionStats {
    /// Session file; absent with `--no-session`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_file: Option<String>,
    /// Session id.
    pub session_id: String,
    /// User messages.
    pub user_messages: u64,
    /// Assistant messages.
    pub assistant_messages: u64,
    /// Tool calls made by the model.
    pub tool_calls: u64,
    /// Tool results.
    pub tool_results: u64,
    /// All messages.
    pub total_messages: u64,
    /// Token totals.
    pub tokens: TokenTotals,
    /// Total cost in dollars.
    pub cost: f64,
    /// Context window usage, when a model is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_usage: Option<ContextUsage>,
}

/// `export_html` data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExportHtmlResult {
    /// Where the file was written.
    pub path: String,
}

/// One entry of `get_fork_messages`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ForkMessage {
    /// The user message's entry id.
    pub entry_id: String,
    /// Its text.
    pub text: String,
}

/// `get_fork_messages` data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ForkMessages {
    /// User messages of the active branch.
    pub messages: Vec<ForkMessage>,
}

/// `get_entries` data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct EntriesResult {
    /// Entries in append order (without the header).
    pub entries: Vec<SessionEntry>,
    /// The current leaf, `null` for an empty session.
    #[cfg_attr(
        feature = "schema",
        schemars(required, schema_with = "crate::schema::nullable::<String>")
    )]
    pub leaf_id: Option<String>,
}

/// `get_tree` data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TreeResult {
    /// Root nodes.
    pub tree: Vec<SessionTreeNode>,
    /// The current leaf, `null` for an empty session.
    #[cfg_attr(
        feature = "schema",
        schemars(required, schema_with = "crate::schema::nullable::<String>")
    )]
    pub leaf_id: Option<String>,
}

/// `get_last_assistant_text` data. The reference omits `text` (`{}`) when there is no
/// assistant text, where its docs say `{"text": null}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LastAssistantText {
    /// The text, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// `get_messages` data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MessagesResult {
    /// The conversation.
    pub messages: Vec<AgentMessage>,
}

/// Where a command was loaded from (`get_commands`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SourceInfo {
    /// File path, or a pseudo-path such as `<inline:name>`.
    pub path: String,
    /// Kind of source (`inline`, `local`, ...).
    pub source: String,
    /// `user`, `project`, `temporary`, ...
    pub scope: String,
    /// `top-level` or the package it came from.
    pub origin: String,
    /// Fields this crate does not model, kept in order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One command of `get_commands`. The reference reports `sourceInfo` where its docs describe
/// `location` and `path`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SlashCommand {
    /// Name to invoke with `/name`.
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `extension`, `prompt` or `skill`.
    pub source: String,
    /// Where it was loaded from.
    pub source_info: SourceInfo,
}

/// `get_commands` data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CommandsResult {
    /// Available commands.
    pub commands: Vec<SlashCommand>,
}

/// What became of an accepted `prompt`, `steer` or `follow_up` (from pi 0.99.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum Disposition {
    /// A run started with it.
    Started,
    /// Queued behind the current run.
    Queued,
    /// An extension or a command handled it; no run started.
    Handled,
}

/// `prompt`, `steer` and `follow_up` data (from pi 0.99.1; no data before).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct InputAccepted {
    /// What became of the message.
    pub disposition: Disposition,
}

/// `clear_queue` data: the texts taken out of the queues.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ClearQueueResult {
    /// Steering messages taken.
    pub steering: Vec<String>,
    /// Follow-up messages taken.
    pub follow_up: Vec<String>,
}
