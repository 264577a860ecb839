//! Finding the session to continue (`--continue`): the most recently modified session file of
//! a folder.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{Result, SessionStore, paths};

/// The header of a session file: its first JSON line, when that is a session header. Blank and
/// malformed lines before it are skipped; any other first entry means "not a session".
pub fn read_header(path: &Path) -> Option<Map<String, Value>> {
    let file = paths::open_regular_file(path).ok()??;
    super::load::read_header(file)
}

/// The most recently modified `*.jsonl` session file in `dir`; with `cwd`, only sessions whose
/// header names that working folder.
pub fn most_recent_session(dir: &Path, cwd: Option<&Path>) -> Option<PathBuf> {
    let dir_text = paths::expand_tilde(&paths::text(dir));
    let wanted = cwd.map(|cwd| paths::resolve(&paths::text(cwd)));
    let mut best: Option<(u128, PathBuf)> = None;
    for entry in std::fs::read_dir(&dir_text).ok()?.flatten() {
        let name = entry.file_name();
        if !name.to_string_lossy().ends_with(".jsonl") {
            continue;
        }
        let path = PathBuf::from(paths::join(&dir_text, &name.to_string_lossy()));
        let Some(header) = read_header(&path) else {
            continue;
        };
        if let Some(wanted) = &wanted {
            let cwd = header.get("cwd").and_then(Value::as_str).unwrap_or("");
            if cwd.is_empty() || paths::resolve(cwd) != *wanted {
                continue;
            }
        }
        let Ok(modified) = entry.metadata().and_then(|meta| meta.modified()) else {
            continue;
        };
        // Compared in whole milliseconds, as the reference compares them: of files modified in
        // the same millisecond, the first listed wins.
        let modified = modified
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_millis());
        if best.as_ref().is_none_or(|(time, _)| modified > *time) {
            best = Some((modified, path));
        }
    }
    best.map(|(_, path)| path)
}

impl SessionStore {
    /// `--continue`: opens the most recent session in `session_dir`, or starts a new one there.
    /// The reference only considers sessions of `cwd` when `--session-dir` was given and is not
    /// the default folder for `cwd`; say so with `filter_by_cwd`.
    pub fn continue_recent(cwd: &Path, session_dir: &Path, filter_by_cwd: bool) -> Result<Self> {
        let recent = most_recent_session(session_dir, filter_by_cwd.then_some(cwd));
        let Some(path) = recent else {
            return Self::new(cwd, session_dir, true);
        };
        let mut store = Self::empty(cwd, &paths::text(session_dir), true)?;
        let resolved = paths::resolve(&paths::text(&path));
        let loaded = super::load::read_session_file(&resolved)?;
        store.set_session_file(resolved, loaded)?;
        Ok(store)
    }
}
