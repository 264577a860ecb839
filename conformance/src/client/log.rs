//! What the stand-in wrote to the client and what the client's pipes took, kept as it happens,
//! and the observations drawn from it when a case fails: what the client was last sent, what in
//! that is suspicious, where the stand-in departed from the transcript, and whether a write is
//! stuck because the client does not read.

use std::time::{Duration, Instant};

use serde_json::Value;

use crate::standin::observe::{describe, size, suspicious};

/// One write to the client (a record, a piece of one, or stderr).
#[derive(Debug, Clone)]
pub struct Written {
    /// The 1-based number of the stdout line it belongs to (0 for stderr).
    pub line: usize,
    /// Stderr rather than stdout.
    pub stderr: bool,
    /// Bytes written.
    pub bytes: usize,
    /// Its frame's sequence number.
    pub seq: u64,
    /// When it was handed to the relay.
    pub at: Instant,
}

/// One stdout line the client was sent.
#[derive(Debug, Clone)]
pub struct SentLine {
    /// Its description (type, size).
    pub what: String,
    /// What clients commonly mishandle in it.
    pub notes: Vec<String>,
    /// Where the stand-in departed from the transcript for it, with the reason.
    pub departure: Option<String>,
    /// The sequence number of its last frame.
    pub last_seq: u64,
}

/// Everything the session saw.
#[derive(Debug, Default)]
pub struct Log {
    /// The client's bytes on the agent's stdin.
    pub stdin: Vec<u8>,
    /// The bytes written on the agent's stdout.
    pub stdout: Vec<u8>,
    /// Stdout lines, in order.
    pub lines: Vec<SentLine>,
    /// Every write, in order.
    pub writes: Vec<Written>,
    /// The last frame the relay wrote to the client's pipe.
    pub acked: u64,
    /// The last frame sequence number used.
    pub seq: u64,
    /// Departures that are not about one line (stderr, exit), as sentences.
    pub events: Vec<String>,
    /// Lines that were not written because the agent had exited.
    pub dropped: usize,
    /// The relay connected.
    pub connected: bool,
    /// The client's commands so far (complete lines of its stdin), in order.
    pub commands: Vec<Command>,
    /// Lines of stdin the client has completed (commands with an id or not).
    pub stdin_lines: usize,
}

/// A command the client sent with an id.
#[derive(Debug, Clone)]
pub struct Command {
    /// Its `id`.
    pub id: Value,
    /// Its `type`.
    pub kind: String,
    /// How many stdout lines had been written when it arrived.
    pub after_line: usize,
    /// Whether a response with its id has been written.
    pub answered: bool,
    /// Whether a record has been written since it arrived.
    pub followed: bool,
}

impl Log {
    /// Numbers a new frame.
    pub fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Observations for a failure message, most telling first: a write the client does not
    /// take, the agent's exit, departures from the transcript, suspicious records, and what the
    /// client was last sent.
    pub fn observations(&self, now: Instant) -> Vec<String> {
        let mut out = Vec::new();
        if !self.connected {
            out.push("the client never started the agent (the relay never connected)".into());
            return out;
        }
        if let Some(stuck) = self.writes.iter().find(|w| w.seq > self.acked) {
            let waited = now.saturating_duration_since(stuck.at);
            if waited >= Duration::from_millis(500) {
                out.push(if stuck.stderr {
                    format!(
                        "the stand-in has been blocked {:.1} s writing {} on stderr: the client \
                         does not read the agent's stderr, so the pipe filled and the agent is \
                         stuck",
                        waited.as_secs_f64(),
                        size(stuck.bytes)
                    )
                } else {
                    format!(
                        "the stand-in has been blocked {:.1} s writing line {} on stdout: the \
                         client does not read the agent's stdout",
                        waited.as_secs_f64(),
                        stuck.line
                    )
                });
            }
        }
        out.extend(self.events.iter().cloned());
        for (i, line) in self.lines.iter().enumerate() {
            if let Some(departure) = &line.departure {
                out.push(format!("line {} ({}): {departure}", i + 1, line.what));
            }
        }
        let mut seen = Vec::new();
        for (i, line) in self.lines.iter().enumerate() {
            for note in &line.notes {
                // The same trait on several lines: the first says it (the text after the
                // first colon explains the trait, before it are the line's particulars).
                let key = note
                    .split_once(':')
                    .map_or(note.as_str(), |(_, why)| why)
                    .to_owned();
                if !seen.contains(&key) {
                    seen.push(key);
                    out.push(format!("line {} ({}): {note}", i + 1, line.what));
                }
            }
        }
        let taken = self
            .lines
            .iter()
            .rposition(|l| l.last_seq <= self.acked && l.last_seq > 0);
        out.push(match taken {
            Some(i) => format!(
                "the client's pipe took {} of the {} lines written; the last: line {} ({})",
                i + 1,
                self.lines.len(),
                i + 1,
                self.lines[i].what
            ),
            None => format!(
                "the client's pipe took none of the {} lines written",
                self.lines.len()
            ),
        });
        if self.dropped > 0 {
            out.push(format!(
                "{} line(s) of the transcript were not written: the agent had exited",
                self.dropped
            ));
        }
        out
    }

