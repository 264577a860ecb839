//! The matrix's RPC client: it writes commands, reads records (keeping them all), and notes
//! which prompts the agent acknowledged; and what it finds in the session files afterwards.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{ChildStdin, ChildStdout};

/// How long the agent may take to reach a phase.
const REACH_WAIT: Duration = Duration::from_secs(30);

pub struct Client {
    pub stdin: Option<ChildStdin>,
    pub lines: Option<Lines<BufReader<ChildStdout>>>,
    /// Every record read.
    pub records: Vec<Value>,
    /// The prompts sent, by id: their text, and whether it makes a user message.
    sent: Vec<(String, String, bool)>,
    /// The texts of the prompts the agent answered `success: true` that make a user message.
    pub acknowledged: Vec<String>,
    /// The ids of the commands sent.
    ids: Vec<String>,
    /// The agent's working folder (where a phase's processes write their pids).
    pub work_dir: PathBuf,
}

impl Client {
    pub fn new(stdin: ChildStdin, stdout: ChildStdout, work_dir: PathBuf) -> Self {
        Self {
            work_dir,
            ids: Vec::new(),
            stdin: Some(stdin),
            lines: Some(BufReader::new(stdout).lines()),
            records: Vec::new(),
            sent: Vec::new(),
            acknowledged: Vec::new(),
        }
    }

    /// Writes one command (ignoring a closed pipe: the agent may be gone).
    pub async fn send(&mut self, command: Value) -> Result<()> {
        // What the agent answers with a response: a command, not a dialog's answer.
        if let Some(id) = command["id"].as_str()
            && command["type"] != "extension_ui_response"
        {
            self.ids.push(id.to_owned());
        }
        let stdin = self.stdin.as_mut().context("stdin is closed")?;
        let line = command.to_string() + "\n";
        if let Err(error) = stdin.write_all(line.as_bytes()).await
            && error.kind() != std::io::ErrorKind::BrokenPipe
        {
            return Err(error.into());
        }
        Ok(())
    }

    /// Sends a prompt whose text becomes a user message.
    pub async fn prompt(&mut self, id: &str, text: &str) -> Result<()> {
        self.sent.push((id.to_owned(), text.to_owned(), true));
        self.send(json!({"id": id, "type": "prompt", "message": text}))
            .await
    }

    /// Sends a prompt queued as a follow-up while the agent streams (`streamingBehavior`).
    pub async fn follow_up(&mut self, id: &str, text: &str) -> Result<()> {
        self.sent.push((id.to_owned(), text.to_owned(), true));
        let command =
            json!({"id": id, "type": "prompt", "message": text, "streamingBehavior": "followUp"});
        self.send(command).await
    }

    /// Sends a prompt that runs a command (no user message).
    pub async fn command_prompt(&mut self, id: &str, text: &str) -> Result<()> {
        self.sent.push((id.to_owned(), text.to_owned(), false));
        self.send(json!({"id": id, "type": "prompt", "message": text}))
            .await
    }

    /// Keeps a record read, noting an acknowledged prompt.
    pub fn keep(&mut self, record: Value) {
        if record["type"] == "response"
            && record["command"] == "prompt"
            && record["success"] == true
        {
            let sent = self.sent.iter().find(|(id, _, _)| record["id"] == *id);
            if let Some((_, text, true)) = sent {
                self.acknowledged.push(text.clone());
            }
        }
        self.records.push(record);
    }

    /// Reads records until one satisfies `pred` (within [`REACH_WAIT`]).
    pub async fn until(&mut self, pred: impl Fn(&Value) -> bool) -> Result<()> {
        let deadline = Instant::now() + REACH_WAIT;
        loop {
            let lines = self.lines.as_mut().context("stdout is closed")?;
            let next = tokio::time::timeout_at(deadline.into(), lines.next_line()).await;
            let Ok(line) = next else {
                anyhow::bail!("the phase was not reached; read: {:?}", self.records);
            };
            let Some(line) = line? else {
                anyhow::bail!("stdout ended; read: {:?}", self.records);
            };
            let record: Value = serde_json::from_str(&line)?;
            let done = pred(&record);
            self.keep(record);
            if done {
                return Ok(());
            }
        }
    }

    /// Reads records until one of type `kind`.
    pub async fn until_type(&mut self, kind: &str) -> Result<()> {
        self.until(|r| r["type"] == kind).await
    }

    /// Reads records until the response to the command `id`.
    pub async fn until_response(&mut self, id: &str) -> Result<()> {
        self.until(|r| r["type"] == "response" && r["id"] == id)
            .await
    }

