//! One agent (the reference or pi-agent) in RPC mode with one example loaded: its records read
//! with a bound, its dialogs answered as cancelled, its stderr kept whole.

use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// The dialogs an extension waits on: each is answered `cancelled`.
const DIALOGS: [&str; 4] = ["select", "confirm", "input", "editor"];

/// What reading the next record gave.
pub enum Next {
    Record(Value),
    /// Nothing within the wait.
    Quiet,
    /// Stdout closed: the agent exited (or is exiting).
    Closed,
}

/// A running agent.
pub struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Lines<BufReader<ChildStdout>>,
    /// Stderr as read so far, and the task that reads it.
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_task: Option<JoinHandle<()>>,
    closed: bool,
}

impl Session {
    /// Spawns `command` with piped streams.
    pub fn spawn(mut command: Command) -> Result<Self> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().context("spawning the agent")?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let mut pipe = child.stderr.take().context("no stderr")?;
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let read = Arc::clone(&stderr);
        let stderr_task = tokio::spawn(async move {
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = pipe.read(&mut chunk).await {
                read.lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .extend_from_slice(&chunk[..n]);
            }
        });
        Ok(Self {
            child,
            stdin: Some(stdin),
            lines: BufReader::new(stdout).lines(),
            stderr,
            stderr_task: Some(stderr_task),
            closed: false,
        })
    }

    /// Writes one command; a closed stdin (the agent exited) is not an error.
    pub async fn send(&mut self, command: &Value) {
        let Some(stdin) = self.stdin.as_mut() else {
            return;
        };
        let line = format!("{command}\n");
        if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
            self.stdin = None;
        }
    }

    /// The next record within `wait`; a dialog request is answered `cancelled` before it is
    /// returned. A line that is not JSON comes back as `{"notJson": line}`.
    pub async fn next(&mut self, wait: Duration) -> Next {
        if self.closed {
            return Next::Closed;
        }
        let line = match tokio::time::timeout(wait, self.lines.next_line()).await {
            Err(_) => return Next::Quiet,
            Ok(Ok(Some(line))) => line,
            Ok(_) => {
                self.closed = true;
                return Next::Closed;
            }
        };
        let record: Value =
            serde_json::from_str(&line).unwrap_or_else(|_| json!({"notJson": line}));
        if record["type"] == "extension_ui_request"
            && DIALOGS.iter().any(|method| record["method"] == *method)
        {
            let answer =
                json!({"type": "extension_ui_response", "id": record["id"], "cancelled": true});
            self.send(&answer).await;
        }
        Next::Record(record)
    }

    /// Reads records until one satisfies `done` (kept, last), stdout closes or `deadline`
    /// passes; whether `done` was met.
    pub async fn until(
        &mut self,
        records: &mut Vec<Value>,
        deadline: Instant,
        done: impl Fn(&Value) -> bool,
    ) -> bool {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next(left).await {
                Next::Record(record) => {
                    let met = done(&record);
                    records.push(record);
                    if met {
                        return true;
                    }
                }
                Next::Quiet | Next::Closed => return false,
            }
        }
    }

    /// Reads records until none has come for `quiet`, for `cap` at most.
    pub async fn until_quiet(&mut self, records: &mut Vec<Value>, quiet: Duration, cap: Duration) {
        let deadline = Instant::now() + cap;
        while Instant::now() < deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next(quiet.min(left)).await {
                Next::Record(record) => records.push(record),
                Next::Quiet | Next::Closed => return,
            }
        }
    }

    /// What it has written on stderr so far.
    pub fn stderr(&self) -> String {
        let bytes = self.stderr.lock().unwrap_or_else(PoisonError::into_inner);
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// Whether stdout has closed.
    pub fn closed(&self) -> bool {
        self.closed
    }

    /// Closes stdin, waits `wait` for the exit (then kills it), and returns the exit code
    /// (`None` when killed or ended by a signal) and the whole stderr.
    pub async fn finish(mut self, wait: Duration) -> (Option<i32>, String) {
        self.stdin = None;
        let code = match tokio::time::timeout(wait, self.child.wait()).await {
            Ok(Ok(status)) => status.code(),
            _ => {
                let _ = self.child.kill().await;
                None
            }
        };
        if let Some(task) = self.stderr_task.take() {
            // A child of the agent may keep the pipe open: it is not waited for long.
            let _ = tokio::time::timeout(Duration::from_secs(5), task).await;
        }
        (code, self.stderr())
    }
}
