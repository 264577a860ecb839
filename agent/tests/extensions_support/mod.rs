//! Finding a Node.js that can run extensions, for the extension tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The oldest Node.js pi-agent's extension host runs on.
const MIN_NODE: (u64, u64) = (22, 6);

/// The shared extension fixtures of the scenario corpus.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios/extui/fixtures")
        .join(name)
}

/// A Node.js >= 22.6: `$PI_AGENT_NODE`, the reference's Node (next to `$PI_REFERENCE` or in
/// `~/.cache/pi-reference`), or `node` on `PATH`. `None` after saying why on stderr when there
/// is none; a failure instead when `PI_REQUIRE_REFERENCE` is set (CI).
pub fn node() -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(node) = std::env::var_os("PI_AGENT_NODE").filter(|v| !v.is_empty()) {
        candidates.push(PathBuf::from(node));
    }
    let launcher = std::env::var_os("PI_REFERENCE")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|home| PathBuf::from(home).join(".cache/pi-reference/bin/pi"))
        });
    if let Some(root) = launcher
        .as_deref()
        .and_then(Path::parent)
        .and_then(Path::parent)
    {
        candidates.push(root.join("0.84.1/node/node_modules/node/bin/node"));
    }
    candidates.push(PathBuf::from("node"));
    for candidate in &candidates {
        if version_of(candidate).is_some_and(|version| version >= MIN_NODE) {
            return Some(candidate.clone());
        }
    }
    let why = format!(
        "no Node.js >= {}.{} for extensions (tried {candidates:?}); set PI_AGENT_NODE",
        MIN_NODE.0, MIN_NODE.1
    );
    assert!(
        std::env::var_os("PI_REQUIRE_REFERENCE").is_none(),
        "{why} (PI_REQUIRE_REFERENCE is set)"
    );
    eprintln!("skipped: {why}");
    None
}

fn version_of(node: &Path) -> Option<(u64, u64)> {
    let output = std::process::Command::new(node)
        .arg("--version")
        .output()
        .ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let mut parts = text.trim().strip_prefix('v')?.split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}
