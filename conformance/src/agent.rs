//! The agent under test: which program to start, and the running process seen as a black box
//! (bytes in, records out).

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use crate::release::{RegistryError, Version, VersionError};

mod line;
pub mod profile;

pub use line::{Framer, LineError, MAX_LINE_BYTES, parse_line};
pub use profile::{Builtin, Profile, ProfileError};

/// Stdout beyond this many bytes is a flood: the runner stops reading and kills the agent.
pub const MAX_STDOUT_BYTES: usize = 64 * 1024 * 1024;
/// Stderr kept for the transcript.
const MAX_STDERR_BYTES: usize = 1024 * 1024;

/// Errors resolving or starting an agent.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The reference is not installed.
    #[error(
        "the reference pi is not installed: run conformance/reference/install.sh and set \
         PI_REFERENCE to the launcher path it prints (default location ~/.cache/pi-reference/bin/pi)"
    )]
    ReferenceMissing,
    /// A release of the reference other than the default is not installed.
    #[error(
        "the reference pi {0} is not installed: run `conformance/reference/install.sh {0}` \
         (it installs ~/.cache/pi-reference/bin/pi@{0}, or under $PI_REFERENCE_HOME)"
    )]
    ReleaseMissing(Version),
    /// The release asked for is not one the runner knows.
    #[error("{0}")]
    UnknownRelease(String),
    /// The release asked for is not a release number.
    #[error(transparent)]
    BadRelease(#[from] VersionError),
    /// The registry of releases is malformed.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// Our agent binary was not found.
    #[error(
        "the pi-agent binary was not found next to {0}: build it with `cargo build -p pi-agent`"
    )]
    OursMissing(String),
    /// The command line given is empty or badly quoted.
    #[error("bad agent command line {0:?}")]
    BadCommand(String),
    /// An agent profile could not be read or its program found.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// Spawning failed.
    #[error("cannot start {program}: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// The cause.
        source: std::io::Error,
    },
}

/// A program to run as the agent, with the arguments that come before the scenario's, and the
/// release of pi's RPC protocol it speaks.
#[derive(Debug, Clone)]
pub struct AgentCommand {
    /// Short name (`ours`, `reference`, `custom`).
    pub name: String,
    /// The program.
    pub program: PathBuf,
    /// Arguments before the scenario's arguments.
    pub args: Vec<String>,
    /// The release it speaks: scenarios are resolved for it.
    pub release: Version,
    /// Environment variables its profile adds (values may name the scratch folders).
    pub env: Vec<(String, String)>,
    /// The record its profile says it writes before reading a command (a pattern).
    pub handshake: Option<Value>,
}

