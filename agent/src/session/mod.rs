//! The session store: pi's session files (JSONL, format version 3), as the reference pi 0.84.1
//! reads and writes them.
//!
//! A session is a header line followed by entries that form a tree through `id`/`parentId`; the
//! leaf marks where the next entry goes. The file is written lazily: nothing reaches the disk until
//! the first assistant message, then everything buffered is written at once and later entries
//! are appended one line at a time. One [`SessionStore`] belongs to the agent's session task; it
//! needs no locking.
//!
//! Entries are kept as the JSON objects the file holds (key order and unknown fields included),
//! so `get_entries` and `get_tree` answer with the reference's bytes; [`Entry::parsed`] gives the
//! typed view.
//!
//! ```
//! use std::path::Path;
//! use pi_agent::session::SessionStore;
//!
//! let mut store = SessionStore::in_memory(Path::new("/project"));
//! store.record_start(Some(("anthropic", "claude-sonnet-4-5")), "medium")?;
//! let message = serde_json::from_str(
//!     r#"{"role":"user","content":[{"type":"text","text":"hi"}],"timestamp":1}"#,
//! )?;
//! let id = store.append_message(message)?;
//! assert_eq!(store.leaf_id(), Some(id.as_str()));
//! assert_eq!(store.build_context().messages.len(), 1);
//! assert_eq!(store.fork_messages()[0].text, "hi");
//! let data = store.entries_data(Some(&id))?; // `get_entries` with `since`
//! assert_eq!(data["entries"], serde_json::json!([]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod branch;
mod context;
mod discover;
mod entry;
mod load;
pub mod paths;
mod start;
pub mod time;
mod tree;

use std::collections::HashMap;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use pi_rpc_protocol::message::AgentMessage;
use pi_rpc_protocol::session::{
    EntryBase, MessageEntry, ModelChangeEntry, SESSION_VERSION, SessionEntry, SessionHeader,
    SessionInfoEntry, ThinkingLevelChangeEntry,
};
use serde_json::{Map, Value};

pub(crate) use context::context_message;
pub use context::{ModelRef, SessionContext};
pub use discover::{most_recent_session, read_header};
pub use entry::Entry;
pub use start::is_valid_session_id;
pub use tree::TreeNode;

/// What can go wrong in the session store. The texts of the variants a client sees match the
/// reference's error messages.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a session file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: String,
        /// The failure.
        source: io::Error,
    },
    /// A non-empty file whose first line is not a session header.
    #[error("Session file is not a valid pi session: {0}")]
    NotASession(String),
    /// No entry with this id (branching, labels).
    #[error("Entry {0} not found")]
    EntryNotFound(String),
    /// `get_entries` with a `since` id that is not in the session.
    #[error("Entry not found: {0}")]
    SinceNotFound(String),
    /// `fork` at an id that is not a user message of this session.
    #[error("Invalid entry ID for forking")]
    InvalidForkEntry,
    /// Forking or cloning a persisted session whose file does not exist yet.
    #[error(
        "This session has not been saved yet. Wait for the first assistant response before cloning or forking it."
    )]
    NotSavedYet,
    /// A session id given by the user that the reference would refuse.
    #[error(
        "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character"
    )]
    InvalidSessionId,
    /// `clone` of a session without entries.
    #[error("Cannot clone session: no current entry selected")]
    NothingToClone,
    /// Serialising an entry failed.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// Result with the store's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

fn io_error(path: &str) -> impl FnOnce(io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_owned(),
        source,
    }
}

/// The session of one agent: header, entries, leaf and (when persisting) its file. A clone is a
/// copy in memory (the file is shared), for preparing a replacement before it takes over.
#[derive(Debug, Clone)]
pub struct SessionStore {
    session_id: String,
    session_file: Option<String>,
    session_dir: String,
    cwd: String,
    persist: bool,
    flushed: bool,
    header: Map<String, Value>,
    entries: Vec<Entry>,
    by_id: HashMap<String, usize>,
    labels: Labels,
    leaf_id: Option<String>,
    has_assistant: bool,
}

impl SessionStore {
    /// A new, empty session for `cwd` (made absolute). With `persist`, `session_dir` is created
    /// and the session's file will be `<session_dir>/<time>_<uuidv7>.jsonl`, written with the
    /// first assistant message; without it nothing touches the disk.
    pub fn new(cwd: &Path, session_dir: &Path, persist: bool) -> Result<Self> {
        let mut store = Self::empty(cwd, &paths::text(session_dir), persist)?;
        store.new_session(None);
        Ok(store)
    }

    /// A new session kept in memory only (`--no-session`).
    pub fn in_memory(cwd: &Path) -> Self {
        let mut store = Self::blank(&paths::resolve(&paths::text(cwd)), String::new(), false);
        store.new_session(None);
        store
    }

