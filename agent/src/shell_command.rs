//! Shell commands the client runs with the `bash` RPC command (not the model's `bash` tool):
//! stdout and stderr merged into one stream of cleaned-up text chunks, the tail kept within the
//! tool output limits, and the whole output in a temporary log once it is long.

use std::future::Future;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::LazyLock;
use std::time::Duration;

use pi_rpc_protocol::response::BashResult;
use regex::Regex;
use tokio::process::Command;
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;

use crate::tools::output::StreamDecoder;
use crate::tools::shell::{self, ShellError, read_some};
use crate::tools::{DEFAULT_MAX_BYTES, truncate_tail};

/// How long the pipes may stay open but quiet after the shell exited (background children
/// holding them) before the command counts as finished.
const EXIT_STDIO_GRACE: Duration = Duration::from_millis(100);
/// Decoded output kept in memory; older chunks are dropped past this.
const MAX_KEPT_BYTES: usize = DEFAULT_MAX_BYTES * 2;

/// Why a command could not run at all; the text is the sentence the client gets.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No shell, or no working folder.
    #[error(transparent)]
    Shell(#[from] ShellError),
    /// The shell could not be started.
    #[error("spawn {} {source}", .shell.display())]
    Spawn {
        /// The shell.
        shell: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The command ran elsewhere (an extension's `user_bash` operations) and failed there.
    #[error("{0}")]
    Remote(String),
}

/// What a command runs with.
#[derive(Debug, Clone)]
pub struct UserBash {
    /// The command line as the client sent it.
    pub command: String,
    /// The folder it runs in.
    pub cwd: PathBuf,
    /// settings `shellPath`.
    pub shell_path: Option<PathBuf>,
    /// settings `shellCommandPrefix`, run on the line before the command.
    pub command_prefix: Option<String>,
    /// The agent folder, whose `bin` goes first on `PATH`.
    pub agent_dir: Option<PathBuf>,
    /// Where the full log goes when the output is long.
    pub temp_dir: PathBuf,
    /// Kills the command (`abort_bash`).
    pub cancel: CancellationToken,
    /// Variables set for the command (settings `httpProxy` as `HTTP_PROXY` / `HTTPS_PROXY`).
    pub env: Vec<(String, String)>,
}

/// ANSI escape sequences: OSC strings and CSI (and similar) sequences.
static ANSI: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?:\x1b\][\s\S]*?(?:\x07|\x1b\\|\u{9c}))|[\x1b\u{9b}][\[\]()#;?]*(?:\d{1,4}(?:[;:]\d{0,4})*)?[\dA-PR-TZcf-nq-uy=><~]",
    )
    .ok()
});

/// A chunk as the client sees it: escape sequences removed, control characters other than tab
/// and newline dropped (carriage returns too), and U+FFF9..U+FFFB dropped.
fn clean(text: &str) -> String {
    let stripped = match ANSI.as_ref() {
        Some(ansi) => ansi.replace_all(text, ""),
        None => text.into(),
    };
    stripped
        .chars()
        .filter(|&c| {
            let code = c as u32;
            (code == 0x09 || code == 0x0a || code > 0x1f) && !(0xfff9..=0xfffb).contains(&code)
        })
        .collect()
}

/// The output so far: a rolling window of chunks and, once long, the whole log on disk.
struct Collected {
    chunks: std::collections::VecDeque<String>,
    kept_bytes: usize,
    raw_bytes: usize,
    temp_dir: PathBuf,
    log: Option<(PathBuf, Option<std::fs::File>)>,
}

impl Collected {
    fn push(&mut self, raw_len: usize, text: String) {
        self.raw_bytes += raw_len;
        if self.raw_bytes > DEFAULT_MAX_BYTES {
            self.ensure_log();
        }
        if let Some((_, Some(file))) = &mut self.log
            && let Err(error) = file.write_all(text.as_bytes())
        {
            tracing::warn!(%error, "cannot write the bash output log");
        }
        self.kept_bytes += text.len();
        self.chunks.push_back(text);
        while self.kept_bytes > MAX_KEPT_BYTES && self.chunks.len() > 1 {
            if let Some(removed) = self.chunks.pop_front() {
                self.kept_bytes -= removed.len();
            }
        }
    }

    fn ensure_log(&mut self) {
        if self.log.is_some() {
            return;
        }
        let id = uuid::Uuid::new_v4().simple().to_string();
        let path = self.temp_dir.join(format!("pi-bash-{}.log", &id[..16]));
        let file = match std::fs::File::create(&path) {
            Ok(mut file) => {
                for chunk in &self.chunks {
                    if let Err(error) = file.write_all(chunk.as_bytes()) {
                        tracing::warn!(%error, "cannot write the bash output log");
                    }
                }
                Some(file)
            }
            Err(error) => {
                tracing::warn!(%error, path = %path.display(), "cannot create the bash output log");
                None
            }
        };
        self.log = Some((path, file));
    }

    /// The result: the tail within limits, the log's path when there is one.
    fn finish(mut self, exit_code: Option<i64>, cancelled: bool) -> BashResult {
        let full: String = self.chunks.iter().map(String::as_str).collect();
        let cut = truncate_tail(&full);
        if cut.truncated {
            self.ensure_log();
        }
        let full_output_path = self
            .log
            .take()
            .map(|(path, _)| path.to_string_lossy().into_owned());
        BashResult {
            output: if cut.truncated { cut.content } else { full },
            exit_code: if cancelled { None } else { exit_code },
            cancelled,
            truncated: cut.truncated,
            full_output_path,
        }
    }
}

