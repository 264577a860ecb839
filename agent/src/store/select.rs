//! Choosing the session to start with, as the reference's command line does: listing a folder's
//! sessions by their last activity, `--session <path|partial id>`, `--session-id`, `--fork`.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{Error, Result, SessionStore, is_valid_session_id, load, paths, time};

/// Why the session asked for cannot be opened, created or forked.
#[derive(Debug, thiserror::Error)]
pub enum SelectError {
    /// The store failed (its error says how).
    #[error(transparent)]
    Store(#[from] Error),
    /// `--fork` of a file that holds no session (the reference's words).
    #[error("{0}")]
    Fork(String),
}

/// A session file found in a folder, with what matching and ordering need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionInfo {
    /// The file.
    pub path: PathBuf,
    /// The session id (the header's).
    pub id: String,
    /// The working folder the header names (empty when it names none).
    pub cwd: String,
    /// The last activity, in ms since the epoch: the newest user or assistant message, else
    /// the header's time, else the file's modification time.
    pub modified_ms: i64,
}

/// Where `--session` or `--fork` points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// An argument that looks like a path (it has a `/` or `\`, or ends with `.jsonl`).
    Path(PathBuf),
    /// A session of this folder whose id is the argument or starts with it.
    Local(PathBuf),
    /// A session of another folder (from the session folder, or from every folder's).
    Global {
        /// The file.
        path: PathBuf,
        /// The folder it belongs to.
        cwd: String,
    },
    /// Nothing matches.
    NotFound,
}

/// The sessions in `dir` (its `*.jsonl` files whose first entry is a session header), the most
/// recently active first. A missing or unreadable folder has none.
pub fn list_dir(dir: &Path) -> Vec<SessionInfo> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut sessions: Vec<SessionInfo> = entries
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().ends_with(".jsonl"))
        .filter_map(|entry| session_info(&entry.path()))
        .collect();
    sessions.sort_by_key(|session| std::cmp::Reverse(session.modified_ms));
    sessions
}

/// What [`list_dir`] keeps of one file.
fn session_info(path: &Path) -> Option<SessionInfo> {
    // Only a regular file is opened (a FIFO named `*.jsonl` must not block the listing), and it
    // is read a line at a time: sessions can be large.
    let file = paths::open_regular_file(path).ok()??;
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(file))
        .map_while(std::result::Result::ok)
        .filter_map(|line| pi_rpc_protocol::surrogates::from_str::<Map<String, Value>>(&line).ok());
    let header = lines.next()?;
    if header.get("type").and_then(Value::as_str) != Some("session") {
        return None;
    }
    let id = header.get("id")?.as_str()?.to_owned();
    let last_activity = lines.filter_map(|entry| activity_ms(&entry)).max();
    let modified_ms = match last_activity.filter(|ms| *ms > 0) {
        Some(ms) => ms,
        None => header
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(time::parse_iso)
            .or_else(|| file_mtime_ms(path))
            .unwrap_or(0),
    };
    Some(SessionInfo {
        path: path.to_path_buf(),
        id,
        cwd: header
            .get("cwd")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        modified_ms,
    })
}

/// The time of a user or assistant message entry: its message's `timestamp`, else the entry's.
fn activity_ms(entry: &Map<String, Value>) -> Option<i64> {
    if entry.get("type").and_then(Value::as_str) != Some("message") {
        return None;
    }
    let message = entry.get("message")?.as_object()?;
    let role = message.get("role")?.as_str()?;
    if !matches!(role, "user" | "assistant") || !message.contains_key("content") {
        return None;
    }
    match message.get("timestamp").and_then(Value::as_f64) {
        Some(ms) => Some(ms as i64),
        None => entry
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(time::parse_iso),
    }
}

fn file_mtime_ms(path: &Path) -> Option<i64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let elapsed = modified.duration_since(std::time::UNIX_EPOCH).ok()?;
    i64::try_from(elapsed.as_millis()).ok()
}

