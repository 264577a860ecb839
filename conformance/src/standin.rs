//! Standing in for an agent to validate a third-party RPC client.
//!
//! A scenario is first run against a real agent; what the agent wrote after each `send` step
//! (up to the next `send`) is kept as raw lines ([`Script`]). [`serve`] then plays the agent on
//! a pair of streams: each line the client writes is matched against the next `send` step, and
//! on a match the captured lines are written back, with the client's ids in the responses.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};

use crate::run::Outcome;
use crate::scenario::{Scenario, Step};

/// Why a scenario cannot be stood in for.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The scenario does not pass against the agent, so there is no transcript to trust.
    #[error("the scenario does not pass against {agent} ({verdict}: {message}); nothing to replay")]
    NotPassing {
        /// The agent.
        agent: String,
        /// The verdict word.
        verdict: String,
        /// Why.
        message: String,
    },
    /// The scenario has steps the stand-in cannot ask a client for.
    #[error(
        "step {0} is send_raw or send_hex: the stand-in only replays `send` steps (JSON commands)"
    )]
    Unsupported(usize),
    /// The scenario has no `send` step.
    #[error("the scenario has no send step")]
    NoSend,
}

/// One `send` step and what the agent wrote after it.
#[derive(Debug, Clone)]
pub struct Segment {
    /// 0-based index of the step in the scenario.
    pub step: usize,
    /// The command as the runner sent it.
    pub command: Value,
    /// The command as the scenario writes it: a string with a `{{...}}` placeholder there
    /// (a scratch path, a captured value) accepts any string from the client.
    pub template: Value,
    /// The agent's lines, each with its LF when it had one, until the next `send` step.
    pub lines: Vec<Vec<u8>>,
}

/// A transcript to replay: lines written before any command, then one segment per `send`.
#[derive(Debug, Clone)]
pub struct Script {
    /// Scenario id.
    pub scenario: String,
    /// The agent the transcript comes from.
    pub agent: String,
    /// Lines the agent wrote before the first command was sent.
    pub preamble: Vec<Vec<u8>>,
    /// The `send` steps in order.
    pub segments: Vec<Segment>,
}

impl Script {
    /// Whether the stand-in can replay `scenario`: it has `send` steps and no `send_raw` or
    /// `send_hex`.
    pub fn check(scenario: &Scenario) -> Result<(), Error> {
        if let Some(index) = scenario
            .steps
            .iter()
            .position(|s| matches!(s, Step::SendRaw(_) | Step::SendHex(_)))
        {
            return Err(Error::Unsupported(index + 1));
        }
        if !scenario.steps.iter().any(|s| matches!(s, Step::Send(_))) {
            return Err(Error::NoSend);
        }
        Ok(())
    }

    /// Builds the script from a passing run of `scenario`.
    pub fn from_outcome(scenario: &Scenario, outcome: &Outcome) -> Result<Self, Error> {
        if !outcome.verdict.passed() {
            return Err(Error::NotPassing {
                agent: outcome.agent.clone(),
                verdict: outcome.verdict.word().into(),
                message: outcome.message.clone(),
            });
        }
        Self::check(scenario)?;
        let lines = split_lines(&outcome.transcript.streams.stdout);
        let sends = &outcome.transcript.sends;
        let first = sends.first().ok_or(Error::NoSend)?;
        let at = |n: usize| n.min(lines.len());
        let preamble = lines[..at(first.records_before)].to_vec();
        let segments = sends
            .iter()
            .enumerate()
            .map(|(i, sent)| {
                let end = sends
                    .get(i + 1)
                    .map_or(lines.len(), |n| at(n.records_before));
                let start = at(sent.records_before).min(end);
                let template = match scenario.steps.get(sent.step) {
                    Some(Step::Send(value)) => value.clone(),
                    _ => Value::Null,
                };
                Segment {
                    step: sent.step,
                    template,
                    command: serde_json::from_slice(&sent.bytes)
                        .unwrap_or_else(|_| json!({"$raw": String::from_utf8_lossy(&sent.bytes)})),
                    lines: lines[start..end].to_vec(),
                }
            })
            .collect();
        Ok(Self {
            scenario: scenario.id.clone(),
            agent: outcome.agent.clone(),
            preamble,
            segments,
        })
    }
}

/// Splits stdout into lines on LF, each keeping its LF (a last line without LF is kept as is).
fn split_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split_inclusive(|b| *b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

/// How a step went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The client sent the expected command.
    Pass,
    /// The client sent something else.
    Fail,
    /// The client closed its stdin before sending it.
    NotSent,
}

