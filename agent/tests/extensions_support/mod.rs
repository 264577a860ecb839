//! Finding a Node.js that can run extensions, and the harness of the extension tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub mod harness;

/// The shared extension fixtures of the scenario corpus.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios/extui/fixtures")
        .join(name)
}

/// A Node.js that runs extensions, >= 20.6 ([`pi_reference::extension_node`]: `$PI_AGENT_NODE`, `node` on `PATH`,
/// or the reference's Node). `None` after saying why on stderr when there is none; a failure
/// instead when `PI_REQUIRE_REFERENCE` is set (CI).
pub fn node() -> Option<PathBuf> {
    let (major, minor) = pi_reference::EXTENSION_NODE_MIN;
    pi_reference::or_skip(
        pi_reference::extension_node(),
        &format!(
            "no Node.js >= {major}.{minor} for extensions (PI_AGENT_NODE, node on PATH, the \
             reference's Node); set PI_AGENT_NODE"
        ),
    )
}

/// Every Node.js here that runs extensions, one per version: `node` on `PATH`, then the
/// reference install's own (Node 22), so that both of pi-agent's loader paths are tried.
pub fn all_nodes() -> Vec<PathBuf> {
    let candidates = [
        Some(PathBuf::from("node")),
        pi_reference::launcher_path().and_then(|launcher| pi_reference::bundled_node(&launcher)),
    ];
    let mut found: Vec<(PathBuf, (u64, u64))> = Vec::new();
    for node in candidates.into_iter().flatten() {
        let Some(version) = pi_reference::node_version(&node) else {
            continue;
        };
        if pi_reference::runs_extensions(version) && !found.iter().any(|(_, seen)| *seen == version)
        {
            found.push((node, version));
        }
    }
    found.into_iter().map(|(node, _)| node).collect()
}
