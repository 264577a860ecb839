//! The `bash` tool: runs a command in its own process group, streams the tail of its output as
//! partial results (at most one per 100 ms), keeps the full output in a temporary file when it is
//! cut, and reports exit codes, timeouts and aborts with the reference's texts.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::process::{Child, Command};
use tokio::time::{Instant, sleep_until};

use super::args::BashArgs;
use super::output::{OutputAccumulator, Snapshot};
use super::shell::read_some;
use super::truncate::{DEFAULT_MAX_BYTES, TruncatedBy, format_size};
use super::{ToolContext, ToolError, ToolOutcome, ToolResult, ToolUpdate, js, shell, text_block};
use crate::release::Feature;

/// Longest timeout the reference accepts (the largest 32-bit millisecond delay).
const MAX_TIMEOUT_MS: f64 = 2_147_483_647.0;
/// Least time between two streamed partial results.
const UPDATE_INTERVAL: Duration = Duration::from_millis(100);
/// How long output may keep arriving after the shell exited (from background children that
/// hold the pipes) before the command counts as finished.
const EXIT_STDIO_GRACE: Duration = Duration::from_millis(100);
/// Session variables the reference removes from the inherited environment.
const SESSION_VARIABLES: [&str; 5] = [
    "PI_SESSION_ID",
    "PI_SESSION_FILE",
    "PI_PROVIDER",
    "PI_MODEL",
    "PI_REASONING_LEVEL",
];

/// How a command run ended, when it did not end by itself.
enum Interrupted {
    Aborted,
    TimedOut(f64),
    Failed(String),
}

/// Streams throttled partial results.
struct Updates<'a> {
    sink: &'a mut (dyn FnMut(ToolUpdate) + Send),
    dirty: bool,
    last: Option<Instant>,
    timer: Option<Instant>,
}

impl Updates<'_> {
    fn data_arrived(&mut self, output: &mut OutputAccumulator) {
        self.dirty = true;
        let due = self.last.map(|last| last + UPDATE_INTERVAL);
        match due {
            Some(due) if due > Instant::now() => {
                self.timer.get_or_insert(due);
            }
            _ => {
                self.timer = None;
                self.emit(output);
            }
        }
    }

    fn emit(&mut self, output: &mut OutputAccumulator) {
        if !self.dirty {
            return;
        }
        self.dirty = false;
        self.last = Some(Instant::now());
        let snapshot = output.snapshot(true);
        let mut details = Map::new();
        if snapshot.truncation.truncated {
            details.insert("truncation".into(), to_value(&snapshot.truncation));
        }
        if let Some(path) = &snapshot.full_output_path {
            details.insert(
                "fullOutputPath".into(),
                Value::String(path.display().to_string()),
            );
        }
        (self.sink)(ToolUpdate {
            content: vec![text_block(snapshot.content)],
            details: Some(Value::Object(details)),
        });
    }
}

