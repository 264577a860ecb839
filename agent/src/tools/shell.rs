//! What a shell command needs from the machine, for the `bash` tool and the client's `bash`
//! command alike: the shell to run it with, the check that its working folder exists, and the
//! temporary folder its full output goes to, each as the reference finds them; and the read of
//! its output pipes.

use std::path::{Path, PathBuf};

use tokio::io::AsyncReadExt;

/// Why a command cannot start (the reference's words).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShellError {
    /// Settings `shellPath` names a file that does not exist.
    #[error("Custom shell path not found: {}", .0.display())]
    CustomShellMissing(PathBuf),
    /// The working folder is gone.
    #[error("Working directory does not exist: {}\nCannot execute bash commands.", .0.display())]
    MissingCwd(PathBuf),
}

/// The shell: settings `shellPath` (which must exist), else `/bin/bash`, else `bash` on `PATH`,
/// else `sh`.
pub fn find(custom: Option<&Path>) -> Result<PathBuf, ShellError> {
    if let Some(custom) = custom {
        if custom.exists() {
            return Ok(custom.to_path_buf());
        }
        return Err(ShellError::CustomShellMissing(custom.to_path_buf()));
    }
    let bin_bash = Path::new("/bin/bash");
    if bin_bash.exists() {
        return Ok(bin_bash.to_path_buf());
    }
    let on_path = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("bash"))
            .find(|candidate| candidate.is_file())
    });
    Ok(on_path.unwrap_or_else(|| PathBuf::from("sh")))
}

/// Fails when the working folder `cwd` does not exist.
pub fn check_cwd(cwd: &Path) -> Result<(), ShellError> {
    match rustix::fs::access(cwd, rustix::fs::Access::EXISTS) {
        Ok(()) => Ok(()),
        Err(_) => Err(ShellError::MissingCwd(cwd.to_path_buf())),
    }
}

/// Node's `os.tmpdir()`: `TMPDIR`, `TMP` or `TEMP` without a trailing slash, else `/tmp`.
pub fn temp_dir() -> PathBuf {
    for name in ["TMPDIR", "TMP", "TEMP"] {
        if let Some(value) = std::env::var_os(name).filter(|v| !v.is_empty()) {
            let text = value.to_string_lossy();
            let trimmed = if text.len() > 1 {
                text.trim_end_matches('/')
            } else {
                &text
            };
            return PathBuf::from(trimmed);
        }
    }
    PathBuf::from("/tmp")
}

/// Reads a chunk from an open pipe; `None` at its end (or on a read error). Never completes for
/// a pipe already closed.
pub async fn read_some(
    pipe: &mut Option<impl AsyncReadExt + Unpin>,
    buf: &mut [u8],
) -> Option<usize> {
    match pipe {
        Some(reader) => match reader.read(buf).await {
            Ok(0) | Err(_) => None,
            Ok(n) => Some(n),
        },
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_custom_shell_and_working_folder_are_refused_in_the_reference_s_words() {
        let missing = Path::new("/nonexistent/pi-agent-shell");
        assert_eq!(
            find(Some(missing)).map_err(|error| error.to_string()),
            Err("Custom shell path not found: /nonexistent/pi-agent-shell".to_owned())
        );
        assert_eq!(
            check_cwd(missing).map_err(|error| error.to_string()),
            Err(
                "Working directory does not exist: /nonexistent/pi-agent-shell\nCannot execute bash commands."
                    .to_owned()
            )
        );
        assert!(find(None).is_ok());
    }
}
