//! Paths as the reference builds them: Node's `path.join`/`path.resolve` (lexical, no symlink
//! resolution), `~` expansion, the default session folder and session file names.

use std::path::{Path, PathBuf};

/// Lexically normalises a POSIX path as Node's `path.normalize` does: collapses `//` and `.`,
/// folds `..` where it can, keeps a trailing slash off, and gives `.` for an empty result.
pub fn normalize(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|last| *last != "..") {
                    parts.pop();
                } else if !absolute {
                    parts.push("..");
                }
            }
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".into(),
        (false, false) => joined,
    }
}

/// Node's `path.join(base, name)`.
pub fn join(base: &str, name: &str) -> String {
    match (base.is_empty(), name.is_empty()) {
        (true, true) => ".".into(),
        (true, false) => normalize(name),
        (false, true) => normalize(base),
        (false, false) => normalize(&format!("{base}/{name}")),
    }
}

/// Expands a leading `~` or `~/` to the home folder (the reference's `normalizePath`).
pub fn expand_tilde(path: &str) -> String {
    let home = std::env::var("HOME").unwrap_or_default();
    if path == "~" {
        home
    } else if let Some(rest) = path.strip_prefix("~/") {
        join(&home, rest)
    } else {
        path.to_owned()
    }
}

/// The reference's `resolvePath`: `~` expanded, then made absolute against the process's
/// working folder and normalised.
pub fn resolve(path: &str) -> String {
    let expanded = expand_tilde(path);
    if expanded.starts_with('/') {
        normalize(&expanded)
    } else {
        let cwd = std::env::current_dir()
            .map(|dir| dir.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "/".into());
        join(&cwd, &expanded)
    }
}

/// Text of a path, lossy for non-UTF-8 names.
pub fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

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
    fn normalizes_like_node() {
        assert_eq!(normalize("./s1/"), "s1");
        assert_eq!(normalize("/a//b/../c/."), "/a/c");
        assert_eq!(normalize("../x/../../y"), "../../y");
        assert_eq!(normalize("/.."), "/");
        assert_eq!(join("s1", "f.jsonl"), "s1/f.jsonl");
        assert_eq!(join("", ""), ".");
    }

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