fn to_value(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

pub(super) async fn run(
    args: BashArgs,
    ctx: &ToolContext,
    on_update: &mut (dyn FnMut(ToolUpdate) + Send),
) -> ToolResult {
    let command = match &ctx.shell_command_prefix {
        Some(prefix) => format!("{prefix}\n{}", args.command),
        None => args.command.clone(),
    };
    let mut output = OutputAccumulator::new(&temp_dir(ctx));
    on_update(ToolUpdate {
        content: Vec::new(),
        details: None,
    });
    let mut updates = Updates {
        sink: on_update,
        dirty: false,
        last: None,
        timer: None,
    };
    let started = std::time::Instant::now();
    let ended = execute(&command, args.timeout, ctx, &mut output, &mut updates).await;
    let wall_time_seconds = (started.elapsed().as_secs_f64() * 10.0).round() / 10.0;

    output.finish();
    updates.timer = None;
    updates.emit(&mut output);
    let snapshot = output.snapshot(true);
    output.close_temp_file();
    let append_status = |text: String, status: &str| {
        if text.is_empty() {
            status.to_string()
        } else {
            format!("{text}\n\n{status}")
        }
    };
    match ended {
        Ok(code) => {
            // The command's output and exit code as data (pi's `structuredContent`).
            let mut structured = Map::new();
            structured.insert("output".into(), snapshot.content.clone().into());
            structured.insert("truncated".into(), snapshot.truncation.truncated.into());
            if let (true, Some(path)) = (snapshot.truncation.truncated, &snapshot.full_output_path)
            {
                structured.insert("full_output_path".into(), path.display().to_string().into());
            }
            structured.insert("exit_code".into(), code.into());
            structured.insert("wall_time_seconds".into(), wall_time_seconds.into());
            let (text, details) = format_output(&snapshot, &output, "(no output)");
            match code {
                Some(code) if code != 0 => Ok(ToolOutcome::error(append_status(
                    text,
                    &format!("Command exited with code {code}"),
                ))
                .with_structured(Feature::BashStructuredResult, Value::Object(structured))),
                _ => Ok(ToolOutcome::success(vec![text_block(text)], details)
                    .with_structured(Feature::BashStructuredResult, Value::Object(structured))),
            }
        }
        Err(interrupted) => {
            let (text, _) = format_output(&snapshot, &output, "");
            Err(ToolError::new(match interrupted {
                Interrupted::Aborted => append_status(text, "Command aborted"),
                Interrupted::TimedOut(seconds) => append_status(
                    text,
                    &format!(
                        "Command timed out after {} seconds",
                        js::number_to_string(seconds)
                    ),
                ),
                Interrupted::Failed(message) => message,
            }))
        }
    }
}

/// The result text: the output tail (or `empty`) and, when cut, a notice naming the full log.
fn format_output(
    snapshot: &Snapshot,
    output: &OutputAccumulator,
    empty: &str,
) -> (String, Option<Value>) {
    let truncation = &snapshot.truncation;
    let mut text = if snapshot.content.is_empty() {
        empty.to_string()
    } else {
        snapshot.content.clone()
    };
    if !truncation.truncated {
        return (text, None);
    }
    let full = snapshot.full_output_path.as_ref().map_or_else(
        || "undefined".to_string(),
        |path| path.display().to_string(),
    );
    let mut details = Map::new();
    details.insert("truncation".into(), to_value(truncation));
    details.insert("fullOutputPath".into(), Value::String(full.clone()));
    let start = truncation.total_lines + 1 - truncation.output_lines;
    let end = truncation.total_lines;
    if truncation.last_line_partial {
        text.push_str(&format!(
            "\n\n[Showing last {} of line {end} (line is {}). Full output: {full}]",
            format_size(truncation.output_bytes),
            format_size(output.last_line_bytes())
        ));
    } else if truncation.truncated_by == Some(TruncatedBy::Lines) {
        text.push_str(&format!(
            "\n\n[Showing lines {start}-{end} of {end}. Full output: {full}]"
        ));
    } else {
        text.push_str(&format!(
            "\n\n[Showing lines {start}-{end} of {end} ({} limit). Full output: {full}]",
            format_size(DEFAULT_MAX_BYTES)
        ));
    }
    (text, Some(Value::Object(details)))
}

/// Where the full output goes: the context's folder, else Node's `os.tmpdir()`.
fn temp_dir(ctx: &ToolContext) -> PathBuf {
    ctx.temp_dir.clone().unwrap_or_else(shell::temp_dir)
}

/// The environment of the command: ours, without inherited session variables, with the
/// context's, and with the agent's `bin` folder first on `PATH`.
fn environment(ctx: &ToolContext) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(key, _)| !SESSION_VARIABLES.iter().any(|name| key == name))
        .collect();
    if let Some(agent_dir) = &ctx.agent_dir {
        let bin = agent_dir.join("bin");
        let path_key = env
            .iter()
            .map(|(key, _)| key.clone())
            .find(|key| key.to_string_lossy().eq_ignore_ascii_case("path"))
            .unwrap_or_else(|| "PATH".into());
        let current = env
            .iter()
            .find(|(key, _)| *key == path_key)
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let has_bin = std::env::split_paths(&current).any(|entry| entry == bin);
        if !has_bin {
            let mut value = bin.into_os_string();
            if !current.is_empty() {
                value.push(":");
                value.push(&current);
            }
            env.retain(|(key, _)| *key != path_key);
            env.push((path_key, value));
        }
    }
    for (key, value) in &ctx.bash_env {
        env.retain(|(existing, _)| existing != key.as_str());
        env.push((key.into(), value.into()));
    }
    env
}

