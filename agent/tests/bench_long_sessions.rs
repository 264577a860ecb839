//! Long sessions, ours and the reference side by side in one run (issue 12):
//! - loading: a version 3 session file of N turns (a user message of about 300 bytes and an
//!   assistant reply of about 2 KiB each) is opened with `switch_session`, then read back with
//!   `get_messages`, `get_entries` and `get_tree`; each answer is timed from the command to the
//!   end of its response line (median of three fresh processes), and the process's peak RSS
//!   (`VmHWM`) is taken after `get_messages` and after the last command. Each size is written
//!   twice: in `JSON.stringify`'s form, as pi writes it, and as Python's `json.dumps` writes it
//!   by default (`", "` and `": "` separators, non-ASCII escaped as `\u00e9`), which the loader
//!   must normalise (`PI_BENCH_FORMS=canonical` or `python` picks one);
//! - a live run: `PI_BENCH_PROMPTS` prompts (default 2,000) against the mock, each answered with
//!   a `read` tool call and then text, in a persisted session; per-prompt latency (prompt to
//!   `agent_settled`) and resident memory are reported per tenth of the run, with the peak
//!   memory and the agent's CPU time over the whole run. Each prompt's requests carry the whole
//!   history, so latency grows with it for both agents (the mock, in this process, parses every
//!   body too); the CPU time is the steadier figure on a busy machine.
//!
//! - a prompt on a loaded session: a fresh copy of a `PI_BENCH_PROMPT_TURNS`-turn file
//!   (default 30,000, about 90 MB) is opened with `switch_session`, then one `prompt` is
//!   answered by the mock; the time from the prompt to `agent_settled` and the peak RSS
//!   (`VmHWM`) against the file's size are reported (median of three fresh processes). The
//!   request carries the whole history, so this is the memory a request adds to a loaded session.
//!
//! Ignored by default. Run it with an optimised build:
//! `cargo test --release -p pi-agent --test bench_long_sessions -- --ignored --nocapture`
//! (`PI_BENCH_TURNS=1000,10000` picks the session sizes, `PI_BENCH_PROMPTS=500` shortens the
//! live run). The reference is `$PI_REFERENCE`, else `~/.cache/pi-reference/bin/pi`; without it
//! only our figures are printed.

mod bench_support;
mod support;

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use bench_support::{
    Implementation, cpu_time, implementations, measured_pid, median, mib, ms, peak_rss_kib,
    status_kib,
};
use serde_json::json;
use support::{Agent, DEFAULT_ARGS, TestEnv, mock};

const RUNS: usize = 3;
const DEFAULT_TURNS: [usize; 3] = [1_000, 10_000, 30_000];
const DEFAULT_PROMPTS: usize = 2_000;
const USER_TEXT_BYTES: usize = 300;
const ASSISTANT_TEXT_BYTES: usize = 2_048;

fn env_list(name: &str) -> Option<Vec<usize>> {
    let text = std::env::var(name).ok()?;
    text.split(',')
        .map(|part| part.trim().parse().ok())
        .collect()
}

/// Words to fill texts with (JSON-safe, varied enough not to look like one repeated byte).
fn filler(seed: usize, bytes: usize) -> String {
    const WORDS: [&str; 14] = [
        "session", "agent", "memory", "tree", "branch", "model", "reply", "stream", "token",
        "file", "entry", "turn", "café", "naïve",
    ];
    let mut text = String::with_capacity(bytes + 16);
    let mut index = seed;
    while text.len() < bytes {
        text.push_str(WORDS[index % WORDS.len()]);
        text.push(' ');
        index = index.wrapping_mul(7).wrapping_add(3);
    }
    let mut end = bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    text
}

/// The form a session file's lines are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `JSON.stringify`'s, as pi writes it.
    Canonical,
    /// Python's `json.dumps` defaults: `", "` and `": "` separators, non-ASCII escaped.
    Python,
}

impl Form {
    fn label(self) -> &'static str {
        match self {
            Self::Canonical => "canonical",
            Self::Python => "Python json.dumps",
        }
    }
}

/// A serde_json formatter writing as Python's `json.dumps` does by default.
struct PythonStyle;

