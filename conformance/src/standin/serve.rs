//! Playing the agent for a client: the client's input matched step by step, the captured lines
//! written back (paced as recorded, if asked), and, with `--keep-open`, answers after the last
//! step.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::time::Instant;

use super::observe::Watch;
use super::report::{Extra, Report, Status, StepReport};
use super::{Expected, Line, Script, Segment, ServeOptions, Timing, lines_value, without_id};

/// Plays the agent: reads the client's lines from `input`, writes the transcript to `output`,
/// until `input` ends or every send step has been answered (with `keep_open`: until `input`
/// ends).
pub async fn serve<R, W>(
    script: &Script,
    input: R,
    output: W,
    options: ServeOptions,
) -> std::io::Result<Report>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut session = Session {
        input,
        out: Writer {
            output,
            timing: options.timing,
            watch: Watch::default(),
        },
        ids: HashMap::new(),
        closed: false,
    };
    session
        .out
        .lines(&script.preamble, Instant::now(), |_| None)
        .await?;
    let mut steps = Vec::new();
    let mut next = 0;
    while let Some(segment) = script.segments.get(next) {
        let report = match &segment.expected {
            Expected::Command { command, template } => {
                session.command_step(segment, command, template).await?
            }
            Expected::Lines(expected) => session.lines_step(segment, expected).await?,
        };
        if report.is_none() && session.closed {
            break;
        }
        next += 1;
        steps.extend(report);
        if session.closed {
            break;
        }
    }
    for segment in &script.segments[next..] {
        if matches!(&segment.expected, Expected::Lines(lines) if lines.is_empty()) {
            continue;
        }
        steps.push(StepReport {
            step: segment.step + 1,
            status: Status::NotSent,
            expected: segment.expected.shown(),
            received: None,
            error: Some(format!(
                "the client closed its stdin before sending this command; {}",
                session.out.watch.summary()
            )),
        });
    }
    let mut extra = Vec::new();
    if options.keep_open && !session.closed {
        while let Some(line) = read_line(&mut session.input).await? {
            let received = parse_received(&line);
            let answered = answer_again(script, &received, &mut session.out).await?;
            if !answered {
                let error = format!(
                    "after the last step: the transcript has no answer to {} (only the \
                     scenario's commands are answered again)",
                    compact(&received)
                );
                session.out.answer(&received, &error).await?;
            }
            session.out.flush().await?;
            extra.push(Extra { received, answered });
        }
    }
    Ok(Report {
        scenario: script.scenario.clone(),
        agent: script.agent.clone(),
        passed: steps.iter().all(|s| s.status == Status::Pass),
        steps,
        extra,
    })
}

/// The client's side of a stand-in session.
struct Session<R, W> {
    input: R,
    out: Writer<W>,
    /// The scenario's command ids (as JSON text) and the ids the client used in their place.
    ids: HashMap<String, Option<Value>>,
    /// The client's stdin has ended.
    closed: bool,
}

impl<R: AsyncBufRead + Unpin, W: AsyncWrite + Unpin> Session<R, W> {
    /// A `send` step: one line, matched as a JSON command. `None` when stdin has ended.
    async fn command_step(
        &mut self,
        segment: &Segment,
        command: &Value,
        template: &Value,
    ) -> std::io::Result<Option<StepReport>> {
        let Some(line) = read_line(&mut self.input).await? else {
            self.closed = true;
            return Ok(None);
        };
        let matched_at = Instant::now();
        let received = parse_received(&line);
        let expected = without_id(command);
        let mut report = StepReport {
            step: segment.step + 1,
            status: Status::Pass,
            expected: expected.clone(),
            received: Some(received.clone()),
            error: None,
        };
        self.out.watch.command_received();
        if same(template, &expected, &without_id(&received)) {
            let client_id = received.get("id").cloned();
            if let Some(id) = command.get("id") {
                self.ids.insert(id.to_string(), client_id.clone());
            }
            let ids = &self.ids;
            self.out
                .lines(&segment.lines, matched_at, |line| {
                    rewrite_ids(line, ids, command, &client_id)
                })
                .await?;
        } else {
            let error = format!(
                "expected {} (id not compared), got {}",
                compact(&expected),
                compact(&received)
            );
            let step = segment.step + 1;
            self.out
                .answer(&received, &format!("step {step}: {error}"))
                .await?;
            self.out.flush().await?;
            report.status = Status::Fail;
            report.error = Some(error);
        }
        Ok(Some(report))
    }

