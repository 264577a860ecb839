//! Appending entries to the session (each a child of the leaf, which moves to it) and writing
//! them to the session file: nothing until the first assistant message, then everything at
//! once, then one line per entry.

use std::fs::OpenOptions;
use std::io::{BufWriter, Write};
use std::sync::Arc;

use pi_rpc_protocol::message::AgentMessage;
use pi_rpc_protocol::session::{
    EntryBase, ModelChangeEntry, SessionEntry, SessionInfoEntry, ThinkingLevelChangeEntry,
};
use serde_json::{Map, Value};

use super::message::SharedMessage;
use super::{Entry, Error, Result, SessionStore, entry, io_error, js_trim, time};

/// The fields of a new compaction entry.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NewCompaction {
    /// The summary of the history it replaces.
    pub summary: String,
    /// First entry kept verbatim.
    pub first_kept_entry_id: String,
    /// Context tokens before compaction.
    pub tokens_before: u64,
    /// Extension data.
    pub details: Option<Value>,
    /// Usage of the summarisation, as JSON: the reference's key order differs between one
    /// summarisation (an assistant message's usage) and two (a split turn, where
    /// `cacheWrite1h` comes before `totalTokens`), so the caller builds it.
    pub usage: Option<Value>,
    /// Whether an extension produced it.
    pub from_hook: Option<bool>,
}

impl SessionStore {
    /// Writes the header and every entry, one JSON object per line.
    pub(super) fn write_lines(&self, out: &mut impl Write) -> std::io::Result<()> {
        let mut line =
            pi_rpc_protocol::json::to_vec(&self.header).map_err(std::io::Error::other)?;
        line.push(b'\n');
        for entry in &self.entries {
            if line.len() >= 64 * 1024 {
                out.write_all(&line)?;
                line.clear();
            }
            entry.write_json(&mut line).map_err(std::io::Error::other)?;
            line.push(b'\n');
        }
        out.write_all(&line)
    }

    /// Writes the whole file anew (or creates it, `create_new` refusing an existing one).
    pub(super) fn write_file(&self, create_new: bool) -> Result<()> {
        let (true, Some(file)) = (self.persist, &self.session_file) else {
            return Ok(());
        };
        let mut options = OpenOptions::new();
        options.write(true);
        if create_new {
            options.create_new(true);
        } else {
            options.create(true).truncate(true);
        }
        let out = options.open(file).map_err(io_error(file))?;
        let mut out = BufWriter::new(out);
        self.write_lines(&mut out)
            .and_then(|()| out.flush())
            .map_err(io_error(file))
    }

    pub(super) fn rewrite_file(&self) -> Result<()> {
        self.write_file(false)
    }

    /// Sets when a new session's file is first written (the release spoken decides it); a
    /// branch made from this session keeps the rule.
    pub fn set_saved_at(&mut self, saved_at: super::SavedAt) {
        self.saved_at = saved_at;
    }

    /// Whether the entries hold the message that gets a new session's file written.
    pub(super) fn has_conversation(&self) -> bool {
        self.seen.ready(self.saved_at)
    }

    /// Writes what the reference's `_persist` writes for the entry just appended (the last one).
    fn persist_last(&mut self) -> Result<()> {
        let (true, Some(file)) = (self.persist, self.session_file.clone()) else {
            return Ok(());
        };
        if self.flushed {
            // Appended one line at a time once the file exists.
            return match self.entries.last() {
                Some(entry) => append_line(&file, entry),
                None => Ok(()),
            };
        }
        if !self.has_conversation() {
            // Buffered until the first (assistant) message.
            return Ok(());
        }
        self.write_file(true)?;
        self.flushed = true;
        Ok(())
    }

    /// Writes a new session's file now if it waits for its first (assistant) message and holds
    /// a message already: the agent ends on a signal mid-run, and what the client was told is
    /// accepted (a prompt's user message) is kept. Such a file is one pi 0.99.1 and later
    /// write too (they save at the first message) and every release loads.
    pub fn save_unsaved(&mut self) -> Result<()> {
        let holds_message = self.entries.iter().any(|entry| entry.kind() == "message");
        if self.flushed || !self.persist || self.session_file.is_none() || !holds_message {
            return Ok(());
        }
        self.write_file(true)?;
        self.flushed = true;
        Ok(())
    }

    pub(super) fn append_entry(&mut self, entry: Entry) -> Result<String> {
        let id = entry.id().to_owned();
        self.seen.note(&entry);
        let parent = self.parent_index(&entry);
        self.by_id.insert(id.clone(), self.entries.len());
        self.parents.push(parent);
        self.entries.push(entry);
        self.leaf_id = Some(id.clone());
        self.persist_last()?;
        Ok(id)
    }

    pub(super) fn next_base(&self) -> EntryBase {
        EntryBase {
            id: entry::generate_id(|id| self.by_id.contains_key(id)),
            parent_id: self.leaf_id.clone(),
            timestamp: time::now_iso(),
        }
    }