impl serde_json::ser::Formatter for PythonStyle {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first {
            Ok(())
        } else {
            writer.write_all(b", ")
        }
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }

    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        for c in fragment.chars() {
            if c.is_ascii() {
                writer.write_all(&[c as u8])?;
            } else {
                let mut units = [0; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04x}")?;
                }
            }
        }
        Ok(())
    }
}

/// Writes one line of `value` in `form`.
fn write_line(out: &mut impl std::io::Write, value: &serde_json::Value, form: Form) -> Result<()> {
    match form {
        Form::Canonical => serde_json::to_writer(&mut *out, value)?,
        Form::Python => {
            let mut serializer = serde_json::Serializer::with_formatter(&mut *out, PythonStyle);
            serde::Serialize::serialize(value, &mut serializer)?;
        }
    }
    out.write_all(b"\n")?;
    Ok(())
}

/// Writes a session of `turns` user/assistant pairs in `form`; returns its size in bytes.
fn write_session(path: &Path, cwd: &Path, turns: usize, form: Form) -> Result<u64> {
    let file = std::fs::File::create(path)?;
    let mut out = std::io::BufWriter::new(file);
    let cwd = cwd.to_string_lossy();
    let header = json!({"type": "session", "version": 3,
        "id": "01a22dce-d5d3-7fc6-9dfa-7e69dd2c7164",
        "timestamp": "2026-11-30T18:54:19.603Z", "cwd": cwd});
    write_line(&mut out, &header, form)?;
    let model = json!({"type": "model_change", "id": "m0000000", "parentId": null,
        "timestamp": "2026-11-30T18:54:19.683Z", "provider": "mock", "modelId": "mock-model-1"});
    write_line(&mut out, &model, form)?;
    let thinking = json!({"type": "thinking_level_change", "id": "t0000000",
        "parentId": "m0000000", "timestamp": "2026-11-30T18:54:19.683Z", "thinkingLevel": "medium"});
    write_line(&mut out, &thinking, form)?;
    let mut parent = "t0000000".to_owned();
    let start_ms: u64 = 1_796_064_859_702;
    for turn in 0..turns {
        let at = start_ms + (turn as u64) * 1000;
        let stamp = iso(at);
        let user_id = format!("{:08x}", 2 * turn + 1);
        let user = json!({"type": "message", "id": user_id, "parentId": parent, "timestamp": stamp,
            "message": {"role": "user", "content": [{"type": "text", "text": filler(turn, USER_TEXT_BYTES)}],
            "timestamp": at}});
        write_line(&mut out, &user, form)?;
        let reply_id = format!("{:08x}", 2 * turn + 2);
        let reply = json!({"type": "message", "id": reply_id, "parentId": user_id, "timestamp": stamp,
            "message": {"role": "assistant",
                "content": [{"type": "text", "text": filler(turn + 5, ASSISTANT_TEXT_BYTES)}],
                "api": "anthropic-messages", "provider": "mock", "model": "mock-model-1",
                "usage": {"input": 1200, "output": 500, "cacheRead": 0, "cacheWrite": 0,
                    "totalTokens": 1700, "cost": {"input": 0.0036, "output": 0.0075,
                    "cacheRead": 0, "cacheWrite": 0, "total": 0.0111}, "cacheWrite1h": 0},
                "stopReason": "stop", "timestamp": at + 1, "responseId": format!("msg_{turn}"),
                "rawStopReason": "end_turn"}});
        write_line(&mut out, &reply, form)?;
        parent = reply_id;
    }
    out.flush()?;
    Ok(std::fs::metadata(path)?.len())
}

/// Milliseconds since the epoch as ISO 8601 (UTC), for entry timestamps.
fn iso(millis: u64) -> String {
    let secs = millis / 1000;
    let days = secs / 86_400;
    let rest = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest / 60 % 60,
        rest % 60,
        millis % 1000
    )
}

fn spawn(env: &TestEnv, implementation: &Implementation, args: &[&str]) -> Result<Agent> {
    let mut agent = env.spawn_program(&implementation.program, args)?;
    agent.timeout = Duration::from_secs(300);
    Ok(agent)
}

