//! What the side-by-side benchmarks share: the two implementations, their peak memory, medians.
#![allow(dead_code)]

use std::path::PathBuf;
use std::time::Duration;

pub mod limits;

use anyhow::{Context, Result};

/// The command line of one implementation.
pub struct Implementation {
    pub label: &'static str,
    pub program: PathBuf,
}

/// Ours, then the reference (`$PI_REFERENCE`, else `~/.cache/pi-reference/bin/pi`) when it is
/// installed.
pub fn implementations() -> Vec<Implementation> {
    let mut all = vec![Implementation {
        label: "pi-agent",
        program: PathBuf::from(env!("CARGO_BIN_EXE_pi-agent")),
    }];
    match pi_reference::launcher() {
        Some(path) => all.push(Implementation {
            label: "reference",
            program: path,
        }),
        None => eprintln!("reference pi not found (set PI_REFERENCE); measuring pi-agent only"),
    }
    all
}

/// A field of `/proc/<pid>/status` in KiB (`VmHWM` is the peak resident set, `VmRSS` the
/// current one).
pub fn status_kib(pid: u32, field: &str) -> Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status
        .lines()
        .find(|line| line.starts_with(field) && line[field.len()..].starts_with(':'))
        .with_context(|| format!("no {field} in /proc status"))?;
    let kib = line
        .split_whitespace()
        .nth(1)
        .with_context(|| format!("malformed {field}"))?
        .parse()?;
    Ok(kib)
}

/// CPU time (user and system) a process has used so far.
pub fn cpu_time(pid: u32) -> Result<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .context("malformed /proc stat")?
        .1
        .split_whitespace()
        .collect();
    let ticks = |index: usize| -> Result<u64> {
        Ok(fields.get(index).context("short /proc stat")?.parse()?)
    };
    // utime and stime, in clock ticks (100 per second on Linux).
    let total = ticks(11)? + ticks(12)?;
    Ok(Duration::from_millis(total * 10))
}

/// Peak resident memory (`VmHWM`) in KiB.
pub fn peak_rss_kib(pid: u32) -> Result<u64> {
    status_kib(pid, "VmHWM")
}

/// The process whose memory counts: the reference's launcher is a shell script that runs node
/// as its child, so the deepest descendant is measured.
pub fn measured_pid(pid: u32) -> u32 {
    let children =
        std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).unwrap_or_default();
    match children
        .split_whitespace()
        .next()
        .and_then(|c| c.parse().ok())
    {
        Some(child) => measured_pid(child),
        None => pid,
    }
}

/// The median of `values` (the upper one of an even count).
pub fn median<T: Ord + Copy>(values: &[T]) -> T {
    let mut sorted = values.to_vec();
    sorted.sort();
    sorted[sorted.len() / 2]
}

/// Runs `measure` three times, one after the other, and keeps the run whose `time` is the
/// median.
pub async fn median_run_of_three<T, F, Fut>(measure: F, time: impl Fn(&T) -> Duration) -> Result<T>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<T>>,
{
    let mut runs = Vec::with_capacity(3);
    for _ in 0..3 {
        runs.push(measure().await?);
    }
    runs.sort_by_key(|run| time(run));
    Ok(runs.swap_remove(1))
}

/// Milliseconds with one decimal.
pub fn ms(duration: Duration) -> String {
    format!("{:.1} ms", duration.as_secs_f64() * 1000.0)
}

/// MiB with one decimal.
pub fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}
