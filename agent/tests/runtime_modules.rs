//! The runtime modules' own tests (`tests/runtime/*.test.mjs`, Node's test runner): each module
//! against goldens recorded from pi's real packages, and pi's example extensions loaded with
//! them as with the reference's packages. Run on every Node.js here that runs extensions
//! (`node` on `PATH`, the reference install's Node 22), since the modules must work on both.

mod extensions_support;
mod support;

use std::path::{Path, PathBuf};

use anyhow::{Result, ensure};

/// The test files, in name order.
fn test_files() -> Result<Vec<PathBuf>> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/runtime");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.to_string_lossy().ends_with(".test.mjs"))
        .collect();
    files.sort();
    Ok(files)
}

#[test]
fn the_runtime_modules_pass_their_tests_on_each_node() -> Result<()> {
    let nodes = extensions_support::all_nodes();
    let Some(_) = pi_reference::or_skip(nodes.first(), "no Node.js that runs extensions") else {
        return Ok(());
    };
    let files = test_files()?;
    ensure!(!files.is_empty(), "no runtime tests found");
    for node in &nodes {
        let output = std::process::Command::new(node)
            .arg("--test")
            .args(&files)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        let summary: Vec<&str> = stdout
            .lines()
            .filter(|line| {
                ["# tests", "# pass", "# fail", "# skipped"]
                    .iter()
                    .any(|key| line.starts_with(key))
            })
            .collect();
        eprintln!("{}: {}", node.display(), summary.join(", "));
        ensure!(
            output.status.success(),
            "node --test on {} failed:\n{stdout}\n{}",
            node.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}
