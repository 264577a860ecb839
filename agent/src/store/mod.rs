//! The session store: pi's session files (JSONL, format version 3), as the reference pi 0.84.1
//! reads and writes them.
//!
//! A session is a header line followed by entries that form a tree through `id`/`parentId`; the
//! leaf marks where the next entry goes. The file is written lazily: nothing reaches the disk until
//! the first assistant message, then everything buffered is written at once and later entries
//! are appended one line at a time. One [`SessionStore`] belongs to the agent's session task; it
//! needs no locking.
//!
//! Entries are kept as the JSON text the file holds, as the reference writes it (key order and
//! unknown fields included), so `get_entries` and `get_tree` answer with the reference's bytes;
//! messages are shared with the agent's conversation and parsed only when needed (see
//! [`SharedMessage`]). Nothing of a long session is held as a JSON tree, and a file is read in
//! one streaming pass ([`load`]).
//!
//! ```
//! use std::path::Path;
//! use pi_agent::store::{SessionStore, write_all};
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
//! let data = String::from_utf8(write_all(store.entries_json(Some(&id))?)?)?; // `get_entries`
//! assert_eq!(data, format!(r#"{{"entries":[],"leafId":"{id}"}}"#));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod append;
mod assemble;
mod branch;
mod context;
mod conversation;
mod discover;
mod entry;
#[cfg(test)]
mod json_strategies;
mod labels;
pub mod load;
mod message;
mod normal;
pub mod paths;
mod pieces;
mod scan;
pub mod select;
mod start;
mod tree;

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use pi_rpc_protocol::session::{SESSION_VERSION, SessionHeader};
use serde_json::{Map, Value};

pub use append::NewCompaction;
pub(crate) use append::sanitize_name;
pub(crate) use context::context_message;
pub use context::{ModelRef, SessionContext};
pub use conversation::Conversation;
pub use discover::{most_recent_session, read_header};
pub use entry::Entry;
use labels::Labels;
use load::SessionFile;
pub use message::{Role, SharedMessage};
pub use pieces::{JsonPieces, write_all};
pub use start::is_valid_session_id;

/// Timestamps as the reference writes and reads them in session files.
pub use crate::js::date as time;

/// JavaScript's `trim()`, as the session's names and labels are trimmed.
use crate::js::trim as js_trim;

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
    /// Forking or cloning a persisted session whose file does not exist yet (which is written
    /// at the message the [`SavedAt`] says).
    #[error("This session has not been saved yet. {} before cloning or forking it.", .0.wait_for())]
    NotSavedYet(SavedAt),
    /// A session id given by the user that the reference would refuse.
    #[error(
        "Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character"
    )]
    InvalidSessionId,
    /// An entry given to append (by an extension's `setup`) of a kind the session manager does
    /// not append directly, or without a new id.
    #[error("Cannot append a {0:?} entry: not one a session manager appends, or its id is taken")]
    InvalidGivenEntry(String),
    /// `clone` of a session without entries.
    #[error("Cannot clone session: no current entry selected")]
    NothingToClone,
    /// The path names a folder, a device, a FIFO or a socket (a folder in the reference's
    /// words).
    #[error("{}", path_error_text(.0))]
    Path(#[from] paths::PathError),
    /// A line of the session file is longer than the framing limit.
    #[error("Session file {path}: line {line} is longer than the limit of {limit} bytes")]
    LineTooLong {
        /// The file.
        path: String,
        /// 1-based line number.
        line: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// Serialising an entry failed.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// When a new session's file is first written; until then its entries wait in memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SavedAt {
    /// At its first assistant message (until pi 0.99.1).
    #[default]
    FirstAssistantMessage,
    /// At its first user or assistant message (from pi 0.99.1).
    FirstMessage,
}

impl SavedAt {
    /// When the given release first writes a new session's file.
    pub fn for_release(release: crate::release::RpcRelease) -> Self {
        if release.has(crate::release::Feature::SavedAtFirstMessage) {
            Self::FirstMessage
        } else {
            Self::FirstAssistantMessage
        }
    }

    /// What to do before a session not yet written can be branched, as the error says it.
    fn wait_for(self) -> &'static str {
        match self {
            SavedAt::FirstAssistantMessage => "Wait for the first assistant response",
            SavedAt::FirstMessage => "Send a message",
        }
    }
}

