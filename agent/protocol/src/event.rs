//! Events the agent streams on stdout, tagged by `type`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::TaggedToolCall;
use crate::message::{AgentMessage, TaggedToolResult};
use crate::model::ThinkingLevel;
use crate::response::CompactionResult;
use crate::session::SessionEntry;

/// A streaming delta of an assistant message (`message_update.assistantMessageEvent`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AssistantMessageEvent {
    /// A text block starts at `contentIndex`.
    TextStart(ContentIndex),
    /// More text.
    TextDelta(ContentDelta),
    /// The text block is complete.
    TextEnd(ContentEnd),
    /// A thinking block starts.
    ThinkingStart(ContentIndex),
    /// More thinking.
    ThinkingDelta(ContentDelta),
    /// The thinking block is complete.
    ThinkingEnd(ContentEnd),
    /// A tool call starts (with its id and tool name from 0.84.3).
    ToolcallStart(ToolcallStart),
    /// More of the tool call's JSON arguments, as the model writes them.
    ToolcallDelta(ContentDelta),
    /// The tool call is complete, with parsed arguments.
    ToolcallEnd(ToolcallEnd),
}

/// `*_start`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContentIndex {
    /// Index of the block in the message's content.
    pub content_index: usize,
}

/// `toolcall_start`: the block's index, and from pi 0.84.3 the call's id and tool name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolcallStart {
    /// Index of the block in the message's content.
    pub content_index: usize,
    /// The call's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The tool called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
}

impl From<ContentIndex> for ToolcallStart {
    fn from(start: ContentIndex) -> Self {
        Self {
            content_index: start.content_index,
            id: None,
            tool_name: None,
        }
    }
}

/// `*_delta`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContentDelta {
    /// Index of the block in the message's content.
    pub content_index: usize,
    /// The new text.
    pub delta: String,
}

/// `text_end` and `thinking_end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContentEnd {
    /// Index of the block in the message's content.
    pub content_index: usize,
    /// The block's whole text.
    pub content: String,
}

/// `toolcall_end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolcallEnd {
    /// Index of the block in the message's content.
    pub content_index: usize,
    /// The complete call.
    pub tool_call: TaggedToolCall,
}

/// An event carrying no fields (`agent_start`, `turn_start`, `agent_settled`, ...).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NoFields {}

/// `agent_settled`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct AgentSettledEvent {
    /// Whether the run ended because it was aborted (from pi 1.3.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aborted: Option<bool>,
}

/// `agent_end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AgentEndEvent {
    /// Messages produced by this run.
    pub messages: Vec<AgentMessage>,
    /// Whether an automatic retry follows.
    pub will_retry: bool,
}

/// `turn_end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TurnEndEvent {
    /// The turn's assistant message.
    pub message: AgentMessage,
    /// Results of its tool calls (`toolResult` messages), in call order.
    pub tool_results: Vec<TaggedToolResult>,
}

/// `message_start` and `message_end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MessageEvent {
    /// The message (at start it may already hold streamed content; the end is authoritative).
    pub message: AgentMessage,
}

/// `message_update`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MessageUpdateEvent {
    /// The message's cumulative usage so far (from pi 0.84.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::usage::Usage>,
    /// The delta.
    pub assistant_message_event: AssistantMessageEvent,
}

/// `bash_execution_update`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BashExecutionUpdateEvent {
    /// The `bash` command's id, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<crate::id::RequestId>,
    /// One chunk of output (stdout and stderr merged).
    pub delta: String,
}

/// `tool_execution_start`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolExecutionStartEvent {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// The call's arguments.
    pub args: Value,
}

/// `tool_execution_update`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolExecutionUpdateEvent {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// The call's arguments.
    pub args: Value,
    /// Accumulated result so far (`{content, details}`).
    pub partial_result: Value,
}

/// `tool_execution_end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolExecutionEndEvent {
    /// The call's id.
    pub tool_call_id: String,
    /// The tool.
    pub tool_name: String,
    /// The result (`{content, details}`).
    pub result: Value,
    /// Whether the tool failed.
    pub is_error: bool,
    /// How long the tool ran (from pi 1.3.0; absent when it did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

/// `queue_update`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QueueUpdateEvent {
    /// Pending steering messages.
    pub steering: Vec<String>,
    /// Pending follow-up messages.
    pub follow_up: Vec<String>,
}

/// Why compaction ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum CompactionReason {
    /// The `compact` command.
    Manual,
    /// Context above the threshold after a run.
    Threshold,
    /// The provider reported context overflow.
    Overflow,
}

/// `compaction_start`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CompactionStartEvent {
    /// Why.
    pub reason: CompactionReason,
}

