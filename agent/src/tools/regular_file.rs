//! The files the model names are regular files: a device, FIFO or socket is refused before it
//! is opened (a FIFO would block the tool until someone opened its other end, `/dev/zero`
//! would be read until memory ran out). Folders fail as they always did, worded as Node words
//! them, since the reference passes those errors to the model as they are.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::{ToolError, fs_error};
use crate::paths::{FileKind, PathError, create_regular_file, ensure_regular_file};

/// Refuses to read what is not a regular file, a folder excepted (reading it fails as usual).
pub(super) fn check_readable(path: &Path) -> Result<(), ToolError> {
    match ensure_regular_file(path) {
        Err(PathError::NotARegularFile { kind, .. }) if kind != FileKind::Directory => {
            Err(refusal("read", path, kind))
        }
        // A folder, nothing there or a path that cannot be examined: reading says why.
        _ => Ok(()),
    }
}

/// Creates or empties `path` and writes `bytes` to it, only if it is a regular file.
pub(super) async fn write(path: &Path, bytes: Vec<u8>) -> Result<(), ToolError> {
    let owned: PathBuf = path.to_owned();
    let written = tokio::task::spawn_blocking(move || {
        let mut file = create_regular_file(&owned)?;
        file.write_all(&bytes).map_err(|source| PathError::Io {
            path: crate::paths::text(&owned),
            source,
        })
    })
    .await
    .map_err(|error| ToolError::new(error.to_string()))?;
    written.map_err(|error| match (error.folder_error(), error) {
        (Some(folder), _) => ToolError::new(fs_error::node_message(&folder, "open", Some(path))),
        (None, PathError::NotARegularFile { kind, .. }) => refusal("write", path, kind),
        (None, PathError::Io { source, .. }) => {
            ToolError::new(fs_error::node_message(&source, "open", Some(path)))
        }
    })
}

fn refusal(verb: &str, path: &Path, kind: FileKind) -> ToolError {
    ToolError::new(format!(
        "Cannot {verb} {}: it is {kind}, not a regular file",
        path.display()
    ))
}