/// Where sessions are stored and looked up: the folder given (`--session-dir`, the
/// environment, the settings) or the default one of the working folder.
#[derive(Debug, Clone)]
pub struct SessionPlace {
    /// The working folder (absolute).
    pub cwd: PathBuf,
    /// The agent folder (for the default session folders).
    pub agent_dir: PathBuf,
    /// The session folder given, `~` expanded.
    pub session_dir: Option<PathBuf>,
}

impl SessionPlace {
    /// The folder new sessions go to.
    pub fn dir(&self) -> PathBuf {
        self.session_dir
            .clone()
            .unwrap_or_else(|| paths::default_session_dir(&self.cwd, &self.agent_dir))
    }

    /// Whether sessions of other folders in [`Self::dir`] must be left out: a folder was given
    /// and it is not this folder's default one.
    fn filters_by_cwd(&self) -> bool {
        self.session_dir.is_some()
            && self.dir() != paths::default_session_dir(&self.cwd, &self.agent_dir)
    }

    /// The sessions of the working folder, the most recently active first.
    pub fn list(&self) -> Vec<SessionInfo> {
        let cwd = paths::resolve(&paths::text(&self.cwd));
        let filter = self.filters_by_cwd();
        let mut sessions = list_dir(&self.dir());
        sessions.retain(|session| {
            !filter || (!session.cwd.is_empty() && paths::resolve(&session.cwd) == cwd)
        });
        sessions
    }

    /// Every session: those of the session folder given, else those of every folder under the
    /// agent folder's `sessions/`; the most recently active first.
    pub fn list_all(&self) -> Vec<SessionInfo> {
        if let Some(dir) = &self.session_dir {
            return list_dir(dir);
        }
        let root = self.agent_dir.join("sessions");
        let mut sessions: Vec<SessionInfo> = std::fs::read_dir(&root)
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|entry| entry.path().is_dir())
                    .flat_map(|entry| list_dir(&entry.path()))
                    .collect()
            })
            .unwrap_or_default();
        sessions.sort_by_key(|session| std::cmp::Reverse(session.modified_ms));
        sessions
    }

    /// The session of the working folder with exactly this id.
    pub fn find_exact(&self, id: &str) -> Option<PathBuf> {
        self.list()
            .into_iter()
            .find(|session| session.id == id)
            .map(|session| session.path)
    }

    /// Resolves a `--session` or `--fork` argument: a path, else an id (or the start of one)
    /// of this folder's sessions, else of every session. Of several matches the most
    /// recently active wins, as in the reference.
    pub fn resolve(&self, arg: &str) -> Target {
        if arg.contains(['/', '\\']) || arg.ends_with(".jsonl") {
            return Target::Path(PathBuf::from(resolve_against(arg, &self.cwd)));
        }
        let pick = |sessions: Vec<SessionInfo>| {
            let exact = sessions.iter().position(|session| session.id == arg);
            let index = exact.or_else(|| sessions.iter().position(|s| s.id.starts_with(arg)));
            index.map(|index| sessions[index].clone())
        };
        if let Some(session) = pick(self.list()) {
            return Target::Local(session.path);
        }
        match pick(self.list_all()) {
            Some(session) => Target::Global {
                path: session.path,
                cwd: session.cwd,
            },
            None => Target::NotFound,
        }
    }

    /// A new session with this id (checked as the reference checks it), kept in `dir`.
    pub fn create(&self, session_id: Option<&str>) -> Result<SessionStore> {
        let mut store = SessionStore::new(&self.cwd, &self.dir(), true)?;
        if let Some(id) = session_id {
            store.new_session_with_id(id, None)?;
        }
        Ok(store)
    }

    /// `--fork`: copies the session at `source` into a new session of the working folder
    /// (written at once: its header names `source` as the parent), and opens the copy.
    pub fn fork_from(
        &self,
        source: &Path,
        session_id: Option<&str>,
    ) -> Result<SessionStore, SelectError> {
        let source_text = paths::resolve(&paths::text(source));
        let load::SessionFile::Session(parsed) = load::read_session_file(&source_text)? else {
            return Err(SelectError::Fork(format!(
                "Cannot fork: source session file is empty or invalid: {source_text}"
            )));
        };
        if let Some(id) = session_id
            && !is_valid_session_id(id)
        {
            return Err(Error::InvalidSessionId.into());
        }
        let dir = paths::text(&self.dir());
        std::fs::create_dir_all(&dir).map_err(super::io_error(&dir))?;
        let id = session_id.map_or_else(|| uuid::Uuid::now_v7().to_string(), str::to_owned);
        let timestamp = time::now_iso();
        let cwd = paths::resolve(&paths::text(&self.cwd));
        let file = paths::join(&dir, &paths::session_file_name(&timestamp, &id));
        let header = serde_json::json!({
            "type": "session",
            "version": super::SESSION_VERSION,
            "id": id,
            "timestamp": timestamp,
            "cwd": cwd,
            "parentSession": source_text,
        });
        let mut text = pi_rpc_protocol::json::to_string(&header).map_err(Error::from)?;
        text.push('\n');
        let mut text = text.into_bytes();
        for entry in &parsed.entries {
            text.extend_from_slice(&entry.to_json());
            text.push(b'\n');
        }
        write_new(&file, &text)?;
        Ok(SessionStore::open(
            Path::new(&file),
            Some(Path::new(&dir)),
            None,
        )?)
    }
}

