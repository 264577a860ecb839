//! Why a scenario failed, as a kind and a key that carries no run's values (ids, times,
//! paths): what a report groups failures by, so that "how far is this agent from pi, and
//! where?" has an answer in a few lines (`results.json`'s `cause`, the compatibility report).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::Verdict;

/// What kind of departure from pi failed a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CauseKind {
    /// A line that is not one JSON record ended by LF, or other bytes than pi's.
    Framing,
    /// A command the agent answers `Unknown command`.
    MissingCommand,
    /// A record of a type pi does not write there.
    UnexpectedRecord,
    /// A record pi writes, but before the one pi writes first.
    Order,
    /// The record pi writes, with other fields or values.
    FieldShape,
    /// A record or an accepted command outside the release's JSON Schema.
    Schema,
    /// No record in time: the agent hangs, or waits for something pi does not.
    Hang,
    /// The agent closed stdout or exited where pi goes on.
    Exit,
    /// Its exit code or stderr differ.
    Process,
    /// Its requests to the model provider differ.
    Provider,
    /// The files it leaves (a session file) differ.
    Files,
    /// The scenario could not be run on it (start-up, scratch folders, the mock).
    Setup,
    /// Anything else.
    Other,
}

impl CauseKind {
    /// The words a report shows.
    pub fn label(self) -> &'static str {
        match self {
            CauseKind::Framing => "framing",
            CauseKind::MissingCommand => "missing command",
            CauseKind::UnexpectedRecord => "unexpected record",
            CauseKind::Order => "record order",
            CauseKind::FieldShape => "field shape",
            CauseKind::Schema => "schema",
            CauseKind::Hang => "no answer in time",
            CauseKind::Exit => "early exit",
            CauseKind::Process => "exit code or stderr",
            CauseKind::Provider => "provider requests",
            CauseKind::Files => "files",
            CauseKind::Setup => "setup",
            CauseKind::Other => "other",
        }
    }
}

/// A failure's cause: its kind and a key naming the departure without the run's values
/// (`response get_state: $.data.model differs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cause {
    /// The kind.
    pub kind: CauseKind,
    /// What departed.
    pub key: String,
}

/// The records a mismatch compared: the pattern shown, the record, the paths that differ, and
/// whether the record's type is one the step expects later.
#[derive(Debug, Clone)]
pub(super) struct Difference {
    pub expected: Value,
    pub actual: Value,
    pub details: Vec<String>,
    pub expected_later: bool,
}

