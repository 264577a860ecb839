//! Our agent for the integration tests: built from the current code, then found where the runner
//! looks for it, so that no test drives a stale `pi-agent`.

use std::path::{Path, PathBuf};
use std::process::Command;

use pi_conformance::agent::find_ours;

/// Builds `pi-agent` (a no-op when it is fresh) and returns its path. With `PI_AGENT_BIN` set the
/// tests drive that program instead, and nothing is built.
pub fn build_ours() -> Result<PathBuf, String> {
    if std::env::var_os("PI_AGENT_BIN").is_none_or(|bin| bin.is_empty()) {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "-p", "pi-agent", "--bin", "pi-agent"])
            .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
            .status()
            .map_err(|e| format!("cannot run cargo build -p pi-agent: {e}"))?;
        if !status.success() {
            return Err("cargo build -p pi-agent failed".into());
        }
    }
    find_ours().map_err(|e| e.to_string())
}
