//! The client's adapter: a small program in the client's own language that drives the client
//! library through its public API. It reads actions on stdin and reports, on stdout, what the
//! client surfaced (see docs/src/testing-a-client.md, "Validating an RPC client").

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;
use tokio::time::Instant as Deadline;

use crate::agent::{AgentError, program_and_args};

/// Adapter stderr kept for the transcript.
const MAX_STDERR_BYTES: usize = 1 << 20;

/// A client under test: its name (for reports and baselines) and the adapter's command line.
#[derive(Debug, Clone)]
pub struct ClientCommand {
    /// Short name (`rpc-client`, `python`).
    pub name: String,
    /// The adapter program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
}

impl ClientCommand {
    /// Parses a command line (split like a shell does) into a client named `name`.
    pub fn parse(name: &str, line: &str) -> Result<Self, AgentError> {
        let (program, args) = program_and_args(line)?;
        Ok(Self {
            name: name.to_owned(),
            program,
            args,
        })
    }

    /// The whole command line, for transcripts.
    pub fn words(&self) -> Vec<String> {
        std::iter::once(self.program.display().to_string())
            .chain(self.args.iter().cloned())
            .collect()
    }
}

/// What the adapter reported.
#[derive(Debug, Clone)]
pub enum Observation {
    /// The client surfaced an event (any record that is not the answer to one of its commands).
    Event(Value),
    /// An action finished: `kind` is `result`, `error` or `unsupported`; `body` is the value or
    /// the message.
    Outcome {
        /// The action's id.
        id: u64,
        /// `result`, `error` or `unsupported`.
        kind: String,
        /// The value (result) or message (error, unsupported).
        body: Value,
    },
    /// A line that is not an observation.
    Invalid(String),
    /// The adapter closed its stdout.
    End,
}

/// A running adapter.
pub struct Adapter {
    child: Child,
    stdin: Option<ChildStdin>,
    observations: mpsc::UnboundedReceiver<Observation>,
    stderr: Arc<Mutex<Vec<u8>>>,
    next_id: u64,
}

impl Adapter {
    /// Starts the adapter in the runner's working folder, with the runner's environment.
    pub fn spawn(client: &ClientCommand) -> std::io::Result<Self> {
        let mut child = Command::new(&client.program)
            .args(&client.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let (tx, observations) = mpsc::unbounded_channel();
        if let Some(stdout) = child.stdout.take() {
            tokio::spawn(async move {
                let mut lines = BufReader::new(stdout);
                let mut line = Vec::new();
                loop {
                    line.clear();
                    match lines.read_until(b'\n', &mut line).await {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            if tx.send(parse(&line)).is_err() {
                                return;
                            }
                        }
                    }
                }
                let _ = tx.send(Observation::End);
            });
        }
        let stderr = Arc::new(Mutex::new(Vec::new()));
        if let Some(mut pipe) = child.stderr.take() {
            let kept = Arc::clone(&stderr);
            tokio::spawn(async move {
                let mut buf = vec![0u8; 16 * 1024];
                while let Ok(n) = pipe.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
                    if kept.len() < MAX_STDERR_BYTES {
                        kept.extend_from_slice(&buf[..n]);
                    }
                }
            });
        }
        Ok(Self {
            stdin: child.stdin.take(),
            child,
            observations,
            stderr,
            next_id: 0,
        })
    }

    /// Sends actions (`{action: NAME, ...}` or a name), one line each, in one write; returns the
    /// ids they were given.
    pub async fn send(&mut self, actions: &[Value]) -> std::io::Result<Vec<u64>> {
        let mut bytes = Vec::new();
        let mut ids = Vec::new();
        for action in actions {
            let id = self.next_id;
            self.next_id += 1;
            ids.push(id);
            let mut line = Map::new();
            line.insert("id".into(), json!(id));
            match action {
                Value::Object(map) => {
                    line.extend(
                        map.iter()
                            .filter(|(k, _)| *k != "as")
                            .map(|(k, v)| (k.clone(), v.clone())),
                    );
                }
                other => {
                    line.insert("action".into(), other.clone());
                }
            }
            bytes.extend(serde_json::to_vec(&Value::Object(line)).unwrap_or_default());
            bytes.push(b'\n');
        }
        let stdin = self.stdin.as_mut().ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "the adapter's stdin is closed",
            )
        })?;
        stdin.write_all(&bytes).await?;
        stdin.flush().await?;
        Ok(ids)
    }

    /// The next observation, `None` when the deadline passes first.
    pub async fn next(&mut self, deadline: Deadline) -> Option<Observation> {
        match tokio::time::timeout_at(deadline, self.observations.recv()).await {
            Ok(Some(observation)) => Some(observation),
            Ok(None) => Some(Observation::End),
            Err(_) => None,
        }
    }

    /// An observation already received, without waiting.
    pub fn ready(&mut self) -> Option<Observation> {
        self.observations.try_recv().ok()
    }

    /// Closes the adapter's stdin (it should exit then).
    pub fn close(&mut self) {
        self.stdin = None;
    }

    /// Waits for the exit until `deadline`, killing it then; the exit code (`None`: killed).
    pub async fn wait(&mut self, deadline: Deadline) -> Option<i32> {
        match tokio::time::timeout_at(deadline, self.child.wait()).await {
            Ok(Ok(status)) => status.code(),
            _ => {
                let _ = self.child.start_kill();
                let _ = self.child.wait().await;
                None
            }
        }
    }

    /// Its stderr so far.
    pub fn stderr(&self) -> Vec<u8> {
        self.stderr
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The last lines of its stderr, for a failure message.
    pub fn stderr_tail(&self) -> String {
        let stderr = self.stderr();
        let text = String::from_utf8_lossy(&stderr);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(6)..].join("\n")
    }
}