    /// A raw step: the lines it ends, compared as framed lines. `None` when the step ends no
    /// line (its captured lines come out at once) or when stdin ended before its first line.
    async fn lines_step(
        &mut self,
        segment: &Segment,
        expected: &[Vec<u8>],
    ) -> std::io::Result<Option<StepReport>> {
        let mut got = Vec::new();
        while got.len() < expected.len() {
            match read_line(&mut self.input).await? {
                Some(line) => got.push(unframe(&line)),
                None => {
                    self.closed = true;
                    break;
                }
            }
        }
        if got.is_empty() && self.closed {
            return Ok(None);
        }
        let matched_at = Instant::now();
        self.out.watch.command_received();
        if got == expected {
            // The client sent the scenario's very lines: their ids stay as they are.
            for line in &got {
                if let Ok(Value::Object(command)) = serde_json::from_slice(line)
                    && let Some(id) = command.get("id")
                {
                    self.ids.insert(id.to_string(), Some(id.clone()));
                }
            }
            let ids = &self.ids;
            self.out
                .lines(&segment.lines, matched_at, |line| {
                    rewrite_ids(line, ids, &Value::Null, &None)
                })
                .await?;
            if expected.is_empty() {
                return Ok(None);
            }
            return Ok(Some(StepReport {
                step: segment.step + 1,
                status: Status::Pass,
                expected: lines_value(expected),
                received: Some(lines_value(&got)),
                error: None,
            }));
        }
        let shown = |lines: &[Vec<u8>]| compact(&lines_value(lines)["$lines"]);
        let mut error = format!(
            "expected the line(s) {}, got {}",
            shown(expected),
            shown(&got)
        );
        if self.closed {
            error.push_str(" before the end of stdin");
        }
        let step = segment.step + 1;
        for line in &got {
            self.out
                .answer(&parse_received(line), &format!("step {step}: {error}"))
                .await?;
        }
        self.out.flush().await?;
        Ok(Some(StepReport {
            step,
            status: Status::Fail,
            expected: lines_value(expected),
            received: Some(lines_value(&got)),
            error: Some(error),
        }))
    }
}

/// With `--keep-open`, after the last step: answers `received` as the last `send` step of the
/// scenario it matches was answered (that step's lines again, with the client's id in the
/// responses). `false` when it matches none.
async fn answer_again<W: AsyncWrite + Unpin>(
    script: &Script,
    received: &Value,
    out: &mut Writer<W>,
) -> std::io::Result<bool> {
    let asked = without_id(received);
    let found = script
        .segments
        .iter()
        .rev()
        .find_map(|s| match &s.expected {
            Expected::Command { command, template }
                if same(template, &without_id(command), &asked) =>
            {
                Some((command, &s.lines))
            }
            _ => None,
        });
    let Some((command, lines)) = found else {
        return Ok(false);
    };
    let client_id = received.get("id").cloned();
    let mut ids = HashMap::new();
    if let Some(id) = command.get("id") {
        ids.insert(id.to_string(), client_id.clone());
    }
    out.lines(lines, Instant::now(), |line| {
        rewrite_ids(line, &ids, command, &client_id)
    })
    .await?;
    Ok(true)
}

/// The stand-in's output, paced as [`Timing`] says.
struct Writer<W> {
    output: W,
    timing: Timing,
    /// What the client has been sent, for the report when it stops sending.
    watch: Watch,
}

impl<W: AsyncWrite + Unpin> Writer<W> {
    /// Writes captured lines, each through `rewrite` (`None`: as captured); with recorded
    /// timing, each no earlier than its delay after `from`.
    async fn lines(
        &mut self,
        lines: &[Line],
        from: Instant,
        rewrite: impl Fn(&[u8]) -> Option<Vec<u8>>,
    ) -> std::io::Result<()> {
        for line in lines {
            if self.timing == Timing::Recorded {
                tokio::time::sleep_until(from + Duration::from_millis(line.after_ms)).await;
            }
            let rewritten = rewrite(&line.bytes);
            self.write(rewritten.as_deref().unwrap_or(&line.bytes))
                .await?;
            if self.timing == Timing::Recorded {
                self.flush().await?;
            }
        }
        self.flush().await
    }

