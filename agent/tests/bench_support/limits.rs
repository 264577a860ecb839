//! What the machine itself needs for the work the side-by-side benchmark times, so that each
//! agent's figure can be stated as a multiple of it:
//! - a bare spawn: a static binary of a few lines (built here with `rustc`), spawned as the
//!   agents are, answering one line, so start-up is compared with what any process costs;
//! - the mock to a discarding reader: the same delta stream requested over HTTP and read to its
//!   end without looking at it (the most any agent between the mock and a client could do);
//! - a raw copy: the agent's output bytes sent through a pipe (`cat`) and read back as lines
//!   by the same reader the benchmark uses.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The source of the bare binary: read one line, answer one.
const BARE_SOURCE: &str = r#"
use std::io::{BufRead, Write};
fn main() {
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    let _ = std::io::stdout().write_all(b"{\"type\":\"response\"}\n");
}
"#;

/// Builds the bare binary in `dir` (statically linked, optimised) and gives its path.
pub fn build_bare_binary(dir: &Path) -> Result<PathBuf> {
    let source = dir.join("bare.rs");
    let program = dir.join("bare");
    std::fs::write(&source, BARE_SOURCE)?;
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let status = std::process::Command::new(rustc)
        .args(["-O", "-C", "target-feature=+crt-static", "-o"])
        .arg(&program)
        .arg(&source)
        .status()
        .context("running rustc for the bare binary")?;
    if !status.success() {
        bail!("rustc could not build the bare binary");
    }
    Ok(program)
}

/// Spawn to the first answer line of `program` (median of `runs`).
pub async fn bare_spawn(program: &Path, runs: usize) -> Result<Duration> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        let mut child = tokio::process::Command::new(program)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()?;
        let mut stdin = child.stdin.take().context("no stdin")?;
        stdin.write_all(b"{\"type\":\"get_state\"}\n").await?;
        let mut lines = BufReader::new(child.stdout.take().context("no stdout")?).lines();
        lines.next_line().await?.context("no answer")?;
        times.push(started.elapsed());
        drop(stdin);
        child.wait().await?;
    }
    Ok(super::median(&times))
}

/// The delta stream of `base_url` (an Anthropic Messages mock) requested and read to its end,
/// discarding it: the time from the request to the last byte, and the bytes.
pub async fn mock_to_discard(base_url: &str) -> Result<(Duration, usize)> {
    let client = reqwest::Client::new();
    let body = serde_json::json!({
        "model": "mock-model-1", "max_tokens": 8192, "stream": true,
        "messages": [{"role": "user", "content": "stream"}]
    });
    let started = Instant::now();
    let mut response = client
        .post(format!("{base_url}/v1/messages"))
        .header("x-api-key", "mock-key")
        .header("anthropic-version", "2023-06-01")
        .json(&body)
        .send()
        .await?
        .error_for_status()?;
    let mut bytes = 0;
    while let Some(chunk) = response.chunk().await? {
        bytes += chunk.len();
    }
    Ok((started.elapsed(), bytes))
}

/// `output` (lines) through `cat` and back, read line by line as the benchmark reads an
/// agent: the time from the first write to the last line.
pub async fn raw_copy(output: &[u8]) -> Result<Duration> {
    let mut cat = tokio::process::Command::new("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let mut stdin = cat.stdin.take().context("no stdin")?;
    let mut lines = BufReader::new(cat.stdout.take().context("no stdout")?).lines();
    let expected = output.iter().filter(|&&byte| byte == b'\n').count();
    let data = output.to_vec();
    let started = Instant::now();
    let writer = tokio::spawn(async move {
        stdin.write_all(&data).await?;
        drop(stdin);
        anyhow::Ok(())
    });
    let mut count = 0;
    while lines.next_line().await?.is_some() {
        count += 1;
    }
    let elapsed = started.elapsed();
    writer.await??;
    cat.wait().await?;
    if count != expected {
        bail!("cat gave back {count} lines of {expected}");
    }
    Ok(elapsed)
}
