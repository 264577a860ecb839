//! What the model sees: the active branch (root to leaf), compaction-aware, as messages; and the
//! model and thinking level the branch last recorded.

use std::sync::Arc;

use pi_rpc_protocol::message::{
    AgentMessage, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage,
};
use pi_rpc_protocol::response::ForkMessage;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::pieces::{JsonArray, JsonPieces};
use super::{Conversation, Entry, Error, Result, Role, SessionStore, SharedMessage, js_trim, time};

/// A provider and model id, as `model_change` entries and assistant messages record them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    /// Provider name.
    pub provider: String,
    /// Model id.
    pub model_id: String,
}

/// The active branch as the model sees it (the reference's `buildSessionContext`).
#[derive(Debug, Clone)]
pub struct SessionContext {
    /// Messages in order: after a compaction, its summary first, then the kept entries.
    pub messages: Conversation,
    /// The last thinking level on the branch, `"off"` when none was recorded.
    pub thinking_level: String,
    /// The last model on the branch (a `model_change` or an assistant message's model).
    pub model: Option<ModelRef>,
}

impl SessionStore {
    /// The entries from the root to `from` (default: the leaf), all kinds included.
    pub fn branch(&self, from: Option<&str>) -> Vec<&Entry> {
        let start = from.or(self.leaf_id.as_deref());
        self.path_from(start.and_then(|id| self.by_id.get(id).copied()))
    }

    fn path_from(&self, leaf: Option<usize>) -> Vec<&Entry> {
        let mut path = Vec::new();
        let mut current = leaf;
        while let Some(index) = current {
            let Some(entry) = self.entries.get(index) else {
                break;
            };
            path.push(entry);
            // A parent cycle in a hand-edited file must not hang the agent.
            if path.len() > self.entries.len() {
                break;
            }
            current = self
                .parents
                .get(index)
                .copied()
                .flatten()
                .map(|parent| parent as usize);
        }
        path.reverse();
        path
    }

    /// The entries of the active branch as the model sees them: after the latest compaction on
    /// the branch, the compaction itself, then the entries from its `firstKeptEntryId` up to it,
    /// then everything after it.
    pub fn context_entries(&self) -> Vec<&Entry> {
        let path = self.branch(None);
        let Some(compaction_index) = path.iter().rposition(|entry| entry.kind() == "compaction")
        else {
            return path;
        };
        let compaction = path[compaction_index];
        let first_kept = compaction.field("firstKeptEntryId");
        let first_kept = first_kept.as_ref().and_then(Value::as_str);
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

    /// The messages, thinking level and model of the active branch. Messages read from the
    /// file are shared with the store, not parsed.
    pub fn build_context(&self) -> SessionContext {
        let branch = self.branch(None);
        // The last thinking level and the last model on the branch win: look from the leaf.
        let thinking_level = branch
            .iter()
            .rev()
            .filter(|entry| entry.kind() == "thinking_level_change")
            .find_map(|entry| match entry.field("thinkingLevel") {
                Some(Value::String(level)) => Some(level),
                _ => None,
            })
            .unwrap_or_else(|| "off".to_owned());
        let model = branch.iter().rev().find_map(|entry| model_of(entry));
        let messages = self
            .context_entries()
            .into_iter()
            .filter_map(context_shared)
            .collect();
        SessionContext {
            messages,
            thinking_level,
            model,
        }
    }

    /// The messages of the active branch as the model sees them (typed copies).
    pub fn branch_messages(&self) -> Vec<AgentMessage> {
        self.build_context().messages.iter().cloned().collect()
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

    /// The `data` of a `get_entries` response, `{"entries":[...],"leafId":...}`, in pieces.
    pub fn entries_json(&self, since: Option<&str>) -> Result<impl JsonPieces + '_> {
        let entries = self.entries_since(since)?;
        Ok(JsonArray::new(
            "{\"entries\":[",
            entries,
            |entry: &Entry, out: &mut Vec<u8>| entry.write_json(out).map(|()| true),
            leaf_tail(self.leaf_id())?,
        ))
    }

    /// The `data` of a `get_entries` response as a JSON value (for tests and small sessions;
    /// the answer itself is written from [`Self::entries_json`]).
    pub fn entries_data(&self, since: Option<&str>) -> Result<Value> {
        Ok(serde_json::from_slice(&super::write_all(
            self.entries_json(since)?,
        )?)?)
    }

    /// The user messages of the whole session with their text, for `get_fork_messages` (messages
    /// without text are left out).
    pub fn fork_messages(&self) -> Vec<ForkMessage> {
        self.entries
            .iter()
            .filter_map(|entry| {
                let text = user_message_text(entry)?;
                (!text.is_empty()).then(|| ForkMessage {
                    entry_id: entry.id().into(),
                    text,
                })
            })
            .collect()
    }

    /// The `data` of a `get_fork_messages` response, `{"messages":[...]}`, in pieces.
    pub fn fork_messages_json(&self) -> impl JsonPieces + '_ {
        JsonArray::new(
            "{\"messages\":[",
            &self.entries,
            |entry: &Entry, out: &mut Vec<u8>| {
                let Some(text) = user_message_text(entry).filter(|text| !text.is_empty()) else {
                    return Ok(false);
                };
                let message = ForkMessage {
                    entry_id: entry.id().into(),
                    text,
                };
                pi_rpc_protocol::json::write_to(out, &message).map(|()| true)
            },
            b"]}".to_vec(),
        )
    }

