//! Paths as the reference builds them: Node's `path.join`/`path.resolve` (lexical, no symlink
//! resolution), `~` expansion, the default session folder and session file names; and the
//! check that a path the user or the model names is a regular file before it is opened (a FIFO
//! would block the open until someone came to the other end, a device would never end).

use std::fs::{File, FileType, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
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

/// What a path names when it is not a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialFile {
    /// A folder.
    Folder,
    /// A character device (`/dev/zero`, a terminal).
    CharacterDevice,
    /// A block device (a disk).
    BlockDevice,
    /// A named pipe.
    Fifo,
    /// A Unix socket.
    Socket,
}

impl SpecialFile {
    /// The kind of a file type that is not a regular file; `None` for a regular file.
    fn of(file_type: FileType) -> Option<Self> {
        if file_type.is_file() {
            None
        } else if file_type.is_dir() {
            Some(Self::Folder)
        } else if file_type.is_char_device() {
            Some(Self::CharacterDevice)
        } else if file_type.is_block_device() {
            Some(Self::BlockDevice)
        } else if file_type.is_fifo() {
            Some(Self::Fifo)
        } else {
            Some(Self::Socket)
        }
    }
}

impl std::fmt::Display for SpecialFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Folder => "a folder",
            Self::CharacterDevice => "a character device",
            Self::BlockDevice => "a block device",
            Self::Fifo => "a named pipe (FIFO)",
            Self::Socket => "a socket",
        })
    }
}

/// A path that names something other than a regular file.
#[derive(Debug, thiserror::Error)]
#[error("{path} is {kind}, not a regular file")]
pub struct NotARegularFile {
    /// The path as given.
    pub path: String,
    /// What it names.
    pub kind: SpecialFile,
}

impl NotARegularFile {
    /// The error as the open of a folder fails (`EISDIR`), for callers that word errors as
    /// Node does; `None` for the other kinds, which have no such code.
    pub fn folder_error(&self) -> Option<io::Error> {
        (self.kind == SpecialFile::Folder)
            .then(|| io::Error::from_raw_os_error(rustix::io::Errno::ISDIR.raw_os_error()))
    }
}

/// Why a file could not be opened as a regular file.
#[derive(Debug, thiserror::Error)]
pub enum RegularFileError {
    /// The path names a folder, a device, a FIFO or a socket.
    #[error(transparent)]
    NotRegular(#[from] NotARegularFile),
    /// Opening or examining it failed.
    #[error(transparent)]
    Io(#[from] io::Error),
}

fn ensure_regular(path: &Path, file_type: FileType) -> Result<(), NotARegularFile> {
    match SpecialFile::of(file_type) {
        None => Ok(()),
        Some(kind) => Err(NotARegularFile {
            path: text(path),
            kind,
        }),
    }
}

/// Refuses a path (symbolic links followed) that names something other than a regular file;
/// a path that names nothing, or cannot be examined, passes (opening it will say why).
pub fn check_regular_file(path: &Path) -> Result<(), NotARegularFile> {
    match std::fs::metadata(path) {
        Ok(metadata) => ensure_regular(path, metadata.file_type()),
        Err(_) => Ok(()),
    }
}

/// Creates `path`, or empties it, for writing: only a regular file (symbolic links followed).
/// Anything else is refused before it is opened; the open does not wait for a FIFO's reader,
/// and what was opened is checked again (the path may have changed in between).
pub fn create_regular_file(path: &Path) -> Result<File, RegularFileError> {
    check_regular_file(path)?;
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)?;
    ensure_regular(path, file.metadata()?.file_type())?;
    Ok(file)
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
    fn special_files_are_refused_before_they_are_opened() {
        let dir = tempfile::tempdir().unwrap();
        let refused = |path: &Path| match create_regular_file(path) {
            Err(RegularFileError::NotRegular(error)) => error.kind,
            other => panic!("{path:?} was not refused: {other:?}"),
        };
        assert_eq!(refused(dir.path()), SpecialFile::Folder);
        assert_eq!(
            refused(Path::new("/dev/null")),
            SpecialFile::CharacterDevice
        );
        let fifo = dir.path().join("fifo");
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::RWXU).unwrap();
        // Without the check, this open would wait for a reader for ever.
        assert_eq!(refused(&fifo), SpecialFile::Fifo);
        let socket = dir.path().join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        assert_eq!(refused(&socket), SpecialFile::Socket);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        assert_eq!(refused(&link), SpecialFile::Fifo);
        let error = create_regular_file(&fifo).unwrap_err().to_string();
        assert!(
            error.ends_with("fifo is a named pipe (FIFO), not a regular file"),
            "{error}"
        );
    }

    #[test]
    fn a_regular_file_is_created_or_emptied() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.html");
        std::fs::write(&path, "old contents").unwrap();
        use std::io::Write as _;
        create_regular_file(&path)
            .unwrap()
            .write_all(b"new")
            .unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let missing = dir.path().join("missing.html");
        create_regular_file(&missing).unwrap();
        assert!(missing.is_file());
        assert!(check_regular_file(&dir.path().join("nothing")).is_ok());
    }

    #[test]
    fn file_name_replaces_colons_and_dots() {
        assert_eq!(
            session_file_name("2026-11-30T18:54:19.603Z", "01a2"),
            "2026-11-30T18-54-19-603Z_01a2.jsonl"
        );
    }
}
