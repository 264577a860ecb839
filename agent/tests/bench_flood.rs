//! Memory under a provider flood, ours and the reference side by side in one run: the peak RSS
//! (`VmHWM`) of an agent that streams 50 MB of text in 500,000 deltas, and one 20 MB delta, to
//! a client that reads every line (the median of three runs each), against the size of the
//! streamed text.
//!
//! Ignored by default. Run it with an optimised build:
//! `cargo test --release -p pi-agent --test bench_flood -- --ignored --nocapture`.
//! The reference is `$PI_REFERENCE`, else `~/.cache/pi-reference/bin/pi`; without it only our
//! figures are printed. `PI_FLOOD_SCALE=10` divides both texts by 10 for a quick look.

mod bench_support;
mod support;

use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use bench_support::{Implementation, implementations, measured_pid, median, peak_rss_kib};
use serde_json::json;
use support::{DEFAULT_ARGS, TestEnv};

const MIB: f64 = 1024.0 * 1024.0;

/// One flood: this much text in this many deltas.
#[derive(Clone, Copy)]
struct Flood {
    label: &'static str,
    bytes: usize,
    deltas: usize,
}

fn floods() -> [Flood; 2] {
    let scale: usize = std::env::var("PI_FLOOD_SCALE")
        .ok()
        .and_then(|scale| scale.parse().ok())
        .unwrap_or(1)
        .max(1);
    [
        Flood {
            label: "50 MB in 500,000 deltas",
            bytes: 50_000_000 / scale,
            deltas: 500_000 / scale,
        },
        Flood {
            label: "one 20 MB delta",
            bytes: 20_000_000 / scale,
            deltas: 1,
        },
    ]
}

/// Streams one flood through an agent; its peak RSS and the time from prompt to settled.
async fn flood_once(implementation: &Implementation, flood: Flood) -> Result<(u64, Duration)> {
    // Letters and spaces: text a model writes, and nothing JSON must escape.
    let text: String = "lorem ipsum dolor sit amet "
        .chars()
        .cycle()
        .take(flood.bytes)
        .collect();
    let content = if flood.deltas == 1 {
        json!([{"text": [text]}])
    } else {
        json!([{"text": text, "chunks": flood.deltas}])
    };
    let script = json!({"responses": [{"content": content, "framing": {"coalesce": true}}]});
    let server =
        mock_llm::MockServer::start(mock_llm::Script::from_json_value(script, "flood")?).await?;
    let env = TestEnv::new(&server.uri())?;
    let mut agent = env.spawn_program(&implementation.program, &DEFAULT_ARGS)?;
    agent.timeout = Duration::from_secs(600);
    let started = Instant::now();
    agent
        .send(json!({"type": "prompt", "message": "flood"}))
        .await?;
    // Lines are matched as text: parsing them would cost the reader more than the agents spend.
    let mut deltas = 0;
    loop {
        let line = agent.next_line().await?;
        if line.starts_with(r#"{"type":"message_update""#) && line.contains(r#""text_delta""#) {
            deltas += 1;
        }
        if line.starts_with(r#"{"type":"agent_settled""#) {
            break;
        }
    }
    let elapsed = started.elapsed();
    if deltas != flood.deltas {
        bail!(
            "{}: {deltas} deltas instead of {}",
            implementation.label,
            flood.deltas
        );
    }
    let pid = agent.child.id().context("no pid")?;
    let peak = peak_rss_kib(measured_pid(pid))? * 1024;
    agent.close_stdin();
    agent.wait_exit().await?;
    Ok((peak, elapsed))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a benchmark; run it with --ignored --release"]
async fn peak_memory_under_a_provider_flood() -> Result<()> {
    println!(
        "| implementation | flood | peak RSS (median of 3) | peak / text | time (median of 3) |"
    );
    println!("|---|---|---|---|---|");
    for flood in floods() {
        for implementation in implementations() {
            let mut runs = Vec::with_capacity(3);
            for _ in 0..3 {
                runs.push(flood_once(&implementation, flood).await?);
            }
            let peaks: Vec<u64> = runs.iter().map(|(peak, _)| *peak).collect();
            let times: Vec<Duration> = runs.iter().map(|(_, time)| *time).collect();
            let peak = median(&peaks);
            println!(
                "| {} | {} | {:.1} MiB | {:.1}x | {:.2} s |",
                implementation.label,
                flood.label,
                peak as f64 / MIB,
                peak as f64 / flood.bytes as f64,
                median(&times).as_secs_f64()
            );
        }
    }
    Ok(())
}
