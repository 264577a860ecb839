//! Paths as the reference builds them: Node's `path.join`/`path.resolve` (lexical, no symlink
//! resolution) and `~` expansion; and the one check that a path names a regular file before it
//! is opened ([`open_regular_file`]), which the session store, the tools and the HTML export
//! share.

use std::fmt;
use std::fs::File;
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// What a path names, when it is not a regular file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A folder.
    Directory,
    /// A character device (`/dev/zero`, a terminal).
    CharDevice,
    /// A block device.
    BlockDevice,
    /// A named pipe.
    Fifo,
    /// A Unix socket.
    Socket,
    /// Anything else.
    Other,
}

impl FileKind {
    fn of(file_type: std::fs::FileType) -> Option<Self> {
        let kind = if file_type.is_file() {
            return None;
        } else if file_type.is_dir() {
            Self::Directory
        } else if file_type.is_char_device() {
            Self::CharDevice
        } else if file_type.is_block_device() {
            Self::BlockDevice
        } else if file_type.is_fifo() {
            Self::Fifo
        } else if file_type.is_socket() {
            Self::Socket
        } else {
            Self::Other
        };
        Some(kind)
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Directory => "a directory",
            Self::CharDevice => "a character device",
            Self::BlockDevice => "a block device",
            Self::Fifo => "a named pipe (FIFO)",
            Self::Socket => "a socket",
            Self::Other => "not a regular file",
        })
    }
}

/// Why a path that should name a regular file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    /// The path names a folder, a device, a FIFO or a socket.
    #[error("{path} is {kind}, not a regular file")]
    NotARegularFile {
        /// The path as given.
        path: String,
        /// What it names.
        kind: FileKind,
    },
    /// Looking at or opening the path failed.
    #[error("{path}: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// The failure.
        source: io::Error,
    },
}

/// Checks that `path` (symbolic links followed) is a regular file, without opening it: `None`
/// when nothing is there, an error when something other than a regular file is.
pub fn ensure_regular_file(path: &Path) -> Result<Option<std::fs::Metadata>, PathError> {
    match std::fs::metadata(path) {
        Ok(metadata) => match FileKind::of(metadata.file_type()) {
            None => Ok(Some(metadata)),
            Some(kind) => Err(PathError::NotARegularFile {
                path: text(path),
                kind,
            }),
        },
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(PathError::Io {
            path: text(path),
            source,
        }),
    }
}

/// Opens `path` for reading when it is a regular file (see [`ensure_regular_file`]); `None`
/// when nothing is there. The file is opened without blocking and checked again, so a FIFO put
/// there in between cannot hang the caller.
pub fn open_regular_file(path: &Path) -> Result<Option<File>, PathError> {
    if ensure_regular_file(path)?.is_none() {
        return Ok(None);
    }
    let io_error = |source| PathError::Io {
        path: text(path),
        source,
    };
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
    {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(io_error(error)),
    };
    let metadata = file.metadata().map_err(io_error)?;
    if let Some(kind) = FileKind::of(metadata.file_type()) {
        return Err(PathError::NotARegularFile {
            path: text(path),
            kind,
        });
    }
    Ok(Some(file))
}

/// Creates `path`, or empties it, for writing, when it is a regular file or nothing is there
/// (symbolic links followed). Anything else is refused before it is opened; the open does not
/// wait for a FIFO's reader, and what was opened is checked again (the path may have changed in
/// between). A path that cannot be examined is left for the open to report.
pub fn create_regular_file(path: &Path) -> Result<File, PathError> {
    if let Err(error @ PathError::NotARegularFile { .. }) = ensure_regular_file(path) {
        return Err(error);
    }
    let io_error = |source| PathError::Io {
        path: text(path),
        source,
    };
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .map_err(io_error)?;
    let metadata = file.metadata().map_err(io_error)?;
    if let Some(kind) = FileKind::of(metadata.file_type()) {
        return Err(PathError::NotARegularFile {
            path: text(path),
            kind,
        });
    }
    Ok(file)
}

impl PathError {
    /// The error as opening a folder fails (`EISDIR`), for callers that word errors as Node
    /// does; `None` for the other kinds, which have no such code.
    pub fn folder_error(&self) -> Option<io::Error> {
        matches!(
            self,
            Self::NotARegularFile {
                kind: FileKind::Directory,
                ..
            }
        )
        .then(|| io::Error::from_raw_os_error(rustix::io::Errno::ISDIR.raw_os_error()))
    }
}

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
    fn only_regular_files_pass() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("s.jsonl");
        std::fs::write(&file, "{}\n").unwrap();
        assert!(ensure_regular_file(&file).unwrap().is_some());
        assert!(open_regular_file(&file).unwrap().is_some());
        assert!(
            ensure_regular_file(&dir.path().join("missing"))
                .unwrap()
                .is_none()
        );
        assert!(
            open_regular_file(&dir.path().join("missing"))
                .unwrap()
                .is_none()
        );
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(open_regular_file(&link).unwrap().is_some());
        let socket = dir.path().join("s.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        let cases = [
            (dir.path().to_path_buf(), FileKind::Directory),
            (std::path::PathBuf::from("/dev/zero"), FileKind::CharDevice),
            (socket, FileKind::Socket),
        ];
        for (path, expected) in cases {
            match open_regular_file(&path) {
                Err(PathError::NotARegularFile { kind, .. }) => assert_eq!(kind, expected),
                other => panic!("{path:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.jsonl");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        // Opening a FIFO for reading blocks until a writer comes: the check must not open it.
        let (tx, rx) = std::sync::mpsc::channel();
        let path = fifo.clone();
        std::thread::spawn(move || {
            let _ = tx.send(open_regular_file(&path).map(|file| file.is_some()));
        });
        let result = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("opening a FIFO blocked");
        match result {
            Err(
                error @ PathError::NotARegularFile {
                    kind: FileKind::Fifo,
                    ..
                },
            ) => {
                assert_eq!(
                    error.to_string(),
                    format!(
                        "{} is a named pipe (FIFO), not a regular file",
                        fifo.display()
                    )
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn special_files_are_refused_before_they_are_created() {
        let dir = tempfile::tempdir().unwrap();
        let refused = |path: &Path| match create_regular_file(path) {
            Err(PathError::NotARegularFile { kind, .. }) => kind,
            other => panic!("{path:?} was not refused: {other:?}"),
        };
        assert_eq!(refused(dir.path()), FileKind::Directory);
        assert_eq!(refused(Path::new("/dev/null")), FileKind::CharDevice);
        let fifo = dir.path().join("fifo");
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, rustix::fs::Mode::RWXU).unwrap();
        // Without the check, this open would wait for a reader for ever.
        assert_eq!(refused(&fifo), FileKind::Fifo);
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        assert_eq!(refused(&link), FileKind::Fifo);
        assert!(
            create_regular_file(dir.path())
                .unwrap_err()
                .folder_error()
                .is_some()
        );
        assert!(
            create_regular_file(&fifo)
                .unwrap_err()
                .folder_error()
                .is_none()
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
    }
}
