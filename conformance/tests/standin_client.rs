//! `pi-conformance stand-in`: the runner plays the agent for a client under test, here a fake
//! client that talks to the real process over its stdin and stdout.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests, outside #[test] functions

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout, Command};

#[path = "support/ours.rs"]
mod ours;

/// A scenario of the corpus.
fn scenario(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios")
        .join(relative)
}

const UNKNOWN: &str = "errors/errors.001-unknown-command.yaml";

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
        Self::start_with(file, &[])
    }

    /// As [`StandIn::start`], with more options before the `--`.
    fn start_with(file: &Path, options: &[&str]) -> Self {
        ours::build_ours().unwrap();
        let report = tempfile::NamedTempFile::new().unwrap();
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("pi-conformance"))
            .arg("stand-in")
            .arg(file)
            .arg("--report")
            .arg(report.path())
            .args(options)
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
        self.send_raw(&line).await;
    }

    /// Writes bytes as they are.
    async fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).await.unwrap();
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

/// The status of each step in a JSON report.
fn statuses(report: &Value) -> Vec<&str> {
    report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["status"].as_str().unwrap())
        .collect()
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
    // Outcomes name the agent and the release it speaks.
    assert_eq!(report["agent"], json!("ours@0.84.1"));
    assert_eq!(statuses(&report), ["pass", "pass", "pass"]);
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
    assert_eq!(statuses(&report), ["pass", "not_sent", "not_sent"]);
    // The report says what the client was last sent when it stopped.
    let error = report["steps"][1]["error"].as_str().unwrap();
    assert!(
        error.contains("it was last sent line 1 (response to no_such_command"),
        "{error}"
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

#[tokio::test]
async fn raw_steps_are_matched_on_the_lines_they_end_whatever_the_clients_chunks() {
    // framing.004 writes one command in seven pieces, split mid-key and mid-character; the
    // client writes it at once. Only the step that ends the line (step 8) is compared.
    let mut stand_in = StandIn::start(&scenario(
        "framing/framing.004-record-split-across-writes.yaml",
    ));
    let line = "{\"id\":\"split\",\"type\":\"set_session_name\",\"name\":\"café\"}";
    stand_in.send_raw(format!("{line}\n").as_bytes()).await;
    assert_eq!(
        stand_in.read().await,
        json!({"type": "session_info_changed", "name": "café"})
    );
    assert_eq!(
        stand_in.read().await,
        json!({"id": "split", "type": "response", "command": "set_session_name", "success": true})
    );
    let (code, rest, report) = stand_in.finish().await;
    assert_eq!((code, rest), (Some(0), Vec::<String>::new()));
    assert_eq!(
        report["steps"],
        json!([{
            "step": 8,
            "status": "pass",
            "expected": {"$lines": [line]},
            "received": {"$lines": [line]}
        }])
    );
}

#[tokio::test]
async fn a_raw_line_is_compared_as_the_agent_frames_it_so_lf_stands_for_crlf() {
    // framing.001 sends its first command with CRLF; the agent drops the CR, so LF is the same.
    let mut stand_in = StandIn::start(&scenario("framing/framing.001-crlf-and-separators.yaml"));
    stand_in
        .send_raw(b"{\"id\":\"c\",\"type\":\"get_state\"}\n")
        .await;
    let state = stand_in.read().await;
    assert_eq!(
        (&state["id"], &state["command"], &state["success"]),
        (&json!("c"), &json!("get_state"), &json!(true))
    );
    stand_in
        .send(json!({"id": "n", "type": "set_session_name", "name": "line\u{2028}para\u{2029}end"}))
        .await;
    assert_eq!(stand_in.read().await["type"], json!("session_info_changed"));
    assert_eq!(stand_in.read().await["id"], json!("n"));
    let (code, rest, report) = stand_in.finish().await;
    assert_eq!((code, rest), (Some(0), Vec::<String>::new()));
    assert_eq!(report["passed"], json!(true));
}

#[tokio::test]
async fn a_raw_line_that_differs_is_answered_with_an_error_naming_both_lines() {
    let mut stand_in = StandIn::start(&scenario("framing/framing.001-crlf-and-separators.yaml"));
    stand_in.send_raw(br#"{"id":"c","type":"get_stats"}"#).await;
    stand_in.send_raw(b"\r\n").await;
    // The lines are shown as a JSON array of strings.
    let error = format!(
        "expected the line(s) {}, got {}",
        json!([r#"{"id":"c","type":"get_state"}"#]),
        json!([r#"{"id":"c","type":"get_stats"}"#])
    );
    assert_eq!(
        stand_in.read().await,
        json!({
            "id": "c",
            "type": "response",
            "command": "get_stats",
            "success": false,
            "error": format!("pi-conformance stand-in, step 1: {error}")
        })
    );
    let (code, rest, report) = stand_in.finish().await;
    assert_eq!((code, rest), (Some(1), Vec::<String>::new()));
    assert_eq!(statuses(&report), ["fail", "not_sent"]);
    assert_eq!(report["steps"][0]["error"], json!(error));
}

#[tokio::test]
async fn a_last_line_without_lf_is_matched_when_the_client_closes_stdin() {
    // framing.006 ends with a line the agent reads at EOF.
    let mut stand_in = StandIn::start(&scenario("framing/framing.006-last-line-without-lf.yaml"));
    stand_in.send(json!({"id": "first", "type": "nope"})).await;
    assert_eq!(stand_in.read().await["id"], json!("first"));
    stand_in
        .send_raw(b"{\"id\":\"last\",\"type\":\"nope\"}")
        .await;
    let (code, rest, report) = stand_in.finish().await;
    let last: Vec<Value> = rest
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        last,
        [
            json!({"id": "last", "type": "response", "command": "nope", "success": false,
                "error": "Unknown command: nope"})
        ]
    );
    assert_eq!(code, Some(0));
    assert_eq!(report["passed"], json!(true));
}

#[test]
fn a_scenario_without_a_send_step_is_refused_before_anything_is_served() {
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("quiet.yaml");
    std::fs::write(
        &file,
        "id: quiet.001\ntitle: nothing is sent\nspec: none\nsteps:\n  - expect_quiet: 10\n",
    )
    .unwrap();
    let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("pi-conformance"))
        .arg("stand-in")
        .arg(&file)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no send step"), "stderr: {stderr}");
}

/// A scenario whose mock holds its reply back for `DELAY`: the recorded run has a gap of at
/// least that between the prompt's response and the end of the run.
fn delayed_reply_scenario(folder: &Path) -> PathBuf {
    let file = folder.join("delayed.yaml");
    std::fs::write(
        &file,
        format!(
            "id: delayed.001\ntitle: a reply held back\nspec: none\n\
             mock: [{{delay_ms: {}, text: Late}}]\nsteps:\n  \
             - send: {{id: p, type: prompt, message: Wait}}\n  \
             - expect: {{until: {{type: agent_settled}}}}\n",
            DELAY.as_millis()
        ),
    )
    .unwrap();
    file
}

const DELAY: Duration = Duration::from_millis(1000);

/// Sends the prompt and returns the time from its response to `agent_settled`.
async fn prompt_to_settled(stand_in: &mut StandIn) -> Duration {
    stand_in
        .send(json!({"id": "p", "type": "prompt", "message": "Wait"}))
        .await;
    assert_eq!(stand_in.read().await["command"], json!("prompt"));
    let responded = std::time::Instant::now();
    while stand_in.read().await["type"] != json!("agent_settled") {}
    responded.elapsed()
}

#[tokio::test]
async fn recorded_timing_replays_the_gaps_between_records_and_none_sends_them_at_once() {
    let folder = tempfile::tempdir().unwrap();
    let file = delayed_reply_scenario(folder.path());
    let mut recorded = StandIn::start_with(&file, &["--timing", "recorded"]);
    let gap = prompt_to_settled(&mut recorded).await;
    assert!(gap >= DELAY - Duration::from_millis(100), "gap {gap:?}");
    let (code, _, _) = recorded.finish().await;
    assert_eq!(code, Some(0));

    let mut at_once = StandIn::start_with(&file, &["--timing", "none"]);
    let gap = prompt_to_settled(&mut at_once).await;
    assert!(gap < DELAY / 2, "gap {gap:?}");
    let (code, _, _) = at_once.finish().await;
    assert_eq!(code, Some(0));
}

#[tokio::test]
async fn keep_open_answers_the_scenarios_commands_again_and_refuses_others_until_eof() {
    let mut stand_in = StandIn::start_with(
        &scenario("state/state.005-after-prompt.yaml"),
        &["--keep-open"],
    );
    stand_in
        .send(json!({"id": 1, "type": "prompt", "message": "Count"}))
        .await;
    while stand_in.read().await["type"] != json!("agent_settled") {}
    stand_in.send(json!({"id": 2, "type": "get_state"})).await;
    assert_eq!(stand_in.read().await["id"], json!(2));
    // The transcript is over; the stand-in goes on.
    stand_in.send(json!({"id": 3, "type": "get_state"})).await;
    let again = stand_in.read().await;
    assert_eq!(
        (&again["id"], &again["data"]["messageCount"]),
        (&json!(3), &json!(2))
    );
    stand_in
        .send(json!({"id": 4, "type": "get_messages"}))
        .await;
    assert_eq!(
        stand_in.read().await,
        json!({
            "id": 4,
            "type": "response",
            "command": "get_messages",
            "success": false,
            "error": "pi-conformance stand-in, after the last step: the transcript has no answer \
                      to {\"id\":4,\"type\":\"get_messages\"} (only the scenario's commands are \
                      answered again)"
        })
    );
    let (code, rest, report) = stand_in.finish().await;
    assert_eq!((code, rest), (Some(0), Vec::<String>::new()));
    assert_eq!(report["passed"], json!(true));
    assert_eq!(
        report["extra"],
        json!([
            {"received": {"id": 3, "type": "get_state"}, "answered": true},
            {"received": {"id": 4, "type": "get_messages"}, "answered": false}
        ])
    );
}
