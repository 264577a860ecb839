//! `expect` steps in judge mode: records matched against the step's items, and the agent's
//! exit where an `$either` allows it.

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant as Deadline;

use super::{Failure, Mode, Run, Verdict, exit_text, pretty};
use crate::expect::{self, ExitAlternative, Feed, Item, Matcher};

impl Run<'_> {
    pub(super) async fn expect(
        &mut self,
        spec: crate::scenario::ExpectFull,
    ) -> Result<(), Failure> {
        let items: Vec<Item> = spec
            .records
            .iter()
            .map(Item::parse)
            .collect::<Result<_, _>>()
            .map_err(|e| Failure::new(Verdict::Error, e.to_string()))?;
        let mut items = items;
        if let Some(until) = &spec.until {
            items.push(Item::SkipUntil(until.clone()));
        }
        if self.mode == Mode::Collect {
            return self
                .collect(&items, spec.until.as_ref(), &spec.ignore, spec.timeout_ms)
                .await;
        }
        let mut matcher = Matcher::new(items, spec.ignore.clone(), spec.partial);
        let deadline = self.step_deadline(spec.timeout_ms);
        let mut seen = Vec::new();
        while !matcher.is_done() {
            let record = match self.next_record(deadline).await {
                Ok(Some(record)) => record,
                Ok(None) => {
                    if let Some((exits, reason)) = matcher.exit_alternatives() {
                        let (exits, reason) = (exits.to_vec(), reason.to_owned());
                        self.accept_exit(&exits, &reason).await?;
                        self.non_strict.extend(matcher.non_strict);
                        self.findings.excuse(&matcher.excused);
                        self.non_strict.push(reason);
                        self.ended = true;
                        return Ok(());
                    }
                    return Err(self.ended_while_waiting(&matcher).await);
                }
                Err(_) => {
                    let waiting = matcher.waiting_for().unwrap_or(Value::Null);
                    let mut failure = Failure::new(
                        Verdict::Timeout,
                        "the agent did not send the expected record in time",
                    );
                    failure.detail = format!(
                        "waiting for:\n{}\nrecords read in this step:\n{}",
                        pretty(&waiting),
                        seen.join("\n")
                    );
                    failure.difference = Some(Box::new(super::cause::Difference {
                        expected: waiting,
                        actual: Value::Null,
                        details: Vec::new(),
                        expected_later: false,
                    }));
                    return Err(failure);
                }
            };
            self.log
                .push(format!("< +{}ms {}", record.at_ms, record.text()));
            seen.push(record.text());
            // What the agent's release adds that the expectation does not know is left out.
            let Some(record) = self.adjustments.apply(record) else {
                continue;
            };
            match matcher.feed(&record, &self.vars, &mut self.captures) {
                Feed::More | Feed::Done => {}
                Feed::Mismatch(m) => {
                    // The record as the agent wrote it (the diff shows it rendered against
                    // the pattern, which may leave out what a partial pattern does not name).
                    let actual = record.json.clone().unwrap_or_else(|_| m.actual.clone());
                    let expected_later = actual
                        .get("type")
                        .is_some_and(|kind| matcher.expects_later(kind));
                    let difference = super::cause::Difference {
                        expected: m.expected.clone(),
                        actual,
                        details: m.details.clone(),
                        expected_later,
                    };
                    let verdict = if m.unknown_command {
                        Verdict::Unimplemented
                    } else {
                        Verdict::Fail
                    };
                    let detail = format!(
                        "{}\n\n{}",
                        m.details.join("\n"),
                        expect::diff(&m.expected, &m.actual)
                    );
                    return Err(Failure {
                        verdict,
                        message: m.summary,
                        detail,
                        difference: Some(Box::new(difference)),
                    });
                }
            }
        }
        self.non_strict.extend(matcher.non_strict);
        self.findings.excuse(&matcher.excused);
        Ok(())
    }

    /// Stdout closed where an `$either` with exit alternatives was due: the exit must be one of
    /// them.
    async fn accept_exit(
        &mut self,
        exits: &[ExitAlternative],
        reason: &str,
    ) -> Result<(), Failure> {
        if self.process.flooded() {
            return Err(Failure::new(
                Verdict::Fail,
                format!(
                    "the agent flooded stdout (over {} bytes)",
                    crate::agent::MAX_STDOUT_BYTES
                ),
            ));
        }
        let deadline = self.step_deadline(None);
        let Ok(code) = self.process.wait(deadline).await else {
            return Err(Failure::new(
                Verdict::Timeout,
                "the agent closed stdout but did not exit in time",
            ));
        };
        self.exit_code = Some(code);
        self.process.drain_stderr().await;
        let stderr = String::from_utf8_lossy(&self.process.streams().stderr).into_owned();
        if exits.iter().any(|e| e.accepts(code, &stderr)) {
            self.log.push(format!(
                "exit {}: an allowed alternative (non-strict: {reason})",
                exit_text(Some(code))
            ));
            return Ok(());
        }
        let allowed: Vec<String> = exits.iter().map(ExitAlternative::describe).collect();
        let mut failure = Failure::new(
            Verdict::Fail,
            format!(
                "the agent closed stdout (exit: {}) before the expected record, and that exit is \
                 not the allowed one ({})",
                exit_text(Some(code)),
                allowed.join(" or ")
            ),
        );
        failure.detail = format!("stderr:\n{stderr}");
        Err(failure)
    }

    async fn ended_while_waiting(&mut self, matcher: &Matcher) -> Failure {
        let flooded = self.process.flooded();
        let exit = self
            .process
            .wait(Deadline::now() + Duration::from_secs(2))
            .await
            .ok();
        let waiting = matcher.waiting_for().unwrap_or(Value::Null);
        let mut failure = Failure::new(
            Verdict::Fail,
            if flooded {
                format!(
                    "the agent flooded stdout (over {} bytes)",
                    crate::agent::MAX_STDOUT_BYTES
                )
            } else {
                format!(
                    "the agent closed stdout (exit: {}) before the expected record",
                    exit_text(exit)
                )
            },
        );
        failure.detail = format!("waiting for:\n{}", pretty(&waiting));
        failure.difference = Some(Box::new(super::cause::Difference {
            expected: waiting,
            actual: Value::Null,
            details: Vec::new(),
            expected_later: false,
        }));
        failure
    }
}