    /// Appends a message (user, assistant, tool result, bash execution) as a child of the leaf
    /// and moves the leaf to it. Returns the entry id.
    pub fn append_message(&mut self, message: AgentMessage) -> Result<String> {
        self.append_shared_message(SharedMessage::new(message))
    }

    /// [`Self::append_message`] with a message the conversation shares (kept once).
    pub fn append_shared_message(&mut self, message: Arc<SharedMessage>) -> Result<String> {
        let base = self.next_base();
        self.append_entry(Entry::new_message(base, message))
    }

    /// Records the thinking level (at the start of a session and on each change).
    pub fn append_thinking_level_change(&mut self, thinking_level: &str) -> Result<String> {
        let base = self.next_base();
        self.append_entry(Entry::from_typed(SessionEntry::ThinkingLevelChange(
            ThinkingLevelChangeEntry {
                base,
                thinking_level: thinking_level.into(),
            },
        ))?)
    }

    /// Records the model (at the start of a session and on each change).
    pub fn append_model_change(&mut self, provider: &str, model_id: &str) -> Result<String> {
        let base = self.next_base();
        self.append_entry(Entry::from_typed(SessionEntry::ModelChange(
            ModelChangeEntry {
                base,
                provider: provider.into(),
                model_id: model_id.into(),
            },
        ))?)
    }

    /// Records the session's display name (`set_session_name`); line breaks become spaces and
    /// the name is trimmed, as the reference does.
    pub fn append_session_info(&mut self, name: &str) -> Result<String> {
        let base = self.next_base();
        self.append_entry(Entry::from_typed(SessionEntry::SessionInfo(
            SessionInfoEntry {
                base,
                name: Some(sanitize_name(name)),
            },
        ))?)
    }

    /// Records a compaction: history before `first_kept_entry_id` is replaced by `summary`.
    pub fn append_compaction(&mut self, compaction: NewCompaction) -> Result<String> {
        let base = self.next_base();
        let mut raw = Map::new();
        raw.insert("type".into(), "compaction".into());
        insert_base(&mut raw, base);
        raw.insert("summary".into(), compaction.summary.into());
        raw.insert(
            "firstKeptEntryId".into(),
            compaction.first_kept_entry_id.into(),
        );
        raw.insert("tokensBefore".into(), compaction.tokens_before.into());
        let optional = [
            ("details", compaction.details),
            ("usage", compaction.usage),
            ("fromHook", compaction.from_hook.map(Value::Bool)),
        ];
        for (key, value) in optional {
            if let Some(value) = value {
                raw.insert(key.into(), value);
            }
        }
        self.append_entry(Entry::from_raw(raw))
    }

    /// Appends an extension's state entry (`custom`), not part of the conversation.
    pub fn append_custom_entry(
        &mut self,
        custom_type: &str,
        data: Option<Value>,
    ) -> Result<String> {
        let base = self.next_base();
        let mut raw = Map::new();
        raw.insert("type".into(), "custom".into());
        raw.insert("customType".into(), custom_type.into());
        if let Some(data) = data {
            raw.insert("data".into(), data);
        }
        insert_base(&mut raw, base);
        self.append_entry(Entry::from_raw(raw))
    }

    /// Appends an extension's message (`custom_message`), part of the conversation.
    pub fn append_custom_message_entry(
        &mut self,
        custom_type: &str,
        content: Value,
        display: Option<bool>,
        details: Option<Value>,
    ) -> Result<String> {
        let base = self.next_base();
        let mut raw = Map::new();
        raw.insert("type".into(), "custom_message".into());
        raw.insert("customType".into(), custom_type.into());
        raw.insert("content".into(), content);
        if let Some(display) = display {
            raw.insert("display".into(), display.into());
        }
        if let Some(details) = details {
            raw.insert("details".into(), details);
        }
        insert_base(&mut raw, base);
        self.append_entry(Entry::from_raw(raw))
    }

    /// Appends a `context_edit` entry leaving `target_id`'s message out of the model's context
    /// (`replacement: null`), as pi records from 0.87.0.
    pub fn append_context_edit(&mut self, target_id: &str) -> Result<String> {
        let base = self.next_base();
        let mut raw = Map::new();
        raw.insert("type".into(), "context_edit".into());
        insert_base(&mut raw, base);
        raw.insert("targetId".into(), target_id.into());
        raw.insert("replacement".into(), Value::Null);
        self.append_entry(Entry::from_raw(raw))
    }

    /// Sets (`Some` non-empty) or clears a label on an entry.
    pub fn append_label_change(&mut self, target_id: &str, label: Option<&str>) -> Result<String> {
        if !self.by_id.contains_key(target_id) {
            return Err(Error::EntryNotFound(target_id.into()));
        }
        let base = self.next_base();
        let timestamp = base.timestamp.clone();
        let entry = Entry::from_typed(SessionEntry::Label(pi_rpc_protocol::session::LabelEntry {
            base,
            target_id: target_id.into(),
            label: label.map(str::to_owned),
        }))?;
        let id = self.append_entry(entry)?;
        self.labels.set(target_id, label, &timestamp);
        Ok(id)
    }
}

