//! The schema is the reference's own contract: TypeScript types generated from each release's
//! schema (json-schema-to-typescript, after `conformance/schema-ts/prepare.mjs`) are checked
//! with tsc against the type declarations that release's package ships: `RpcCommand`,
//! `RpcResponse`, the session events (`JsonAgentSessionEvent`), `RpcExtensionUIRequest` and
//! `RpcExtensionUIResponse`, each variant field by field, both ways
//! (`conformance/schema-ts/check.mjs` writes the checks and runs tsc once per release).
//!
//! Every check that fails must be listed, with its reason, in
//! `conformance/schema-ts/differences.md`; an entry that no longer matches a failure fails too.
//!
//! Needs the reference install (0.84.1 and 1.6.0) and the generator and tsc
//! (`conformance/schema-ts/install.sh`): without them the test says so and passes, unless
//! `PI_REQUIRE_REFERENCE` is set.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests, outside #[test] functions

use std::path::{Path, PathBuf};

use serde_json::Value;

const RELEASES: [&str; 2] = ["0.84.1", "1.6.0"];

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("schema-ts")
}

/// One entry of differences.md: `` - `PATTERN` (RELEASE, RELEASE): reason ``.
struct Difference {
    pattern: String,
    releases: Vec<String>,
    line: usize,
}

fn differences() -> Vec<Difference> {
    let text = std::fs::read_to_string(here().join("differences.md")).unwrap();
    let mut entries = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let Some(rest) = line.strip_prefix("- `") else {
            continue;
        };
        let (pattern, rest) = rest
            .split_once("` (")
            .expect("- `PATTERN` (RELEASES): reason");
        let (releases, reason) = rest
            .split_once("): ")
            .expect("- `PATTERN` (RELEASES): reason");
        assert!(
            !reason.trim().is_empty(),
            "differences.md:{}: no reason",
            number + 1
        );
        entries.push(Difference {
            pattern: pattern.to_owned(),
            releases: releases.split(", ").map(str::to_owned).collect(),
            line: number + 1,
        });
    }
    entries
}

/// `*` stands for one word of the label (a tag value or field name), nothing else.
fn matches(pattern: &str, label: &str) -> bool {
    let (p, l): (Vec<_>, Vec<_>) = (pattern.split(' ').collect(), label.split(' ').collect());
    p.len() == l.len() && p.iter().zip(&l).all(|(p, l)| *p == "*" || p == l)
}

#[test]
fn matching_is_by_whole_words() {
    assert!(matches(
        "command * id gen->ref",
        "command prompt id gen->ref"
    ));
    assert!(!matches(
        "command * id gen->ref",
        "command prompt id ref->gen"
    ));
    assert!(!matches("command * id", "command prompt id gen->ref"));
    assert!(!matches(
        "event * keys: gen-only",
        "event variants: gen-only"
    ));
}

/// The failing checks of `release`, as (label, tsc's message).
fn failures(tools: &Path, node: &Path, release: &str) -> Option<Vec<(String, String)>> {
    let launcher = pi_reference::or_skip(
        pi_reference::release_launcher(release),
        &format!(
            "the reference {release} is not installed (conformance/reference/install.sh {release})"
        ),
    )?;
    let package = pi_reference::package_dir(&launcher, "pi-coding-agent")?;
    let schema = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(format!("schema/pi-rpc-{release}.schema.json"));
    let work = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(node)
        .arg(here().join("check.mjs"))
        .args([tools, &schema, &package, work.path()])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "check.mjs failed on {release}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let found: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    Some(
        found
            .iter()
            .map(|f| {
                let text = |key: &str| f[key].as_str().unwrap().to_owned();
                (text("label"), text("message"))
            })
            .collect(),
    )
}

#[test]
fn generated_types_match_the_reference_declarations() {
    let Some(launcher) = pi_reference::launcher_or_skip("the schema against the reference's types")
    else {
        return;
    };
    let Some(node) = pi_reference::or_skip(
        pi_reference::bundled_node(&launcher),
        "the reference install has no Node.js where install.sh puts it",
    ) else {
        return;
    };
    let tools = launcher
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("tools/schema-ts");
    let installed = tools.join("node_modules/typescript/package.json").is_file()
        && tools
            .join("node_modules/json-schema-to-typescript/package.json")
            .is_file();
    let Some(tools) = pi_reference::or_skip(
        installed.then_some(tools),
        "json-schema-to-typescript and tsc are not installed: run conformance/schema-ts/install.sh",
    ) else {
        return;
    };
    let listed = differences();
    let mut problems = Vec::new();
    let mut used = vec![Vec::<String>::new(); listed.len()];
    let mut checked = 0;
    for release in RELEASES {
        let Some(failed) = failures(&tools, &node, release) else {
            continue;
        };
        checked += 1;
        for (label, message) in &failed {
            let entry = listed.iter().position(|d| {
                d.releases.iter().any(|r| r == release) && matches(&d.pattern, label)
            });
            match entry {
                Some(index) => used[index].push(release.to_owned()),
                None => problems.push(format!(
                    "{release}: {label} (not in differences.md)\n    {}",
                    message.replace('\n', "\n    ")
                )),
            }
        }
    }
    if checked == RELEASES.len() {
        for (entry, used) in listed.iter().zip(&used) {
            for release in &entry.releases {
                if !used.contains(release) {
                    problems.push(format!(
                        "differences.md:{}: `{}` no longer differs on {release}: remove it",
                        entry.line, entry.pattern
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