/// `compaction_end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CompactionEndEvent {
    /// Why.
    pub reason: CompactionReason,
    /// The result; absent when aborted or failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<CompactionResult>,
    /// Whether it was aborted.
    pub aborted: bool,
    /// Whether the run is retried (overflow).
    pub will_retry: bool,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
}

/// `auto_retry_start` and `summarization_retry_scheduled`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RetryScheduledEvent {
    /// 1-based attempt number.
    pub attempt: u32,
    /// Attempts allowed.
    pub max_attempts: u32,
    /// Wait before the attempt.
    pub delay_ms: u64,
    /// The error being retried.
    pub error_message: String,
}

/// `auto_retry_end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AutoRetryEndEvent {
    /// Whether a retry succeeded.
    pub success: bool,
    /// The last attempt.
    pub attempt: u32,
    /// The final error (or `Retry cancelled`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_error: Option<String>,
}

/// `summarization_retry_attempt_start`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SummarizationRetryAttemptStartEvent {
    /// `compaction` or `branchSummary`.
    pub source: String,
    /// Compaction reason (absent for branch summaries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<CompactionReason>,
}

/// `extension_error`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ExtensionErrorEvent {
    /// The extension's file.
    pub extension_path: String,
    /// The event it was handling.
    pub event: String,
    /// The error text.
    pub error: String,
}

/// `thinking_level_changed` (beyond the docs; before the response of the command that caused it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ThinkingLevelChangedEvent {
    /// The effective level.
    pub level: ThinkingLevel,
}

/// `session_info_changed` (beyond the docs; before the `set_session_name` response).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SessionInfoChangedEvent {
    /// The new name; absent when cleared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `entry_appended` (beyond the docs; when an extension appends a custom entry).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct EntryAppendedEvent {
    /// The entry.
    pub entry: SessionEntry,
}

/// Every event the agent emits, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A run begins (after the prompt's response).
    AgentStart(NoFields),
    /// A run ends; `willRetry` says whether a retry follows.
    AgentEnd(AgentEndEvent),
    /// Nothing more will happen on its own: no retry, compaction or queued message remains.
    AgentSettled(AgentSettledEvent),
    /// A turn begins: one model call and its tool calls.
    TurnStart(NoFields),
    /// A turn ends with its assistant message and tool results.
    TurnEnd(TurnEndEvent),
    /// A message begins.
    MessageStart(MessageEvent),
    /// A streaming delta of the assistant message.
    MessageUpdate(MessageUpdateEvent),
    /// A message is complete.
    MessageEnd(MessageEvent),
    /// Output of a `bash` command.
    BashExecutionUpdate(BashExecutionUpdateEvent),
    /// A tool call starts executing.
    ToolExecutionStart(ToolExecutionStartEvent),
    /// A tool's progress.
    ToolExecutionUpdate(ToolExecutionUpdateEvent),
    /// A tool call finished.
    ToolExecutionEnd(ToolExecutionEndEvent),
    /// The steering or follow-up queue changed.
    QueueUpdate(QueueUpdateEvent),
    /// Compaction begins.
    CompactionStart(CompactionStartEvent),
    /// Compaction ends.
    CompactionEnd(CompactionEndEvent),
    /// A failed run will be retried after `delayMs`.
    AutoRetryStart(RetryScheduledEvent),
    /// Retrying ended.
    AutoRetryEnd(AutoRetryEndEvent),
    /// A summarisation will be retried.
    SummarizationRetryScheduled(RetryScheduledEvent),
    /// A summarisation retry starts.
    SummarizationRetryAttemptStart(SummarizationRetryAttemptStartEvent),
    /// Summarisation retrying ended.
    SummarizationRetryFinished(NoFields),
    /// An extension threw.
    ExtensionError(ExtensionErrorEvent),
    /// The effective thinking level changed.
    ThinkingLevelChanged(ThinkingLevelChangedEvent),
    /// The session name changed.
    SessionInfoChanged(SessionInfoChangedEvent),
    /// An extension appended an entry.
    EntryAppended(EntryAppendedEvent),
}

