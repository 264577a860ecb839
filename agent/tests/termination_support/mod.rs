//! One cell of the termination matrix (tests/termination_matrix.rs): an agent driven to a phase
//! of a run (phases.rs, the provider's answers in scripts.rs), then ended by what the client
//! does (client.rs), what came of it, and its session files loaded back (load.rs).

mod client;
mod load;
mod phases;
mod scripts;

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::json;

use crate::support::{TestEnv, process_running as running};
use client::Client;
pub use load::{Loads, Written, loaded_by};
pub use phases::Phase;

/// What the client does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Closes the agent's stdin.
    StdinEof,
    /// Sends `abort`, then closes stdin at once.
    Abort,
    /// Sends SIGTERM.
    Term,
    /// Sends SIGHUP.
    Hup,
    /// Sends SIGINT.
    Int,
    /// Stops reading (closes its end of stdout), sends `get_state`, then closes stdin.
    StdoutClosed,
    /// Sends another `prompt` (and, if that is refused, the same prompt with
    /// `streamingBehavior: "followUp"`), lets the held run go on, reads until every
    /// acknowledged prompt is answered and the agent settled, then closes stdin.
    MorePrompts,
}

impl Action {
    pub const ALL: [Action; 7] = [
        Action::StdinEof,
        Action::Abort,
        Action::Term,
        Action::Hup,
        Action::Int,
        Action::StdoutClosed,
        Action::MorePrompts,
    ];

    /// Whether the matrix has the cell of this action in `phase`. A stalled stream that timed
    /// out ends the run by itself: after it, stdin's end and more prompts; the signals and the
    /// rest are those of the other settled phases.
    pub fn crosses(self, phase: Phase) -> bool {
        phase != Phase::IdleTimeout || matches!(self, Action::StdinEof | Action::MorePrompts)
    }

    pub fn name(self) -> &'static str {
        match self {
            Action::StdinEof => "closes stdin",
            Action::Abort => "aborts, closes stdin",
            Action::Term => "SIGTERM",
            Action::Hup => "SIGHUP",
            Action::Int => "SIGINT",
            Action::StdoutClosed => "closes stdout",
            Action::MorePrompts => "sends more prompts",
        }
    }
}

/// What came of a cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The exit code, `signal N`, or `no exit` (killed after the wait).
    pub exit: String,
    /// After the last `agent_end` the client read: how many `agent_settled`, or why none
    /// (`-` when the client stopped reading); for the client that sends more prompts, also
    /// the acknowledged prompts no run answered.
    pub settled: String,
    /// Whether the session file holds every acknowledged prompt's user message.
    pub prompt_kept: bool,
    /// Which agents load the session file back (load.rs).
    pub loads: String,
    /// Whether a process of the phase (a tool's, the extension's) outlived the agent.
    pub left_behind: bool,
}

impl Outcome {
    /// The outcome in a table's cells.
    pub fn cells(&self) -> String {
        format!(
            "{} | {} | {} | {} | {}",
            self.exit,
            self.settled,
            if self.prompt_kept { "kept" } else { "LOST" },
            self.loads,
            if self.left_behind { "LEFT" } else { "none" }
        )
    }
}

/// How long an agent may take to end after the client's action.
const EXIT_WAIT: Duration = Duration::from_secs(8);

