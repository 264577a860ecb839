//! Standing in for an agent to validate a third-party RPC client.
//!
//! A scenario is first run against a real agent; what the agent wrote after each send step
//! (up to the next one) is kept as raw lines with their timing ([`Script`]). [`serve`] then plays
//! the agent on a pair of streams: what the client writes is matched against the next send step,
//! and on a match the captured lines are written back, with the client's ids in the responses.

use std::str::FromStr;

use serde_json::{Value, json};

use crate::run::Outcome;
use crate::scenario::{Scenario, Step};

pub mod observe;
mod report;
mod serve;

pub use report::{Extra, Report, Status, StepReport};
pub use serve::serve;

/// Why a scenario cannot be stood in for.
#[derive(Debug, Clone, thiserror::Error)]
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
    /// The scenario has no `send`, `send_raw` or `send_hex` step.
    #[error("the scenario has no send step")]
    NoSend,
}

/// How the captured lines are paced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Timing {
    /// All the lines of a step at once, as soon as the client's command has matched.
    #[default]
    None,
    /// Each line as long after the client's command as it came after the runner's command in
    /// the recorded run (the lines before any command: after the stand-in starts serving).
    Recorded,
}

/// A `--timing` value that names no timing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown timing {0:?}: `recorded` or `none`")]
pub struct UnknownTiming(pub String);

impl FromStr for Timing {
    type Err = UnknownTiming;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "none" => Ok(Self::None),
            "recorded" => Ok(Self::Recorded),
            other => Err(UnknownTiming(other.to_owned())),
        }
    }
}

/// How [`serve`] behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ServeOptions {
    /// How the captured lines are paced.
    pub timing: Timing,
    /// After the last step, go on answering until stdin ends: a command equal to one of the
    /// scenario's `send` steps is answered again as the last such step was (its lines replayed),
    /// anything else with `success: false`.
    pub keep_open: bool,
}

/// One line the agent wrote, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The bytes, with the LF when there was one.
    pub bytes: Vec<u8>,
    /// Milliseconds after the step's bytes were sent (for the preamble: after the agent
    /// started) that the runner read it.
    pub after_ms: u64,
}

/// What the client must send for one step.
#[derive(Debug, Clone)]
pub enum Expected {
    /// A `send` step: one JSON command.
    Command {
        /// The command as the runner sent it.
        command: Value,
        /// The command as the scenario writes it: a string with a `{{...}}` placeholder there
        /// (a scratch path, a captured value) accepts any string from the client.
        template: Value,
    },
    /// A `send_raw` or `send_hex` step, or a `send` that ends a line raw bytes began: the lines
    /// the step completes, split as the agent splits its input (on LF, one CR before the LF
    /// dropped). The bytes of a line that the step begins but does not end belong to the step
    /// that ends it; a line still open after the last step is ended by the end of stdin.
    Lines(Vec<Vec<u8>>),
}

impl Expected {
    /// The expectation as shown in reports (the command without its `id`, or `{"$lines": [..]}`).
    pub fn shown(&self) -> Value {
        match self {
            Expected::Command { command, .. } => without_id(command),
            Expected::Lines(lines) => lines_value(lines),
        }
    }
}

/// One send step and what the agent wrote after it.
#[derive(Debug, Clone)]
pub struct Segment {
    /// 0-based index of the step in the scenario.
    pub step: usize,
    /// What the client must send.
    pub expected: Expected,
    /// The agent's lines until the next send step.
    pub lines: Vec<Line>,
}

/// A transcript to replay: lines written before any command, then one segment per send step.
#[derive(Debug, Clone)]
pub struct Script {
    /// Scenario id.
    pub scenario: String,
    /// The agent the transcript comes from.
    pub agent: String,
    /// Lines the agent wrote before the first command was sent.
    pub preamble: Vec<Line>,
    /// The send steps in order.
    pub segments: Vec<Segment>,
}

