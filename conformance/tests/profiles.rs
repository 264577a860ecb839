//! Agent profiles as a port author writes one: a YAML file naming the program, the environment
//! it needs and the handshake record it writes first; `run --agent FILE` starts it, and the
//! results name it and say why each scenario failed.

#![allow(clippy::unwrap_used)] // helpers of tests, outside #[test] functions

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

/// A port that greets with a `ready` record, then answers every line with a `get_state`
/// response carrying `$PORT_DIR`.
const PORT: &str = r#"#!/bin/sh
echo '{"type":"ready","protocolVersion":1}'
while read -r line; do
  echo "{\"id\":\"a\",\"type\":\"response\",\"command\":\"get_state\",\"success\":true,\"data\":{\"dir\":\"$PORT_DIR\"}}"
done
"#;

const SCENARIO: &str = r#"id: port.001
title: the port answers get_state
steps:
  - send: {id: a, type: get_state}
  - expect:
      - {id: a, type: response, command: get_state, success: true, data: {dir: "{{agent_dir}}"}}
"#;

/// Writes the port, a profile for it (with `extra` appended) and the scenario into `dir`.
fn setup(dir: &Path, extra: &str) -> (String, String) {
    let program = dir.join("port.sh");
    std::fs::write(&program, PORT).unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    let profile = dir.join("port.yaml");
    let text = format!(
        "name: port\nabout: a port under test\nprogram: {{path: {}}}\nenv: {{PORT_DIR: \"{{{{agent_dir}}}}\"}}\n{extra}",
        program.display()
    );
    std::fs::write(&profile, text).unwrap();
    let scenario = dir.join("s.yaml");
    std::fs::write(&scenario, SCENARIO).unwrap();
    (
        profile.display().to_string(),
        scenario.display().to_string(),
    )
}

/// Runs the scenario on the profile; the exit code and `results.json`'s content.
fn run(dir: &Path, profile: &str, scenario: &str) -> (Option<i32>, Value) {
    let out = Command::cargo_bin("pi-conformance")
        .unwrap()
        .env("PI_CONFORMANCE_NO_SCHEMA", "1")
        .args(["run", "--format", "json", "--agent", profile, "--out"])
        .arg(dir.join("out"))
        .arg(scenario)
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), json)
}

#[test]
fn a_profile_starts_its_program_with_its_environment_and_sets_its_handshake_aside() {
    let dir = tempfile::tempdir().unwrap();
    let (profile, scenario) = setup(dir.path(), "handshake: {type: ready}\n");
    let (code, json) = run(dir.path(), &profile, &scenario);
    assert_eq!(json["agent"], "port@0.84.1", "{json}");
    assert_eq!(json["scenarios"][0]["verdict"], "pass", "{json}");
    assert_eq!(code, Some(0));
    let transcript = dir.path().join("out/port@0.84.1/port.001/stdout.jsonl");
    let stdout = std::fs::read_to_string(transcript).unwrap();
    assert!(stdout.starts_with("{\"type\":\"ready\""), "{stdout}");
}

#[test]
fn without_its_handshake_the_first_record_is_the_named_cause() {
    let dir = tempfile::tempdir().unwrap();
    let (profile, scenario) = setup(dir.path(), "");
    let (code, json) = run(dir.path(), &profile, &scenario);
    let result = &json["scenarios"][0];
    assert_eq!(result["verdict"], "fail", "{json}");
    assert_eq!(code, Some(1));
    assert_eq!(result["cause"]["kind"], "unexpected-record", "{result}");
    assert_eq!(result["cause"]["key"], "ready", "{result}");
    assert_eq!(result["firstDifference"]["type"], "ready", "{result}");
}

#[test]
fn a_port_that_is_not_installed_is_named_with_its_install_script() {
    let out = Command::cargo_bin("pi-conformance")
        .unwrap()
        .env("PI_PORTS_HOME", "/nonexistent/ports")
        .env_remove("PI_OH_MY_PI_BIN")
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."))
        .args(["run", "--agent", "oh-my-pi", "scenarios/prompt"])
        .timeout(Duration::from_secs(30))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "oh-my-pi is not installed: no program at $PI_OH_MY_PI_BIN or \
             /nonexistent/ports/oh-my-pi-18.2.3/omp: run conformance/ports/oh-my-pi/install.sh"
        ),
        "{stderr}"
    );
}
