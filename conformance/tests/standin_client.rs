//! `pi-conformance stand-in`: the runner plays the agent for a client under test, here a fake
//! client that talks to the real process over its stdin and stdout.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests, outside #[test] functions

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};

/// A scenario of the corpus.
fn scenario(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios")
        .join(relative)
}

const UNKNOWN: &str = "errors/errors.001-unknown-command.yaml";

/// Our agent, built when it is not there yet.
fn ours() -> PathBuf {
    if let Ok(path) = pi_conformance::agent::find_ours() {
        return path;
    }
    let status = std::process::Command::new(env!("CARGO"))
        .args(["build", "--quiet", "-p", "pi-agent", "--bin", "pi-agent"])
        .status()
        .unwrap();
    assert!(status.success(), "cargo build -p pi-agent failed");
    pi_conformance::agent::find_ours().unwrap()
}

/// A running stand-in and the fake client's ends of its pipes.
struct StandIn {
    child: Child,
    stdin: Option<tokio::process::ChildStdin>,
    stdout: Lines<BufReader<ChildStdout>>,
    report: tempfile::NamedTempFile,
}

impl StandIn {
    /// `pi-conformance stand-in FILE --report R -- --mode rpc --no-session` (the transcript
    /// from our agent, the default), as a client would start it (pi's flags after `--`).
    fn start(file: &Path) -> Self {
        ours();
        let report = tempfile::NamedTempFile::new().unwrap();
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("pi-conformance"))
            .arg("stand-in")
            .arg(file)
            .arg("--report")
            .arg(report.path())
            .args(["--", "--mode", "rpc", "--no-session"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Self {
            child,
            stdin,
            stdout,
            report,
        }
    }

    /// Writes one command line.
    async fn send(&mut self, command: Value) {
        let mut line = serde_json::to_vec(&command).unwrap();
        line.push(b'\n');
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(&line).await.unwrap();
        stdin.flush().await.unwrap();
    }

    /// Reads the next record (the first waits while the stand-in runs the scenario).
    async fn read(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(60), self.stdout.next_line())
            .await
            .expect("the stand-in answered in time")
            .unwrap()
            .expect("a line before EOF");
        serde_json::from_str(&line).unwrap()
    }

    /// Closes stdin and returns the exit code, anything left on stdout, and the JSON report.
    async fn finish(mut self) -> (Option<i32>, Vec<String>, Value) {
        drop(self.stdin.take());
        let mut rest = Vec::new();
        let status = tokio::time::timeout(Duration::from_secs(60), async {
            while let Some(line) = self.stdout.next_line().await.unwrap() {
                rest.push(line);
            }
            self.child.wait().await.unwrap()
        })
        .await
        .expect("the stand-in exited in time");
        let report = std::fs::read_to_string(self.report.path()).unwrap();
        (status.code(), rest, serde_json::from_str(&report).unwrap())
    }
}

fn unknown(id: Option<Value>) -> Value {
    let mut record = json!({
        "type": "response",
        "command": "no_such_command",
        "success": false,
        "error": "Unknown command: no_such_command"
    });
    if let Some(id) = id {
        let mut with_id = json!({"id": id});
        with_id
            .as_object_mut()
            .unwrap()
            .extend(record.as_object().unwrap().clone());
        record = with_id;
    }
    record
}

#[tokio::test]
async fn a_client_that_sends_the_scenarios_commands_gets_the_transcript_with_its_own_ids() {
    let mut stand_in = StandIn::start(&scenario(UNKNOWN));
    // The scenario sends "u1", 7 and no id; this client uses other ids, one of them where the
    // scenario had none.
    stand_in
        .send(json!({"id": "client-1", "type": "no_such_command"}))
        .await;
    assert_eq!(stand_in.read().await, unknown(Some(json!("client-1"))));
    stand_in
        .send(json!({"type": "no_such_command", "id": 1000}))
        .await;
    assert_eq!(stand_in.read().await, unknown(Some(json!(1000))));
    stand_in
        .send(json!({"id": "added", "type": "no_such_command"}))
        .await;
    let third = stand_in.read().await;
    assert_eq!(third, unknown(Some(json!("added"))));
    let (code, rest, report) = stand_in.finish().await;
    assert_eq!(rest, Vec::<String>::new());
    assert_eq!(code, Some(0));
    assert_eq!(report["passed"], json!(true));
    assert_eq!(report["agent"], json!("ours"));
    let statuses: Vec<&Value> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["status"])
        .collect();
    assert_eq!(statuses, [&json!("pass"), &json!("pass"), &json!("pass")]);
}