/// One `send` step in the report.
#[derive(Debug, Clone, Serialize)]
pub struct StepReport {
    /// 1-based step number in the scenario.
    pub step: usize,
    /// The verdict.
    pub status: Status,
    /// The command expected (ids are not compared).
    pub expected: Value,
    /// What the client sent (`{"$raw": TEXT}` when it is not JSON).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub received: Option<Value>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The report of one client session.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Scenario id.
    pub scenario: String,
    /// The agent the transcript comes from.
    pub agent: String,
    /// Every step passed.
    pub passed: bool,
    /// One entry per `send` step.
    pub steps: Vec<StepReport>,
}

impl Report {
    /// A few lines for a human: one per step.
    pub fn text(&self) -> String {
        let mut out = format!(
            "stand-in {} (transcript from {}): {}\n",
            self.scenario,
            self.agent,
            if self.passed { "pass" } else { "FAIL" }
        );
        for step in &self.steps {
            let word = match step.status {
                Status::Pass => "pass",
                Status::Fail => "FAIL",
                Status::NotSent => "NOT SENT",
            };
            let _ = write!(out, "  step {}: {word}", step.step);
            if let Some(error) = &step.error {
                let _ = write!(out, ": {error}");
            }
            out.push('\n');
        }
        out
    }
}

/// Plays the agent: reads the client's lines from `input`, writes the transcript to `output`,
/// until `input` ends or every `send` step has been answered.
pub async fn serve<R, W>(script: &Script, mut input: R, mut output: W) -> std::io::Result<Report>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    for line in &script.preamble {
        output.write_all(line).await?;
    }
    output.flush().await?;
    let mut ids = HashMap::new();
    let mut steps = Vec::new();
    let mut line = Vec::new();
    for segment in &script.segments {
        line.clear();
        if input.read_until(b'\n', &mut line).await? == 0 {
            break;
        }
        let received = serde_json::from_slice::<Value>(&line)
            .unwrap_or_else(|_| json!({"$raw": String::from_utf8_lossy(&line).trim_end()}));
        let expected = without_id(&segment.command);
        let mut report = StepReport {
            step: segment.step + 1,
            status: Status::Pass,
            expected: expected.clone(),
            received: Some(received.clone()),
            error: None,
        };
        if same(&segment.template, &expected, &without_id(&received)) {
            let client_id = received.get("id").cloned();
            let scenario_id = segment.command.get("id").cloned();
            if let Some(id) = &scenario_id {
                ids.insert(id.to_string(), client_id.clone());
            }
            for captured in &segment.lines {
                let rewritten = rewrite_ids(captured, &ids, &segment.command, &client_id);
                output
                    .write_all(rewritten.as_deref().unwrap_or(captured))
                    .await?;
            }
        } else {
            let error = format!(
                "expected {} (id not compared), got {}",
                compact(&expected),
                compact(&received)
            );
            let mut answer = Map::new();
            if let Some(id) = received.get("id") {
                answer.insert("id".into(), id.clone());
            }
            answer.insert("type".into(), "response".into());
            let command = received.get("type").and_then(Value::as_str).unwrap_or("");
            answer.insert("command".into(), command.into());
            answer.insert("success".into(), false.into());
            answer.insert(
                "error".into(),
                format!("pi-conformance stand-in, step {}: {error}", report.step).into(),
            );
            let mut bytes = serde_json::to_vec(&Value::Object(answer)).unwrap_or_default();
            bytes.push(b'\n');
            output.write_all(&bytes).await?;
            report.status = Status::Fail;
            report.error = Some(error);
        }
        output.flush().await?;
        steps.push(report);
    }
    for segment in &script.segments[steps.len()..] {
        steps.push(StepReport {
            step: segment.step + 1,
            status: Status::NotSent,
            expected: without_id(&segment.command),
            received: None,
            error: Some("the client closed its stdin before sending this command".into()),
        });
    }
    Ok(Report {
        scenario: script.scenario.clone(),
        agent: script.agent.clone(),
        passed: steps.iter().all(|s| s.status == Status::Pass),
        steps,
    })
}

/// A command without its top-level `id`.
fn without_id(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut map = map.clone();
            map.shift_remove("id");
            Value::Object(map)
        }
        other => other.clone(),
    }
}

/// Whether the client's command `got` is the command `sent`: equal JSON values, except that
/// where the scenario's `template` has a string with a placeholder, any string is accepted.
fn same(template: &Value, sent: &Value, got: &Value) -> bool {
    match (template, sent, got) {
        (Value::String(t), _, Value::String(_)) if t.contains("{{") => true,
        (_, Value::Object(s), Value::Object(g)) => {
            s.len() == g.len()
                && s.iter().all(|(k, v)| {
                    g.get(k)
                        .is_some_and(|w| same(template.get(k).unwrap_or(&Value::Null), v, w))
                })
        }
        (_, Value::Array(s), Value::Array(g)) => {
            s.len() == g.len()
                && s.iter()
                    .zip(g)
                    .enumerate()
                    .all(|(i, (v, w))| same(template.get(i).unwrap_or(&Value::Null), v, w))
        }
        _ => sent == got,
    }
}

fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A captured line with the client's ids in place of the scenario's, or `None` when it stays
/// byte for byte as captured. Rewritten: a response whose `id` is one the scenario sent (it
/// takes the id the client used for that command, or loses it if the client sent none), and a
/// response without `id` to this command when the scenario sent none but the client did.
fn rewrite_ids(
    line: &[u8],
    ids: &HashMap<String, Option<Value>>,
    command: &Value,
    client_id: &Option<Value>,
) -> Option<Vec<u8>> {
    let Ok(Value::Object(record)) = serde_json::from_slice::<Value>(line) else {
        return None;
    };
    if record.get("type").and_then(Value::as_str) != Some("response") {
        return None;
    }
    let new_id = match record.get("id") {
        Some(id) => ids.get(&id.to_string())?.clone(),
        None => {
            let same = command.get("id").is_none()
                && record.get("command") == command.get("type")
                && client_id.is_some();
            if !same {
                return None;
            }
            client_id.clone()
        }
    };
    if record.get("id") == new_id.as_ref() {
        return None;
    }
    let mut out = Map::new();
    if let Some(id) = new_id {
        out.insert("id".into(), id);
    }
    out.extend(record.into_iter().filter(|(k, _)| k != "id"));
    let mut bytes = serde_json::to_vec(&Value::Object(out)).ok()?;
    if line.ends_with(b"\r\n") {
        bytes.push(b'\r');
    }
    if line.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_of_the_scenario_accept_any_string_and_the_rest_must_be_equal() {
        let template =
            json!({"type": "switch_session", "sessionPath": "{{home}}/s.jsonl", "n": [1]});
        let sent = json!({"type": "switch_session", "sessionPath": "/tmp/x/s.jsonl", "n": [1]});
        let got = json!({"n": [1], "sessionPath": "/elsewhere/s.jsonl", "type": "switch_session"});
        assert!(same(&template, &sent, &got));
        let wrong = json!({"type": "switch_session", "sessionPath": "/elsewhere", "n": [2]});
        assert!(!same(&template, &sent, &wrong));
        let missing = json!({"type": "switch_session", "n": [1]});
        assert!(!same(&template, &sent, &missing));
        let plain = json!({"type": "get_state"});
        assert!(!same(&plain, &plain, &json!({"type": "get_stats"})));
    }

    #[test]
    fn a_response_takes_the_clients_id_in_first_place() {
        let mut ids = HashMap::new();
        ids.insert("\"1\"".to_owned(), Some(json!(42)));
        let command = json!({"id": "1", "type": "get_state"});
        let line = b"{\"id\":\"1\",\"type\":\"response\",\"command\":\"get_state\"}\n";
        let out = rewrite_ids(line, &ids, &command, &Some(json!(42))).unwrap();
        assert_eq!(
            out,
            b"{\"id\":42,\"type\":\"response\",\"command\":\"get_state\"}\n"
        );
    }

    #[test]
    fn events_and_unknown_ids_stay_byte_for_byte() {
        let mut ids = HashMap::new();
        ids.insert("\"1\"".to_owned(), Some(json!("c")));
        let command = json!({"id": "1", "type": "prompt"});
        let event = b"{\"type\":\"agent_start\",\"id\":\"1\"}\n";
        assert_eq!(rewrite_ids(event, &ids, &command, &None), None);
        let other = b"{\"id\":\"9\",\"type\":\"response\"}\n";
        assert_eq!(rewrite_ids(other, &ids, &command, &None), None);
    }

    #[test]
    fn an_id_is_dropped_or_added_to_follow_the_client() {
        let mut ids = HashMap::new();
        ids.insert("\"1\"".to_owned(), None);
        let with = json!({"id": "1", "type": "get_state"});
        let line = b"{\"id\":\"1\",\"type\":\"response\",\"command\":\"get_state\"}\n";
        assert_eq!(
            rewrite_ids(line, &ids, &with, &None).unwrap(),
            b"{\"type\":\"response\",\"command\":\"get_state\"}\n"
        );
        let without = json!({"type": "get_state"});
        let line = b"{\"type\":\"response\",\"command\":\"get_state\"}\n";
        assert_eq!(
            rewrite_ids(line, &HashMap::new(), &without, &Some(json!("x"))).unwrap(),
            b"{\"id\":\"x\",\"type\":\"response\",\"command\":\"get_state\"}\n"
        );
    }
}
