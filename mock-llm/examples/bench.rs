//! Benchmark: SSE events served per second over loopback, and the journal's cost.
//!
//! Run with `cargo run --release -p mock-llm --example bench`. Server and client share one
//! thread (a current-thread runtime), so the figures are for a single core.

use std::time::{Duration, Instant};

use mock_llm::{MockServer, Script};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const EVENTS: usize = 200_000;
const REQUESTS: usize = 5_000;

async fn stream_once(
    server: &MockServer,
    path: &str,
    body: &serde_json::Value,
) -> anyhow::Result<usize> {
    let body = body.to_string();
    let request = format!(
        "POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: k\r\nauthorization: Bearer k\r\nx-goog-api-key: k\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(server.addr()).await?;
    stream.write_all(request.as_bytes()).await?;
    let mut buf = vec![0u8; 256 * 1024];
    let mut total = 0;
    loop {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        total += n;
    }
    Ok(total)
}

/// CPU time used by this process so far (user + system), from /proc on Linux.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after_name = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // Fields 14 and 15 of the file (utime, stime), counted from after the command name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    // One text block cut into EVENTS deltas: EVENTS + 6 Anthropic events, one write each.
    let script = Script::from_json_value(
        json!({"responses": [{"content": [{"text": "x".repeat(EVENTS), "chunks": EVENTS}], "repeat": true}]}),
        "bench",
    )?;
    let server = MockServer::start(script).await?;
    println!("mock-llm benchmark (one thread for server and client)");
    for (name, path, body) in [
        (
            "anthropic-messages",
            "/v1/messages",
            json!({"model": "m", "stream": true, "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}),
        ),
        (
            "openai-completions",
            "/v1/chat/completions",
            json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]}),
        ),
        (
            "openai-responses",
            "/v1/responses",
            json!({"model": "m", "stream": true, "input": "hi"}),
        ),
        (
            "google-generative-ai",
            "/v1beta/models/m:streamGenerateContent?alt=sse",
            json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}),
        ),
    ] {
        // Warm up, then measure.
        stream_once(&server, path, &body).await?;
        let started = Instant::now();
        let cpu_before = cpu_time();
        let bytes = stream_once(&server, path, &body).await?;
        let elapsed = started.elapsed();
        let cpu = cpu_time()
            .zip(cpu_before)
            .map(|(after, before)| after.saturating_sub(before));
        let entry = server.journal().last().cloned();
        let writes = match entry.map(|e| e.outcome) {
            Some(mock_llm::Outcome::Completed { chunks }) => chunks,
            other => anyhow::bail!("unexpected outcome {other:?}"),
        };
        let per_cpu = cpu
            .filter(|c| !c.is_zero())
            .map(|c| {
                format!(
                    "{:>9.0} events per CPU-second",
                    writes as f64 / c.as_secs_f64()
                )
            })
            .unwrap_or_default();
        println!(
            "{name:22} {writes:>7} events in {:>7.1} ms: {:>9.0} events/s, {:>6.1} MB/s; {per_cpu}",
            elapsed.as_secs_f64() * 1e3,
            writes as f64 / elapsed.as_secs_f64(),
            bytes as f64 / elapsed.as_secs_f64() / 1e6
        );
    }

    // Journal overhead: many short requests, each journaled with its parsed body.
    server.load_script(Script::reply("ok"));
    server.reset();
    let client = reqwest::Client::new();
    let url = format!("{}/v1/chat/completions", server.uri());
    for (label, filler) in [("small body", 0usize), ("64 KiB body", 64 * 1024)] {
        server.reset();
        let body = json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "y".repeat(filler.max(1))}]});
        let started = Instant::now();
        for _ in 0..REQUESTS {
            client
                .post(&url)
                .bearer_auth("k")
                .json(&body)
                .send()
                .await?
                .bytes()
                .await?;
        }
        let elapsed = started.elapsed();
        println!(
            "{REQUESTS} short streamed requests, {label:11}: {:>7.0} requests/s ({:.1} µs each, journal included)",
            REQUESTS as f64 / elapsed.as_secs_f64(),
            elapsed.as_secs_f64() * 1e6 / REQUESTS as f64
        );
        let started = Instant::now();
        let journal = server.journal();
        let snapshot = started.elapsed();
        let started = Instant::now();
        let text = serde_json::to_string(&journal)?;
        let serialize = started.elapsed();
        println!(
            "  journal of {} entries: snapshot {:.2} ms, serialised ({} KiB) {:.2} ms",
            journal.len(),
            snapshot.as_secs_f64() * 1e3,
            text.len() / 1024,
            serialize.as_secs_f64() * 1e3
        );
    }
    tokio::time::sleep(Duration::from_millis(10)).await;
    server.shutdown().await;
    Ok(())
}
