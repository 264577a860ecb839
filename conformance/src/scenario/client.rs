//! The `client` block of a scenario: what makes it a client scenario for `pi-conformance client`.
//!
//! The scenario's own `setup`, `mock` and `steps` are an ordinary agent scenario, proven on the
//! reference like every other; its transcript is what the stand-in plays to the client. The
//! `client` block says what the user does with the client (`do`), what the client must surface
//! (`expect`, `outcome`), and where the stand-in departs from the recorded transcript to provoke a
//! client mistake (`stand_in`), each departure with its reason.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::{Expect, Trailing};

/// The client side of a scenario.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClientSpec {
    /// The client mistake this case catches, in a few words (`splitting records at U+2028`).
    /// Failures quote it.
    pub mistake: String,
    /// Where the stand-in departs from the recorded transcript: records inserted or changed,
    /// records written in pieces or after a pause, stderr, an exit. Applied in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stand_in: Vec<Departure>,
    /// What the user does with the client and what the client must surface, in order. The runner
    /// starts the client first and stops it after the last step.
    pub steps: Vec<ClientStep>,
    /// Events the client surfaced after the last `expect`: `fail` (the default) or `ignore`.
    #[serde(default, skip_serializing_if = "Trailing::is_fail")]
    pub trailing: Trailing,
}

/// One step of the client side.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientStep {
    /// A user action, sent to the adapter at once (it does not wait for the outcome): a name
    /// (`wait_idle`) or `{action: NAME, ...parameters}` (`{action: prompt, message: Hi}`).
    /// `as: LABEL` names it for a later `outcome` (default: the action's name). Captures
    /// (`{{$ui}}`) are substituted in the parameters.
    Do(Value),
    /// The events the client surfaced since the previous `expect`, matched as an agent scenario's
    /// `expect` matches records. Events only: outcomes are checked by `outcome`.
    Expect(Expect),
    /// The outcome of an earlier action: waits for it and checks it.
    Outcome(OutcomeCheck),
}

/// A check of an action's outcome.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutcomeCheck {
    /// The action's label (its `as`, else its name; the latest such action).
    pub action: String,
    /// The value the client's call returned (a pattern; `null` for none). Absent with `error`
    /// absent too: any successful result.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub result: Option<Value>,
    /// The call failed with a message matching this text pattern (`{{regex:...}}` allowed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The client must have surfaced an event matching this pattern (partially) after the action
    /// was sent and before the outcome: `wait_idle` resolves only after `agent_settled`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Value>,
    /// Time limit in milliseconds (default 10000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// A key present with any value, `null` included (absent keys take the default, `None`).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// Where the stand-in departs from the transcript. Exactly one of `insert`, `merge`, `split`,
/// `pause_ms`, `stderr`, `exit`, `unprompted`; records are chosen by partial patterns.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Departure {
    /// Synthesised records written `before` or `after` the chosen record (as compact JSON
    /// lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insert: Option<Vec<Value>>,
    /// An object merged key by key (nested objects merged too) into each of the `records`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merge: Option<Value>,
    /// The `records` are written in pieces of this many bytes, one write each, `pause_ms` apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<usize>,
    /// Milliseconds to wait `before` the chosen record (with `split`: between two pieces).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_ms: Option<u64>,
    /// Text written on the stand-in's stderr `before` or `after` the chosen record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<StderrText>,
    /// The stand-in exits with this code `before` or `after` the chosen record; later records are
    /// not written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
    /// The 1-based number of a send step of the scenario that the client does not send: the
    /// records that step brought are written when the client sends the next send step's command,
    /// before that command's own records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unprompted: Option<usize>,
    /// The record before which to act (a partial pattern).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<Value>,
    /// The record after which to act (a partial pattern).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Value>,
    /// The records `merge` and `split` apply to (a partial pattern; default every record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub records: Option<Value>,
    /// Only the n-th record (1-based) the pattern chooses; default every one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub occurrence: Option<usize>,
    /// Why: for a synthesised record, stderr, exit or unprompted step, what the reference does
    /// that this stands for (required for those).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Text for the stand-in's stderr: a text, or `{text, repeat}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum StderrText {
    /// Written once.
    Text(String),
    /// Written `repeat` times over (for a flood).
    Repeated {
        /// The text.
        text: String,
        /// How many times.
        repeat: usize,
    },
}

impl StderrText {
    /// The bytes to write.
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            StderrText::Text(text) => text.as_bytes().to_vec(),
            StderrText::Repeated { text, repeat } => text.repeat(*repeat).into_bytes(),
        }
    }
}

