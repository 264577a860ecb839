//! The runner's command line against bad scenarios and misbehaving agents: it reports, it never
//! hangs.

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

/// The runner, without the schema check: these tests' agents are echoes and shell scripts,
/// whose records no schema of pi's holds.
fn runner() -> Command {
    let mut command = Command::cargo_bin("pi-conformance").unwrap();
    command.env("PI_CONFORMANCE_NO_SCHEMA", "1");
    command
}

/// `pi-conformance run --agent <agent> --out <dir>/out <scenario>`, given 20 s.
fn run(dir: &Path, agent: &str, scenario: &Path) -> Command {
    let mut command = runner();
    command
        .args(["run", "--agent", agent, "--out"])
        .arg(dir.join("out"))
        .arg(scenario)
        .timeout(Duration::from_secs(20));
    command
}

/// `pi-conformance record --agent <agent> <scenario>` (given 30 s), which must succeed; returns
/// the `.recorded.yaml` file written beside the scenario.
fn record(agent: &str, scenario: &Path) -> String {
    runner()
        .args(["record", "--agent", agent])
        .arg(scenario)
        .timeout(Duration::from_secs(30))
        .assert()
        .success();
    std::fs::read_to_string(scenario.with_extension("recorded.yaml")).unwrap()
}

/// Writes `t.yaml`, a scenario that [`CAT`] passes: it expects its command echoed back.
fn echo_scenario(dir: &Path) -> PathBuf {
    write(
        dir,
        "t.yaml",
        &GET_STATE.replace("type: response}", "type: get_state}"),
    )
}

/// An agent that echoes every line.
const CAT: &str = "sh -c 'exec cat'";

const GET_STATE: &str = "id: t.001\ntitle: t\nsteps:\n  - send: {id: a, type: get_state}\n  - expect:\n      - {$partial: true, id: a, type: response}\n";

#[test]
fn a_malformed_scenario_is_rejected_with_file_line_and_column_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "bad.yaml",
        "id: b.001\ntitle: t\nsteps:\n  - send: {type: get_state}\n  - expcet: []\n",
    );
    runner()
        .args(["run", "--agent", "false"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.yaml:5:"))
        .stderr(predicate::str::contains("nothing was run"));
}

#[test]
fn duplicate_ids_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.yaml", GET_STATE);
    write(dir.path(), "b.yaml", GET_STATE);
    runner()
        .args(["list"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is also used by"));
}

#[test]
fn an_agent_that_never_answers_times_out_and_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let text = "id: t.001\ntitle: t\nsteps:\n  - send: {id: a, type: get_state}\n  - expect:\n      records: [{id: a}]\n      timeout_ms: 300\n";
    write(dir.path(), "t.yaml", text);
    let out = dir.path().join("out");
    run(
        dir.path(),
        "sh -c 'exec sleep 30'",
        &dir.path().join("t.yaml"),
    )
    .env("PI_CONFORMANCE_STARTUP_MS", "0")
    .assert()
    .code(1)
    .stdout(predicate::str::is_match(r"t\.001\s+timeout").unwrap());
    assert!(out.join("custom@0.84.1/t.001/result.txt").is_file());
}

#[test]
fn an_agent_that_dies_is_a_failure_with_its_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "t.yaml", GET_STATE);
    let agent = "sh -c 'read line; echo oops >&2; exit 3'";
    run(dir.path(), agent, &dir.path().join("t.yaml"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "agent closed stdout (exit: code 3)",
        ));
    let stderr =
        std::fs::read_to_string(dir.path().join("out/custom@0.84.1/t.001/stderr.txt")).unwrap();
    assert_eq!(stderr, "oops\n");
}

