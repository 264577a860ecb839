//! What the model sees: the active branch (root to leaf), compaction-aware, as messages; and the
//! model and thinking level the branch last recorded.

use pi_rpc_protocol::message::{
    AgentMessage, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage,
};
use pi_rpc_protocol::response::ForkMessage;
use pi_rpc_protocol::session::SessionEntry;
use serde_json::{Map, Value};

use super::{Entry, Error, Result, SessionStore, js_trim, time};

/// A provider and model id, as `model_change` entries and assistant messages record them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    /// Provider name.
    pub provider: String,
    /// Model id.
    pub model_id: String,
}

/// The active branch as the model sees it (the reference's `buildSessionContext`).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionContext {
    /// Messages in order: after a compaction, its summary first, then the kept entries.
    pub messages: Vec<AgentMessage>,
    /// The last thinking level on the branch, `"off"` when none was recorded.
    pub thinking_level: String,
    /// The last model on the branch (a `model_change` or an assistant message's model).
    pub model: Option<ModelRef>,
}

impl SessionStore {
    /// The entries from the root to `from` (default: the leaf), all kinds included.
    pub fn branch(&self, from: Option<&str>) -> Vec<&Entry> {
        let start = from.or(self.leaf_id.as_deref());
        self.path_from(start.and_then(|id| self.entry(id)))
    }

    fn path_from<'a>(&'a self, leaf: Option<&'a Entry>) -> Vec<&'a Entry> {
        let mut path = Vec::new();
        let mut current = leaf;
        while let Some(entry) = current {
            path.push(entry);
            // A parent cycle in a hand-edited file must not hang the agent.
            if path.len() > self.entries.len() {
                break;
            }
            current = entry.parent_id().and_then(|id| self.entry(id));
        }
        path.reverse();
        path
    }

    /// The entries of the active branch as the model sees them: after the latest compaction on
    /// the branch, the compaction itself, then the entries from its `firstKeptEntryId` up to it,
    /// then everything after it.
    pub fn context_entries(&self) -> Vec<&Entry> {
        let path = self.path_from(self.leaf_id.as_deref().and_then(|id| self.entry(id)));
        let Some(compaction_index) = path.iter().rposition(|entry| entry.kind() == "compaction")
        else {
            return path;
        };
        let compaction = path[compaction_index];
        let first_kept = compaction
            .raw()
            .get("firstKeptEntryId")
            .and_then(Value::as_str);
        let mut out = vec![compaction];
        let mut keeping = false;
        for entry in &path[..compaction_index] {
            keeping |= Some(entry.id()) == first_kept;
            if keeping {
                out.push(entry);
            }
        }
        out.extend_from_slice(&path[compaction_index + 1..]);
        out
    }

    /// The messages, thinking level and model of the active branch.
    pub fn build_context(&self) -> SessionContext {
        let mut thinking_level = "off".to_owned();
        let mut model = None;
        for entry in self.branch(None) {
            match entry.parsed() {
                Some(SessionEntry::ThinkingLevelChange(change)) => {
                    thinking_level.clone_from(&change.thinking_level);
                }
                Some(SessionEntry::ModelChange(change)) => {
                    model = Some(ModelRef {
                        provider: change.provider.clone(),
                        model_id: change.model_id.clone(),
                    });
                }
                Some(SessionEntry::Message(message)) => {
                    if let AgentMessage::Assistant(assistant) = &message.message {
                        model = Some(ModelRef {
                            provider: assistant.provider.clone(),
                            model_id: assistant.model.clone(),
                        });
                    }
                }
                _ => {}
            }
        }
        let messages = self
            .context_entries()
            .into_iter()
            .filter_map(context_message)
            .collect();
        SessionContext {
            messages,
            thinking_level,
            model,
        }
    }

    /// The messages of the active branch as the model sees them.
    pub fn branch_messages(&self) -> Vec<AgentMessage> {
        self.build_context().messages
    }

    /// Whether the active branch records a thinking level (a resumed session without one gets
    /// a `thinking_level_change` at start).
    pub fn branch_has_thinking_level(&self) -> bool {
        self.branch(None)
            .iter()
            .any(|entry| entry.kind() == "thinking_level_change")
    }

    /// Entries after `since` in append order, or all of them (`get_entries`).
    pub fn entries_since(&self, since: Option<&str>) -> Result<&[Entry]> {
        let Some(since) = since else {
            return Ok(&self.entries);
        };
        let index = self
            .entries
            .iter()
            .position(|entry| entry.id() == since)
            .ok_or_else(|| Error::SinceNotFound(since.into()))?;
        Ok(&self.entries[index + 1..])
    }

