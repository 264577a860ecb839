//! How the cost of commands grows with how many arrive at once, pi-agent and the reference side
//! by side in one run:
//! - a burst: N commands written in one go to an idle agent (four kinds in turn: `get_state`,
//!   `get_session_stats`, `get_messages`, `get_available_thinking_levels`), timed from the write
//!   to the last response, with the agent's peak RSS;
//! - the same burst while a run streams 10,000 text deltas (one write per event): the time to
//!   the last response, and whether the stream came through whole.
//!
//! Every command must be answered once, successfully, in the order sent. Ignored by default:
//! `cargo test --release -p pi-agent --test bench_concurrent_commands -- --ignored --nocapture`
//! (`PI_BENCH_COMMANDS=100,1000,10000` changes the sizes). Without the reference installed only
//! pi-agent's figures are printed.

mod bench_support;
mod support;

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use bench_support::{
    Implementation, implementations, measured_pid, median_run_of_three, mib, ms, peak_rss_kib,
};
use serde_json::{Value, json};
use support::{Agent, DEFAULT_ARGS, TestEnv, mock};
use tokio::io::AsyncWriteExt;
use tokio::process::ChildStdin;

const KINDS: [&str; 4] = [
    "get_state",
    "get_session_stats",
    "get_messages",
    "get_available_thinking_levels",
];
const DELTAS: usize = 10_000;

fn sizes() -> Vec<usize> {
    std::env::var("PI_BENCH_COMMANDS")
        .ok()
        .map(|text| {
            text.split(',')
                .filter_map(|n| n.trim().parse().ok())
                .collect()
        })
        .unwrap_or_else(|| vec![100, 1_000, 10_000])
}

/// `count` commands, one per line, ids `c0`, `c1`, ...
fn burst(count: usize) -> Vec<u8> {
    let mut text = String::new();
    for index in 0..count {
        let kind = KINDS[index % KINDS.len()];
        text.push_str(&json!({"id": format!("c{index}"), "type": kind}).to_string());
        text.push('\n');
    }
    text.into_bytes()
}

/// What one burst cost.
struct Figures {
    elapsed: Duration,
    peak_kib: u64,
    deltas: usize,
    /// Whether the run's `message_end` came before the last answer.
    stream_ended: bool,
}

/// Writes `count` commands at once (from a task of its own, so that neither side's pipe can
/// stall the other) and reads until each is answered; counts text deltas on the way. Gives
/// stdin back: closing it would end the agent.
async fn fire(agent: &mut Agent, count: usize, label: &str) -> Result<(Figures, ChildStdin)> {
    let mut stdin = agent.take_stdin().context("stdin taken")?;
    let bytes = burst(count);
    let started = Instant::now();
    let writer = tokio::spawn(async move {
        stdin.write_all(&bytes).await?;
        stdin.flush().await?;
        anyhow::Ok(stdin)
    });
    let (mut answered, mut deltas, mut stream_ended) = (0, 0, false);
    while answered < count {
        let line = agent.next_line().await?;
        if line.contains(r#""assistantMessageEvent":{"type":"text_delta""#) {
            deltas += 1;
            continue;
        }
        if line.starts_with(r#"{"type":"message_end""#) {
            stream_ended = true;
            continue;
        }
        if !line.starts_with(r#"{"id":"c"#) && !line.contains(r#""type":"response""#) {
            continue;
        }
        let response: Value = serde_json::from_str(&line)?;
        let expected = format!("c{answered}");
        if response["id"] != expected.as_str() || response["success"] != true {
            bail!("{label}: expected a successful answer to {expected}, got {line}");
        }
        answered += 1;
    }
    let elapsed = started.elapsed();
    let stdin = writer.await??;
    let pid = agent.child.id().context("no pid")?;
    let peak_kib = peak_rss_kib(measured_pid(pid))?;
    let figures = Figures {
        elapsed,
        peak_kib,
        deltas,
        stream_ended,
    };
    Ok((figures, stdin))
}

async fn idle_burst(implementation: &Implementation, count: usize) -> Result<Figures> {
    let env = TestEnv::new("http://127.0.0.1:9")?;
    let mut agent = env.spawn_program(&implementation.program, &DEFAULT_ARGS)?;
    agent.timeout = Duration::from_secs(300);
    agent.request(json!({"type": "get_state"})).await?;
    let (figures, _stdin) = fire(&mut agent, count, implementation.label).await?;
    agent.child.kill().await?;
    Ok(figures)
}

async fn burst_while_streaming(implementation: &Implementation, count: usize) -> Result<Figures> {
    let text = "x".repeat(DELTAS);
    let server = mock(&format!(
        "responses:\n  - content: [{{text: {text}, chunks: {DELTAS}}}]\n"
    ))
    .await?;
    let env = TestEnv::new(&server.uri())?;
    let mut agent = env.spawn_program(&implementation.program, &DEFAULT_ARGS)?;
    agent.timeout = Duration::from_secs(300);
    agent
        .send(json!({"type": "prompt", "message": "stream"}))
        .await?;
    agent
        .until(|r| r["assistantMessageEvent"]["type"] == "text_delta")
        .await?;
    let (mut figures, _stdin) = fire(&mut agent, count, implementation.label).await?;
    // The rest of the stream must come through too.
    while !figures.stream_ended {
        let line = agent.next_line().await?;
        if line.contains(r#""assistantMessageEvent":{"type":"text_delta""#) {
            figures.deltas += 1;
        }
        figures.stream_ended = line.starts_with(r#"{"type":"message_end""#);
    }
    // The first delta was read before the burst.
    figures.deltas += 1;
    if figures.deltas != DELTAS {
        bail!(
            "{}: {} deltas of {DELTAS}",
            implementation.label,
            figures.deltas
        );
    }
    agent.child.kill().await?;
    Ok(figures)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark; run it with --ignored --release"]
async fn commands_at_once() -> Result<()> {
    println!(
        "| commands at once | implementation | idle: last answer | idle: peak RSS | while 10,000 deltas stream: last answer |"
    );
    println!("|---|---|---|---|---|");
    for count in sizes() {
        for implementation in implementations() {
            let idle =
                median_run_of_three(|| idle_burst(&implementation, count), |run| run.elapsed)
                    .await?;
            let streaming = median_run_of_three(
                || burst_while_streaming(&implementation, count),
                |run| run.elapsed,
            )
            .await?;
            println!(
                "| {count} | {} | {} | {} | {} |",
                implementation.label,
                ms(idle.elapsed),
                mib(idle.peak_kib),
                ms(streaming.elapsed)
            );
        }
    }
    Ok(())
}