/// Runs one cell with `program` (pi-agent or the reference's launcher); the outcome's `loads`
/// is left to fill from the loads of what it wrote.
pub async fn run_cell(program: &Path, phase: Phase, action: Action) -> Result<(Outcome, Written)> {
    let script = mock_llm::Script::from_yaml_str(&phase.script(), "termination")?;
    let server = mock_llm::MockServer::start(script).await?;
    let env = TestEnv::new(&server.uri())?;
    let mut settings = phase.settings().unwrap_or_else(|| json!({}));
    // The client that sends more prompts waits for the run: the retry wait ends by itself.
    if phase == Phase::RetryWait && action == Action::MorePrompts {
        settings["retry"]["baseDelayMs"] = json!(1000);
    }
    // `TERMINATION_RELEASE=0.85.0` (with `PI_REFERENCE` at that release's launcher) runs
    // pi-agent speaking that release (the reference ignores the setting).
    if let Ok(release) = std::env::var("TERMINATION_RELEASE") {
        settings["rpcRelease"] = json!(release);
    }
    env.write_settings(&settings)?;
    let extension = env.work_dir().join("ask.js");
    std::fs::write(&extension, phases::ASK_EXTENSION)?;
    let sessions = env.root.path().join("sessions");
    let sessions_arg = sessions.display().to_string();
    let extension_arg = extension.display().to_string();
    let mut args = crate::support::session_dir_args(&sessions_arg);
    if phase == Phase::ExtensionCommand {
        args.extend(["-e", &extension_arg]);
    }
    let mut child = load::spawn(&env, program, &args)?;
    let mut client = Client::new(
        child.stdin.take().context("stdin")?,
        child.stdout.take().context("stdout")?,
        env.work_dir(),
    );
    phase.reach(&mut client, &server).await?;
    anyhow::ensure!(
        !client.acknowledged.is_empty(),
        "no prompt was acknowledged before the action"
    );
    let mut pids = Vec::new();
    for file in phase.pid_files() {
        pids.push(client::pid_in(&env.work_dir().join(file)).await?);
    }
    let pid = child.id().context("pid")? as i32;
    let signal = |signal| {
        let pid = rustix::process::Pid::from_raw(pid).context("pid")?;
        rustix::process::kill_process(pid, signal).context("kill")
    };
    match action {
        Action::StdinEof => client.stdin = None,
        Action::Abort => {
            client.send(json!({"id": "a", "type": "abort"})).await?;
            client.stdin = None;
        }
        Action::Term => signal(rustix::process::Signal::TERM)?,
        Action::Hup => signal(rustix::process::Signal::HUP)?,
        Action::Int => signal(rustix::process::Signal::INT)?,
        Action::StdoutClosed => {
            client.lines = None;
            client.send(json!({"id": "s", "type": "get_state"})).await?;
            client.stdin = None;
        }
        Action::MorePrompts => {
            client.prompt("m1", scripts::MORE).await?;
            client.until_response("m1").await?;
            if client.response("m1").is_some_and(|r| r["success"] != true) {
                client.follow_up("m2", scripts::MORE).await?;
                client.until_response("m2").await?;
            }
            phase.release(&mut client, &server).await?;
            client.until_all_settled().await?;
            client.stdin = None;
        }
    }
    // A held stream stays held: a provider that stalls.
    let exit = client.drain(&mut child, EXIT_WAIT).await?;
    client.stdin = None;
    let exit = match exit {
        Some(status) => crate::support::exit_text(status),
        None => {
            let _ = child.kill().await;
            "no exit".to_owned()
        }
    };
    let mut settled = if action == Action::StdoutClosed {
        "-".to_owned()
    } else {
        client.settled()
    };
    let unanswered = client.unanswered();
    if action == Action::MorePrompts && !unanswered.is_empty() {
        settled = format!("{settled}; unanswered: {}", unanswered.join(", "));
    }
    if std::env::var_os("TERMINATION_DUMP").is_some() {
        for record in &client.records {
            eprintln!("{record}");
        }
    }
    // Processes that ended are reaped by init; give it a moment.
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The reference runs extensions in its own process: that pid is the agent's, reaped.
    pids.retain(|&other| other != pid);
    let left_behind = pids.iter().any(|&pid| running(pid));
    for pid in pids.into_iter().filter_map(rustix::process::Pid::from_raw) {
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
    }
    let outcome = Outcome {
        exit,
        settled,
        prompt_kept: crate::support::prompts_in_files(&sessions, &client.acknowledged),
        loads: String::new(),
        left_behind,
    };
    let written = Written {
        files: crate::support::session_files(&sessions),
        acknowledged: client.acknowledged,
        env,
    };
    Ok((outcome, written))
}
