//! Test support: a scratch environment (home, agent folder with a `models.json` pointing at a
//! mock LLM, working folder), the real `pi-agent` binary spawned in it, and helpers to send
//! commands and wait for records.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// The arguments of RPC mode without a session file, which every spawn here starts with.
pub const RPC_ARGS: [&str; 3] = ["--mode", "rpc", "--no-session"];

/// [`RPC_ARGS`] with the mock provider's first model.
pub const DEFAULT_ARGS: [&str; 7] = pi_reference::MOCK_RPC_ARGS;

/// [`DEFAULT_ARGS`] keeping the session in `dir` (`--session-dir DIR` for `--no-session`).
pub fn session_dir_args(dir: &str) -> Vec<&str> {
    DEFAULT_ARGS
        .iter()
        .flat_map(|arg| match *arg {
            "--no-session" => vec!["--session-dir", dir],
            other => vec![other],
        })
        .collect()
}

/// How long to wait for one record before failing.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// A scratch home, agent folder and working folder.
pub struct TestEnv {
    pub root: tempfile::TempDir,
}

impl TestEnv {
    /// An environment whose `models.json` declares provider `mock` at `base_url` with two
    /// models: `mock-model-1` (reasoning) and `mock-model-2`.
    pub fn new(base_url: &str) -> Result<Self> {
        let env = Self::empty()?;
        env.write_models(&json!({"providers": {"mock": {
            "baseUrl": base_url,
            "api": "anthropic-messages",
            "apiKey": "mock-key",
            "models": [
                {"id": "mock-model-1", "reasoning": true, "contextWindow": 200000, "maxTokens": 8192},
                {"id": "mock-model-2", "contextWindow": 100000, "maxTokens": 4096}
            ]
        }}}))?;
        Ok(env)
    }

    /// An environment without any configuration.
    pub fn empty() -> Result<Self> {
        let root = tempfile::tempdir()?;
        for dir in ["home", "agent", "work"] {
            std::fs::create_dir_all(root.path().join(dir))?;
        }
        Ok(Self { root })
    }

    pub fn agent_dir(&self) -> PathBuf {
        self.root.path().join("agent")
    }

    pub fn work_dir(&self) -> PathBuf {
        self.root.path().join("work")
    }

    pub fn write_models(&self, models: &Value) -> Result<()> {
        std::fs::write(self.agent_dir().join("models.json"), models.to_string())?;
        Ok(())
    }

    pub fn write_settings(&self, settings: &Value) -> Result<()> {
        std::fs::write(self.agent_dir().join("settings.json"), settings.to_string())?;
        Ok(())
    }

    /// The `pi-agent` command with this environment.
    pub fn command(&self, args: &[&str]) -> Command {
        self.command_for(Path::new(env!("CARGO_BIN_EXE_pi-agent")), args)
    }

    /// `program` (ours or the reference's launcher) with this environment.
    pub fn command_for(&self, program: &Path, args: &[&str]) -> Command {
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(self.work_dir())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.root.path().join("home"))
            .env("PI_CODING_AGENT_DIR", self.agent_dir())
            .env("TZ", "UTC")
            .env("LANG", "C.UTF-8")
            .env("TERM", "dumb");
        command
    }

    /// Spawns `pi-agent` with [`RPC_ARGS`] plus `args`.
    pub fn spawn(&self, args: &[&str]) -> Result<Agent> {
        self.spawn_raw(&[&RPC_ARGS[..], args].concat())
    }

    /// Runs `pi-agent` with [`RPC_ARGS`] plus `args` and extra environment variables, writes
    /// `stdin` and closes it, and returns the exit code (-1 for a signal), stdout and stderr.
    pub async fn run_rpc(
        &self,
        args: &[&str],
        stdin: &str,
        vars: &[(&str, &str)],
    ) -> Result<(i32, String, String)> {
        let mut command = self.command(&[&RPC_ARGS[..], args].concat());
        command.envs(vars.iter().copied());
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn()?;
        if let Some(mut input) = child.stdin.take() {
            // An agent that fails at start-up exits without reading its input.
            if let Err(error) = input.write_all(stdin.as_bytes()).await
                && error.kind() != std::io::ErrorKind::BrokenPipe
            {
                return Err(error.into());
            }
        }
        let output = tokio::time::timeout(TIMEOUT, child.wait_with_output()).await??;
        Ok((
            output.status.code().unwrap_or(-1),
            String::from_utf8(output.stdout)?,
            String::from_utf8(output.stderr)?,
        ))
    }

    /// Spawns `pi-agent` with exactly `args`.
    pub fn spawn_raw(&self, args: &[&str]) -> Result<Agent> {
        self.spawn_program(Path::new(env!("CARGO_BIN_EXE_pi-agent")), args)
    }

    /// Spawns `program` (ours or the reference's launcher) with exactly `args`.
    pub fn spawn_program(&self, program: &Path, args: &[&str]) -> Result<Agent> {
        self.spawn_program_with_env(program, args, &[])
    }

    /// Spawns `pi-agent` with [`RPC_ARGS`] plus `args`, with extra environment variables.
    pub fn spawn_with_env(&self, args: &[&str], vars: &[(&str, &Path)]) -> Result<Agent> {
        let all = [&RPC_ARGS[..], args].concat();
        self.spawn_program_with_env(Path::new(env!("CARGO_BIN_EXE_pi-agent")), &all, vars)
    }

    /// [`Self::spawn_program`] with extra environment variables.
    pub fn spawn_program_with_env(
        &self,
        program: &Path,
        args: &[&str],
        vars: &[(&str, &Path)],
    ) -> Result<Agent> {
        let mut command = self.command_for(program, args);
        command.envs(vars.iter().copied());
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        let mut child = command.spawn().context("spawning pi-agent")?;
        let stdin = child.stdin.take().context("no stdin")?;
        let stdout = child.stdout.take().context("no stdout")?;
        Ok(Agent {
            child,
            stdin: Some(stdin),
            lines: BufReader::new(stdout).lines(),
            seen: Vec::new(),
            timeout: TIMEOUT,
        })
    }

    /// Spawns against `mock` with [`DEFAULT_ARGS`] plus `args`.
    pub fn spawn_default(&self, args: &[&str]) -> Result<Agent> {
        self.spawn_raw(&[&DEFAULT_ARGS[..], args].concat())
    }
}