/// Result with the store's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

fn path_error_text(error: &paths::PathError) -> String {
    match error {
        paths::PathError::NotARegularFile {
            kind: paths::FileKind::Directory,
            ..
        } => "EISDIR: illegal operation on a directory, read".into(),
        other => other.to_string(),
    }
}

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
    /// The index of each entry's parent (by its id), so that walking a branch reads no line.
    parents: Vec<Option<u32>>,
    labels: Labels,
    leaf_id: Option<String>,
    seen: MessagesSeen,
    saved_at: SavedAt,
}

/// Which messages a session's entries hold, for when its file is first written.
#[derive(Debug, Clone, Copy, Default)]
struct MessagesSeen {
    user: bool,
    assistant: bool,
}

impl MessagesSeen {
    fn note(&mut self, entry: &Entry) {
        match entry.message_role() {
            Some(Role::Assistant) => self.assistant = true,
            Some(Role::User) => self.user = true,
            _ => {}
        }
    }

    /// Whether the message that gets the file written is there.
    fn ready(self, saved_at: SavedAt) -> bool {
        match saved_at {
            SavedAt::FirstAssistantMessage => self.assistant,
            SavedAt::FirstMessage => self.assistant || self.user,
        }
    }
}

impl SessionStore {
    /// A new, empty session for `cwd` (made absolute). With `persist`, `session_dir` is created
    /// and the session's file will be `<session_dir>/<time>_<uuidv7>.jsonl`, written with the
    /// first assistant message (see [`SessionStore::set_saved_at`]); without it nothing touches
    /// the disk.
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
        let loaded = load::read_session_file(&resolved)?;
        let header_cwd = match &loaded {
            SessionFile::Session(session) => session
                .header
                .get("cwd")
                .and_then(Value::as_str)
                .map(str::to_owned),
            _ => None,
        };
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
            parents: Vec::new(),
            labels: Labels::default(),
            leaf_id: None,
            seen: MessagesSeen::default(),
            saved_at: SavedAt::default(),
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

    fn set_session_file(&mut self, file: String, loaded: SessionFile) -> Result<()> {
        let session = match loaded {
            SessionFile::Missing => {
                // No such file: a new session that will be written to exactly this path.
                self.new_session(None);
                self.session_file = Some(file);
                return Ok(());
            }
            SessionFile::NotASession { empty: false } => return Err(Error::NotASession(file)),
            SessionFile::NotASession { empty: true } => {
                self.new_session(None);
                self.session_file = Some(file);
                self.rewrite_file()?;
                self.flushed = true;
                return Ok(());
            }
            SessionFile::Session(session) => session,
        };
        self.header = session.header;
        self.session_id = self
            .header
            .get("id")
            .and_then(Value::as_str)
            .map_or_else(|| uuid::Uuid::now_v7().to_string(), str::to_owned);
        self.entries = session.entries;
        self.session_file = Some(file);
        if session.migrated {
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
        self.parents.clear();
        self.labels.clear();
        self.leaf_id = None;
        self.flushed = false;
        self.seen = MessagesSeen::default();
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
        self.seen = MessagesSeen::default();
        self.by_id.reserve(self.entries.len());
        for (index, entry) in self.entries.iter().enumerate() {
            self.by_id.insert(entry.id().to_owned(), index);
            self.leaf_id = Some(entry.id().to_owned());
            self.seen.note(entry);
            if entry.kind() == "label" {
                let raw = entry.raw();
                if let Some(target) = raw.get("targetId").and_then(Value::as_str) {
                    let label = raw.get("label").and_then(Value::as_str);
                    self.labels.set(target, label, entry.timestamp());
                }
            }
        }
        let parents = self.entries.iter().map(|entry| self.parent_index(entry));
        self.parents = parents.collect();
    }

    /// Where an entry's parent is (the last entry with that id), when it is there.
    fn parent_index(&self, entry: &Entry) -> Option<u32> {
        let parent = self.by_id.get(entry.parent_id()?)?;
        u32::try_from(*parent).ok()
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

fn header_map(header: SessionHeader) -> Map<String, Value> {
    match serde_json::to_value(header) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    }
}
