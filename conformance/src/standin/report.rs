//! The stand-in's report: one entry per send step, and the commands answered after the last.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

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

/// One send step in the report.
#[derive(Debug, Clone, Serialize)]
pub struct StepReport {
    /// 1-based step number in the scenario.
    pub step: usize,
    /// The verdict.
    pub status: Status,
    /// The command expected (ids are not compared), or `{"$lines": [...]}`: the lines a raw step
    /// ends.
    pub expected: Value,
    /// What the client sent (`{"$raw": TEXT}` when it is not JSON; `{"$lines": [...]}` for a raw
    /// step).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub received: Option<Value>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A command received after the last step (`--keep-open`).
#[derive(Debug, Clone, Serialize)]
pub struct Extra {
    /// What the client sent.
    pub received: Value,
    /// Whether the transcript had an answer (else it got `success: false`).
    pub answered: bool,
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
    /// One entry per send step that expects something from the client (a raw step that ends no
    /// line is left out: its bytes are compared with the step that ends the line).
    pub steps: Vec<StepReport>,
    /// Commands received after the last step, with `--keep-open`; they do not change `passed`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extra: Vec<Extra>,
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
        if !self.extra.is_empty() {
            let answered = self.extra.iter().filter(|e| e.answered).count();
            let _ = writeln!(
                out,
                "  after the last step: {} command(s), {answered} answered from the transcript",
                self.extra.len()
            );
        }
        out
    }
}