    /// Notes a stdout line about to be written: its traits, and how it stands to the client's
    /// commands (before any, answering one out of order or after other records, carrying a
    /// command's id without being its response).
    pub fn line(&mut self, bytes: &[u8], departure: Option<String>) -> usize {
        let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let mut notes = suspicious(body);
        notes.extend(self.protocol_notes(body));
        self.lines.push(SentLine {
            what: describe(body),
            notes,
            departure,
            last_seq: 0,
        });
        self.lines.len()
    }

    /// Notes the client's bytes on stdin, and the commands their complete lines hold.
    pub fn client_wrote(&mut self, bytes: &[u8]) {
        let complete =
            self.stdin.len() - self.stdin.iter().rev().take_while(|b| **b != b'\n').count();
        self.stdin.extend_from_slice(bytes);
        let mut start = complete;
        while let Some(end) = self.stdin[start..].iter().position(|b| *b == b'\n') {
            let line = &self.stdin[start..start + end];
            self.stdin_lines += 1;
            if let Ok(Value::Object(command)) = serde_json::from_slice::<Value>(line) {
                let kind = command.get("type").and_then(Value::as_str).unwrap_or("?");
                if let Some(id) = command.get("id")
                    && kind != "extension_ui_response"
                {
                    self.commands.push(Command {
                        id: id.clone(),
                        kind: kind.to_owned(),
                        after_line: self.lines.len(),
                        answered: false,
                        followed: false,
                    });
                }
            }
            start += end + 1;
        }
    }

    fn protocol_notes(&mut self, body: &[u8]) -> Vec<String> {
        let mut notes = Vec::new();
        if self.stdin_lines == 0 {
            notes.push(
                "written before the client sent any command: a client must take records that \
                 no command asked for"
                    .to_owned(),
            );
        }
        // A record too long to parse for a note is no response (those are short).
        let parsed = (body.len() <= 1 << 20)
            .then(|| serde_json::from_slice::<Value>(body).ok())
            .flatten();
        let record = match parsed {
            Some(Value::Object(record)) => record,
            _ => serde_json::Map::new(),
        };
        let kind = record.get("type").and_then(Value::as_str).unwrap_or("?");
        let answers = |c: &Command| kind == "response" && record.get("id") == Some(&c.id);
        for command in self
            .commands
            .iter_mut()
            .filter(|c| !c.answered && !c.followed)
        {
            command.followed = true;
            if !answers(command) {
                notes.push(format!(
                    "the first record after the client's `{}` ({}) and not its answer: a client \
                     that takes the next record for the answer takes this one",
                    command.kind, command.id
                ));
            }
        }
        let Some(id) = record.get("id") else {
            return notes;
        };
        let Some(at) = self
            .commands
            .iter()
            .position(|c| !c.answered && &c.id == id)
        else {
            return notes;
        };
        let number = self.lines.len() + 1;
        let command = self.commands[at].clone();
        if kind != "response" {
            notes.push(format!(
                "carries the id of the client's `{}` ({}) but is a `{kind}`, not its response: a \
                 client that pairs any record carrying an id with its command takes it for the \
                 answer",
                command.kind, command.id
            ));
            return notes;
        }
        self.commands[at].answered = true;
        if let Some(earlier) = self.commands[..at].iter().find(|c| !c.answered) {
            notes.push(format!(
                "answers the client's `{}` ({}) while its earlier `{}` ({}) still waits: a client \
                 that pairs responses with its commands by order crosses them",
                command.kind, command.id, earlier.kind, earlier.id
            ));
        }
        let between = number - 1 - command.after_line;
        if between > 0 {
            notes.push(format!(
                "answers the client's `{}` ({}) after {between} other record(s) written since \
                 the command: a client that takes the next record for the answer misreads them",
                command.kind, command.id
            ));
        }
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stuck_stderr_write_comes_first_and_the_last_line_taken_last() {
        let mut log = Log {
            connected: true,
            ..Log::default()
        };
        let long_ago = Instant::now() - Duration::from_secs(2);
        let number = log.line(b"{\"type\":\"agent_start\"}\n", None);
        let seq = log.next_seq();
        log.lines[number - 1].last_seq = seq;
        log.acked = seq;
        let seq = log.next_seq();
        log.writes.push(Written {
            line: 0,
            stderr: true,
            bytes: 1 << 20,
            seq,
            at: long_ago,
        });
        let notes = log.observations(Instant::now());
        assert!(notes[0].contains("writing 1.0 MiB on stderr"), "{notes:?}");
        assert_eq!(
            notes.last().map(String::as_str),
            Some(
                "the client's pipe took 1 of the 1 lines written; the last: line 1 (agent_start, 22 bytes)"
            )
        );
    }
}
