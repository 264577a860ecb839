//! What the benchmarks share: the implementations measured side by side (ours, and the
//! reference when installed) and the peak memory of a process.

use std::path::PathBuf;

use anyhow::{Context, Result};

/// The command line of one implementation.
pub struct Implementation {
    pub label: &'static str,
    pub program: PathBuf,
}

/// pi-agent, then the reference when it is installed.
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

/// The peak resident set (`VmHWM`) of a process, in KiB.
pub fn peak_rss_kib(pid: u32) -> Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))
        .context("no VmHWM in /proc status")?;
    let kib = line
        .split_whitespace()
        .nth(1)
        .context("malformed VmHWM")?
        .parse()?;
    Ok(kib)
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
