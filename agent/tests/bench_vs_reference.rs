//! The benchmark of issue 6, ours and the reference side by side in one run:
//! - start-up: spawn to the first `get_state` response (median of several spawns);
//! - memory: peak RSS (`VmHWM`) over a 50-turn tool-using conversation against the mock;
//! - throughput: time for 10,000 text deltas to pass through (first `message_update` to
//!   `message_end`), twice: with the mock's body in one write, which measures the agent, and
//!   with one write per event, as a provider streams, where the mock's 10,000 flushes bound
//!   both agents (the mock alone needs about 40 ms for them).
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
    Implementation, implementations, measured_pid, median_run_of_three, peak_rss_kib,
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

async fn start_up(env: &TestEnv, implementation: &Implementation) -> Result<Duration> {
    let mut times = Vec::with_capacity(STARTS);
    for _ in 0..STARTS {
        let started = Instant::now();
        let mut agent = spawn(env, implementation)?;
        agent.request(json!({"type": "get_state"})).await?;
        times.push(started.elapsed());
        agent.close_stdin();
        agent.wait_exit().await?;
    }
    times.sort();
    Ok(times[STARTS / 2])
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

async fn delta_throughput(implementation: &Implementation, coalesce: bool) -> Result<Duration> {
    let text = "x".repeat(DELTAS);
    let framing = if coalesce {
        "\n    framing: {coalesce: true}"
    } else {
        ""
    };
    let script =
        format!("responses:\n  - content: [{{text: {text}, chunks: {DELTAS}}}]{framing}\n");
    let server = mock(&script).await?;
    let env = TestEnv::new(&server.uri())?;
    let mut agent = spawn(&env, implementation)?;
    agent
        .send(json!({"type": "prompt", "message": "stream"}))
        .await?;
    agent
        .until(|r| r["assistantMessageEvent"]["type"] == "text_delta")
        .await?;
    let started = Instant::now();
    let mut deltas = 1;
    // Lines are matched as text: parsing 10,000 records here would cost more than the agent
    // spends on them. Both agents write `type` first, compactly.
    loop {
        let line = agent.next_line().await?;
        if line.contains(r#""assistantMessageEvent":{"type":"text_delta""#) {
            deltas += 1;
        }
        if line.starts_with(r#"{"type":"message_end""#) {
            break;
        }
    }
    let elapsed = started.elapsed();
    if deltas != DELTAS {
        bail!(
            "{}: {deltas} deltas instead of {DELTAS}",
            implementation.label
        );
    }
    agent.close_stdin();
    agent.wait_exit().await?;
    Ok(elapsed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark; run it with --ignored --release"]
async fn compare_with_reference() -> Result<()> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    println!(
        "| implementation | start to first get_state | peak RSS, {TURNS}-turn conversation | {DELTAS} text deltas, body in one write | {DELTAS} text deltas, one write per event |"
    );
    println!("|---|---|---|---|---|");
    for implementation in implementations() {
        let start = start_up(&env, &implementation).await?;
        let rss = conversation_peak_rss(&implementation).await?;
        let coalesced =
            median_run_of_three(|| delta_throughput(&implementation, true), |time| *time).await?;
        let per_event =
            median_run_of_three(|| delta_throughput(&implementation, false), |time| *time).await?;
        println!(
            "| {} | {:.1} ms | {:.1} MiB | {:.1} ms | {:.1} ms |",
            implementation.label,
            start.as_secs_f64() * 1000.0,
            rss as f64 / 1024.0,
            coalesced.as_secs_f64() * 1000.0,
            per_event.as_secs_f64() * 1000.0
        );
    }
    Ok(())
}