    /// The display name: the latest `session_info` entry's name, trimmed; an empty name clears it.
    pub fn session_name(&self) -> Option<String> {
        let info = self
            .entries
            .iter()
            .rev()
            .find(|entry| entry.kind() == "session_info")?;
        let name = info.field("name");
        let name = js_trim(name.as_ref().and_then(Value::as_str).unwrap_or(""));
        (!name.is_empty()).then(|| name.to_owned())
    }
}

/// `],"leafId":LEAF}`.
pub(crate) fn leaf_tail(leaf: Option<&str>) -> Result<Vec<u8>> {
    let mut tail = b"],\"leafId\":".to_vec();
    pi_rpc_protocol::json::write_to(&mut tail, &leaf)?;
    tail.push(b'}');
    Ok(tail)
}

/// The model a `model_change` entry or an assistant message records.
fn model_of(entry: &Entry) -> Option<ModelRef> {
    match entry.kind() {
        "model_change" => {
            let raw = entry.raw();
            Some(ModelRef {
                provider: raw.get("provider")?.as_str()?.into(),
                model_id: raw.get("modelId")?.as_str()?.into(),
            })
        }
        "message" if entry.is_assistant_message() => {
            #[derive(Deserialize)]
            struct Recorded {
                provider: String,
                model: String,
            }
            let message = entry.message()?;
            if let Some(AgentMessage::Assistant(assistant)) = message.parsed() {
                return Some(ModelRef {
                    provider: assistant.provider.clone(),
                    model_id: assistant.model.clone(),
                });
            }
            let recorded: Recorded = pi_rpc_protocol::surrogates::from_str(message.text()?).ok()?;
            Some(ModelRef {
                provider: recorded.provider,
                model_id: recorded.model,
            })
        }
        _ => None,
    }
}

/// The text of a user message entry (its text blocks joined; a string content as is).
pub(crate) fn user_message_text(entry: &Entry) -> Option<String> {
    if entry.message_role() != Some(Role::User) {
        return None;
    }
    let message = entry.message()?;
    if let Some(AgentMessage::User(user)) = message.parsed() {
        let content = serde_json::to_value(&user.content).ok()?;
        return Some(user_text(&content));
    }
    #[derive(Deserialize)]
    struct Content {
        #[serde(default)]
        content: Value,
    }
    let parsed: Content = pi_rpc_protocol::surrogates::from_str(message.text()?).ok()?;
    Some(user_text(&parsed.content))
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
/// `sessionEntryToContextMessages`), typed (a copy).
pub(crate) fn context_message(entry: &Entry) -> Option<AgentMessage> {
    context_shared(entry)?.get().cloned()
}

/// One context entry as the message the model sees, shared: a `message` entry's own message
/// (not parsed), or the message a summary or extension entry stands for.
pub(crate) fn context_shared(entry: &Entry) -> Option<Arc<SharedMessage>> {
    let message = match entry.kind() {
        "message" => return entry.message().cloned(),
        "custom_message" => {
            let raw = entry.raw();
            let content = match raw.get("content") {
                Some(Value::Null) | None => Value::Array(Vec::new()),
                Some(content) => content.clone(),
            };
            AgentMessage::Custom(CustomMessage {
                custom_type: raw.get("customType")?.as_str()?.into(),
                content: serde_json::from_value(content).ok()?,
                display: raw.get("display").and_then(Value::as_bool),
                details: raw.get("details").cloned(),
                timestamp: entry_millis(entry),
                extra: Map::new(),
            })
        }
        "branch_summary" => {
            let raw = entry.raw();
            let summary = raw.get("summary").and_then(Value::as_str)?;
            if summary.is_empty() {
                return None;
            }
            AgentMessage::BranchSummary(BranchSummaryMessage {
                summary: summary.into(),
                from_id: raw.get("fromId").and_then(Value::as_str)?.into(),
                timestamp: entry_millis(entry),
                extra: Map::new(),
            })
        }
        "compaction" => {
            let raw = entry.raw();
            AgentMessage::CompactionSummary(CompactionSummaryMessage {
                summary: raw.get("summary").and_then(Value::as_str)?.into(),
                tokens_before: raw.get("tokensBefore").and_then(Value::as_u64).unwrap_or(0),
                timestamp: entry_millis(entry),
                extra: Map::new(),
            })
        }
        _ => return None,
    };
    Some(SharedMessage::new(message))
}