#[test]
fn an_agent_that_floods_stdout_is_cut_off() {
    let dir = tempfile::tempdir().unwrap();
    let text = "id: t.001\ntitle: t\nsteps:\n  - expect:\n      - $skip_until: {id: a}\n";
    write(dir.path(), "t.yaml", text);
    let line = "x".repeat(4000);
    run(
        dir.path(),
        &format!("sh -c 'yes {line}'"),
        &dir.path().join("t.yaml"),
    )
    .timeout(Duration::from_secs(60))
    .assert()
    .code(1)
    .stdout(predicate::str::contains("the agent flooded stdout"));
}

#[test]
fn an_echoing_agent_passes_and_json_output_says_so() {
    // `cat` echoes the command back: a record with id a and type get_state, not a response.
    let dir = tempfile::tempdir().unwrap();
    let scenario = echo_scenario(dir.path());
    let assert = run(dir.path(), CAT, &scenario)
        .args(["--format", "json"])
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(json["ok"], true);
    assert_eq!(json["scenarios"][0]["verdict"], "pass");
}

#[test]
fn a_baseline_entry_that_passes_is_stale_and_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = echo_scenario(dir.path());
    let baseline = write(dir.path(), "base.txt", "t.001 used to fail\n");
    run(dir.path(), CAT, &scenario)
        .arg("--baseline")
        .arg(&baseline)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("STALE"));
}

#[test]
fn report_writes_an_html_and_markdown_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = echo_scenario(dir.path());
    let out = dir.path().join("out");
    run(dir.path(), CAT, &scenario).assert().success();
    runner()
        .args(["report", "--out"])
        .arg(&out)
        .assert()
        .success();
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("<td class=\"pass\""), "{html}");
    assert!(
        html.contains("href=\"custom@0.84.1/t.001/result.txt\""),
        "{html}"
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("| t.001 | t | [pass](custom@0.84.1/t.001/result.txt) |"),
        "{md}"
    );
}

#[test]
fn list_filters_by_tag_and_shards() {
    let dir = tempfile::tempdir().unwrap();
    for (id, tag) in [("a.001", "x"), ("a.002", "y"), ("b.001", "x")] {
        let text = format!("id: {id}\ntitle: t\ntags: [{tag}]\nsteps:\n  - close_stdin\n");
        write(dir.path(), &format!("{id}.yaml"), &text);
    }
    let listed = |args: &[&str]| {
        let out = runner()
            .arg("list")
            .args(args)
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split('\t').next().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(listed(&["--filter", "tag:x"]), vec!["a.001", "b.001"]);
    assert_eq!(listed(&["--filter", "area:a."]), vec!["a.001", "a.002"]);
    assert_eq!(listed(&["--shard", "1/2"]), vec!["a.001", "b.001"]);
    assert_eq!(listed(&["--shard", "2/2"]), vec!["a.002"]);
}

#[test]
fn record_writes_what_the_agent_sent_with_placeholders() {
    let dir = tempfile::tempdir().unwrap();
    let text = "# yaml-language-server: $schema=x.json\nid: r.001\ntitle: t\nsteps:\n  - send: {id: \"01a22dc7-4932-70db-8cb1-d8b19f9126da\", type: echo}\n  - expect:\n      until: {type: echo}\n";
    let file = write(dir.path(), "r.yaml", text);
    let recorded = record(CAT, &file);
    assert!(
        recorded.starts_with("# yaml-language-server: $schema=x.json\n"),
        "{recorded}"
    );
    assert!(
        recorded.contains("  - expect:\n    - {id: \"{{uuid}}\", type: echo}\n"),
        "{recorded}"
    );
    // The recorded scenario passes against the same agent.
    run(dir.path(), CAT, &dir.path().join("r.recorded.yaml"))
        .assert()
        .success();
}

#[test]
fn diff_shows_where_two_agents_differ() {
    let dir = tempfile::tempdir().unwrap();
    let text = "id: d.001\ntitle: t\nsteps:\n  - send: {type: x}\n  - expect:\n      until: {$partial: true}\n";
    write(dir.path(), "d.yaml", text);
    runner()
        .args(["diff", "--agent", CAT, "--against"])
        .arg("sh -c 'read l; echo {\\\"type\\\":\\\"y\\\"}'")
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(predicate::str::contains("d.001: differs"))
        .stdout(predicate::str::contains("-      \"type\": \"x\""))
        .stdout(predicate::str::contains("+      \"type\": \"y\""));
    runner()
        .args(["diff", "--agent", CAT, "--against", CAT])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("d.001: same"));
}