/// What a departure does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DepartureKind {
    /// `insert`
    Insert,
    /// `merge`
    Merge,
    /// `split`
    Split,
    /// `pause_ms` alone
    Pause,
    /// `stderr`
    Stderr,
    /// `exit`
    Exit,
    /// `unprompted`
    Unprompted,
}

/// Why a `client` block is malformed; the text is the sentence a scenario author sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientSpecError {
    /// A departure does nothing.
    #[error("a departure needs one of insert, merge, split, pause_ms, stderr, exit, unprompted")]
    NoKind,
    /// A departure does several things.
    #[error(
        "a departure does one thing: give one of insert, merge, split, stderr, exit, unprompted"
    )]
    SeveralKinds,
    /// insert, stderr or exit without exactly one point.
    #[error("insert, stderr and exit need one of `before` or `after`")]
    NeedsPoint,
    /// pause_ms alone without `before` (or with `after`).
    #[error("pause_ms alone needs `before`")]
    PauseNeedsBefore,
    /// merge or split with a point.
    #[error("merge and split choose their records with `records`")]
    PerRecordPoint,
    /// `records` on a departure other than merge and split.
    #[error("`records` is for merge and split; use `before` or `after`")]
    RecordsMisplaced,
    /// unprompted with a point or an occurrence.
    #[error("unprompted takes a step number only")]
    UnpromptedExtra,
    /// A synthesising departure without a reason.
    #[error(
        "a departure that synthesises what the reference did not write needs `reason`: what \
         the reference does that it stands for"
    )]
    NeedsReason,
    /// split or occurrence 0.
    #[error("split and occurrence count from 1")]
    CountFromOne,
    /// merge with something other than an object.
    #[error("merge takes an object")]
    MergeObject,
    /// Where: the 1-based departure of `stand_in`.
    #[error("client.stand_in[{number}]: {source}")]
    StandIn {
        /// The 1-based departure.
        number: usize,
        /// What is wrong with it.
        source: Box<ClientSpecError>,
    },
    /// unprompted names a step that is not a send step.
    #[error("unprompted {0} is not a send step of the scenario")]
    UnpromptedNotSend(usize),
    /// unprompted names the last send step.
    #[error("the last send step cannot be unprompted (no later command brings its records)")]
    UnpromptedLast,
    /// `client.steps` is empty.
    #[error("client.steps is empty")]
    NoSteps,
    /// Where: the 1-based client step.
    #[error("client step {number}: {source}")]
    Step {
        /// The 1-based client step.
        number: usize,
        /// What is wrong with it.
        source: Box<ClientSpecError>,
    },
    /// A `do` that is neither a name nor `{action: NAME}`.
    #[error("`do` takes an action name or {{action: NAME, ...}}")]
    ActionShape,
    /// A `do` of an action the runner sends itself.
    #[error(
        "`{0}` is sent by the runner itself (the client is started before the first step and \
         stopped after the last)"
    )]
    RunnerAction(String),
}

impl Departure {
    /// What the departure does, or why it is malformed.
    pub fn kind(&self) -> Result<DepartureKind, ClientSpecError> {
        let kinds = [
            (self.insert.is_some(), DepartureKind::Insert),
            (self.merge.is_some(), DepartureKind::Merge),
            (self.split.is_some(), DepartureKind::Split),
            (self.stderr.is_some(), DepartureKind::Stderr),
            (self.exit.is_some(), DepartureKind::Exit),
            (self.unprompted.is_some(), DepartureKind::Unprompted),
        ];
        let chosen: Vec<DepartureKind> = kinds.iter().filter(|k| k.0).map(|k| k.1).collect();
        let kind = match chosen.as_slice() {
            [] if self.pause_ms.is_some() => DepartureKind::Pause,
            [one] => *one,
            [] => return Err(ClientSpecError::NoKind),
            _ => return Err(ClientSpecError::SeveralKinds),
        };
        let point = self.before.is_some() as usize + self.after.is_some() as usize;
        let needs_point = matches!(
            kind,
            DepartureKind::Insert | DepartureKind::Stderr | DepartureKind::Exit
        );
        if needs_point && point != 1 {
            return Err(ClientSpecError::NeedsPoint);
        }
        if kind == DepartureKind::Pause && (self.before.is_none() || self.after.is_some()) {
            return Err(ClientSpecError::PauseNeedsBefore);
        }
        let per_record = matches!(kind, DepartureKind::Merge | DepartureKind::Split);
        if per_record && point != 0 {
            return Err(ClientSpecError::PerRecordPoint);
        }
        if !per_record && self.records.is_some() {
            return Err(ClientSpecError::RecordsMisplaced);
        }
        if kind == DepartureKind::Unprompted && (point != 0 || self.occurrence.is_some()) {
            return Err(ClientSpecError::UnpromptedExtra);
        }
        let synthesised = matches!(
            kind,
            DepartureKind::Insert
                | DepartureKind::Merge
                | DepartureKind::Stderr
                | DepartureKind::Exit
                | DepartureKind::Unprompted
        );
        if synthesised && self.reason.as_deref().is_none_or(|r| r.trim().is_empty()) {
            return Err(ClientSpecError::NeedsReason);
        }
        if self.split == Some(0) || self.occurrence == Some(0) {
            return Err(ClientSpecError::CountFromOne);
        }
        if kind == DepartureKind::Merge && !self.merge.as_ref().is_some_and(Value::is_object) {
            return Err(ClientSpecError::MergeObject);
        }
        Ok(kind)
    }
}