/// Sends `command` and reads lines (as text) up to its response; returns the time taken and
/// the response line.
async fn timed(agent: &mut Agent, command: serde_json::Value) -> Result<(Duration, String)> {
    let kind = command["type"].as_str().context("no type")?.to_owned();
    match timed_answer(agent, command).await? {
        (elapsed, Ok(line)) => Ok((elapsed, line)),
        (_, Err(line)) => bail!("{kind} failed: {}", &line[..line.len().min(400)]),
    }
}

/// Like [`timed`], with a failed answer (its line) as a result rather than an error.
async fn timed_answer(
    agent: &mut Agent,
    command: serde_json::Value,
) -> Result<(Duration, Result<String, String>)> {
    let kind = command["type"].as_str().context("no type")?.to_owned();
    let prefix = format!(r#"{{"type":"response","command":"{kind}","success":"#);
    let started = Instant::now();
    agent.send(command).await?;
    loop {
        let line = agent.next_line().await?;
        if line.starts_with(&prefix) {
            let elapsed = started.elapsed();
            let success = line[prefix.len()..].starts_with("true");
            return Ok((elapsed, if success { Ok(line) } else { Err(line) }));
        }
    }
}

/// A time, or `fails` when the answer was an error (the reference's `get_tree` overflows its
/// stack on long sessions).
fn ms_or_failure(time: Option<Duration>) -> String {
    time.map_or_else(|| "fails".to_owned(), ms)
}

/// One load of a session: times of `switch_session`, `get_messages`, `get_entries`,
/// `get_tree`, and peak RSS after `get_messages` and at the end.
struct Load {
    times: [Option<Duration>; 4],
    rss_after_messages: u64,
    rss_peak: u64,
}

async fn load_once(implementation: &Implementation, file: &Path, turns: usize) -> Result<Load> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = spawn(&env, implementation, &DEFAULT_ARGS)?;
    agent.request(json!({"type": "get_state"})).await?;
    let pid = measured_pid(agent.child.id().context("no pid")?);
    let path = file.to_string_lossy();
    let (switch, _) = timed(
        &mut agent,
        json!({"type": "switch_session", "sessionPath": path}),
    )
    .await?;
    let (messages, line) = timed(&mut agent, json!({"type": "get_messages"})).await?;
    let replies = line.matches(r#""role":"assistant""#).count();
    if replies != turns {
        bail!(
            "{}: {replies} replies instead of {turns}",
            implementation.label
        );
    }
    drop(line);
    let rss_after_messages = peak_rss_kib(pid)?;
    let (entries, entries_answer) =
        timed_answer(&mut agent, json!({"type": "get_entries"})).await?;
    let (tree, tree_answer) = timed_answer(&mut agent, json!({"type": "get_tree"})).await?;
    let rss_peak = peak_rss_kib(pid)?;
    agent.close_stdin();
    agent.wait_exit().await?;
    Ok(Load {
        times: [
            Some(switch),
            Some(messages),
            entries_answer.ok().map(|_| entries),
            tree_answer.ok().map(|_| tree),
        ],
        rss_after_messages,
        rss_peak,
    })
}

async fn load_median(implementation: &Implementation, file: &Path, turns: usize) -> Result<Load> {
    let mut loads = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        loads.push(load_once(implementation, file, turns).await?);
    }
    // `None` (a failed answer) sorts first: a column is a failure when most runs failed.
    let times = std::array::from_fn(|column| {
        median(
            &loads
                .iter()
                .map(|load| load.times[column])
                .collect::<Vec<_>>(),
        )
    });
    Ok(Load {
        times,
        rss_after_messages: median(
            &loads
                .iter()
                .map(|load| load.rss_after_messages)
                .collect::<Vec<_>>(),
        ),
        rss_peak: median(&loads.iter().map(|load| load.rss_peak).collect::<Vec<_>>()),
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark; run it with --ignored --release"]
async fn long_session_loading() -> Result<()> {
    let scratch = tempfile::tempdir()?;
    let turns_list = env_list("PI_BENCH_TURNS").unwrap_or_else(|| DEFAULT_TURNS.to_vec());
    let mut table = String::new();
    writeln!(
        table,
        "| turns (file) | form | implementation | switch_session | get_messages | get_entries | get_tree | peak RSS after get_messages | peak RSS after get_tree | peak / file |"
    )?;
    writeln!(table, "|---|---|---|---|---|---|---|---|---|---|")?;
    let forms = match std::env::var("PI_BENCH_FORMS").as_deref() {
        Ok("canonical") => vec![Form::Canonical],
        Ok("python") => vec![Form::Python],
        _ => vec![Form::Canonical, Form::Python],
    };
    for turns in turns_list {
        for &form in &forms {
            let file = scratch.path().join(format!("long-{turns}-{form:?}.jsonl"));
            let size = write_session(&file, scratch.path(), turns, form)?;
            for implementation in implementations() {
                let load = load_median(&implementation, &file, turns).await?;
                let [switch, messages, entries, tree] = load.times;
                let row = format!(
                    "| {turns} ({:.1} MB) | {} | {} | {} | {} | {} | {} | {} | {} | {:.2}x |",
                    size as f64 / 1e6,
                    form.label(),
                    implementation.label,
                    ms_or_failure(switch),
                    ms_or_failure(messages),
                    ms_or_failure(entries),
                    ms_or_failure(tree),
                    mib(load.rss_after_messages),
                    mib(load.rss_peak),
                    load.rss_peak as f64 * 1024.0 / size as f64
                );
                eprintln!("{row}");
                writeln!(table, "{row}")?;
            }
        }
    }
    println!("{table}");
    Ok(())
}

/// Latency (median per tenth of the run) and resident memory at the end of each tenth; the
/// peak memory and the CPU time the agent used over the run (steadier than latency on a busy
/// machine).
struct LiveRun {
    tenths: Vec<(Duration, u64)>,
    peak: u64,
    cpu: Duration,
}

async fn live_run(implementation: &Implementation, prompts: usize) -> Result<LiveRun> {
    let script = "responses:\n  - content: [{tool_call: {name: read, arguments: {path: a.txt}}}]\n  - text: Read it; the file holds a few lines of notes.\n";
    let server = mock(script).await?;
    let env = TestEnv::new(&server.uri())?;
    support::write_file(&env.work_dir(), "a.txt", &"a line of notes\n".repeat(8))?;
    let sessions = env.root.path().join("sessions");
    let sessions = sessions.to_string_lossy();
    let args = support::session_dir_args(&sessions);
    let mut agent = spawn(&env, implementation, &args)?;
    agent.request(json!({"type": "get_state"})).await?;
    let pid = measured_pid(agent.child.id().context("no pid")?);
    let tenth = prompts.div_ceil(10);
    let mut tenths = Vec::new();
    let mut window = Vec::with_capacity(tenth);
    for index in 0..prompts {
        server.reset();
        let started = Instant::now();
        agent
            .send(json!({"type": "prompt", "message": format!("prompt {index}: read a.txt")}))
            .await?;
        loop {
            let line = agent.next_line().await?;
            if line.starts_with(r#"{"type":"agent_settled""#) {
                break;
            }
        }
        window.push(started.elapsed());
        if window.len() == tenth || index + 1 == prompts {
            tenths.push((median(&window), status_kib(pid, "VmRSS")?));
            window.clear();
        }
    }
    let (_, line) = timed(&mut agent, json!({"type": "get_session_stats"})).await?;
    if !line.contains(&format!(r#""userMessages":{prompts}"#)) {
        bail!(
            "{}: not {prompts} user messages: {line}",
            implementation.label
        );
    }
    let peak = peak_rss_kib(pid)?;
    let cpu = cpu_time(pid)?;
    agent.close_stdin();
    agent.wait_exit().await?;
    Ok(LiveRun { tenths, peak, cpu })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark; run it with --ignored --release"]
async fn long_live_run() -> Result<()> {
    let prompts = env_list("PI_BENCH_PROMPTS")
        .and_then(|list| list.first().copied())
        .unwrap_or(DEFAULT_PROMPTS);
    let mut runs = Vec::new();
    for implementation in implementations() {
        let run = live_run(&implementation, prompts).await?;
        eprintln!(
            "{}: peak {}, CPU {:.1} s",
            implementation.label,
            mib(run.peak),
            run.cpu.as_secs_f64()
        );
        runs.push((implementation.label, run));
    }
    let mut table = String::from("| prompts |");
    for (label, _) in &runs {
        write!(table, " {label} latency (median) | {label} RSS |")?;
    }
    table.push_str("\n|---|");
    table.push_str(&"---|---|".repeat(runs.len()));
    table.push('\n');
    let tenth = prompts.div_ceil(10);
    for row in 0..runs.first().map_or(0, |(_, run)| run.tenths.len()) {
        let last = ((row + 1) * tenth).min(prompts);
        write!(table, "| {}-{last} |", row * tenth + 1)?;
        for (_, run) in &runs {
            let (latency, rss) = run.tenths[row];
            write!(table, " {} | {} |", ms(latency), mib(rss))?;
        }
        table.push('\n');
    }
    table.push_str("| peak RSS, CPU time of the run |");
    for (_, run) in &runs {
        write!(
            table,
            " {:.1} s | {} |",
            run.cpu.as_secs_f64(),
            mib(run.peak)
        )?;
    }
    println!("{table}");
    Ok(())
}

/// One prompt on a fresh copy of `file`: the time from `prompt` to `agent_settled` and the peak
/// RSS at the end.
async fn prompt_once(implementation: &Implementation, file: &Path) -> Result<(Duration, u64)> {
    let server = mock("responses:\n  - text: Noted.\n").await?;
    let env = TestEnv::new(&server.uri())?;
    let copy = env.root.path().join("session.jsonl");
    std::fs::copy(file, &copy)?;
    let mut agent = spawn(&env, implementation, &DEFAULT_ARGS)?;
    agent.request(json!({"type": "get_state"})).await?;
    let pid = measured_pid(agent.child.id().context("no pid")?);
    let path = copy.to_string_lossy();
    timed(
        &mut agent,
        json!({"type": "switch_session", "sessionPath": path}),
    )
    .await?;
    let started = Instant::now();
    agent
        .send(json!({"type": "prompt", "message": "One more thing: say noted."}))
        .await?;
    loop {
        let line = agent.next_line().await?;
        if line.starts_with(r#"{"type":"agent_settled""#) {
            break;
        }
        if line.contains(r#""stopReason":"error""#) {
            bail!(
                "{}: the prompt failed: {}",
                implementation.label,
                &line[..line.len().min(400)]
            );
        }
    }
    let elapsed = started.elapsed();
    let peak = peak_rss_kib(pid)?;
    agent.close_stdin();
    agent.wait_exit().await?;
    Ok((elapsed, peak))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark; run it with --ignored --release"]
async fn prompt_on_a_long_session() -> Result<()> {
    let turns = env_list("PI_BENCH_PROMPT_TURNS")
        .and_then(|list| list.first().copied())
        .unwrap_or(30_000);
    let scratch = tempfile::tempdir()?;
    let file = scratch.path().join(format!("long-{turns}.jsonl"));
    let size = write_session(&file, scratch.path(), turns, Form::Canonical)?;
    let mut table = String::new();
    writeln!(
        table,
        "| turns (file) | implementation | prompt to agent_settled | peak RSS | peak / file |"
    )?;
    writeln!(table, "|---|---|---|---|---|")?;
    for implementation in implementations() {
        let mut times = Vec::with_capacity(RUNS);
        let mut peaks = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            let (time, peak) = prompt_once(&implementation, &file).await?;
            times.push(time);
            peaks.push(peak);
        }
        let peak = median(&peaks);
        let row = format!(
            "| {turns} ({:.1} MB) | {} | {} | {} | {:.2}x |",
            size as f64 / 1e6,
            implementation.label,
            ms(median(&times)),
            mib(peak),
            peak as f64 * 1024.0 / size as f64
        );
        eprintln!("{row}");
        writeln!(table, "{row}")?;
    }
    println!("{table}");
    Ok(())
}