    /// The `data` of a `get_entries` response: `{"entries":[...],"leafId":...}`.
    pub fn entries_data(&self, since: Option<&str>) -> Result<Value> {
        let entries = self.entries_since(since)?;
        let mut data = Map::new();
        data.insert("entries".into(), serde_json::to_value(entries)?);
        data.insert("leafId".into(), leaf_value(self.leaf_id()));
        Ok(Value::Object(data))
    }

    /// The user messages of the whole session with their text, for `get_fork_messages` (messages
    /// without text are left out).
    pub fn fork_messages(&self) -> Vec<ForkMessage> {
        self.entries
            .iter()
            .filter(|entry| entry.message_role() == Some("user"))
            .filter_map(|entry| {
                let text = user_text(entry.raw().get("message")?.get("content")?);
                (!text.is_empty()).then(|| ForkMessage {
                    entry_id: entry.id().into(),
                    text,
                })
            })
            .collect()
    }

    /// The display name: the latest `session_info` entry's name, trimmed; an empty name clears it.
    pub fn session_name(&self) -> Option<String> {
        let info = self
            .entries
            .iter()
            .rev()
            .find(|entry| entry.kind() == "session_info")?;
        let name = js_trim(info.raw().get("name").and_then(Value::as_str).unwrap_or(""));
        (!name.is_empty()).then(|| name.to_owned())
    }
}

pub(crate) fn leaf_value(leaf: Option<&str>) -> Value {
    leaf.map_or(Value::Null, |id| Value::String(id.into()))
}

/// The text blocks of a user message's content joined without separator (a string as is).
pub(crate) fn user_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect(),
        _ => String::new(),
    }
}

fn entry_millis(entry: &Entry) -> u64 {
    time::parse_iso(entry.timestamp())
        .and_then(|millis| u64::try_from(millis).ok())
        .unwrap_or(0)
}

/// One context entry as the message the model sees (the reference's
/// `sessionEntryToContextMessages`).
pub(crate) fn context_message(entry: &Entry) -> Option<AgentMessage> {
    match entry.kind() {
        "message" => {
            if let Some(SessionEntry::Message(parsed)) = entry.parsed() {
                return Some(parsed.message.clone());
            }
            // Not a shape the wire types model as it is: old versions, forks or hand edits can
            // leave a message without content, which reaches the model as empty.
            let mut message = entry.raw().get("message")?.clone();
            if let Value::Object(fields) = &mut message {
                let role = fields.get("role").and_then(Value::as_str);
                let needs_content = matches!(role, Some("user" | "assistant" | "toolResult"))
                    && fields.get("content").is_none_or(Value::is_null);
                if needs_content {
                    fields.insert("content".into(), Value::Array(Vec::new()));
                }
            }
            serde_json::from_value(message).ok()
        }
        "custom_message" => {
            let raw = entry.raw();
            let content = match raw.get("content") {
                Some(Value::Null) | None => Value::Array(Vec::new()),
                Some(content) => content.clone(),
            };
            Some(AgentMessage::Custom(CustomMessage {
                custom_type: raw.get("customType")?.as_str()?.into(),
                content: serde_json::from_value(content).ok()?,
                display: raw.get("display").and_then(Value::as_bool),
                details: raw.get("details").cloned(),
                timestamp: entry_millis(entry),
                extra: Map::new(),
            }))
        }
        "branch_summary" => {
            let raw = entry.raw();
            let summary = raw.get("summary").and_then(Value::as_str)?;
            if summary.is_empty() {
                return None;
            }
            Some(AgentMessage::BranchSummary(BranchSummaryMessage {
                summary: summary.into(),
                from_id: raw.get("fromId").and_then(Value::as_str)?.into(),
                timestamp: entry_millis(entry),
                extra: Map::new(),
            }))
        }
        "compaction" => {
            let raw = entry.raw();
            Some(AgentMessage::CompactionSummary(CompactionSummaryMessage {
                summary: raw.get("summary").and_then(Value::as_str)?.into(),
                tokens_before: raw.get("tokensBefore").and_then(Value::as_u64).unwrap_or(0),
                timestamp: entry_millis(entry),
                extra: Map::new(),
            }))
        }
        _ => None,
    }
}