impl ClientSpec {
    /// Checks the block before anything runs.
    pub fn check(&self, send_steps: &[usize]) -> Result<(), ClientSpecError> {
        for (i, departure) in self.stand_in.iter().enumerate() {
            let at = |source| ClientSpecError::StandIn {
                number: i + 1,
                source: Box::new(source),
            };
            let kind = departure.kind().map_err(at)?;
            if let Some(step) = departure.unprompted
                && !send_steps.contains(&step)
            {
                return Err(at(ClientSpecError::UnpromptedNotSend(step)));
            }
            if kind == DepartureKind::Unprompted
                && departure
                    .unprompted
                    .and_then(|s| send_steps.last().map(|l| s == *l))
                    == Some(true)
            {
                return Err(at(ClientSpecError::UnpromptedLast));
            }
        }
        if self.steps.is_empty() {
            return Err(ClientSpecError::NoSteps);
        }
        for (i, step) in self.steps.iter().enumerate() {
            if let ClientStep::Do(action) = step {
                action_name(action).map_err(|source| ClientSpecError::Step {
                    number: i + 1,
                    source: Box::new(source),
                })?;
            }
        }
        Ok(())
    }
}

/// The name of a `do` action and its label (`as`), or why it is malformed.
pub fn action_name(action: &Value) -> Result<(String, String), ClientSpecError> {
    let name = match action {
        Value::String(name) => name.clone(),
        Value::Object(map) => map
            .get("action")
            .and_then(Value::as_str)
            .ok_or(ClientSpecError::ActionShape)?
            .to_owned(),
        _ => return Err(ClientSpecError::ActionShape),
    };
    if matches!(name.as_str(), "start" | "stop") {
        return Err(ClientSpecError::RunnerAction(name));
    }
    let label = action
        .get("as")
        .and_then(Value::as_str)
        .map_or_else(|| name.clone(), str::to_owned);
    Ok((name, label))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn departure(value: Value) -> Departure {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_departure_does_one_thing_at_one_place_and_says_why_when_it_synthesises() {
        let ok = departure(
            json!({"insert": [{"type": "x"}], "before": {"type": "agent_end"}, "reason": "r"}),
        );
        assert_eq!(ok.kind(), Ok(DepartureKind::Insert));
        let no_reason = departure(json!({"insert": [], "before": {"type": "agent_end"}}));
        assert!(no_reason.kind().unwrap_err().to_string().contains("reason"));
        let two = departure(json!({"split": 1, "exit": 1, "after": {}}));
        assert!(two.kind().unwrap_err().to_string().contains("one thing"));
        let split = departure(json!({"split": 1, "pause_ms": 2, "records": {"type": "m"}}));
        assert_eq!(split.kind(), Ok(DepartureKind::Split));
        let pause = departure(json!({"pause_ms": 300, "before": {"type": "agent_start"}}));
        assert_eq!(pause.kind(), Ok(DepartureKind::Pause));
        let misplaced = departure(json!({"split": 1, "before": {"type": "m"}}));
        assert!(misplaced.kind().is_err());
    }

    #[test]
    fn a_result_of_null_is_told_apart_from_no_result() {
        let null: OutcomeCheck =
            serde_json::from_value(json!({"action": "prompt", "result": null})).unwrap();
        assert_eq!(null.result, Some(Value::Null));
        let none: OutcomeCheck = serde_json::from_value(json!({"action": "prompt"})).unwrap();
        assert_eq!(none.result, None);
    }

    #[test]
    fn actions_have_a_name_and_a_label() {
        assert_eq!(
            action_name(&json!("wait_idle")).unwrap(),
            ("wait_idle".into(), "wait_idle".into())
        );
        assert_eq!(
            action_name(&json!({"action": "get_state", "as": "s2"})).unwrap(),
            ("get_state".into(), "s2".into())
        );
        assert!(action_name(&json!({"message": "x"})).is_err());
        assert!(
            action_name(&json!("start"))
                .unwrap_err()
                .to_string()
                .contains("runner")
        );
    }
}