    /// The response to the command `id`, read already.
    pub fn response(&self, id: &str) -> Option<&Value> {
        self.records
            .iter()
            .find(|r| r["type"] == "response" && r["id"] == id)
    }

    /// How many records of type `kind` were read.
    pub fn count(&self, kind: &str) -> usize {
        self.records.iter().filter(|r| r["type"] == kind).count()
    }

    /// Whether the last assistant message read ended in an error holding `text`.
    pub fn last_error_is(&self, text: &str) -> Result<()> {
        let last = self
            .records
            .iter()
            .rev()
            .find(|r| r["type"] == "message_end" && r["message"]["role"] == "assistant")
            .map(|r| &r["message"]);
        let error = last.and_then(|m| m["errorMessage"].as_str()).unwrap_or("");
        anyhow::ensure!(
            last.is_some_and(|m| m["stopReason"] == "error") && error.contains(text),
            "the run did not end with the error {text:?}: {last:?}"
        );
        Ok(())
    }

    /// The acknowledged prompts that no run answered: no assistant message came after the
    /// prompt's user message within a run that ended (an `agent_end` after it).
    pub fn unanswered(&self) -> Vec<String> {
        let end = self
            .records
            .iter()
            .rposition(|r| r["type"] == "agent_end")
            .unwrap_or(0);
        let role_at = |i: usize, role: &str| {
            self.records[i]["type"] == "message_end" && self.records[i]["message"]["role"] == role
        };
        self.acknowledged
            .iter()
            .filter(|text| {
                let asked = (0..self.records.len()).find(|&i| {
                    role_at(i, "user") && self.records[i]["message"]["content"][0]["text"] == **text
                });
                !asked.is_some_and(|asked| (asked..end).any(|i| role_at(i, "assistant")))
            })
            .cloned()
            .collect()
    }

    /// Reads until every command has its response, every acknowledged prompt is answered and
    /// the agent settled after the last `agent_end` (or [`REACH_WAIT`] passes: what was read
    /// tells).
    pub async fn until_all_settled(&mut self) -> Result<()> {
        let deadline = Instant::now() + REACH_WAIT;
        let done = |client: &Self| {
            client.ids.iter().all(|id| client.response(id).is_some())
                && client.unanswered().is_empty()
                && client.settled().parse::<usize>().is_ok_and(|n| n > 0)
        };
        while !done(self) {
            let Some(lines) = self.lines.as_mut() else {
                break;
            };
            let Ok(line) = tokio::time::timeout_at(deadline.into(), lines.next_line()).await else {
                break;
            };
            let Some(line) = line? else {
                break;
            };
            self.keep(serde_json::from_str(&line)?);
        }
        Ok(())
    }

    /// After the action: reads what comes until the agent exits, stdout ends or `wait` passes.
    pub async fn drain(
        &mut self,
        child: &mut tokio::process::Child,
        wait: Duration,
    ) -> Result<Option<std::process::ExitStatus>> {
        let until = Instant::now() + wait;
        while Instant::now() < until {
            if let Some(reader) = &mut self.lines {
                match tokio::time::timeout(Duration::from_millis(50), reader.next_line()).await {
                    Ok(Ok(Some(line))) => {
                        if let Ok(record) = serde_json::from_str(&line) {
                            self.keep(record);
                        }
                        continue;
                    }
                    Ok(_) => self.lines = None,
                    Err(_) => {}
                }
            } else {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            if let Some(status) = child.try_wait()? {
                return Ok(Some(status));
            }
        }
        Ok(None)
    }

    /// After the last `agent_end` read: how many `agent_settled`, and when none, where the
    /// run was (`no agent_end` when the client read none).
    pub fn settled(&self) -> String {
        let Some(end) = self.records.iter().rposition(|r| r["type"] == "agent_end") else {
            return "no agent_end".to_owned();
        };
        let after = &self.records[end..];
        let count = after
            .iter()
            .filter(|r| r["type"] == "agent_settled")
            .count();
        let seen = |kind: &str| after.iter().any(|r| r["type"] == kind);
        if count > 0 {
            count.to_string()
        } else if seen("auto_retry_start") {
            "0: in the retry wait".to_owned()
        } else if seen("compaction_start") {
            "0: in a compaction".to_owned()
        } else {
            "0".to_owned()
        }
    }
}

/// The pid a phase's process wrote to `file` (waiting a moment for it).
pub async fn pid_in(file: &Path) -> Result<i32> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(text) = std::fs::read_to_string(file)
            && let Ok(pid) = text.trim().parse()
        {
            return Ok(pid);
        }
        if Instant::now() > deadline {
            anyhow::bail!("no pid in {}", file.display());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