impl Script {
    /// Whether the stand-in can replay `scenario`: it has at least one send step.
    pub fn check(scenario: &Scenario) -> Result<(), Error> {
        let sends = |s: &Step| matches!(s, Step::Send(_) | Step::SendRaw(_) | Step::SendHex(_));
        if scenario.steps.iter().any(sends) {
            Ok(())
        } else {
            Err(Error::NoSend)
        }
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
        let transcript = &outcome.transcript;
        let stdout = split_lines(&transcript.streams.stdout);
        let at_ms = |i: usize| transcript.record_ms.get(i).copied().unwrap_or(0);
        let sends = &transcript.sends;
        let first = sends.first().ok_or(Error::NoSend)?;
        let at = |n: usize| n.min(stdout.len());
        let preamble = (0..at(first.records_before))
            .map(|i| Line {
                bytes: stdout[i].clone(),
                after_ms: at_ms(i),
            })
            .collect();
        let mut framer = InputFramer::default();
        let segments = sends
            .iter()
            .enumerate()
            .map(|(i, sent)| {
                let end = sends
                    .get(i + 1)
                    .map_or(stdout.len(), |n| at(n.records_before));
                let start = at(sent.records_before).min(end);
                let began_a_line = framer.is_open();
                let mut lines = framer.push(&sent.bytes);
                let last = i + 1 == sends.len();
                if last && let Some(open) = framer.finish() {
                    lines.push(open);
                }
                let expected = match scenario.steps.get(sent.step) {
                    Some(Step::Send(template)) if !began_a_line && lines.len() == 1 => {
                        Expected::Command {
                            command: serde_json::from_slice(&sent.bytes).unwrap_or_else(
                                |_| json!({"$raw": String::from_utf8_lossy(&sent.bytes)}),
                            ),
                            template: template.clone(),
                        }
                    }
                    _ => Expected::Lines(lines),
                };
                Segment {
                    step: sent.step,
                    expected,
                    lines: (start..end)
                        .map(|n| Line {
                            bytes: stdout[n].clone(),
                            after_ms: at_ms(n).saturating_sub(sent.at_ms),
                        })
                        .collect(),
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

/// Splits a byte stream into lines as the agent does: on LF, whatever the chunking.
#[derive(Debug, Default)]
struct InputFramer {
    open: Vec<u8>,
}

impl InputFramer {
    /// Whether bytes of an unfinished line are held.
    fn is_open(&self) -> bool {
        !self.open.is_empty()
    }

    /// Feeds bytes; returns the lines they end, without LF and without one CR before it.
    fn push(&mut self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        for piece in bytes.split_inclusive(|b| *b == b'\n') {
            match piece.strip_suffix(b"\n") {
                Some(body) => {
                    self.open.extend_from_slice(body);
                    let mut line = std::mem::take(&mut self.open);
                    if line.ends_with(b"\r") {
                        line.pop();
                    }
                    lines.push(line);
                }
                None => self.open.extend_from_slice(piece),
            }
        }
        lines
    }

    /// The unfinished line, ended by the end of the stream.
    fn finish(&mut self) -> Option<Vec<u8>> {
        self.is_open().then(|| std::mem::take(&mut self.open))
    }
}

/// Splits stdout into lines on LF, each keeping its LF (a last line without LF is kept as is).
fn split_lines(bytes: &[u8]) -> Vec<Vec<u8>> {
    bytes
        .split_inclusive(|b| *b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
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

/// Lines as shown in reports: `{"$lines": [...]}`, each line as text, or `{"$hex": ".."}` when
/// it is not UTF-8.
fn lines_value(lines: &[Vec<u8>]) -> Value {
    let shown: Vec<Value> = lines
        .iter()
        .map(|line| match std::str::from_utf8(line) {
            Ok(text) => Value::String(text.to_owned()),
            Err(_) => {
                let hex: Vec<String> = line.iter().map(|b| format!("{b:02x}")).collect();
                json!({"$hex": hex.join(" ")})
            }
        })
        .collect();
    json!({"$lines": shown})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_is_framed_on_lf_whatever_the_steps_and_one_cr_is_dropped() {
        let mut framer = InputFramer::default();
        assert_eq!(framer.push(b"{\"a\":"), Vec::<Vec<u8>>::new());
        assert!(framer.is_open());
        assert_eq!(framer.push(b"1}\r"), Vec::<Vec<u8>>::new());
        assert_eq!(
            framer.push(b"\nx\r\r\n\ny"),
            vec![b"{\"a\":1}".to_vec(), b"x\r".to_vec(), Vec::new()]
        );
        assert_eq!(framer.finish(), Some(b"y".to_vec()));
        assert_eq!(framer.finish(), None);
    }

    #[test]
    fn lines_that_are_not_utf8_are_shown_in_hex() {
        assert_eq!(
            lines_value(&[b"ok".to_vec(), b"a\xff".to_vec()]),
            json!({"$lines": ["ok", {"$hex": "61 ff"}]})
        );
    }
}
