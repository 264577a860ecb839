//! The benchmark of issue 6, ours and the reference side by side in one run:
//! - start-up: spawn to the first `get_state` response (median of several spawns);
//! - memory: peak RSS (`VmHWM`) over a 50-turn tool-using conversation against the mock;
//! - throughput: time for 10,000 text deltas to pass through (first `message_update` to
//!   `message_end`), twice: with the mock's body in one write, which measures the agent, and
//!   with one write per event, as a provider streams, where the mock's 10,000 flushes bound
//!   both agents (the mock alone needs about 40 ms for them);
//! - the machine's limits for the same work: a bare spawn of a static binary, the mock's stream
//!   read by a client that discards it, and a raw copy of the agent's output through a pipe
//!   ([`bench_support::limits`]).
//!
//! Ignored by default. Run it with an optimised build:
//! `cargo test --release -p pi-agent --test bench_vs_reference -- --ignored --nocapture`.
//! The reference is `$PI_REFERENCE`, else `~/.cache/pi-reference/bin/pi`; without it only our
//! figures are printed.

mod bench_support;
mod support;

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use bench_support::{
    Implementation, implementations, limits, measured_pid, median, median_run_of_three, mib, ms,
    peak_rss_kib,
};
use serde_json::json;
use support::{Agent, DEFAULT_ARGS, TestEnv, mock};

const STARTS: usize = 5;
const TURNS: usize = 50;
const DELTAS: usize = 10_000;

fn spawn(env: &TestEnv, implementation: &Implementation) -> Result<Agent> {
    let mut agent = env.spawn_program(&implementation.program, &DEFAULT_ARGS)?;
    agent.timeout = Duration::from_secs(120);
    Ok(agent)
}

/// Spawn to the first `get_state` answer, and the resident memory (`VmRSS`) once it is idle
/// after it (100 ms later): medians of [`STARTS`] spawns.
async fn start_up(env: &TestEnv, implementation: &Implementation) -> Result<(Duration, u64)> {
    let mut times = Vec::with_capacity(STARTS);
    let mut idle = Vec::with_capacity(STARTS);
    for _ in 0..STARTS {
        let started = Instant::now();
        let mut agent = spawn(env, implementation)?;
        agent.request(json!({"type": "get_state"})).await?;
        times.push(started.elapsed());
        tokio::time::sleep(Duration::from_millis(100)).await;
        let pid = measured_pid(agent.child.id().context("no pid")?);
        idle.push(bench_support::status_kib(pid, "VmRSS")?);
        agent.close_stdin();
        agent.wait_exit().await?;
    }
    Ok((median(&times), median(&idle)))
}

async fn conversation_peak_rss(implementation: &Implementation) -> Result<u64> {
    let script = format!(
        "responses:\n  - content: [{{tool_call: {{name: read, arguments: {{path: a.txt}}}}}}]\n    times: {}\n  - text: done\n",
        TURNS - 1
    );
    let server = mock(&script).await?;
    let env = TestEnv::new(&server.uri())?;
    support::write_file(&env.work_dir(), "a.txt", &"some file content\n".repeat(200))?;
    let mut agent = spawn(&env, implementation)?;
    agent
        .send(json!({"type": "prompt", "message": "read it again and again"}))
        .await?;
    let records = agent.until(|r| r["type"] == "agent_settled").await?;
    let turns = records.iter().filter(|r| r["type"] == "turn_start").count();
    if turns != TURNS {
        bail!("{}: {turns} turns instead of {TURNS}", implementation.label);
    }
    let pid = agent.child.id().context("no pid")?;
    let peak = peak_rss_kib(measured_pid(pid))?;
    agent.close_stdin();
    agent.wait_exit().await?;
    Ok(peak)
}

/// The mock script of [`DELTAS`] text deltas (the body in one write with `coalesce`).
fn delta_script(coalesce: bool) -> String {
    let text = "x".repeat(DELTAS);
    let framing = if coalesce {
        "\n    framing: {coalesce: true}"
    } else {
        ""
    };
    format!(
        "responses:\n  - content: [{{text: {text}, chunks: {DELTAS}}}]{framing}\n    times: 100\n"
    )
}