/// One line of the adapter's stdout as an observation.
fn parse(line: &[u8]) -> Observation {
    let invalid = || Observation::Invalid(String::from_utf8_lossy(line).trim_end().to_owned());
    let Ok(Value::Object(mut map)) = serde_json::from_slice::<Value>(line) else {
        return invalid();
    };
    match map.get("type").and_then(Value::as_str) {
        Some("event") => match map.remove("event") {
            Some(event) => Observation::Event(event),
            None => invalid(),
        },
        Some(kind @ ("result" | "error" | "unsupported")) => {
            let kind = kind.to_owned();
            let Some(id) = map.get("id").and_then(Value::as_u64) else {
                return invalid();
            };
            let body = if kind == "result" {
                map.remove("value").unwrap_or(Value::Null)
            } else {
                map.remove("message").unwrap_or(Value::Null)
            };
            Observation::Outcome { id, kind, body }
        }
        _ => invalid(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adapter_lines_are_read_as_observations() {
        let event = parse(br#"{"type":"event","event":{"type":"agent_start"}}"#);
        assert!(matches!(event, Observation::Event(e) if e == json!({"type": "agent_start"})));
        let result = parse(b"{\"type\":\"result\",\"id\":3,\"value\":{\"a\":1}}\n");
        assert!(
            matches!(result, Observation::Outcome { id: 3, kind, body } if kind == "result" && body == json!({"a": 1}))
        );
        let error = parse(br#"{"type":"error","id":4,"message":"boom"}"#);
        assert!(
            matches!(error, Observation::Outcome { id: 4, kind, body } if kind == "error" && body == json!("boom"))
        );
        assert!(matches!(parse(b"hello"), Observation::Invalid(t) if t == "hello"));
        assert!(matches!(
            parse(br#"{"type":"result"}"#),
            Observation::Invalid(_)
        ));
    }

    #[test]
    fn a_client_command_line_splits_like_a_shell() {
        let client = ClientCommand::parse("py", "python3 'my adapter.py' -v").unwrap();
        assert_eq!(client.words(), vec!["python3", "my adapter.py", "-v"]);
        assert!(ClientCommand::parse("x", "  ").is_err());
    }
}
