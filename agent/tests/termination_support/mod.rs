//! One cell of the termination matrix (tests/termination_matrix.rs): an agent driven to a phase
//! of a run, then ended by what the client does, and what came of it.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::support::{TestEnv, process_running as running};

/// Where the run is when the client acts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The answer is done and the agent settled.
    Idle,
    /// The model's text is streaming (held at a gate of the mock).
    MidText,
    /// A `bash` tool call runs (a `sleep`).
    Tool,
}

/// What the client does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Closes the agent's stdin.
    StdinEof,
    /// Sends SIGTERM.
    Term,
    /// Sends SIGHUP.
    Hup,
    /// Sends SIGINT.
    Int,
    /// Stops reading (closes its end of stdout), sends `get_state`, then closes stdin.
    StdoutClosed,
}

impl Phase {
    pub const ALL: [Phase; 3] = [Phase::Idle, Phase::MidText, Phase::Tool];

    pub fn name(self) -> &'static str {
        match self {
            Phase::Idle => "after the answer",
            Phase::MidText => "mid-text",
            Phase::Tool => "during a tool",
        }
    }

    /// The mock's script for the phase.
    fn script(self) -> &'static str {
        match self {
            Phase::Idle => "responses:\n  - text: Done\n",
            Phase::MidText => {
                "responses:\n  - content:\n      - text: before\n      - gate: mid\n      - text: after\n"
            }
            Phase::Tool => {
                "responses:\n  - content:\n      - tool_call: { id: toolu_t, name: bash, arguments: { command: \"echo $$ > tool.pid; exec sleep 30\" } }\n    stop: tool_use\n  - text: Done\n"
            }
        }
    }
}

impl Action {
    pub const ALL: [Action; 5] = [
        Action::StdinEof,
        Action::Term,
        Action::Hup,
        Action::Int,
        Action::StdoutClosed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Action::StdinEof => "closes stdin",
            Action::Term => "SIGTERM",
            Action::Hup => "SIGHUP",
            Action::Int => "SIGINT",
            Action::StdoutClosed => "closes stdout",
        }
    }
}

/// What came of a cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The exit code, `signal N`, or `no exit` (killed after the wait).
    pub exit: String,
    /// After the last `agent_end` the client read: how many `agent_settled` (none read: `-`).
    pub settled: String,
    /// Whether the session file holds the acknowledged prompt's user message.
    pub prompt_kept: bool,
    /// Whether the tool's process outlived the agent (only for [`Phase::Tool`]).
    pub left_behind: bool,
}

impl Outcome {
    /// The outcome in a table's cells.
    pub fn cells(&self) -> String {
        format!(
            "{} | {} | {} | {}",
            self.exit,
            self.settled,
            if self.prompt_kept { "kept" } else { "LOST" },
            if self.left_behind { "LEFT" } else { "none" }
        )
    }
}

/// How long an agent may take to end after the client's action.
const EXIT_WAIT: Duration = Duration::from_secs(8);