impl SessionStore {
    /// Appends an entry made elsewhere (a `ctx.newSession` `setup`'s session manager) as a child
    /// of the leaf, with its id and timestamp: one of the kinds pi's session manager appends
    /// directly, with an id not taken. A label sets (or clears) its target's label.
    pub fn append_given(&mut self, mut raw: Map<String, Value>) -> Result<String> {
        const KINDS: [&str; 7] = [
            "message",
            "thinking_level_change",
            "model_change",
            "custom",
            "custom_message",
            "session_info",
            "label",
        ];
        let kind = raw.get("type").and_then(Value::as_str).unwrap_or_default();
        let id = raw.get("id").and_then(Value::as_str).unwrap_or_default();
        let timestamp = raw.get("timestamp").and_then(Value::as_str);
        if !KINDS.contains(&kind) || id.is_empty() || self.by_id.contains_key(id) {
            return Err(Error::InvalidGivenEntry(kind.to_owned()));
        }
        let label = match kind {
            "label" => {
                let target = raw
                    .get("targetId")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if !self.by_id.contains_key(target) {
                    return Err(Error::EntryNotFound(target.to_owned()));
                }
                let text = raw.get("label").and_then(Value::as_str).map(str::to_owned);
                Some((
                    target.to_owned(),
                    text,
                    timestamp.unwrap_or_default().to_owned(),
                ))
            }
            _ => None,
        };
        if timestamp.is_none() {
            raw.insert("timestamp".into(), time::now_iso().into());
        }
        let parent = self.leaf_id.clone().map_or(Value::Null, Value::String);
        raw.insert("parentId".into(), parent);
        let id = self.append_entry(Entry::from_raw(raw))?;
        if let Some((target, text, at)) = label {
            self.labels.set(&target, text.as_deref(), &at);
        }
        Ok(id)
    }
}

fn insert_base(raw: &mut Map<String, Value>, base: EntryBase) {
    raw.insert("id".into(), base.id.into());
    raw.insert(
        "parentId".into(),
        base.parent_id.map_or(Value::Null, Value::String),
    );
    raw.insert("timestamp".into(), base.timestamp.into());
}

fn append_line(file: &str, entry: &Entry) -> Result<()> {
    let mut line = entry.to_json();
    line.push(b'\n');
    let mut out = OpenOptions::new()
        .append(true)
        .create(true)
        .open(file)
        .map_err(io_error(file))?;
    out.write_all(&line).map_err(io_error(file))
}

/// `name.replace(/[\r\n]+/g, " ").trim()`: a session name as the reference keeps it.
pub(crate) fn sanitize_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_break = false;
    for c in name.chars() {
        if c == '\r' || c == '\n' {
            if !in_break {
                out.push(' ');
            }
            in_break = true;
        } else {
            out.push(c);
            in_break = false;
        }
    }
    js_trim(&out).to_owned()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;

    fn given(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    #[test]
    fn given_entries_join_at_the_leaf_with_their_ids() {
        let mut store = SessionStore::in_memory(Path::new("/project"));
        let first = store.append_model_change("p", "m").unwrap();
        let user = json!({"type": "message", "id": "0000aaaa", "parentId": "elsewhere",
            "timestamp": "2026-01-01T00:00:00.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": "hi"}], "timestamp": 1}});
        assert_eq!(store.append_given(given(user)).unwrap(), "0000aaaa");
        let entry = store.entry("0000aaaa").unwrap();
        assert_eq!(
            entry.parent_id(),
            Some(first.as_str()),
            "re-parented to the leaf"
        );
        assert_eq!(entry.timestamp(), "2026-01-01T00:00:00.000Z");
        assert_eq!(store.build_context().messages.len(), 1);
        let label =
            json!({"type": "label", "id": "0000bbbb", "targetId": "0000aaaa", "label": "start"});
        store.append_given(given(label)).unwrap();
        assert_eq!(store.label("0000aaaa"), Some("start"));
        assert_eq!(store.leaf_id(), Some("0000bbbb"));
        // A taken id, a kind a session manager does not append, a label of no entry.
        let taken = json!({"type": "custom", "id": "0000aaaa", "customType": "x"});
        assert!(matches!(
            store.append_given(given(taken)),
            Err(Error::InvalidGivenEntry(_))
        ));
        let compaction = json!({"type": "branch_summary", "id": "0000cccc"});
        assert!(store.append_given(given(compaction)).is_err());
        let orphan = json!({"type": "label", "id": "0000dddd", "targetId": "zz", "label": "x"});
        assert_eq!(
            store.append_given(given(orphan)).unwrap_err().to_string(),
            "Entry zz not found"
        );
        assert_eq!(
            store.leaf_id(),
            Some("0000bbbb"),
            "refused entries change nothing"
        );
    }
}