/// A running agent.
pub struct Agent {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Lines<BufReader<ChildStdout>>,
    /// Every record read so far.
    pub seen: Vec<Value>,
    /// How long to wait for one record (and for the exit).
    pub timeout: Duration,
}

impl Agent {
    /// Writes one line (a LF is added).
    pub async fn send_line(&mut self, line: &str) -> Result<()> {
        let stdin = self.stdin.as_mut().context("stdin closed")?;
        stdin.write_all(line.as_bytes()).await?;
        stdin.write_all(b"\n").await?;
        stdin.flush().await?;
        Ok(())
    }

    /// Writes a command.
    pub async fn send(&mut self, command: Value) -> Result<()> {
        self.send_line(&command.to_string()).await
    }

    /// Takes stdin, to write from another task while this one reads.
    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.stdin.take()
    }

    /// Closes stdin.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line as written, unparsed and not kept in `seen` (for benchmarks, where
    /// parsing every record would cost more than the agent under test spends on it).
    pub async fn next_line(&mut self) -> Result<String> {
        let timeout = self.timeout;
        tokio::time::timeout(timeout, self.lines.next_line())
            .await
            .map_err(|_| anyhow!("no line within {timeout:?}"))??
            .ok_or_else(|| anyhow!("stdout closed"))
    }

    /// The next record, or an error after [`TIMEOUT`].
    pub async fn next(&mut self) -> Result<Value> {
        let timeout = self.timeout;
        let line = tokio::time::timeout(timeout, self.lines.next_line())
            .await
            .map_err(|_| {
                anyhow!(
                    "no record within {timeout:?}; seen so far: {:#?}",
                    self.seen
                )
            })??
            .ok_or_else(|| anyhow!("stdout closed; seen so far: {:#?}", self.seen))?;
        let value: Value =
            serde_json::from_str(&line).with_context(|| format!("not JSON: {line:?}"))?;
        self.seen.push(value.clone());
        Ok(value)
    }

    /// Reads records until one satisfies `pred`; returns every record read, that one last.
    pub async fn until(&mut self, pred: impl Fn(&Value) -> bool) -> Result<Vec<Value>> {
        let mut records = Vec::new();
        loop {
            let record = self.next().await?;
            let done = pred(&record);
            records.push(record);
            if done {
                return Ok(records);
            }
        }
    }

    /// Sends a command and returns its response (skipping other records).
    pub async fn request(&mut self, command: Value) -> Result<Value> {
        let kind = command["type"].clone();
        self.send(command).await?;
        let records = self
            .until(|r| r["type"] == "response" && r["command"] == kind)
            .await?;
        records.last().cloned().context("no response")
    }

    /// Sends `{"type": "prompt", "message": message}` (without waiting for its response).
    pub async fn prompt(&mut self, message: &str) -> Result<()> {
        self.send(json!({"type": "prompt", "message": message}))
            .await
    }

    /// Reads records until `agent_settled`; returns every record read, that one last.
    pub async fn until_settled(&mut self) -> Result<Vec<Value>> {
        self.until(|r| is_type(r, "agent_settled")).await
    }

    /// Waits for the process to exit, returning its status code.
    pub async fn wait_exit(&mut self) -> Result<i32> {
        let timeout = self.timeout;
        let status = tokio::time::timeout(timeout, self.child.wait())
            .await
            .map_err(|_| anyhow!("agent did not exit within {timeout:?}"))??;
        status.code().ok_or_else(|| anyhow!("killed by a signal"))
    }
}