/// Runs one cell with `program` (pi-agent or the reference's launcher).
pub async fn run_cell(program: &Path, phase: Phase, action: Action) -> Result<Outcome> {
    let script = mock_llm::Script::from_yaml_str(phase.script(), "termination")?;
    let server = mock_llm::MockServer::start(script).await?;
    let env = TestEnv::new(&server.uri())?;
    let sessions = env.root.path().join("sessions");
    let sessions_arg = sessions.display().to_string();
    let args = [
        "--mode",
        "rpc",
        "--provider",
        "mock",
        "--model",
        "mock-model-1",
        "--session-dir",
        &sessions_arg,
    ];
    let mut child = env
        .command_for(program, &args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()?;
    let mut stdin = child.stdin.take().context("stdin")?;
    let mut reader = BufReader::new(child.stdout.take().context("stdout")?).lines();
    let mut records: Vec<Value> = Vec::new();
    let line = json!({"id": "p", "type": "prompt", "message": "Hi"}).to_string() + "\n";
    stdin.write_all(line.as_bytes()).await?;
    // Read until the phase is reached.
    let reached = |records: &[Value]| match phase {
        Phase::Idle => records.iter().any(|r| r["type"] == "agent_settled"),
        Phase::MidText => records.iter().any(|r| {
            r["type"] == "message_update" && r["assistantMessageEvent"]["delta"] == "before"
        }),
        Phase::Tool => records.iter().any(|r| r["type"] == "tool_execution_start"),
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while !reached(&records) {
        let next = tokio::time::timeout_at(deadline.into(), reader.next_line()).await;
        let line = next
            .context("the phase was not reached")??
            .context("stdout ended")?;
        records.push(serde_json::from_str(&line)?);
    }
    let tool_pid = if phase == Phase::Tool {
        Some(tool_pid(&env.work_dir()).await?)
    } else {
        None
    };
    let pid = child.id().context("pid")? as i32;
    let signal = |signal| {
        let pid = rustix::process::Pid::from_raw(pid).context("pid")?;
        rustix::process::kill_process(pid, signal).context("kill")
    };
    let mut stdin = Some(stdin);
    let mut lines = Some(reader);
    match action {
        Action::StdinEof => drop(stdin.take()),
        Action::Term => signal(rustix::process::Signal::TERM)?,
        Action::Hup => signal(rustix::process::Signal::HUP)?,
        Action::Int => signal(rustix::process::Signal::INT)?,
        Action::StdoutClosed => {
            lines = None;
            if let Some(mut input) = stdin.take() {
                let line = json!({"id": "s", "type": "get_state"}).to_string() + "\n";
                let _ = input.write_all(line.as_bytes()).await;
            }
        }
    }
    // A held stream stays held: a provider that stalls.
    let until = Instant::now() + EXIT_WAIT;
    let mut exit = None;
    while Instant::now() < until {
        if let Some(reader) = &mut lines {
            match tokio::time::timeout(Duration::from_millis(50), reader.next_line()).await {
                Ok(Ok(Some(line))) => {
                    if let Ok(record) = serde_json::from_str(&line) {
                        records.push(record);
                    }
                    continue;
                }
                Ok(_) => lines = None,
                Err(_) => {}
            }
        } else {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if let Some(status) = child.try_wait()? {
            exit = Some(status);
            break;
        }
    }
    drop(stdin);
    let exit = match exit {
        Some(status) => match status.code() {
            Some(code) => code.to_string(),
            None => {
                use std::os::unix::process::ExitStatusExt;
                format!("signal {}", status.signal().unwrap_or_default())
            }
        },
        None => {
            let _ = child.kill().await;
            "no exit".to_owned()
        }
    };
    let settled = match records.iter().rposition(|r| r["type"] == "agent_end") {
        _ if action == Action::StdoutClosed => "-".to_owned(),
        Some(end) => records[end..]
            .iter()
            .filter(|r| r["type"] == "agent_settled")
            .count()
            .to_string(),
        None => "no agent_end".to_owned(),
    };
    // Processes that ended are reaped by init; give it a moment.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let left_behind = tool_pid.is_some_and(running);
    if let Some(pid) = tool_pid.and_then(rustix::process::Pid::from_raw) {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
    }
    Ok(Outcome {
        exit,
        settled,
        prompt_kept: prompt_in_files(&sessions),
        left_behind,
    })
}

/// The pid the tool's command wrote (it `exec`s its `sleep`).
async fn tool_pid(work: &Path) -> Result<i32> {
    let file = work.join("tool.pid");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Ok(text) = std::fs::read_to_string(&file)
            && let Ok(pid) = text.trim().parse()
        {
            return Ok(pid);
        }
        if Instant::now() > deadline {
            anyhow::bail!("the tool wrote no pid");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Whether a session file under `dir` holds the user message `Hi`.
fn prompt_in_files(dir: &Path) -> bool {
    session_files(dir).iter().any(|file| {
        std::fs::read_to_string(file).is_ok_and(|text| {
            text.lines().any(|line| {
                serde_json::from_str::<Value>(line).is_ok_and(|entry| {
                    entry["type"] == "message"
                        && entry["message"]["role"] == "user"
                        && entry["message"]["content"][0]["text"] == "Hi"
                })
            })
        })
    })
}

fn session_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.filter_map(Result::ok).map(|entry| entry.path()) {
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "jsonl") {
                found.push(path);
            }
        }
    }
    found
}