impl AgentCommand {
    /// Resolves an agent profile (`ours`, `reference`, `oh-my-pi`, a profile file's path), at a
    /// release (`NAME@RELEASE`, else `release`, else the profile's, else the registry's
    /// default), or a whole command line, which speaks `release` (default: the registry's
    /// default release).
    pub fn resolve_at(spec: &str, release: Option<Version>) -> Result<Self, AgentError> {
        let registry = crate::release::registry()?;
        let known = |version: Version| {
            if registry.versions().contains(&version) {
                Ok(version)
            } else {
                Err(AgentError::UnknownRelease(format!(
                    "release {version} is not one the runner knows (conformance/releases.yaml): {}",
                    registry
                        .versions()
                        .iter()
                        .map(Version::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        };
        let at = |name: &str| -> Result<Option<Version>, AgentError> {
            match spec
                .strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('@'))
            {
                Some(text) => {
                    let version: Version = text.parse()?;
                    Ok(Some(known(version)?))
                }
                None => Ok(None),
            }
        };
        let default = known(release.unwrap_or(registry.default))?;
        let (name, _) = spec.split_once('@').unwrap_or((spec, ""));
        let Some(profile) = Profile::find(name) else {
            let (program, args) = program_and_args(spec)?;
            return Ok(Self {
                args,
                ..Self::named("custom", program, default)
            });
        };
        let profile = profile?;
        let version = match at(name)? {
            Some(version) => version,
            None if release.is_none() => known(profile.release.unwrap_or(default))?,
            None => default,
        };
        let mut agent = match profile.program.builtin {
            Some(Builtin::Ours) => {
                let mut agent = Self::named(&profile.name, find_ours()?, version);
                if version != registry.default {
                    agent.args = vec!["--rpc-release".into(), version.to_string()];
                }
                agent
            }
            Some(Builtin::Reference) => {
                Self::named(&profile.name, find_reference(version)?, version)
            }
            None => Self::named(&profile.name, profile.locate()?, version),
        };
        agent.args.extend(profile.args.iter().cloned());
        agent.env = profile.env.into_iter().collect();
        agent.handshake = profile.handshake;
        Ok(agent)
    }

    /// [`AgentCommand::resolve_at`] with the default release.
    pub fn resolve(spec: &str) -> Result<Self, AgentError> {
        Self::resolve_at(spec, None)
    }

    fn named(name: &str, program: PathBuf, release: Version) -> Self {
        Self {
            name: name.into(),
            program,
            args: Vec::new(),
            release,
            env: Vec::new(),
            handshake: None,
        }
    }

    /// The name and release, `reference@1.6.0`: what baselines, transcripts and reports are
    /// keyed by.
    pub fn label(&self) -> String {
        format!("{}@{}", self.name, self.release)
    }
}

/// The reference launcher of a release: for the default one `$PI_REFERENCE`, else
/// `~/.cache/pi-reference/bin/pi`; for another `<root>/bin/pi@<release>` (see
/// [`pi_reference::release_launcher`]).
pub fn find_reference(release: Version) -> Result<PathBuf, AgentError> {
    let text = release.to_string();
    if text == pi_reference::VERSION {
        pi_reference::launcher().ok_or(AgentError::ReferenceMissing)
    } else {
        pi_reference::release_launcher(&text).ok_or(AgentError::ReleaseMissing(release))
    }
}

/// Our agent: `$PI_AGENT_BIN`, else `pi-agent` next to the running executable or one folder up
/// (test executables live in `target/<profile>/deps`).
pub fn find_ours() -> Result<PathBuf, AgentError> {
    if let Some(path) = std::env::var_os("PI_AGENT_BIN").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe().map_err(|_| AgentError::OursMissing("?".into()))?;
    let name = format!("pi-agent{}", std::env::consts::EXE_SUFFIX);
    let mut dir = exe.parent();
    for _ in 0..2 {
        let Some(folder) = dir else { break };
        let candidate = folder.join(&name);
        if candidate.is_file() {
            return Ok(candidate);
        }
        dir = folder.parent();
    }
    Err(AgentError::OursMissing(exe.display().to_string()))
}

/// A whole command line as its program and arguments (split as [`split_command_line`] does);
/// an unterminated quote or no word at all is a [`AgentError::BadCommand`].
pub fn program_and_args(line: &str) -> Result<(PathBuf, Vec<String>), AgentError> {
    let mut words = split_command_line(line)
        .ok_or_else(|| AgentError::BadCommand(line.to_owned()))?
        .into_iter();
    let program = words
        .next()
        .ok_or_else(|| AgentError::BadCommand(line.to_owned()))?;
    Ok((PathBuf::from(program), words.collect()))
}

/// Splits a command line into words: whitespace separates, single and double quotes group,
/// backslash escapes outside single quotes. `None` for an unterminated quote.
pub fn split_command_line(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        other => word.push(other),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => word.push(chars.next()?),
                        other => word.push(other),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next()?);
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            other => {
                in_word = true;
                word.push(other);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

/// One line the agent wrote on stdout.
#[derive(Debug, Clone)]
pub struct Record {
    /// 0-based position in stdout.
    pub index: usize,
    /// The line's bytes without its LF (a CR before the LF is kept here).
    pub raw: Vec<u8>,
    /// Whether the line ended with LF (false only for a last line at EOF).
    pub lf: bool,
    /// The parsed JSON, or why the line is not a JSON record.
    pub json: Result<Value, LineError>,
    /// Milliseconds since the agent started.
    pub at_ms: u64,
}

impl Record {
    /// The line as text, lossily decoded.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.raw).into_owned()
    }
}

/// What the stdout reader reports.
#[derive(Debug)]
pub enum Output {
    /// A record.
    Record(Record),
    /// Stdout ended.
    Eof,
    /// Stdout exceeded [`MAX_STDOUT_BYTES`].
    Flood,
}

/// Everything seen on the agent's streams, kept for the transcript.
#[derive(Debug, Default, Clone)]
pub struct Streams {
    /// Bytes written to stdin.
    pub stdin: Vec<u8>,
    /// Bytes read from stdout.
    pub stdout: Vec<u8>,
    /// Bytes read from stderr (capped).
    pub stderr: Vec<u8>,
}

/// A running agent.
pub struct AgentProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    output: mpsc::Receiver<Output>,
    streams: Arc<Mutex<Streams>>,
    stdout_task: Option<tokio::task::JoinHandle<()>>,
    stderr_task: Option<tokio::task::JoinHandle<()>>,
    eof: bool,
    flooded: bool,
    started: Instant,
}

/// How to start the agent for one scenario.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The program and its leading arguments.
    pub command: AgentCommand,
    /// The scenario's arguments.
    pub args: Vec<String>,
    /// Working folder.
    pub cwd: PathBuf,
    /// The whole environment (PATH included).
    pub env: Vec<(String, String)>,
}

impl AgentProcess {
    /// Starts the agent with a cleared environment.
    pub fn spawn(launch: &Launch) -> Result<Self, AgentError> {
        let mut command = Command::new(&launch.command.program);
        command
            .args(&launch.command.args)
            .args(&launch.args)
            .current_dir(&launch.cwd)
            .env_clear()
            .envs(launch.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().map_err(|source| AgentError::Spawn {
            program: launch.command.program.display().to_string(),
            source,
        })?;
        let started = Instant::now();
        let streams = Arc::new(Mutex::new(Streams::default()));
        let (tx, rx) = mpsc::channel(1024);
        let mut stdout_task = None;
        if let Some(mut stdout) = child.stdout.take() {
            let streams = Arc::clone(&streams);
            stdout_task = Some(tokio::spawn(async move {
                let mut framer = Framer::default();
                let mut buf = vec![0u8; 64 * 1024];
                let mut index = 0;
                let mut total = 0usize;
                let send = |raw: Vec<u8>, lf: bool, index: usize| {
                    Output::Record(Record {
                        index,
                        json: parse_line(&raw),
                        raw,
                        lf,
                        at_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                    })
                };
                loop {
                    let n = match stdout.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    total += n;
                    if let Ok(mut s) = streams.lock() {
                        s.stdout.extend_from_slice(&buf[..n]);
                    }
                    for line in framer.push(&buf[..n]) {
                        if tx.send(send(line, true, index)).await.is_err() {
                            return;
                        }
                        index += 1;
                    }
                    if total > MAX_STDOUT_BYTES {
                        let _ = tx.send(Output::Flood).await;
                        return;
                    }
                }
                if let Some(line) = framer.finish() {
                    let _ = tx.send(send(line, false, index)).await;
                }
                let _ = tx.send(Output::Eof).await;
            }));
        }
        let mut stderr_task = None;
        if let Some(mut stderr) = child.stderr.take() {
            let streams = Arc::clone(&streams);
            stderr_task = Some(tokio::spawn(async move {
                let mut buf = vec![0u8; 16 * 1024];
                while let Ok(n) = stderr.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    if let Ok(mut s) = streams.lock()
                        && s.stderr.len() < MAX_STDERR_BYTES
                    {
                        s.stderr.extend_from_slice(&buf[..n]);
                    }
                }
            }));
        }
        Ok(Self {
            stdin: child.stdin.take(),
            child,
            output: rx,
            streams,
            stdout_task,
            stderr_task,
            eof: false,
            flooded: false,
            started,
        })
    }

    /// Writes bytes to stdin. An error means the agent closed its stdin (or died).
    pub async fn send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        if let Ok(mut s) = self.streams.lock() {
            s.stdin.extend_from_slice(bytes);
        }
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdin closed"))?;
        stdin.write_all(bytes).await?;
        stdin.flush().await
    }

    /// Milliseconds since the agent started, on the clock of [`Record::at_ms`].
    pub fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Closes stdin.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next record, `Ok(None)` at EOF, `Err(())` when the deadline passes first.
    pub async fn next_record(
        &mut self,
        deadline: tokio::time::Instant,
    ) -> Result<Option<Record>, Elapsed> {
        if self.eof || self.flooded {
            return Ok(None);
        }
        match tokio::time::timeout_at(deadline, self.output.recv()).await {
            Err(_) => Err(Elapsed),
            Ok(Some(Output::Record(record))) => Ok(Some(record)),
            Ok(Some(Output::Flood)) => {
                self.flooded = true;
                let _ = self.child.start_kill();
                Ok(None)
            }
            Ok(Some(Output::Eof)) | Ok(None) => {
                self.eof = true;
                Ok(None)
            }
        }
    }

    /// Whether stdout was cut off as a flood.
    pub fn flooded(&self) -> bool {
        self.flooded
    }

    /// Waits for the exit until the deadline; `Err` when it passes.
    pub async fn wait(&mut self, deadline: tokio::time::Instant) -> Result<Option<i32>, Elapsed> {
        match tokio::time::timeout_at(deadline, self.child.wait()).await {
            Err(_) => Err(Elapsed),
            Ok(Ok(status)) => Ok(status.code()),
            Ok(Err(_)) => Ok(None),
        }
    }

    /// Whether the agent has exited, without waiting.
    pub fn exited(&mut self) -> Option<Option<i32>> {
        match self.child.try_wait() {
            Ok(Some(status)) => Some(status.code()),
            _ => None,
        }
    }

    /// Kills the agent and reaps it.
    pub async fn kill(&mut self) {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await;
    }

    /// Waits (up to a second) for stdout to reach EOF, so that [`Self::streams`] has all of it
    /// (once the agent has exited).
    pub async fn drain_stdout(&mut self) {
        if let Some(task) = self.stdout_task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(1), task).await;
        }
    }

    /// Waits (up to a second) for stderr to reach EOF, so that the transcript has all of it.
    pub async fn drain_stderr(&mut self) {
        if let Some(task) = self.stderr_task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(1), task).await;
        }
    }

    /// A copy of everything seen on the streams so far.
    pub fn streams(&self) -> Streams {
        self.streams.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

/// A deadline passed.
#[derive(Debug, Clone, Copy)]
pub struct Elapsed;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        assert_eq!(
            split_command_line(r#"node 'a b' "c\"d" e\ f"#),
            Some(vec![
                "node".into(),
                "a b".into(),
                "c\"d".into(),
                "e f".into()
            ])
        );
        assert_eq!(split_command_line("'open"), None);
    }
}