#[test]
fn an_unknown_command_answer_is_reported_as_unimplemented() {
    let dir = tempfile::tempdir().unwrap();
    let text = "id: t.001\ntitle: t\nsteps:\n  - send: {id: a, type: get_state}\n  - expect:\n      - {$partial: true, id: a, type: response, success: true}\n";
    write(dir.path(), "t.yaml", text);
    let reply = r#"{"id":"a","type":"response","command":"get_state","success":false,"error":"Unknown command: get_state"}"#;
    let agent = format!(
        "sh -c 'read l; echo {}; read l'",
        reply.replace('"', "\\\"")
    );
    run(dir.path(), &agent, &dir.path().join("t.yaml"))
        .assert()
        .code(1)
        .stdout(predicate::str::is_match(r"t\.001\s+unimplemented").unwrap());
}

#[test]
fn expect_quiet_fails_when_a_record_arrives() {
    let dir = tempfile::tempdir().unwrap();
    let text = "id: q.001\ntitle: t\nsteps:\n  - expect_quiet: 200\n  - send: {type: x}\n  - expect_quiet: 2000\n";
    write(dir.path(), "q.yaml", text);
    run(dir.path(), CAT, &dir.path().join("q.yaml"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "step 3: expected no record for 2000 ms",
        ));
}

/// A scenario whose second command may crash the agent: the sound answer is an error record,
/// the tolerated one an exit with code 1 and a TypeError on stderr. A third command follows.
const CRASH_ALLOWED: &str = r#"id: x.001
title: t
steps:
  - send: {id: a, type: one}
  - expect:
      - {id: a, type: one}
  - send: {id: b, type: two}
  - expect:
      - $either:
          strict: {id: b, type: two}
          allow:
            - $exit: {code: 1, stderr_contains: "TypeError: boom"}
          reason: the agent crashes on two
  - send: {id: c, type: three}
  - expect:
      - {id: c, type: three}
"#;

/// An agent that echoes its first line, then prints `stderr` and exits with `code`.
fn crashing_agent(stderr: &str, code: i32) -> String {
    format!("sh -c 'read l; echo \"$l\"; read l; echo \"{stderr}\" >&2; exit {code}'")
}

fn run_json(dir: &Path, agent: &str, file: &Path) -> (Option<i32>, serde_json::Value) {
    let out = run(dir, agent, file)
        .args(["--format", "json"])
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap();
    (out.status.code(), json)
}

#[test]
fn an_allowed_exit_is_non_strict_and_ends_the_scenario_there() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "x.yaml", CRASH_ALLOWED);
    let (code, json) = run_json(dir.path(), &crashing_agent("TypeError: boom", 1), &file);
    let scenario = &json["scenarios"][0];
    assert_eq!(scenario["verdict"], "non-strict", "{json}");
    assert_eq!(code, Some(0), "{json}");
    assert!(
        scenario["message"]
            .as_str()
            .unwrap()
            .contains("the agent crashes on two"),
        "{json}"
    );
    // The third command was never sent: the agent was gone.
    let stdin =
        std::fs::read_to_string(dir.path().join("out/custom@0.84.1/x.001/stdin.txt")).unwrap();
    assert!(!stdin.contains("three"), "{stdin}");
    let result =
        std::fs::read_to_string(dir.path().join("out/custom@0.84.1/x.001/result.txt")).unwrap();
    assert!(result.contains("were not run"), "{result}");
}