    async fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.watch.wrote(bytes);
        self.output.write_all(bytes).await
    }

    async fn flush(&mut self) -> std::io::Result<()> {
        self.output.flush().await
    }

    /// Answers the client's `received` with `success: false` and the error text.
    async fn answer(&mut self, received: &Value, error: &str) -> std::io::Result<()> {
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
            format!("pi-conformance stand-in, {error}").into(),
        );
        let mut bytes = serde_json::to_vec(&Value::Object(answer)).unwrap_or_default();
        bytes.push(b'\n');
        self.write(&bytes).await
    }
}

/// The client's next line with its LF (a last line may have none); `None` at the end of input.
async fn read_line<R: AsyncBufRead + Unpin>(input: &mut R) -> std::io::Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    Ok((input.read_until(b'\n', &mut line).await? > 0).then_some(line))
}

/// A line of input as the agent frames it: without its LF and one CR before it.
fn unframe(line: &[u8]) -> Vec<u8> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line).to_vec()
}

/// A line of input as a JSON value, or `{"$raw": TEXT}` when it is not JSON.
fn parse_received(line: &[u8]) -> Value {
    serde_json::from_slice::<Value>(line)
        .unwrap_or_else(|_| json!({"$raw": String::from_utf8_lossy(line).trim_end()}))
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
/// byte for byte as captured. Rewritten: a response or `bash_execution_update` whose `id` is one
/// the scenario sent (it takes the id the client used for that command, or loses it if the
/// client sent none), and a response without `id` to this command when the scenario sent none
/// but the client did.
fn rewrite_ids(
    line: &[u8],
    ids: &HashMap<String, Option<Value>>,
    command: &Value,
    client_id: &Option<Value>,
) -> Option<Vec<u8>> {
    let Ok(Value::Object(record)) = serde_json::from_slice::<Value>(line) else {
        return None;
    };
    let kind = record.get("type").and_then(Value::as_str);
    if !matches!(kind, Some("response" | "bash_execution_update")) {
        return None;
    }
    let new_id = match record.get("id") {
        Some(id) => ids.get(&id.to_string())?.clone(),
        None if kind != Some("response") => return None,
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
    // A record that has an id keeps it where it is; a response that gains one has it first.
    let mut out = Map::new();
    let had_id = record.contains_key("id");
    if !had_id && let Some(id) = &new_id {
        out.insert("id".into(), id.clone());
    }
    for (key, value) in record {
        match (key.as_str(), &new_id) {
            ("id", Some(id)) => {
                out.insert(key, id.clone());
            }
            ("id", None) => {}
            _ => {
                out.insert(key, value);
            }
        }
    }
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
    fn a_bash_update_takes_the_id_of_its_command_as_the_client_sent_it() {
        let mut ids = HashMap::new();
        ids.insert("\"b\"".to_owned(), Some(json!("req_1")));
        let command = json!({"id": "b", "type": "bash"});
        let line = b"{\"type\":\"bash_execution_update\",\"id\":\"b\",\"delta\":\"hi\"}\n";
        assert_eq!(
            rewrite_ids(line, &ids, &command, &Some(json!("req_1"))).unwrap(),
            b"{\"type\":\"bash_execution_update\",\"id\":\"req_1\",\"delta\":\"hi\"}\n"
        );
        let without = b"{\"type\":\"bash_execution_update\",\"delta\":\"hi\"}\n";
        assert_eq!(
            rewrite_ids(without, &ids, &command, &Some(json!("x"))),
            None
        );
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

    #[test]
    fn a_line_of_input_loses_its_lf_and_one_cr() {
        assert_eq!(unframe(b"{}\r\r\n"), b"{}\r");
        assert_eq!(unframe(b"{}\n"), b"{}");
        assert_eq!(unframe(b"{}"), b"{}");
    }
}