/// One streamed answer through an agent.
struct DeltaRun {
    /// From the first `text_delta` record to `message_end`.
    stream: Duration,
    /// From the prompt's write to `message_end`.
    whole: Duration,
    /// The lines from the first delta to `message_end`, as read.
    output: Vec<u8>,
}

async fn delta_throughput(implementation: &Implementation, coalesce: bool) -> Result<DeltaRun> {
    let server = mock(&delta_script(coalesce)).await?;
    let env = TestEnv::new(&server.uri())?;
    let mut agent = spawn(&env, implementation)?;
    agent.request(json!({"type": "get_state"})).await?;
    let sent = Instant::now();
    agent
        .send(json!({"type": "prompt", "message": "stream"}))
        .await?;
    let first = agent
        .until(|r| r["assistantMessageEvent"]["type"] == "text_delta")
        .await?;
    let started = Instant::now();
    let mut output = first
        .last()
        .map(|r| format!("{r}\n"))
        .unwrap_or_default()
        .into_bytes();
    let mut deltas = 1;
    // Lines are matched as text: parsing 10,000 records here would cost more than the agent
    // spends on them. Both agents write `type` first, compactly.
    loop {
        let line = agent.next_line().await?;
        if line.contains(r#""assistantMessageEvent":{"type":"text_delta""#) {
            deltas += 1;
        }
        output.extend_from_slice(line.as_bytes());
        output.push(b'\n');
        if line.starts_with(r#"{"type":"message_end""#) {
            break;
        }
    }
    let stream = started.elapsed();
    let whole = sent.elapsed();
    if deltas != DELTAS {
        bail!(
            "{}: {deltas} deltas instead of {DELTAS}",
            implementation.label
        );
    }
    agent.close_stdin();
    agent.wait_exit().await?;
    Ok(DeltaRun {
        stream,
        whole,
        output,
    })
}

/// What the machine needs for the same work (see [`bench_support::limits`]): a bare spawn,
/// the mock's stream to a discarding reader (median of 3), and a raw copy of `output`.
async fn print_limits(output: &[u8]) -> Result<()> {
    let scratch = tempfile::tempdir()?;
    let bare = limits::build_bare_binary(scratch.path())?;
    let spawn = limits::bare_spawn(&bare, STARTS).await?;
    let server = mock(&delta_script(true)).await?;
    let mut discards = Vec::new();
    for _ in 0..3 {
        discards.push(limits::mock_to_discard(&server.uri()).await?);
    }
    discards.sort();
    let (discard, bytes) = discards[1];
    let mut copies = Vec::new();
    for _ in 0..3 {
        copies.push(limits::raw_copy(output).await?);
    }
    println!(
        "| the machine's limit | bare spawn of a static binary: {} | | mock to a discarding reader, request to last byte ({bytes} bytes): {}; a raw copy of the agent's {} output bytes through a pipe: {} | |",
        ms(spawn),
        ms(discard),
        output.len(),
        ms(median(&copies))
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark; run it with --ignored --release"]
async fn compare_with_reference() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    println!(
        "| implementation | start to first get_state (idle RSS after it) | peak RSS, {TURNS}-turn conversation | {DELTAS} text deltas, body in one write: first delta to message_end (prompt to message_end) | {DELTAS} text deltas, one write per event |"
    );
    println!("|---|---|---|---|---|");
    let mut output = Vec::new();
    for implementation in implementations() {
        let (start, idle) = start_up(&env, &implementation).await?;
        let rss = conversation_peak_rss(&implementation).await?;
        let coalesced =
            median_run_of_three(|| delta_throughput(&implementation, true), |run| run.stream)
                .await?;
        let per_event = median_run_of_three(
            || delta_throughput(&implementation, false),
            |run| run.stream,
        )
        .await?;
        println!(
            "| {} | {} ({}) | {} | {} ({}) | {} |",
            implementation.label,
            ms(start),
            mib(idle),
            mib(rss),
            ms(coalesced.stream),
            ms(coalesced.whole),
            ms(per_event.stream),
        );
        if output.is_empty() {
            output = coalesced.output;
        }
    }
    print_limits(&output).await
}