/// The cause of a failure with this verdict, message and difference.
pub(super) fn classify(verdict: Verdict, message: &str, difference: Option<&Difference>) -> Cause {
    let cause = |kind, key: String| Cause { kind, key };
    let step_free = message
        .split_once(": ")
        .filter(|(step, _)| step.starts_with("step "))
        .map_or(message, |(_, rest)| rest);
    match verdict {
        Verdict::Unimplemented => {
            let command = difference
                .and_then(|d| d.expected.get("command").or(d.actual.get("command")))
                .and_then(Value::as_str)
                .unwrap_or("?");
            return cause(CauseKind::MissingCommand, command.to_owned());
        }
        Verdict::Error => return cause(CauseKind::Setup, general(step_free)),
        Verdict::Timeout => {
            let key = match difference {
                Some(d) => format!("waiting for {}", name(&d.expected)),
                None => general(step_free),
            };
            return cause(CauseKind::Hang, key);
        }
        _ => {}
    }
    if let Some((_, why)) = step_free.split_once("is not a JSON record: ") {
        return cause(
            CauseKind::Framing,
            format!("a line that is no JSON record: {}", general(why)),
        );
    }
    if step_free.contains("expected bytes") {
        let no_lf = difference.is_some_and(|d| d.details.iter().any(|d| d.contains("LF")));
        let key = if no_lf {
            "a line without its LF"
        } else {
            "other bytes than pi's in a line"
        };
        return cause(CauseKind::Framing, key.to_owned());
    }
    if step_free.contains("follow the schema") || step_free.contains("departs from the schema") {
        // `... the schema of pi 0.84.1: /data/models/2/cost: missing ...` (or `(/path: ...)`).
        let violation = step_free
            .split_once("schema of pi ")
            .and_then(|(_, rest)| rest.split_once([':', '(']))
            .map_or(step_free, |(_, violation)| violation.trim_start());
        let path = violation.split(':').next().unwrap_or(violation);
        return cause(CauseKind::Schema, general(path));
    }
    if step_free.contains("closed stdout") {
        let exit = step_free
            .split_once("(exit: ")
            .and_then(|(_, rest)| rest.split_once(')'))
            .map_or("?", |(exit, _)| exit);
        let key = match difference {
            Some(d) => format!("exit ({exit}) where pi writes {}", name(&d.expected)),
            None => format!("exit ({exit})"),
        };
        return cause(CauseKind::Exit, key);
    }
    if let Some(d) = difference {
        let (expected, actual) = (name(&d.expected), name(&d.actual));
        if d.actual.get("type").is_none() && d.expected.get("type").is_some() {
            return cause(
                CauseKind::Framing,
                format!("{actual} where pi writes {expected}"),
            );
        }
        if d.expected.get("type") != d.actual.get("type") || expected != actual {
            if d.expected_later {
                return cause(CauseKind::Order, format!("{actual} before {expected}"));
            }
            return cause(CauseKind::UnexpectedRecord, actual);
        }
        let first = d
            .details
            .first()
            .map_or("?".to_owned(), |d| path_and_how(d));
        return cause(CauseKind::FieldShape, format!("{actual}: {first}"));
    }
    let kind =
        if step_free.contains("unexpected record") || step_free.contains("expected no record") {
            CauseKind::UnexpectedRecord
        } else if step_free.contains("the agent is gone") {
            CauseKind::Exit
        } else if step_free.contains("exit code") || step_free.contains("stderr") {
            CauseKind::Process
        } else if step_free.contains("the mock") || step_free.contains("request") {
            CauseKind::Provider
        } else if step_free.contains("file") || step_free.contains("session") {
            CauseKind::Files
        } else if step_free.contains("did not exit") || step_free.contains("in time") {
            CauseKind::Hang
        } else {
            CauseKind::Other
        };
    cause(kind, general(step_free))
}

/// A record named by its type and, where it has one, its command or method:
/// `response (get_state)`, `extension_ui_request (setWidget)`; a line that is no record:
/// `a non-JSON line`.
fn name(record: &Value) -> String {
    // An expectation's item: the record it stands for.
    let inner = record
        .get("$skip_until")
        .or_else(|| record.pointer("/$either/strict"))
        .or_else(|| record.pointer("/$unordered/0"));
    if let Some(inner) = inner {
        return name(inner);
    }
    let Some(kind) = record.get("type").and_then(Value::as_str) else {
        return match record {
            Value::Object(map) if map.contains_key("$raw") => "raw bytes".to_owned(),
            Value::Object(_) => "a record without `type`".to_owned(),
            _ => "a non-JSON line".to_owned(),
        };
    };
    let sub = ["command", "method"]
        .iter()
        .find_map(|key| record.get(*key).and_then(Value::as_str));
    match sub {
        Some(sub) => format!("{kind} ({sub})"),
        None => kind.to_owned(),
    }
}

/// The path and the manner of a mismatch line (`$.data.model: expected "x", got "y"` gives
/// `$.data.model differs`), array positions as `[*]`.
fn path_and_how(detail: &str) -> String {
    let (path, how) = detail.split_once(": ").unwrap_or((detail, ""));
    let how = if how.starts_with("missing") {
        "missing"
    } else if how.starts_with("unexpected key") {
        "unexpected"
    } else {
        "differs"
    };
    format!("{} {how}", general(path))
}