impl Event {
    /// The event's `type` as written on the wire, without serialising it.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::AgentStart(_) => "agent_start",
            Event::AgentEnd(_) => "agent_end",
            Event::AgentSettled(_) => "agent_settled",
            Event::TurnStart(_) => "turn_start",
            Event::TurnEnd(_) => "turn_end",
            Event::MessageStart(_) => "message_start",
            Event::MessageUpdate(_) => "message_update",
            Event::MessageEnd(_) => "message_end",
            Event::BashExecutionUpdate(_) => "bash_execution_update",
            Event::ToolExecutionStart(_) => "tool_execution_start",
            Event::ToolExecutionUpdate(_) => "tool_execution_update",
            Event::ToolExecutionEnd(_) => "tool_execution_end",
            Event::QueueUpdate(_) => "queue_update",
            Event::CompactionStart(_) => "compaction_start",
            Event::CompactionEnd(_) => "compaction_end",
            Event::AutoRetryStart(_) => "auto_retry_start",
            Event::AutoRetryEnd(_) => "auto_retry_end",
            Event::SummarizationRetryScheduled(_) => "summarization_retry_scheduled",
            Event::SummarizationRetryAttemptStart(_) => "summarization_retry_attempt_start",
            Event::SummarizationRetryFinished(_) => "summarization_retry_finished",
            Event::ExtensionError(_) => "extension_error",
            Event::ThinkingLevelChanged(_) => "thinking_level_changed",
            Event::SessionInfoChanged(_) => "session_info_changed",
            Event::EntryAppended(_) => "entry_appended",
        }
    }

    /// Every event type this crate models.
    pub const TYPES: [&'static str; 24] = [
        "agent_start",
        "agent_end",
        "agent_settled",
        "turn_start",
        "turn_end",
        "message_start",
        "message_update",
        "message_end",
        "bash_execution_update",
        "tool_execution_start",
        "tool_execution_update",
        "tool_execution_end",
        "queue_update",
        "compaction_start",
        "compaction_end",
        "auto_retry_start",
        "auto_retry_end",
        "summarization_retry_scheduled",
        "summarization_retry_attempt_start",
        "summarization_retry_finished",
        "extension_error",
        "thinking_level_changed",
        "session_info_changed",
        "entry_appended",
    ];
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A minimal record of each event type (`None` for a name this test does not know, which
    /// fails it: a new event needs a record here).
    fn minimal(kind: &str) -> Option<Value> {
        let user = json!({"role": "user", "content": "hi", "timestamp": 1});
        let payload = match kind {
            "agent_start" | "agent_settled" | "turn_start" | "summarization_retry_finished" => {
                json!({})
            }
            "agent_end" => json!({"messages": [user], "willRetry": false}),
            "turn_end" => json!({"message": user, "toolResults": []}),
            "message_start" | "message_end" => json!({"message": user}),
            "message_update" => json!({
                "assistantMessageEvent": {"type": "text_start", "contentIndex": 0}
            }),
            "bash_execution_update" => json!({"delta": "x"}),
            "tool_execution_start" => json!({"toolCallId": "c", "toolName": "t", "args": {}}),
            "tool_execution_update" => {
                json!({"toolCallId": "c", "toolName": "t", "args": {}, "partialResult": {}})
            }
            "tool_execution_end" => {
                json!({"toolCallId": "c", "toolName": "t", "result": {}, "isError": false})
            }
            "queue_update" => json!({"steering": [], "followUp": []}),
            "compaction_start" => json!({"reason": "manual"}),
            "compaction_end" => json!({"reason": "manual", "aborted": false, "willRetry": false}),
            "auto_retry_start" | "summarization_retry_scheduled" => {
                json!({"attempt": 1, "maxAttempts": 3, "delayMs": 0, "errorMessage": "e"})
            }
            "auto_retry_end" => json!({"success": true, "attempt": 1}),
            "summarization_retry_attempt_start" => json!({"source": "compaction"}),
            "extension_error" => json!({"extensionPath": "x.ts", "event": "input", "error": "e"}),
            "thinking_level_changed" => json!({"level": "low"}),
            "session_info_changed" => json!({}),
            "entry_appended" => json!({"entry": {
                "type": "custom", "customType": "k", "id": "0123abcd", "parentId": null,
                "timestamp": "2026-01-01T00:00:00.000Z"
            }}),
            _ => return None,
        };
        let mut record = json!({"type": kind});
        record.as_object_mut()?.extend(payload.as_object()?.clone());
        Some(record)
    }

    #[test]
    fn types_names_every_variant_in_declaration_order() {
        // serde lists the tags of every variant when it meets an unknown one.
        let error = serde_json::from_value::<Event>(json!({"type": "no_such_event"}))
            .unwrap_err()
            .to_string();
        let (_, listed) = error.split_once("expected one of").unwrap();
        let tags: Vec<&str> = listed.split('`').skip(1).step_by(2).collect();
        assert_eq!(tags, Event::TYPES, "{error}");
    }

    #[test]
    fn each_type_reads_as_the_variant_whose_kind_it_is() {
        for kind in Event::TYPES {
            let record = minimal(kind).unwrap_or_else(|| panic!("no minimal record of {kind}"));
            let event: Event = serde_json::from_value(record.clone())
                .unwrap_or_else(|e| panic!("{kind}: {e}\n{record}"));
            assert_eq!(event.kind(), kind);
            assert_eq!(serde_json::to_value(&event).unwrap()["type"], kind);
        }
    }
}