/// Runs the command to its end; `Ok` holds the exit code (`None` when a signal ended it).
async fn execute(
    command: &str,
    timeout: Option<f64>,
    ctx: &ToolContext,
    output: &mut OutputAccumulator,
    updates: &mut Updates<'_>,
) -> Result<Option<i32>, Interrupted> {
    if let Some(seconds) = timeout {
        if !seconds.is_finite() || seconds <= 0.0 {
            return Err(Interrupted::Failed(
                "Invalid timeout: must be a finite number of seconds".into(),
            ));
        }
        if seconds * 1000.0 > MAX_TIMEOUT_MS {
            return Err(Interrupted::Failed(format!(
                "Invalid timeout: maximum is {} seconds",
                js::number_to_string(MAX_TIMEOUT_MS / 1000.0)
            )));
        }
    }
    if ctx.cancel.is_cancelled() {
        return Err(Interrupted::Aborted);
    }
    let shell = shell::find(ctx.shell_path.as_deref())
        .and_then(|shell| shell::check_cwd(&ctx.cwd).map(|()| shell))
        .map_err(|error| Interrupted::Failed(error.to_string()))?;
    let mut child = Command::new(&shell)
        .arg("-c")
        .arg(command)
        .current_dir(&ctx.cwd)
        .env_clear()
        .envs(environment(ctx))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(|error| {
            let code = super::fs_error::code_and_description(&error).map_or("", |(code, _)| code);
            Interrupted::Failed(
                format!("spawn {} {code}", shell.display())
                    .trim_end()
                    .to_string(),
            )
        })?;
    let deadline = timeout.map(|seconds| Instant::now() + Duration::from_secs_f64(seconds));
    // If this call is dropped mid-run (the agent shutting down), take the command's process
    // group down with it, as the reference does on exit; what a finished command left in the
    // background ends with the agent (process_groups.rs).
    super::process_groups::started(child.id());
    let mut running = GroupGuard(child.id());
    let ended = pump(&mut child, deadline, ctx, output, updates).await;
    running.0 = None;
    if ended.aborted || ctx.cancel.is_cancelled() {
        return Err(Interrupted::Aborted);
    }
    if ended.timed_out {
        return Err(Interrupted::TimedOut(timeout.unwrap_or_default()));
    }
    Ok(ended.code)
}

/// How the pumping ended: the exit code (`None` after a signal) and whether we killed it.
struct Ended {
    code: Option<i32>,
    timed_out: bool,
    aborted: bool,
}

/// Kills the process group of a command still running when dropped.
struct GroupGuard(Option<u32>);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        super::process_groups::kill(self.0);
    }
}

/// Reads both pipes until the shell has exited and the pipes are closed or quiet.
async fn pump(
    child: &mut Child,
    deadline: Option<Instant>,
    ctx: &ToolContext,
    output: &mut OutputAccumulator,
    updates: &mut Updates<'_>,
) -> Ended {
    let pid = child.id();
    let (mut timed_out, mut aborted) = (false, false);
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let (mut out_buf, mut err_buf) = (vec![0u8; 65536], vec![0u8; 65536]);
    let mut exit: Option<Option<i32>> = None;
    let mut quiet_until: Option<Instant> = None;
    loop {
        if let Some(code) = exit
            && stdout.is_none()
            && stderr.is_none()
        {
            return Ended {
                code,
                timed_out,
                aborted,
            };
        }
        let far = Instant::now() + Duration::from_secs(86_400);
        // Biased: stop requests are never starved by a flood of output, and of two ready
        // pipes stdout is read first, as it was first to be written to when both are ready.
        tokio::select! {
            biased;
            () = sleep_until(deadline.unwrap_or(far)), if deadline.is_some() && !timed_out && exit.is_none() => {
                timed_out = true;
                super::process_groups::kill(pid);
            }
            () = ctx.cancel.cancelled(), if !aborted && exit.is_none() => {
                aborted = true;
                super::process_groups::kill(pid);
            }
            () = sleep_until(updates.timer.unwrap_or(far)), if updates.timer.is_some() => {
                updates.timer = None;
                updates.emit(output);
            }
            read = read_some(&mut stdout, &mut out_buf) => {
                match read {
                    Some(n) => {
                        output.append(&out_buf[..n]);
                        updates.data_arrived(output);
                        if exit.is_some() { quiet_until = Some(Instant::now() + EXIT_STDIO_GRACE); }
                    }
                    None => stdout = None,
                }
            }
            read = read_some(&mut stderr, &mut err_buf) => {
                match read {
                    Some(n) => {
                        output.append(&err_buf[..n]);
                        updates.data_arrived(output);
                        if exit.is_some() { quiet_until = Some(Instant::now() + EXIT_STDIO_GRACE); }
                    }
                    None => stderr = None,
                }
            }
            status = child.wait(), if exit.is_none() => {
                exit = Some(status.ok().and_then(|status| status.code()));
                quiet_until = Some(Instant::now() + EXIT_STDIO_GRACE);
            }
            () = sleep_until(quiet_until.unwrap_or(far)), if quiet_until.is_some() => {
                return Ended { code: exit.flatten(), timed_out, aborted };
            }
        }
    }
}