/// `PATH` with the agent's `bin` folder first (once).
fn path_with_bin(agent_dir: Option<&Path>) -> Option<std::ffi::OsString> {
    let bin = agent_dir?.join("bin");
    let current = std::env::var_os("PATH").unwrap_or_default();
    if std::env::split_paths(&current).any(|entry| entry == bin) {
        return None;
    }
    let mut value = bin.into_os_string();
    if !current.is_empty() {
        value.push(":");
        value.push(&current);
    }
    Some(value)
}

/// Runs the command, handing each cleaned chunk to `on_chunk`; an error when it could not run
/// at all.
pub async fn execute<F, Fut>(bash: UserBash, mut on_chunk: F) -> Result<BashResult, Error>
where
    F: FnMut(String) -> Fut,
    Fut: Future<Output = ()>,
{
    let mut collected = Collected {
        chunks: Default::default(),
        kept_bytes: 0,
        raw_bytes: 0,
        temp_dir: bash.temp_dir.clone(),
        log: None,
    };
    if bash.cancel.is_cancelled() {
        return Ok(collected.finish(None, true));
    }
    let shell = shell::find(bash.shell_path.as_deref())?;
    shell::check_cwd(&bash.cwd)?;
    let command = match &bash.command_prefix {
        Some(prefix) => format!("{prefix}\n{}", bash.command),
        None => bash.command.clone(),
    };
    let mut process = Command::new(&shell);
    process
        .arg("-c")
        .arg(&command)
        .current_dir(&bash.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    if let Some(path) = path_with_bin(bash.agent_dir.as_deref()) {
        process.env("PATH", path);
    }
    process.envs(bash.env.iter().map(|(key, value)| (key, value)));
    let mut child = process.spawn().map_err(|source| Error::Spawn {
        shell: shell.clone(),
        source,
    })?;
    let pid = child.id();
    crate::tools::process_groups::started(pid);
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let (mut out_buf, mut err_buf) = (vec![0u8; 65536], vec![0u8; 65536]);
    let mut decoder = StreamDecoder::default();
    let mut exit: Option<Option<i32>> = None;
    let mut quiet_until: Option<Instant> = None;
    let mut cancelled = false;
    loop {
        if exit.is_some() && stdout.is_none() && stderr.is_none() {
            break;
        }
        let far = Instant::now() + Duration::from_secs(86_400);
        let read = tokio::select! {
            biased;
            () = bash.cancel.cancelled(), if !cancelled => {
                cancelled = true;
                crate::tools::process_groups::kill(pid);
                None
            }
            read = read_some(&mut stdout, &mut out_buf) => match read {
                Some(n) => Some(&out_buf[..n]),
                None => { stdout = None; None }
            },
            read = read_some(&mut stderr, &mut err_buf) => match read {
                Some(n) => Some(&err_buf[..n]),
                None => { stderr = None; None }
            },
            status = child.wait(), if exit.is_none() => {
                exit = Some(status.ok().and_then(|status| status.code()));
                quiet_until = Some(Instant::now() + EXIT_STDIO_GRACE);
                None
            }
            () = sleep_until(quiet_until.unwrap_or(far)), if quiet_until.is_some() => break,
        };
        if let Some(bytes) = read {
            let text = clean(&decoder.decode(bytes));
            let raw_len = bytes.len();
            if exit.is_some() {
                quiet_until = Some(Instant::now() + EXIT_STDIO_GRACE);
            }
            collected.push(raw_len, text.clone());
            on_chunk(text).await;
        }
    }
    let cancelled = cancelled || bash.cancel.is_cancelled();
    let code = exit.flatten().map(i64::from);
    Ok(collected.finish(code, cancelled))
}

/// The output of a command that runs elsewhere (the `exec` of an extension's `user_bash`
/// operations), cleaned, kept and logged as a local command's output is.
pub struct RemoteOutput {
    decoder: StreamDecoder,
    collected: Collected,
}

impl RemoteOutput {
    /// No output yet; a long output's log goes to `temp_dir`.
    pub fn new(temp_dir: PathBuf) -> Self {
        Self {
            decoder: StreamDecoder::default(),
            collected: Collected {
                chunks: Default::default(),
                kept_bytes: 0,
                raw_bytes: 0,
                temp_dir,
                log: None,
            },
        }
    }

    /// One piece of the output: returns it as the client sees it.
    pub fn push(&mut self, bytes: &[u8]) -> String {
        let text = clean(&self.decoder.decode(bytes));
        self.collected.push(bytes.len(), text.clone());
        text
    }

    /// The result (`exit_code` is left out when `cancelled`).
    pub fn finish(self, exit_code: Option<i64>, cancelled: bool) -> BashResult {
        self.collected.finish(exit_code, cancelled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_and_control_characters_are_removed() {
        assert_eq!(clean("\x1b[31mred\x1b[0m\r\n"), "red\n");
        assert_eq!(clean("a\x07b\tc\x1b]0;title\x07d"), "ab\tcd");
    }

    #[test]
    fn split_characters_decode_once_whole() {
        let mut decoder = StreamDecoder::default();
        let bytes = "é".as_bytes();
        assert_eq!(decoder.decode(&bytes[..1]), "");
        assert_eq!(decoder.decode(&bytes[1..]), "é");
        assert_eq!(decoder.decode(&[0xff, b'a']), "\u{fffd}a");
        // A leading byte order mark goes, as a default `TextDecoder` drops it.
        let mut decoder = StreamDecoder::default();
        assert_eq!(decoder.decode(&[0xef, 0xbb]), "");
        assert_eq!(decoder.decode(&[0xbf, b'h', b'i']), "hi");
    }
}
