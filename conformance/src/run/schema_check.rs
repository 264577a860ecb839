//! Every run checks what is said on the wire against the schema of the agent's release: each
//! record the agent writes, and each command a `send` step writes (`send_raw` and `send_hex`
//! are framing tests and are not checked).
//!
//! A record that departs from the schema fails the scenario with its JSON path. A command
//! that departs from it is what a scenario sends on purpose to see it refused: it passes when
//! the agent answers it with a failure, and fails the scenario when the agent accepts it (the
//! schema or the agent is wrong).
//!
//! A record an `$either`'s allowed alternative matched (a recorded divergence of the reference,
//! with its `reason`) is excused when it departs from the schema, and so is an accepted command
//! when such a record came between its sending and its answer (the answer included): the
//! divergence is how the agent took that command. The run is then non-strict, the departure
//! named beside the divergence's reason. Any other departure fails the scenario.

use serde_json::Value;

use super::{Failure, Run, Verdict};
use crate::agent::Record;
use crate::schema::{LineKind, Violation};

/// What the checks found so far in one run.
#[derive(Debug, Default)]
pub(super) struct SchemaFindings {
    /// Records that depart from the schema: their 0-based index and what is wrong.
    records: Vec<(usize, Value, Vec<Violation>)>,
    /// Commands that depart from it: the number of records read before, the command, and
    /// what is wrong.
    commands: Vec<(usize, Value, Vec<Violation>)>,
    /// Responses read: index, id (absent: `None`), success.
    responses: Vec<(usize, Option<Value>, bool)>,
    /// The records (indexes) that recorded divergences matched.
    excused: Vec<usize>,
}

impl SchemaFindings {
    /// Notes the records an expectation matched with a divergence's alternative.
    pub(super) fn excuse(&mut self, records: &[usize]) {
        self.excused.extend_from_slice(records);
    }
}

/// Shown of a failing line, at most.
const SHOWN_CHARS: usize = 400;

impl Run<'_> {
    /// Checks one record the agent wrote.
    pub(super) fn check_record(&mut self, record: &Record) {
        let (Some(validators), Ok(value)) = (&self.schema, &record.json) else {
            return;
        };
        if value.get("type").and_then(Value::as_str) == Some("response") {
            let success = value.get("success") == Some(&Value::Bool(true));
            let id = value.get("id").cloned();
            self.findings.responses.push((record.index, id, success));
        }
        let violations = validators.check(LineKind::Record, value);
        if !violations.is_empty() {
            self.findings
                .records
                .push((record.index, value.clone(), violations));
        }
    }

    /// Checks one command a `send` step writes.
    pub(super) fn check_command(&mut self, value: &Value) {
        let Some(validators) = &self.schema else {
            return;
        };
        let violations = validators.check(LineKind::Command, value);
        if !violations.is_empty() {
            self.findings
                .commands
                .push((self.records_read, value.clone(), violations));
        }
    }

    /// The verdict of the checks at the end of a run that passed otherwise.
    pub(super) fn schema_verdict(&mut self) -> Result<(), Failure> {
        if self.mode == super::Mode::Collect {
            return Ok(());
        }
        let release = self.schema.as_ref().map(|v| v.release.to_string());
        let release = release.unwrap_or_default();
        let findings = &self.findings;
        let mut excused = Vec::new();
        for (index, value, violations) in &findings.records {
            if !findings.excused.contains(index) {
                return Err(failure(
                    format!(
                        "record {} does not follow the schema of pi {release}: {}",
                        index + 1,
                        violations[0]
                    ),
                    value,
                    violations,
                ));
            }
            excused.push(format!(
                "record {} departs from the schema of pi {release} ({}), a recorded divergence",
                index + 1,
                violations[0]
            ));
        }
        for (before, value, violations) in &findings.commands {
            match self.answer(*before, value) {
                Some((_, false)) => {}
                Some((answer, true))
                    if findings
                        .excused
                        .iter()
                        .any(|e| (*before..=answer).contains(e)) =>
                {
                    excused.push(format!(
                        "an accepted command departs from the schema of pi {release} ({}), a \
                         recorded divergence",
                        violations[0]
                    ));
                }
                _ => {
                    return Err(failure(
                        format!(
                            "a command that does not follow the schema of pi {release} was not \
                             refused: {}",
                            violations[0]
                        ),
                        value,
                        violations,
                    ));
                }
            }
        }
        self.non_strict.extend(excused);
        Ok(())
    }

    /// The answer to the command sent after `before` records: the first response after it with
    /// the command's id (any response when it has none), its index and whether it succeeded.
    fn answer(&self, before: usize, command: &Value) -> Option<(usize, bool)> {
        let id = command.get("id");
        self.findings
            .responses
            .iter()
            .filter(|(index, _, _)| *index >= before)
            .find(|(_, response_id, _)| id.is_none() || response_id.as_ref() == id)
            .map(|(index, _, success)| (*index, *success))
    }
}

fn failure(message: String, value: &Value, violations: &[Violation]) -> Failure {
    let mut line = value.to_string();
    if line.len() > SHOWN_CHARS {
        let cut = (0..=SHOWN_CHARS)
            .rev()
            .find(|i| line.is_char_boundary(*i))
            .unwrap_or(0);
        line.truncate(cut);
        line.push_str("...");
    }
    let mut detail: Vec<String> = violations.iter().map(ToString::to_string).collect();
    detail.push(line);
    Failure {
        verdict: Verdict::Fail,
        message,
        detail: detail.join("\n"),
        difference: Some(Box::new(super::cause::Difference {
            expected: Value::Null,
            actual: value.clone(),
            details: Vec::new(),
            expected_later: false,
        })),
    }
}