/// Creates `file` with `text`, failing when it exists.
fn write_new(file: &str, text: &[u8]) -> Result<()> {
    use std::io::Write;
    let mut handle = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(file)
        .map_err(super::io_error(file))?;
    handle.write_all(text).map_err(super::io_error(file))
}

/// `path` with `~` expanded, made absolute against `cwd`.
fn resolve_against(path: &str, cwd: &Path) -> String {
    let expanded = paths::expand_tilde(path);
    if expanded.starts_with('/') {
        paths::normalize(&expanded)
    } else {
        paths::join(&paths::text(cwd), &expanded)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, lines: &[Value]) -> PathBuf {
        let path = dir.join(name);
        let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
        std::fs::write(&path, text).unwrap();
        path
    }

    fn header(id: &str, cwd: &str, timestamp: &str) -> Value {
        serde_json::json!({"type": "session", "version": 3, "id": id, "timestamp": timestamp, "cwd": cwd})
    }

    fn message(role: &str, at: i64) -> Value {
        serde_json::json!({"type": "message", "id": "e1", "parentId": null,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "message": {"role": role, "content": "x", "timestamp": at}})
    }

    #[test]
    fn sessions_are_ordered_by_last_activity_and_matched_by_id_prefix() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("s");
        std::fs::create_dir_all(&dir).unwrap();
        let cwd = root.path().join("w");
        let here = cwd.to_string_lossy().into_owned();
        write(
            &dir,
            "a.jsonl",
            &[
                header("aaa-1", &here, "2026-01-01T00:00:00.000Z"),
                message("user", 5_000),
            ],
        );
        write(
            &dir,
            "b.jsonl",
            &[header("aaa-2", &here, "2026-01-02T00:00:00.000Z")],
        );
        write(
            &dir,
            "c.jsonl",
            &[header("bbb-1", "/elsewhere", "2026-01-03T00:00:00.000Z")],
        );
        write(&dir, "d.jsonl", &[message("user", 1)]);
        let place = SessionPlace {
            cwd,
            agent_dir: root.path().join("agent"),
            session_dir: Some(dir.clone()),
        };
        let ids: Vec<String> = place.list().into_iter().map(|s| s.id).collect();
        assert_eq!(ids, ["aaa-2", "aaa-1"]);
        assert_eq!(place.resolve("aaa"), Target::Local(dir.join("b.jsonl")));
        assert_eq!(place.resolve("aaa-1"), Target::Local(dir.join("a.jsonl")));
        assert_eq!(
            place.resolve("bbb"),
            Target::Global {
                path: dir.join("c.jsonl"),
                cwd: "/elsewhere".into()
            }
        );
        assert_eq!(place.resolve("zzz"), Target::NotFound);
        assert_eq!(
            place.resolve("x.jsonl"),
            Target::Path(place.cwd.join("x.jsonl"))
        );
        assert_eq!(place.find_exact("aaa"), None);
    }
}