#[test]
fn an_agent_that_answers_instead_of_exiting_passes_strictly_and_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "x.yaml", CRASH_ALLOWED);
    let (code, json) = run_json(dir.path(), CAT, &file);
    assert_eq!(json["scenarios"][0]["verdict"], "pass", "{json}");
    assert_eq!(code, Some(0));
    let stdin =
        std::fs::read_to_string(dir.path().join("out/custom@0.84.1/x.001/stdin.txt")).unwrap();
    assert!(stdin.contains("three"), "{stdin}");
}

#[test]
fn an_exit_with_another_code_or_stderr_than_allowed_fails() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "x.yaml", CRASH_ALLOWED);
    for agent in [
        crashing_agent("TypeError: boom", 2),
        crashing_agent("RangeError: boom", 1),
    ] {
        let (code, json) = run_json(dir.path(), &agent, &file);
        let scenario = &json["scenarios"][0];
        assert_eq!(scenario["verdict"], "fail", "{agent}: {json}");
        assert_eq!(code, Some(1));
        assert!(
            scenario["message"].as_str().unwrap().contains(
                "not the allowed one (exit code 1, stderr containing \"TypeError: boom\")"
            ),
            "{agent}: {json}"
        );
    }
}

#[test]
fn an_exit_where_no_exit_is_allowed_still_fails() {
    let dir = tempfile::tempdir().unwrap();
    let text = CRASH_ALLOWED.replace(
        "            - $exit: {code: 1, stderr_contains: \"TypeError: boom\"}\n",
        "            - {id: b, type: other}\n",
    );
    let file = write(dir.path(), "x.yaml", &text);
    let (_, json) = run_json(dir.path(), &crashing_agent("TypeError: boom", 1), &file);
    let scenario = &json["scenarios"][0];
    assert_eq!(scenario["verdict"], "fail", "{json}");
    assert!(
        scenario["message"]
            .as_str()
            .unwrap()
            .contains("closed stdout (exit: code 1) before the expected record"),
        "{json}"
    );
}

#[test]
fn record_keeps_the_scenarios_comments_and_layout() {
    let dir = tempfile::tempdir().unwrap();
    let text = r#"# yaml-language-server: $schema=x.json
# A leading comment.
id: r.002
title: t  # on the title
# Before the steps.
steps:
  # Before the first send.
  - send: {id: a, type: one}   # after a send
  - expect:
      # Inside an expect step: moved above it.
      - {id: a, type: "{{nonempty}}"}
  - send:
      # Inside a send.
      id: b
      type: two

  # Before the second expect.
  - expect:
      until: {type: two}
# After the steps.
trailing: fail
"#;
    let file = write(dir.path(), "r.yaml", text);
    let recorded = record(CAT, &file);
    let expected = r#"# yaml-language-server: $schema=x.json
# A leading comment.
id: r.002
title: t  # on the title
# Before the steps.
steps:
  # Before the first send.
  - send: {id: a, type: one}   # after a send
  # Inside an expect step: moved above it.
  - expect:
    - {id: a, type: one}
  - send:
      # Inside a send.
      id: b
      type: two

  # Before the second expect.
  - expect:
    - {id: b, type: two}
# After the steps.
trailing: fail
"#;
    assert_eq!(recorded, expected);
    run(dir.path(), CAT, &dir.path().join("r.recorded.yaml"))
        .assert()
        .success();
}

#[test]
fn record_after_an_allowed_exit_keeps_the_steps_it_could_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "x.yaml", CRASH_ALLOWED);
    let recorded = record(&crashing_agent("TypeError: boom", 1), &file);
    // The first expect step is re-recorded; the crash left nothing to record for the second,
    // and the third was never reached: both stay as written.
    let expected = CRASH_ALLOWED.replace(
        "  - expect:\n      - {id: a, type: one}\n",
        "  - expect:\n    - {id: a, type: one}\n",
    );
    assert_eq!(recorded, expected);
}
