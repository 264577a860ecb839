//! `file` steps with `within_ms`: a file the agent writes late passes when the step waits for
//! it, and fails when the step does not wait or the file never comes.

#![allow(clippy::unwrap_used)] // helpers of tests, outside #[test] functions

use std::path::Path;
use std::time::{Duration, Instant};

use assert_cmd::Command;

/// An agent that, after its first line, waits a second, writes `late.txt` in its working folder
/// and then echoes what follows.
const LATE_WRITER: &str =
    "sh -c 'read l; sleep 1; printf \"written late\\n\" > late.txt; exec cat'";

/// A scenario that sends one line and at once checks `path`, with `file_extra` added to the
/// `file` step.
fn scenario(dir: &Path, path: &str, file_extra: &str) -> std::path::PathBuf {
    let text = format!(
        "id: f.001\ntitle: t\nsteps:\n  - send: {{type: go}}\n  - file:\n      path: {path}\n      text: \"written late\\n\"\n{file_extra}"
    );
    let file = dir.join("f.yaml");
    std::fs::write(&file, text).unwrap();
    file
}

/// Runs the scenario against [`LATE_WRITER`]; returns the exit code, the JSON report and the
/// time the run took.
fn run(dir: &Path, scenario: &Path) -> (Option<i32>, serde_json::Value, Duration) {
    let started = Instant::now();
    let out = Command::cargo_bin("pi-conformance")
        .unwrap()
        // The late writer is a shell script, whose records no schema of pi's holds.
        .env("PI_CONFORMANCE_NO_SCHEMA", "1")
        .args(["run", "--format", "json", "--agent", LATE_WRITER, "--out"])
        .arg(dir.join("out"))
        .arg(scenario)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap();
    (out.status.code(), json, started.elapsed())
}

/// The run failed at the file step with `message`.
fn assert_failed_with(code: Option<i32>, json: &serde_json::Value, message: &str) {
    let scenario = &json["scenarios"][0];
    assert_eq!(scenario["verdict"], "fail", "{json}");
    assert_eq!(scenario["message"], message, "{json}");
    assert_eq!(code, Some(1), "{json}");
}

#[test]
fn a_file_written_late_passes_when_the_step_waits_for_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), "late.txt", "      within_ms: 20000\n");
    let (code, json, _) = run(dir.path(), &file);
    assert_eq!(json["scenarios"][0]["verdict"], "pass", "{json}");
    assert_eq!(code, Some(0), "{json}");
}

#[test]
fn a_file_written_late_fails_when_the_step_does_not_wait() {
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), "late.txt", "");
    let (code, json, _) = run(dir.path(), &file);
    assert_failed_with(code, &json, "step 2: late.txt does not exist");
}

#[test]
fn a_file_that_never_comes_fails_after_the_wait_with_the_last_message() {
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), "never.txt", "      within_ms: 1500\n");
    let (code, json, took) = run(dir.path(), &file);
    assert_failed_with(code, &json, "step 2: never.txt does not exist");
    assert!(
        took >= Duration::from_millis(1500),
        "gave up after {took:?}"
    );
}

#[test]
fn a_file_that_comes_but_differs_fails_with_the_last_attempts_message() {
    let dir = tempfile::tempdir().unwrap();
    let file = scenario(dir.path(), "late.txt", "      within_ms: 4000\n")
        .to_string_lossy()
        .into_owned();
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("written late\\n", "something else\\n")).unwrap();
    let (code, json, _) = run(dir.path(), Path::new(&file));
    assert_failed_with(code, &json, "step 2: late.txt differs");
}
