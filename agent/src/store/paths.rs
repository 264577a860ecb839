//! The session store's paths: the default session folder of a working folder, the agent
//! folder, and session file names (the path semantics and file checks are `crate::paths`).

use std::path::{Path, PathBuf};

pub use crate::paths::{
    FileKind, PathError, create_regular_file, ensure_regular_file, expand_tilde, join, normalize,
    open_regular_file, resolve, text,
};

/// The folder under which sessions of `cwd` are kept when no `--session-dir` is given:
/// `<agent dir>/sessions/--<cwd with / \ : as ->--`.
pub fn default_session_dir(cwd: &Path, agent_dir: &Path) -> PathBuf {
    let resolved_cwd = resolve(&text(cwd));
    let trimmed = resolved_cwd
        .strip_prefix(['/', '\\'])
        .unwrap_or(&resolved_cwd);
    let safe: String = trimmed
        .chars()
        .map(|c| {
            if matches!(c, '/' | '\\' | ':') {
                '-'
            } else {
                c
            }
        })
        .collect();
    let sessions = join(&resolve(&text(agent_dir)), "sessions");
    PathBuf::from(join(&sessions, &format!("--{safe}--")))
}

/// The agent folder: `$PI_CODING_AGENT_DIR` (with `~` expanded) or `~/.pi/agent`.
pub fn default_agent_dir() -> PathBuf {
    match std::env::var("PI_CODING_AGENT_DIR") {
        Ok(dir) if !dir.is_empty() => PathBuf::from(expand_tilde(&dir)),
        _ => PathBuf::from(join(
            &std::env::var("HOME").unwrap_or_default(),
            ".pi/agent",
        )),
    }
}

/// `<timestamp with : and . as ->_<session id>.jsonl`.
pub fn session_file_name(timestamp: &str, session_id: &str) -> String {
    let stamp: String = timestamp
        .chars()
        .map(|c| if matches!(c, ':' | '.') { '-' } else { c })
        .collect();
    format!("{stamp}_{session_id}.jsonl")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_dir_encodes_the_cwd() {
        let dir = default_session_dir(Path::new("/srv/w:x/y"), Path::new("/h/.pi/agent"));
        assert_eq!(dir, PathBuf::from("/h/.pi/agent/sessions/--srv-w-x-y--"));
    }

    #[test]
    fn file_name_replaces_colons_and_dots() {
        assert_eq!(
            session_file_name("2026-11-30T18:54:19.603Z", "01a2"),
            "2026-11-30T18-54-19-603Z_01a2.jsonl"
        );
    }
}
