//! The steps of a run, one by one: sends, the steps that are not `expect`, and the end of the
//! run (stdin closed, exit awaited, trailing records).

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant as Deadline;

use super::{Failure, Mode, Run, STEP_TIMEOUT, Sent, Verdict, exit_text, text_value};
use crate::agent::{Elapsed, Record};
use crate::expect;
use crate::load::decode_hex;
use crate::pattern::{self, MatchOptions};
use crate::scenario::{ExitSpec, FileCheck, JournalSpec, Step, Trailing, WaitRequests};

/// How often a `file` step with `within_ms` looks at the file again.
const FILE_POLL: Duration = Duration::from_millis(50);

impl Run<'_> {
    /// The next record; the first one ends the startup grace.
    pub(super) async fn next_record(
        &mut self,
        deadline: Deadline,
    ) -> Result<Option<Record>, Elapsed> {
        loop {
            let next = self.process.next_record(deadline).await;
            let Ok(Some(record)) = &next else {
                return next;
            };
            self.started = true;
            self.records_read = record.index + 1;
            self.record_ms.push(record.at_ms);
            if self.is_handshake(record) {
                self.log.push(format!(
                    "< +{}ms {} (the profile's handshake, set aside)",
                    record.at_ms,
                    record.text()
                ));
                continue;
            }
            self.check_record(record);
            return next;
        }
    }

    /// Whether `record` is the handshake the agent's profile names: its first record, matching
    /// the profile's pattern.
    fn is_handshake(&self, record: &Record) -> bool {
        let (Some(pattern), Ok(json)) = (&self.handshake, &record.json) else {
            return false;
        };
        let partial = MatchOptions { partial: true };
        let captures = pattern::Captures::new();
        record.index == 0 && pattern::match_value(pattern, json, &self.vars, &captures, partial).ok
    }

    /// The deadline of a step: its time limit (scaled), plus the startup grace while the agent
    /// has not written its first record, capped by the scenario's deadline.
    pub(super) fn step_deadline(&self, timeout_ms: Option<u64>) -> Deadline {
        let mut limit = self
            .options
            .scaled(timeout_ms.map_or(STEP_TIMEOUT, Duration::from_millis));
        if !self.started {
            limit += self.options.startup_grace;
        }
        (Deadline::now() + limit).min(self.deadline)
    }

    pub(super) async fn steps(&mut self) -> Result<(), Failure> {
        for (index, step) in self.scenario.steps.iter().enumerate() {
            let label = format!("step {}", index + 1);
            self.step_index = index;
            self.step(step).await.map_err(|mut f| {
                f.message = format!("{label}: {}", f.message);
                f
            })?;
            if self.ended {
                let left = self.scenario.steps.len() - index - 1;
                if left > 0 {
                    self.log.push(format!(
                        "the agent is gone: the {left} step(s) after {label} were not run"
                    ));
                }
                break;
            }
        }
        Ok(())
    }

    /// A `file` step: checked once, or with `within_ms` again and again until it passes or the
    /// time is up. Captures are kept only from the attempt that passes.
    async fn check_file(&mut self, check: &FileCheck) -> Result<(), Failure> {
        let deadline = check.within_ms.map(|ms| {
            (Deadline::now() + self.options.scaled(Duration::from_millis(ms))).min(self.deadline)
        });
        loop {
            let mut captures = self.captures.clone();
            match crate::files::check(check, &self.vars, &mut captures, self.adjustments) {
                Ok(()) => {
                    self.captures = captures;
                    return Ok(());
                }
                Err(crate::files::FileCheckError { message, detail }) => {
                    let left = deadline.map(|d| d.saturating_duration_since(Deadline::now()));
                    match left {
                        Some(left) if !left.is_zero() => {
                            tokio::time::sleep(left.min(FILE_POLL)).await;
                        }
                        _ => {
                            return Err(Failure {
                                verdict: Verdict::Fail,
                                message,
                                detail,
                                difference: None,
                            });
                        }
                    }
                }
            }
        }
    }

    async fn send(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.sends.push(Sent {
            step: self.step_index,
            bytes: bytes.to_vec(),
            records_before: self.records_read,
            at_ms: self.process.elapsed_ms(),
        });
        self.log
            .push(format!("> {}", String::from_utf8_lossy(bytes).trim_end()));
        let deadline = self.step_deadline(None);
        let Ok(sent) = tokio::time::timeout_at(deadline, self.process.send(bytes)).await else {
            return Err(Failure::new(
                Verdict::Timeout,
                "the agent did not read its stdin in time",
            ));
        };
        if let Err(err) = sent {
            let exit = self.process.exited();
            return Err(Failure::new(
                Verdict::Fail,
                format!(
                    "cannot write to the agent's stdin ({err}); exit: {}",
                    exit_text(exit)
                ),
            ));
        }
        Ok(())
    }

    async fn step(&mut self, step: &Step) -> Result<(), Failure> {
        match step {
            Step::Send(value) => {
                let value = pattern::substitute_captures(value, &self.captures);
                let value = crate::scratch::substitute_value(&value, &self.vars);
                self.check_command(&value);
                let mut line = serde_json::to_vec(&value).unwrap_or_default();
                line.push(b'\n');
                self.send(&line).await
            }
            Step::SendRaw(text) => self.send(text.as_bytes()).await,
            Step::SendHex(hex) => {
                let bytes =
                    decode_hex(hex).map_err(|e| Failure::new(Verdict::Error, e.to_string()))?;
                self.send(&bytes).await
            }
            Step::Expect(spec) => self.expect(spec.full()).await,
            Step::ExpectQuiet(ms) => {
                let quiet = self.options.scaled(Duration::from_millis(*ms));
                let deadline = (Deadline::now() + quiet).min(self.deadline);
                match self.next_record(deadline).await {
                    Err(_) | Ok(None) => Ok(()),
                    Ok(Some(record)) => {
                        self.log
                            .push(format!("< +{}ms {}", record.at_ms, record.text()));
                        Err(Failure::new(
                            Verdict::Fail,
                            format!("expected no record for {ms} ms, got {}", record.text()),
                        ))
                    }
                }
            }
            Step::ReleaseGate(name) => {
                self.log.push(format!("release gate {name}"));
                self.mock
                    .release_gate(name)
                    .map_err(|e| Failure::new(Verdict::Error, format!("release_gate: {e}")))
            }
            Step::WaitRequests(spec) => {
                let (count, timeout_ms) = match spec {
                    WaitRequests::Count(count) => (*count, None),
                    WaitRequests::Full { count, timeout_ms } => (*count, *timeout_ms),
                };
                let deadline = self.step_deadline(timeout_ms);
                let wait = deadline.saturating_duration_since(Deadline::now());
                self.log.push(format!("wait for {count} mock requests"));
                if self.mock.wait_for_requests(count, wait).await {
                    Ok(())
                } else {
                    Err(Failure::new(
                        Verdict::Timeout,
                        format!(
                            "the mock received {} requests, not {count}, in time",
                            self.mock.request_count()
                        ),
                    ))
                }
            }
            Step::Journal(spec) => self.journal(spec),
            Step::File(check) => self.check_file(check).await,
            Step::Stdout(check) => {
                if self.exit_code.is_some() {
                    // The agent is gone: all it wrote is there to be read.
                    self.process.drain_stdout().await;
                }
                let stdout = self.process.streams().stdout;
                crate::files::check_stdout(check, &stdout)
                    .map_err(|e| Failure::new(Verdict::Fail, e.to_string()))
            }
            Step::CloseStdin => {
                self.log.push("close stdin".into());
                self.process.close_stdin();
                Ok(())
            }
            Step::Exit(spec) => {
                let (code, timeout_ms) = match spec {
                    ExitSpec::Code(code) => (Some(*code), None),
                    ExitSpec::Full {
                        code, timeout_ms, ..
                    } => (*code, *timeout_ms),
                };
                let deadline = self.step_deadline(timeout_ms);
                match self.process.wait(deadline).await {
                    Err(_) => Err(Failure::new(
                        Verdict::Timeout,
                        "the agent did not exit in time",
                    )),
                    Ok(actual) => {
                        self.exit_code = Some(actual);
                        self.log.push(format!("exit {}", exit_text(Some(actual))));
                        match code {
                            Some(code) if actual != Some(code) => Err(Failure::new(
                                Verdict::Fail,
                                format!(
                                    "expected exit code {code}, got {}",
                                    exit_text(Some(actual))
                                ),
                            )),
                            _ => self.check_stderr(spec).await,
                        }
                    }
                }
            }
        }
    }

    /// The `stderr` and `stderr_contains` of an `exit` step, once the agent has exited.
    async fn check_stderr(&mut self, spec: &ExitSpec) -> Result<(), Failure> {
        let ExitSpec::Full {
            stderr: whole,
            stderr_contains,
            ..
        } = spec
        else {
            return Ok(());
        };
        if whole.is_none() && stderr_contains.is_empty() {
            return Ok(());
        }
        self.process.drain_stderr().await;
        let stderr = self.process.streams().stderr;
        let stderr = String::from_utf8_lossy(&stderr);
        if let Some(missing) = stderr_contains
            .iter()
            .find(|t| !stderr.contains(t.as_str()))
        {
            return Err(Failure::new(
                Verdict::Fail,
                format!("stderr does not contain {missing:?}; stderr: {stderr:?}"),
            ));
        }
        let Some(whole) = whole else {
            return Ok(());
        };
        let result = pattern::match_value(
            &Value::String(whole.clone()),
            &Value::String(stderr.clone().into_owned()),
            &self.vars,
            &self.captures,
            MatchOptions { partial: false },
        );
        if result.ok {
            self.captures = result.captures;
            return Ok(());
        }
        Err(Failure::new(
            Verdict::Fail,
            format!("stderr differs: expected {whole:?}, got {stderr:?}"),
        ))
    }

    fn journal(&mut self, spec: &JournalSpec) -> Result<(), Failure> {
        let (entries, exact) = match spec {
            JournalSpec::List(entries) => (entries.clone(), false),
            JournalSpec::Full { entries, exact } => (entries.clone(), *exact),
        };
        let journal = self.mock.journal();
        let pattern = Value::Array(entries);
        let result = pattern::match_value(
            &pattern,
            &journal,
            &self.vars,
            &self.captures,
            MatchOptions { partial: !exact },
        );
        if result.ok {
            self.captures = result.captures;
            Ok(())
        } else {
            Err(Failure {
                verdict: Verdict::Fail,
                message: "the mock's journal does not match".into(),
                detail: format!(
                    "{}\n\n{}",
                    result.mismatches.join("\n"),
                    expect::diff(&pattern::display_pattern(&pattern), &result.rendered)
                ),
                difference: None,
            })
        }
    }

    /// After the last step: close stdin, wait for the exit, and check unread records.
    pub(super) async fn finish(&mut self) -> Result<(), Failure> {
        self.process.close_stdin();
        let mut trailing = Vec::new();
        let deadline = Deadline::now() + Duration::from_secs(5);
        while let Ok(Some(record)) = self.next_record(deadline).await {
            self.log
                .push(format!("< +{}ms {}", record.at_ms, record.text()));
            trailing.push(record.text());
        }
        if self.exit_code.is_none()
            && self
                .process
                .wait(Deadline::now() + Duration::from_secs(5))
                .await
                .is_err()
        {
            self.log
                .push("the agent did not exit after stdin closed: killed".into());
            self.process.kill().await;
        }
        if self.mode == Mode::Collect {
            if self.ended {
                // `record` pairs lists with expect steps: no trailing list after an early end.
                return Ok(());
            }
            self.collected.push(
                trailing
                    .iter()
                    .map(|t| crate::normalise::normalise_record(&text_value(t), &self.vars))
                    .collect(),
            );
            return Ok(());
        }
        if !trailing.is_empty() && self.scenario.trailing == Trailing::Fail {
            let mut failure = Failure::new(
                Verdict::Fail,
                format!(
                    "{} unexpected record(s) after the last step",
                    trailing.len()
                ),
            );
            failure.detail = trailing.join("\n");
            return Err(failure);
        }
        Ok(())
    }
}
