//! The result of a run: the verdict, the transcript, and what each send step wrote.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::agent::Streams;

/// The verdict of one scenario on one agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Everything matched.
    Pass,
    /// Matched, but only through alternatives the scenario allows.
    #[serde(rename = "non-strict")]
    NonStrict,
    /// A mismatch.
    Fail,
    /// The agent answered `Unknown command` where the scenario expected something else.
    Unimplemented,
    /// A harness problem (the agent could not start, the mock failed, a file was unreadable).
    Error,
    /// The agent did not answer in time.
    Timeout,
    /// Not run: the agent's release is outside the releases the scenario holds for.
    #[serde(rename = "n/a")]
    NotApplicable,
    /// Not run: the machine lacks what the scenario needs (the message says what). Counted
    /// with the passes, and named in the summary.
    Skipped,
}

impl Verdict {
    /// Whether the verdict counts as passing.
    pub fn passed(self) -> bool {
        matches!(self, Verdict::Pass | Verdict::NonStrict | Verdict::Skipped)
    }

    /// Whether the scenario was run at all (every verdict but `n/a`).
    pub fn ran(self) -> bool {
        self != Verdict::NotApplicable
    }

    /// The word used in tables and baselines.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::NonStrict => "non-strict",
            Verdict::Fail => "fail",
            Verdict::Unimplemented => "unimplemented",
            Verdict::Error => "error",
            Verdict::Timeout => "timeout",
            Verdict::NotApplicable => "n/a",
            Verdict::Skipped => "skipped",
        }
    }
}

/// Everything kept about one run.
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    /// The agent's streams.
    pub streams: Streams,
    /// The mock's journal.
    pub journal: Value,
    /// One line per step and event of the run.
    pub log: Vec<String>,
    /// The command line run.
    pub command: Vec<String>,
    /// What each send step wrote, in order (for `stand-in`).
    pub sends: Vec<Sent>,
    /// When each stdout record read by the runner arrived, in ms since the agent started (the
    /// n-th entry is the n-th line of stdout; for `stand-in --timing recorded`).
    pub record_ms: Vec<u64>,
}

/// What one send step wrote to the agent, and where it fell in the agent's stdout.
#[derive(Debug, Clone, Default)]
pub struct Sent {
    /// 0-based index of the step in the scenario.
    pub step: usize,
    /// The bytes written.
    pub bytes: Vec<u8>,
    /// How many stdout records the runner had read before writing them.
    pub records_before: usize,
    /// When they were written, in ms since the agent started.
    pub at_ms: u64,
}

/// The result of one scenario on one agent.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Scenario id.
    pub id: String,
    /// Scenario title.
    pub title: String,
    /// Scenario file.
    pub file: PathBuf,
    /// Agent name and release (`reference@0.84.1`).
    pub agent: String,
    /// The scenario was run on a release outside those it holds for (`run --outside`): it is
    /// expected to fail there.
    pub outside: bool,
    /// The verdict.
    pub verdict: Verdict,
    /// One line saying why (empty on pass).
    pub message: String,
    /// The diff or longer explanation.
    pub detail: String,
    /// Reasons of non-strict matches.
    pub non_strict: Vec<String>,
    /// The scenario's tags.
    pub tags: Vec<String>,
    /// Why it failed, for reports that group failures (none when it passed).
    pub cause: Option<super::cause::Cause>,
    /// The first record that departed from the expectation, as the agent wrote it.
    pub first_difference: Option<serde_json::Value>,
    /// Wall time.
    pub duration: Duration,
    /// Records read by each `expect` step (normalised), for `record` and `diff`.
    pub collected: Vec<Vec<Value>>,
    /// The transcript.
    pub transcript: Transcript,
}

impl Outcome {
    /// The outcome of `loaded` on `agent` before anything ran: an error with no message yet.
    pub fn new(loaded: &crate::load::Loaded, agent: &str) -> Self {
        Self {
            id: loaded.scenario.id.clone(),
            title: loaded.scenario.title.clone(),
            file: loaded.file.clone(),
            agent: agent.to_owned(),
            outside: false,
            verdict: Verdict::Error,
            message: String::new(),
            detail: String::new(),
            non_strict: Vec::new(),
            tags: loaded.scenario.tags.clone(),
            cause: None,
            first_difference: None,
            duration: Duration::ZERO,
            collected: Vec::new(),
            transcript: Transcript::default(),
        }
    }
}