    /// Opens a session file (`--session`, `switch_session`). The cwd comes from `cwd_override`,
    /// else the file's header, else the process's folder; new sessions made from this one go to
    /// `session_dir`, else the file's folder. A missing file starts a new session that will be
    /// written to exactly this path; an empty file gets a header at once; a file of an older
    /// format version is migrated and rewritten.
    pub fn open(
        path: &Path,
        session_dir: Option<&Path>,
        cwd_override: Option<&Path>,
    ) -> Result<Self> {
        let resolved = paths::resolve(&paths::text(path));
        let loaded = load::read_entries(&resolved)?;
        let header_cwd = loaded
            .as_ref()
            .and_then(|lines| lines.first())
            .and_then(|header| header.get("cwd"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let cwd = match (cwd_override, header_cwd) {
            (Some(cwd), _) => paths::text(cwd),
            (None, Some(cwd)) => cwd,
            (None, None) => paths::resolve("."),
        };
        let dir = match session_dir {
            Some(dir) => paths::text(dir),
            None => paths::join(&resolved, ".."),
        };
        let mut store = Self::empty(Path::new(&cwd), &dir, true)?;
        store.set_session_file(resolved, loaded)?;
        Ok(store)
    }

    fn blank(cwd: &str, session_dir: String, persist: bool) -> Self {
        Self {
            session_id: String::new(),
            session_file: None,
            session_dir,
            cwd: cwd.to_owned(),
            persist,
            flushed: false,
            header: Map::new(),
            entries: Vec::new(),
            by_id: HashMap::new(),
            labels: Labels::default(),
            leaf_id: None,
            has_assistant: false,
        }
    }

    fn empty(cwd: &Path, session_dir: &str, persist: bool) -> Result<Self> {
        let session_dir = paths::expand_tilde(session_dir);
        if persist && !session_dir.is_empty() && !Path::new(&session_dir).exists() {
            fs::create_dir_all(&session_dir).map_err(io_error(&session_dir))?;
        }
        Ok(Self::blank(
            &paths::resolve(&paths::text(cwd)),
            session_dir,
            persist,
        ))
    }

    fn set_session_file(
        &mut self,
        file: String,
        loaded: Option<Vec<Map<String, Value>>>,
    ) -> Result<()> {
        let Some(lines) = loaded else {
            // No such file: a new session that will be written to exactly this path.
            self.new_session(None);
            self.session_file = Some(file);
            return Ok(());
        };
        if lines.is_empty() {
            let size = fs::metadata(&file).map_err(io_error(&file))?.len();
            if size > 0 {
                return Err(Error::NotASession(file));
            }
            self.new_session(None);
            self.session_file = Some(file);
            self.rewrite_file()?;
            self.flushed = true;
            return Ok(());
        }
        let mut lines = lines;
        let migrated = load::migrate(&mut lines);
        let mut lines = lines.into_iter();
        self.header = lines.next().unwrap_or_default();
        self.session_id = self
            .header
            .get("id")
            .and_then(Value::as_str)
            .map_or_else(|| uuid::Uuid::now_v7().to_string(), str::to_owned);
        self.entries = lines.map(Entry::from_raw).collect();
        self.session_file = Some(file);
        if migrated {
            self.rewrite_file()?;
        }
        self.rebuild_index();
        self.flushed = true;
        Ok(())
    }

    /// Starts over with a new, empty session (new id, new file name, nothing written yet).
    /// Returns the new file path when persisting.
    pub fn new_session(&mut self, parent_session: Option<&str>) -> Option<PathBuf> {
        self.reset_to_new(uuid::Uuid::now_v7().to_string(), parent_session)
    }

    fn reset_to_new(
        &mut self,
        session_id: String,
        parent_session: Option<&str>,
    ) -> Option<PathBuf> {
        self.session_id = session_id;
        let timestamp = time::now_iso();
        self.header = header_map(SessionHeader {
            kind: "session".into(),
            version: Some(SESSION_VERSION),
            id: self.session_id.clone(),
            timestamp: timestamp.clone(),
            cwd: self.cwd.clone(),
            parent_session: parent_session.map(str::to_owned),
        });
        self.entries.clear();
        self.by_id.clear();
        self.labels.clear();
        self.leaf_id = None;
        self.flushed = false;
        self.has_assistant = false;
        if self.persist {
            let name = paths::session_file_name(&timestamp, &self.session_id);
            self.session_file = Some(paths::join(&self.session_dir, &name));
        }
        self.session_file()
    }

    fn rebuild_index(&mut self) {
        self.by_id.clear();
        self.labels.clear();
        self.leaf_id = None;
        self.has_assistant = false;
        for (index, entry) in self.entries.iter().enumerate() {
            self.by_id.insert(entry.id().to_owned(), index);
            self.leaf_id = Some(entry.id().to_owned());
            self.has_assistant |= entry.is_assistant_message();
            if entry.kind() == "label"
                && let Some(target) = entry.raw().get("targetId").and_then(Value::as_str)
            {
                let label = entry.raw().get("label").and_then(Value::as_str);
                self.labels.set(target, label, entry.timestamp());
            }
        }
    }

    fn lines(&self) -> Result<String> {
        let mut text = pi_rpc_protocol::json::to_string(&self.header)?;
        text.push('\n');
        for entry in &self.entries {
            text.push_str(&pi_rpc_protocol::json::to_string(entry)?);
            text.push('\n');
        }
        Ok(text)
    }

    fn rewrite_file(&self) -> Result<()> {
        let (true, Some(file)) = (self.persist, &self.session_file) else {
            return Ok(());
        };
        let text = self.lines()?;
        fs::write(file, text).map_err(io_error(file))
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
        if !self.has_assistant {
            // Buffered until the first assistant message.
            return Ok(());
        }
        let text = self.lines()?;
        let mut out = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&file)
            .map_err(io_error(&file))?;
        out.write_all(text.as_bytes()).map_err(io_error(&file))?;
        self.flushed = true;
        Ok(())
    }

    fn append_entry(&mut self, entry: Entry) -> Result<String> {
        let id = entry.id().to_owned();
        self.has_assistant |= entry.is_assistant_message();
        self.by_id.insert(id.clone(), self.entries.len());
        self.entries.push(entry);
        self.leaf_id = Some(id.clone());
        self.persist_last()?;
        Ok(id)
    }

    fn next_base(&self) -> EntryBase {
        EntryBase {
            id: entry::generate_id(|id| self.by_id.contains_key(id)),
            parent_id: self.leaf_id.clone(),
            timestamp: time::now_iso(),
        }
    }

    /// Appends a message (user, assistant, tool result, bash execution) as a child of the leaf
    /// and moves the leaf to it. Returns the entry id.
    pub fn append_message(&mut self, message: AgentMessage) -> Result<String> {
        let base = self.next_base();
        self.append_entry(Entry::from_typed(SessionEntry::Message(MessageEntry {
            base,
            message,
        }))?)
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

    /// The session id (UUIDv7 for sessions this store created).
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The session file, when persisting (it may not exist yet: see the module docs).
    pub fn session_file(&self) -> Option<PathBuf> {
        self.session_file.as_ref().map(PathBuf::from)
    }

    /// The folder new sessions go to.
    pub fn session_dir(&self) -> PathBuf {
        PathBuf::from(&self.session_dir)
    }

    /// The session's working folder (absolute).
    pub fn cwd(&self) -> PathBuf {
        PathBuf::from(&self.cwd)
    }

    /// Whether the session is written to disk.
    pub fn is_persisted(&self) -> bool {
        self.persist
    }

    /// The header line as a JSON object.
    pub fn header(&self) -> &Map<String, Value> {
        &self.header
    }

    /// The session this one was forked or started from (`parentSession` of the header).
    pub fn parent_session(&self) -> Option<&str> {
        self.header.get("parentSession").and_then(Value::as_str)
    }

    /// All entries in append order (without the header).
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// One entry by id.
    pub fn entry(&self, id: &str) -> Option<&Entry> {
        self.by_id
            .get(id)
            .and_then(|index| self.entries.get(*index))
    }

    /// The current leaf: where the next entry goes. `None` for an empty session.
    pub fn leaf_id(&self) -> Option<&str> {
        self.leaf_id.as_deref()
    }

    /// The label set on an entry, if any.
    pub fn label(&self, id: &str) -> Option<&str> {
        self.labels.get(id).map(|(label, _)| label)
    }
}

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

fn header_map(header: SessionHeader) -> Map<String, Value> {
    match serde_json::to_value(header) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
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

/// Labels by target id, in the order the reference's `Map` keeps them (first set first; a
/// cleared label set again goes last).
#[derive(Debug, Clone, Default)]
struct Labels(Vec<(String, String, String)>);

impl Labels {
    fn set(&mut self, target: &str, label: Option<&str>, at: &str) {
        let position = self.0.iter().position(|(id, _, _)| id == target);
        match (label.filter(|text| !text.is_empty()), position) {
            (Some(text), Some(index)) => {
                self.0[index] = (target.into(), text.into(), at.into());
            }
            (Some(text), None) => self.0.push((target.into(), text.into(), at.into())),
            (None, Some(index)) => {
                self.0.remove(index);
            }
            (None, None) => {}
        }
    }

    fn get(&self, target: &str) -> Option<(&str, &str)> {
        self.0
            .iter()
            .find(|(id, _, _)| id == target)
            .map(|(_, label, at)| (label.as_str(), at.as_str()))
    }

    fn iter(&self) -> impl Iterator<Item = &(String, String, String)> {
        self.0.iter()
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}

fn append_line(file: &str, entry: &Entry) -> Result<()> {
    let mut line = pi_rpc_protocol::json::to_string(entry)?;
    line.push('\n');
    let mut out = OpenOptions::new()
        .append(true)
        .create(true)
        .open(file)
        .map_err(io_error(file))?;
    out.write_all(line.as_bytes()).map_err(io_error(file))
}

/// Whitespace as JavaScript's `String.prototype.trim` sees it.
pub(crate) fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// JavaScript's `trim()`.
pub(crate) fn js_trim(text: &str) -> &str {
    text.trim_matches(is_js_space)
}

/// `name.replace(/[\r\n]+/g, " ").trim()`.
fn sanitize_name(name: &str) -> String {
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