/// Starts a mock LLM serving `yaml` (a mock-llm script), an environment whose models point at
/// it, and the agent there with `--provider mock --model mock-model-1`. Keep the environment
/// bound (`let (server, _env, mut agent) = ...`; `_` would delete its folders at once).
pub async fn scenario(yaml: &str) -> Result<(mock_llm::MockServer, TestEnv, Agent)> {
    let server = mock(yaml).await?;
    let env = TestEnv::new(&server.uri())?;
    let agent = env.spawn_default(&[])?;
    Ok((server, env, agent))
}

/// Starts a mock LLM serving `yaml` (a mock-llm script).
pub async fn mock(yaml: &str) -> Result<mock_llm::MockServer> {
    let script = mock_llm::Script::from_yaml_str(yaml, "test")?;
    Ok(mock_llm::MockServer::start(script).await?)
}

/// Whether process `pid` runs (a zombie does not count), from `/proc`.
pub fn process_running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let after = &stat[stat.rfind(')')? + 1..];
            after.split_whitespace().next().map(|state| state != "Z")
        })
        .unwrap_or(false)
}

/// Whether `record` is of type `kind`.
pub fn is_type(record: &Value, kind: &str) -> bool {
    record["type"] == kind
}

/// The first of `records` of type `kind` (`null` when there is none).
pub fn first_of(records: &[Value], kind: &str) -> Value {
    records
        .iter()
        .find(|r| is_type(r, kind))
        .cloned()
        .unwrap_or_default()
}

/// The `type`s of records, for order assertions.
pub fn types(records: &[Value]) -> Vec<String> {
    records
        .iter()
        .map(|r| match r["type"].as_str() {
            Some("response") => format!("response:{}", r["command"].as_str().unwrap_or("?")),
            Some("message_start" | "message_end") => format!(
                "{}:{}",
                r["type"].as_str().unwrap_or("?"),
                r["message"]["role"].as_str().unwrap_or("?")
            ),
            Some("message_update") => format!(
                "message_update:{}",
                r["assistantMessageEvent"]["type"].as_str().unwrap_or("?")
            ),
            Some(other) => other.to_owned(),
            None => "?".to_owned(),
        })
        .collect()
}

/// Fails with both values shown when they differ.
pub fn check_eq(actual: &Value, expected: &Value) -> Result<()> {
    if actual != expected {
        bail!(
            "records differ\nexpected: {}\nactual:   {}",
            serde_json::to_string_pretty(expected)?,
            serde_json::to_string_pretty(actual)?
        );
    }
    Ok(())
}

/// Replaces every value at `key` (anywhere in `value`) by `"<redacted>"`.
pub fn redact(value: &mut Value, key: &str) {
    match value {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                if k == key {
                    *v = Value::from("<redacted>");
                } else {
                    redact(v, key);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| redact(v, key)),
        _ => {}
    }
}

/// Writes a file in the working folder.
pub fn write_file(dir: &Path, name: &str, text: &str) -> Result<()> {
    std::fs::write(dir.join(name), text)?;
    Ok(())
}

/// Whether the session files under `dir` hold a user message of each of `texts`.
pub fn prompts_in_files(dir: &Path, texts: &[String]) -> bool {
    let messages: Vec<String> = session_files(dir)
        .iter()
        .filter_map(|file| std::fs::read_to_string(file).ok())
        .flat_map(|text| {
            text.lines()
                .filter_map(|line| serde_json::from_str::<Value>(line).ok())
                .filter(|entry| entry["type"] == "message" && entry["message"]["role"] == "user")
                .filter_map(|entry| {
                    entry["message"]["content"][0]["text"]
                        .as_str()
                        .map(str::to_owned)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    texts.iter().all(|text| messages.contains(text))
}

/// The session files (`*.jsonl`) under `dir`, at any depth.
pub fn session_files(dir: &Path) -> Vec<PathBuf> {
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

/// An exit status as a table shows it: the code, or `signal N` for a process a signal ended.
pub fn exit_text(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.code() {
        Some(code) => code.to_string(),
        None => format!("signal {}", status.signal().unwrap_or_default()),
    }
}