/// A text with what changes from run to run taken out: numbers (and array positions) become
/// `N`, quoted values `"…"`, and it is cut at 100 characters.
fn general(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '0'..='9' => {
                while chars
                    .peek()
                    .is_some_and(|c| c.is_ascii_digit() || *c == '.')
                {
                    chars.next();
                }
                out.push('N');
            }
            '"' => {
                for c in chars.by_ref() {
                    if c == '"' {
                        break;
                    }
                }
                out.push_str("\"…\"");
            }
            other => out.push(other),
        }
    }
    match out.char_indices().nth(100) {
        Some((cut, _)) => format!("{}…", &out[..cut]),
        None => out,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn difference(expected: Value, actual: Value, details: &[&str], later: bool) -> Difference {
        Difference {
            expected,
            actual,
            details: details.iter().map(|d| (*d).to_owned()).collect(),
            expected_later: later,
        }
    }

    #[test]
    fn another_record_where_pi_writes_its_answer_is_unexpected_or_early() {
        let d = difference(
            json!({"id": "p", "type": "response", "command": "prompt"}),
            json!({"id": "1f", "type": "extension_ui_request", "method": "setWidget"}),
            &["$.type: expected \"response\", got \"extension_ui_request\""],
            false,
        );
        let cause = classify(
            Verdict::Fail,
            "step 2: stdout line 2 does not match",
            Some(&d),
        );
        assert_eq!(cause.kind, CauseKind::UnexpectedRecord);
        assert_eq!(cause.key, "extension_ui_request (setWidget)");
        let early = Difference {
            expected_later: true,
            ..d
        };
        let cause = classify(Verdict::Fail, "step 2: x", Some(&early));
        assert_eq!(cause.kind, CauseKind::Order);
    }

    #[test]
    fn the_same_record_with_other_fields_is_a_field_shape_keyed_without_values() {
        let d = difference(
            json!({"type": "response", "command": "get_state"}),
            json!({"type": "response", "command": "get_state"}),
            &["$.data.models[3].id: expected \"a\", got \"b\""],
            false,
        );
        let cause = classify(
            Verdict::Fail,
            "step 4: stdout line 9 does not match",
            Some(&d),
        );
        assert_eq!(cause.kind, CauseKind::FieldShape);
        assert_eq!(
            cause.key,
            "response (get_state): $.data.models[N].id differs"
        );
    }

    #[test]
    fn verdicts_and_messages_name_the_other_causes() {
        let waiting = difference(
            json!({"$skip_until": {"type": "agent_end"}}),
            Value::Null,
            &[],
            false,
        );
        let hang = classify(Verdict::Timeout, "step 3: late", Some(&waiting));
        assert_eq!(
            (hang.kind, hang.key.as_str()),
            (CauseKind::Hang, "waiting for agent_end")
        );
        let unknown = difference(
            json!({"type": "response", "command": "clear_queue"}),
            json!({}),
            &[],
            false,
        );
        let missing = classify(Verdict::Unimplemented, "step 1: x", Some(&unknown));
        assert_eq!(
            (missing.kind, missing.key.as_str()),
            (CauseKind::MissingCommand, "clear_queue")
        );
        let schema = classify(
            Verdict::Fail,
            "record 4 does not follow the schema of pi 0.84.1: /data/models/2/cost: missing",
            None,
        );
        assert_eq!(
            (schema.kind, schema.key.as_str()),
            (CauseKind::Schema, "/data/models/N/cost")
        );
        let framing = classify(
            Verdict::Fail,
            "step 2: stdout line 1 is not a JSON record: x",
            None,
        );
        assert_eq!(framing.kind, CauseKind::Framing);
        let extra = classify(
            Verdict::Fail,
            "3 unexpected record(s) after the last step",
            None,
        );
        assert_eq!(extra.kind, CauseKind::UnexpectedRecord);
    }
}
