//! Runs for one release of pi's RPC protocol: scenarios outside their `releases` are `n/a` (or
//! must fail, with `--outside`), `$since` picks the release's pattern, the registry's rules adapt
//! older scenarios, and results are keyed by agent and release.

#![allow(clippy::unwrap_used)] // helpers of tests, outside #[test] functions

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use predicates::prelude::*;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// `pi-conformance run --agent <agent> --release <release> --out <dir>/out <scenario> [more]`.
fn run(dir: &Path, agent: &str, release: &str, scenario: &Path, more: &[&str]) -> Command {
    let mut command = Command::cargo_bin("pi-conformance").unwrap();
    command
        // The echo agent writes the commands back as its records: no schema holds for them.
        .args([
            "run",
            "--no-schema",
            "--agent",
            agent,
            "--release",
            release,
            "--out",
        ])
        .arg(dir.join("out"))
        .args(more)
        .arg(scenario)
        .timeout(Duration::from_secs(20));
    command
}

/// An agent that echoes every line.
const CAT: &str = "sh -c 'exec cat'";

/// A scenario the echoing agent passes on every release: it expects its command back, with a
/// `data` key only from 0.99.1 (which the echo has, so before 0.99.1 it fails).
const SINCE: &str = "id: r.001\ntitle: t\nsteps:\n  - send: {id: a, type: x, data: 1}\n  - expect:\n      - {id: a, type: x, data: {$since: {\"0.99.1\": 1}}}\n";

#[test]
fn since_picks_the_pattern_of_the_release() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = write(dir.path(), "t.yaml", SINCE);
    run(dir.path(), CAT, "0.99.1", &scenario, &[])
        .assert()
        .success();
    run(dir.path(), CAT, "0.87.1", &scenario, &[])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("$.data: unexpected key"));
    assert!(
        dir.path()
            .join("out/custom@0.87.1/r.001/result.txt")
            .is_file()
    );
    assert!(dir.path().join("out/custom@0.99.1/results.json").is_file());
}

#[test]
fn a_scenario_outside_its_releases_is_not_applicable_and_must_fail_there_with_outside() {
    let dir = tempfile::tempdir().unwrap();
    let text = SINCE.replace("title: t\n", "title: t\nreleases: \">=0.99.1\"\n");
    let scenario = write(dir.path(), "t.yaml", &text);
    run(dir.path(), CAT, "0.87.1", &scenario, &[])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"r\.001\s+n/a").unwrap());
    // Outside its releases it fails, as it should: the run is good.
    run(dir.path(), CAT, "0.87.1", &scenario, &["--outside"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "failing outside their releases, as they should: 1",
        ));
    // A range that leaves out a release the scenario passes on is too narrow.
    let narrow = SINCE.replace("title: t\n", "title: t\nreleases: \">=1.0.3\"\n");
    let scenario = write(dir.path(), "t.yaml", &narrow);
    run(dir.path(), CAT, "0.99.1", &scenario, &["--outside"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("PASSING outside their releases"));
}

#[test]
fn a_malformed_range_or_since_or_unknown_change_is_refused_at_load() {
    let dir = tempfile::tempdir().unwrap();
    for (text, message) in [
        (
            SINCE.replace("title: t\n", "title: t\nreleases: \">=0.99\"\n"),
            "t.yaml:3:1: release range `>=0.99`",
        ),
        (SINCE.replace("\"0.99.1\"", "\"0.99\""), "on release 0.84.1"),
        (
            SINCE.replace("title: t\n", "title: t\nchanges: [no-such-change]\n"),
            "`no-such-change` is not a change listed",
        ),
    ] {
        let scenario = write(dir.path(), "t.yaml", &text);
        run(dir.path(), CAT, "0.84.1", &scenario, &[])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
}

#[test]
fn an_unknown_release_is_refused_with_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = write(dir.path(), "t.yaml", SINCE);
    run(dir.path(), CAT, "0.90.0", &scenario, &[])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "release 0.90.0 is not one the runner knows",
        ))
        .stderr(predicate::str::contains("0.84.1, 0.84.2"));
}

#[test]
fn the_report_puts_an_agents_releases_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let text = SINCE.replace("title: t\n", "title: t\nreleases: \">=0.99.1\"\n");
    let scenario = write(dir.path(), "t.yaml", &text);
    for release in ["1.6.0", "0.84.1", "0.99.1"] {
        run(dir.path(), CAT, release, &scenario, &[])
            .assert()
            .success();
    }
    let out = dir.path().join("out");
    Command::cargo_bin("pi-conformance")
        .unwrap()
        .args(["report", "--out"])
        .arg(&out)
        .assert()
        .success();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains(
            "| custom | 0.84.1 | n/a 1 |\n| custom | 0.99.1 | pass 1 |\n| custom | 1.6.0 | pass 1 |"
        ),
        "{md}"
    );
    assert!(
        md.contains("| r.001 | t | n/a | [pass](custom@0.99.1/r.001/result.txt) | [pass](custom@1.6.0/r.001/result.txt) |"),
        "{md}"
    );
}
