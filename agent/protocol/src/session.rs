//! Session files (JSONL, version 3): the header and the entries of the session tree.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::content::MessageContent;
use crate::message::AgentMessage;
use crate::usage::Usage;

/// The session format version this crate reads and writes.
pub const SESSION_VERSION: u64 = 3;

/// First line of a session file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionHeader {
    /// Always `"session"`.
    #[serde(rename = "type")]
    #[cfg_attr(feature = "schema", schemars(extend("const" = "session")))]
    pub kind: String,
    /// Format version (3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// Session id (UUIDv7).
    pub id: String,
    /// ISO 8601 creation time.
    pub timestamp: String,
    /// Working folder.
    pub cwd: String,
    /// The session this one was forked or started from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session: Option<String>,
}

/// Fields every entry has: `id`, `parentId` (null for a root) and `timestamp`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct EntryBase {
    /// 8 hex digits, unique within the session.
    pub id: String,
    /// The previous entry on this branch.
    #[cfg_attr(
        feature = "schema",
        schemars(required, schema_with = "crate::schema::nullable::<String>")
    )]
    pub parent_id: Option<String>,
    /// ISO 8601 time.
    pub timestamp: String,
}

/// A conversation message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct MessageEntry {
    /// Id, parent and time.
    #[serde(flatten)]
    pub base: EntryBase,
    /// The message.
    pub message: AgentMessage,
}

/// The thinking level changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ThinkingLevelChangeEntry {
    /// Id, parent and time.
    #[serde(flatten)]
    pub base: EntryBase,
    /// The new level.
    pub thinking_level: String,
}

/// The model changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ModelChangeEntry {
    /// Id, parent and time.
    #[serde(flatten)]
    pub base: EntryBase,
    /// Provider name.
    pub provider: String,
    /// Model id.
    pub model_id: String,
}

/// History before `firstKeptEntryId` was summarised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CompactionEntry {
    /// Id, parent and time.
    #[serde(flatten)]
    pub base: EntryBase,
    /// The summary.
    pub summary: String,
    /// First entry kept verbatim.
    pub first_kept_entry_id: String,
    /// Context tokens before.
    pub tokens_before: u64,
    /// Extension data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Usage of the summarisation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Whether an extension produced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_hook: Option<bool>,
}

/// Summary of a branch left behind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BranchSummaryEntry {
    /// Id, parent and time.
    #[serde(flatten)]
    pub base: EntryBase,
    /// Entry the branch was left from.
    pub from_id: String,
    /// The summary.
    pub summary: String,
    /// Extension data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Usage of the summarisation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Whether an extension produced it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_hook: Option<bool>,
}

/// Extension state, not part of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CustomEntry {
    /// The extension's entry kind.
    pub custom_type: String,
    /// Extension data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Id, parent and time (written after the extension fields, as the reference does).
    #[serde(flatten)]
    pub base: EntryBase,
}

/// An extension message that is part of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CustomMessageEntry {
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
    /// Id, parent and time (written after the extension fields, as the reference does).
    #[serde(flatten)]
    pub base: EntryBase,
}

/// A label on another entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LabelEntry {
    /// Id, parent and time.
    #[serde(flatten)]
    pub base: EntryBase,
    /// The labelled entry.
    pub target_id: String,
    /// The label; absent to clear it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// Session metadata (the display name).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionInfoEntry {
    /// Id, parent and time.
    #[serde(flatten)]
    pub base: EntryBase,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// Any entry after the header, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SessionEntry {
    /// `message`
    Message(MessageEntry),
    /// `thinking_level_change`
    ThinkingLevelChange(ThinkingLevelChangeEntry),
    /// `model_change`
    ModelChange(ModelChangeEntry),
    /// `compaction`
    Compaction(CompactionEntry),
    /// `branch_summary`
    BranchSummary(BranchSummaryEntry),
    /// `custom`
    Custom(CustomEntry),
    /// `custom_message`
    CustomMessage(CustomMessageEntry),
    /// `label`
    Label(LabelEntry),
    /// `session_info`
    SessionInfo(SessionInfoEntry),
}

impl SessionEntry {
    /// Id, parent and time of any entry.
    pub fn base(&self) -> &EntryBase {
        match self {
            SessionEntry::Message(entry) => &entry.base,
            SessionEntry::ThinkingLevelChange(entry) => &entry.base,
            SessionEntry::ModelChange(entry) => &entry.base,
            SessionEntry::Compaction(entry) => &entry.base,
            SessionEntry::BranchSummary(entry) => &entry.base,
            SessionEntry::Custom(entry) => &entry.base,
            SessionEntry::CustomMessage(entry) => &entry.base,
            SessionEntry::Label(entry) => &entry.base,
            SessionEntry::SessionInfo(entry) => &entry.base,
        }
    }
}

/// A node of `get_tree`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SessionTreeNode {
    /// The entry.
    pub entry: SessionEntry,
    /// Entries whose parent is this one.
    pub children: Vec<SessionTreeNode>,
    /// Label, when one is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// When the label was set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_timestamp: Option<String>,
    /// Fields this crate does not model, kept in order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
