//! The runner's schema check in a run: a record that departs from the schema fails the
//! scenario, unless the record itself is one a recorded divergence (an `$either`'s allowed
//! alternative) matched. The agent is `cat`, fed with `send_raw` lines (which are not checked as
//! commands), so each test chooses the records exactly.

#![allow(clippy::unwrap_used)] // helpers of tests, outside #[test] functions

use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

/// The records departing from pi 0.84.1's schema (`steeringMode` outside its enum) or following
/// it, as `send_raw` lines.
const BOGUS_MODE: &str = r#"{\"id\":\"g\",\"type\":\"response\",\"command\":\"get_state\",\"success\":true,\"data\":{\"steeringMode\":\"bogus\"}}\n"#;
const ACCEPTED: &str =
    r#"{\"id\":\"s\",\"type\":\"response\",\"command\":\"set_steering_mode\",\"success\":true}\n"#;

/// Runs `scenario` (YAML) with the schema check on against `cat`; the scenario's JSON result.
fn verdict(scenario: &str) -> Value {
    verdict_of("sh -c 'exec cat'", scenario)
}

/// An agent that takes its first command as pi 0.84.1 takes `set_thinking_level` with an
/// unknown level: it announces thinking off, then answers with a success.
const LEVEL_OFF: &str = r#"sh -c 'read l; echo "{\"type\":\"thinking_level_changed\",\"level\":\"off\"}"; echo "{\"id\":\"x\",\"type\":\"response\",\"command\":\"set_thinking_level\",\"success\":true}"; exec cat >/dev/null'"#;

/// Runs `scenario` with the schema check on against `agent`; the scenario's JSON result.
fn verdict_of(agent: &str, scenario: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.yaml");
    std::fs::write(&file, scenario).unwrap();
    let out = Command::cargo_bin("pi-conformance")
        .unwrap()
        .env_remove("PI_CONFORMANCE_NO_SCHEMA")
        .args(["run", "--release", "0.84.1", "--format", "json"])
        .args(["--agent", agent, "--out"])
        .arg(dir.path().join("out"))
        .arg(&file)
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    json["scenarios"][0].clone()
}

const EITHER_ON_BOGUS: &str = r#"id: x.001
title: t
steps:
  - send_raw: "BOGUS"
  - expect:
      - $either:
          strict: {$partial: true, id: g, data: {steeringMode: all}}
          allow:
            - {$partial: true, id: g, data: {steeringMode: bogus}}
          reason: the reference stores any mode
"#;

#[test]
fn a_departing_record_a_divergence_matched_is_excused_and_named() {
    let result = verdict(&EITHER_ON_BOGUS.replace("BOGUS", BOGUS_MODE));
    assert_eq!(result["verdict"], "non-strict", "{result}");
    let message = result["message"].as_str().unwrap();
    assert!(
        message.contains("the reference stores any mode"),
        "{message}"
    );
    assert!(
        message.contains("record 1 departs from the schema of pi 0.84.1 (/data/steeringMode"),
        "{message}"
    );
}

const EITHER_ELSEWHERE: &str = r#"id: x.002
title: t
steps:
  - send_raw: "ACCEPTED"
  - expect:
      - $either:
          strict: {id: s, type: response, command: set_steering_mode, success: false}
          allow:
            - {id: s, type: response, command: set_steering_mode, success: true}
          reason: the reference accepts any mode
  - send_raw: "BOGUS"
  - expect:
      - {$partial: true, id: g, data: {steeringMode: bogus}}
"#;

#[test]
fn a_divergence_elsewhere_in_the_run_does_not_excuse_a_departing_record() {
    let scenario = EITHER_ELSEWHERE
        .replace("ACCEPTED", ACCEPTED)
        .replace("BOGUS", BOGUS_MODE);
    let result = verdict(&scenario);
    assert_eq!(result["verdict"], "fail", "{result}");
    let message = result["message"].as_str().unwrap();
    assert!(
        message.contains("record 2 does not follow the schema of pi 0.84.1"),
        "{message}"
    );
    assert!(
        result["detail"]
            .as_str()
            .unwrap()
            .contains("/data/steeringMode"),
        "{result}"
    );
}

#[test]
fn a_departing_record_matched_strictly_fails_with_its_path() {
    let scenario = EITHER_ON_BOGUS
        .replace("BOGUS", BOGUS_MODE)
        .replace("steeringMode: all}", "steeringMode: bogus}");
    let result = verdict(&scenario);
    assert_eq!(result["verdict"], "fail", "{result}");
    assert!(
        result["message"]
            .as_str()
            .unwrap()
            .contains("record 1 does not follow the schema"),
        "{result}"
    );
}

const UNKNOWN_LEVEL: &str = r#"id: x.003
title: t
steps:
  - send: {id: x, type: set_thinking_level, level: extreme}
  - expect:
      records:
        - EXPECTED
        - {id: x, type: response, command: set_thinking_level, success: true}
"#;

#[test]
fn an_accepted_departing_command_is_excused_by_a_divergence_in_its_handling_only() {
    let either = "$either: {strict: {id: x, type: response, success: false}, allow: \
                  [{type: thinking_level_changed, level: \"off\"}], reason: any level goes}";
    let excused = verdict_of(LEVEL_OFF, &UNKNOWN_LEVEL.replace("EXPECTED", either));
    assert_eq!(excused["verdict"], "non-strict", "{excused}");
    let message = excused["message"].as_str().unwrap();
    assert!(
        message.contains("an accepted command departs from the schema of pi 0.84.1 (/level"),
        "{message}"
    );
    let plain = "{type: thinking_level_changed, level: \"off\"}";
    let failed = verdict_of(LEVEL_OFF, &UNKNOWN_LEVEL.replace("EXPECTED", plain));
    assert_eq!(failed["verdict"], "fail", "{failed}");
    assert!(
        failed["message"]
            .as_str()
            .unwrap()
            .contains("a command that does not follow the schema of pi 0.84.1 was not refused"),
        "{failed}"
    );
}