#[tokio::test]
async fn a_wrong_command_is_answered_with_an_error_naming_the_expected_one_and_fails() {
    let mut stand_in = StandIn::start(&scenario(UNKNOWN));
    stand_in.send(json!({"id": "w", "type": "get_state"})).await;
    let error = "expected {\"type\":\"no_such_command\"} (id not compared), got \
                 {\"id\":\"w\",\"type\":\"get_state\"}";
    assert_eq!(
        stand_in.read().await,
        json!({
            "id": "w",
            "type": "response",
            "command": "get_state",
            "success": false,
            "error": format!("pi-conformance stand-in, step 1: {error}")
        })
    );
    // It goes on: the next step is served.
    stand_in
        .send(json!({"id": 2, "type": "no_such_command"}))
        .await;
    assert_eq!(stand_in.read().await, unknown(Some(json!(2))));
    stand_in.send(json!({"type": "no_such_command"})).await;
    assert_eq!(stand_in.read().await, unknown(None));
    let (code, rest, report) = stand_in.finish().await;
    assert_eq!(rest, Vec::<String>::new());
    assert_eq!(code, Some(1));
    assert_eq!(report["passed"], json!(false));
    assert_eq!(
        report["steps"][0],
        json!({
            "step": 1,
            "status": "fail",
            "expected": {"type": "no_such_command"},
            "received": {"id": "w", "type": "get_state"},
            "error": error
        })
    );
    assert_eq!(report["steps"][1]["status"], json!("pass"));
}

#[tokio::test]
async fn a_client_that_stops_early_leaves_the_remaining_steps_not_sent_and_fails() {
    let mut stand_in = StandIn::start(&scenario(UNKNOWN));
    stand_in
        .send(json!({"id": "only", "type": "no_such_command"}))
        .await;
    assert_eq!(stand_in.read().await, unknown(Some(json!("only"))));
    let (code, rest, report) = stand_in.finish().await;
    assert_eq!(rest, Vec::<String>::new());
    assert_eq!(code, Some(1));
    let statuses: Vec<&Value> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["status"])
        .collect();
    assert_eq!(
        statuses,
        [&json!("pass"), &json!("not_sent"), &json!("not_sent")]
    );
}

#[tokio::test]
async fn events_after_a_prompt_are_replayed_in_order_and_only_the_response_id_changes() {
    let mut stand_in = StandIn::start(&scenario("state/state.005-after-prompt.yaml"));
    stand_in
        .send(json!({"id": 41, "type": "prompt", "message": "Count"}))
        .await;
    assert_eq!(
        stand_in.read().await,
        json!({"id": 41, "type": "response", "command": "prompt", "success": true})
    );
    let mut types = Vec::new();
    loop {
        let record = stand_in.read().await;
        let kind = record["type"].as_str().unwrap().to_owned();
        assert!(record.get("id").is_none(), "an event has no id: {record}");
        types.push(kind.clone());
        if kind == "agent_settled" {
            break;
        }
    }
    assert_eq!(types.first().map(String::as_str), Some("agent_start"));
    assert!(types.iter().any(|t| t == "message_update"));
    stand_in.send(json!({"id": 42, "type": "get_state"})).await;
    let state = stand_in.read().await;
    assert_eq!(state["id"], json!(42));
    assert_eq!(state["data"]["messageCount"], json!(2));
    let (code, rest, _) = stand_in.finish().await;
    assert_eq!(rest, Vec::<String>::new());
    assert_eq!(code, Some(0));
}

#[test]
fn a_scenario_with_raw_sends_is_refused_before_anything_is_served() {
    let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("pi-conformance"))
        .arg("stand-in")
        .arg(scenario("errors/errors.002-malformed-json.yaml"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("step 1 is send_raw or send_hex"),
        "stderr: {stderr}"
    );
}
