//! Delivery: the stand-in's lines on their way to the relay, with the scenario's departures from
//! the transcript applied (records inserted or merged into, written in pieces, after a pause,
//! stderr, an exit), every write logged.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::log::{Log, Written};
use super::wire;
use crate::agent::Framer;
use crate::pattern::{self, Captures, MatchOptions, Vars};
use crate::scenario::{Departure, DepartureKind};

/// Lines longer than this are not parsed to be matched against departures' patterns.
const MAX_MATCHED_LINE: usize = 4 << 20;

/// Where a departure's pattern is looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// `before`
    Before,
    /// `after`
    After,
    /// `records`
    Records,
}

/// One departure and how many records its pattern has chosen so far.
struct Active {
    departure: Departure,
    kind: DepartureKind,
    count: usize,
}

/// The delivery of one session.
pub struct Delivery<W> {
    departures: Vec<Active>,
    log: Arc<Mutex<Log>>,
    relay: W,
    vars: Vars,
    exited: bool,
}

impl<W: AsyncWrite + Unpin> Delivery<W> {
    /// A delivery writing frames to `relay`, logging into `log`. Unprompted departures are not
    /// for it (they change the script before serving).
    pub fn new(departures: &[Departure], log: Arc<Mutex<Log>>, relay: W) -> Self {
        Self {
            departures: departures
                .iter()
                .filter_map(|d| {
                    let kind = d.kind().ok()?;
                    (kind != DepartureKind::Unprompted).then(|| Active {
                        departure: d.clone(),
                        kind,
                        count: 0,
                    })
                })
                .collect(),
            log,
            relay,
            vars: Vars::new(),
            exited: false,
        }
    }

    /// Reads the stand-in's output to its end, delivering line by line; then, unless a departure
    /// made it exit earlier, tells the relay to exit 0 (an agent exits 0 when its stdin ends).
    pub async fn run(mut self, mut from: impl AsyncRead + Unpin) -> std::io::Result<()> {
        let mut framer = Framer::default();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = from.read(&mut buf).await?;
            if n == 0 {
                break;
            }
            for mut line in framer.push(&buf[..n]) {
                line.push(b'\n');
                self.line(line).await?;
            }
        }
        if let Some(rest) = framer.finish() {
            self.line(rest).await?;
        }
        if !self.exited {
            self.relay
                .write_all(&wire::frame(wire::EXIT, &0i32.to_be_bytes()))
                .await?;
        }
        self.relay.flush().await
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Which departures of these kinds choose this record at this place (counting the
    /// occurrence).
    fn chosen(
        &mut self,
        json: Option<&Value>,
        place: Place,
        kinds: &[DepartureKind],
    ) -> Vec<usize> {
        let mut chosen = Vec::new();
        for (i, active) in self.departures.iter_mut().enumerate() {
            if !kinds.contains(&active.kind) {
                continue;
            }
            let d = &active.departure;
            let pattern = match place {
                Place::Before => d.before.as_ref(),
                Place::After => d.after.as_ref(),
                Place::Records => d.records.as_ref(),
            };
            let fits = match (pattern, json) {
                (None, _) => place == Place::Records,
                (Some(p), Some(json)) => {
                    let partial = MatchOptions { partial: true };
                    pattern::match_value(p, json, &self.vars, &Captures::new(), partial).ok
                }
                (Some(_), None) => false,
            };
            if !fits {
                continue;
            }
            active.count += 1;
            if d.occurrence.is_none_or(|n| n == active.count) {
                chosen.push(i);
            }
        }
        chosen
    }

    async fn line(&mut self, mut bytes: Vec<u8>) -> std::io::Result<()> {
        if self.exited {
            self.lock().dropped += 1;
            return Ok(());
        }
        let mut json = (bytes.len() <= MAX_MATCHED_LINE)
            .then(|| serde_json::from_slice::<Value>(&bytes).ok())
            .flatten();
        let point = [
            DepartureKind::Insert,
            DepartureKind::Stderr,
            DepartureKind::Pause,
            DepartureKind::Exit,
        ];
        for i in self.chosen(json.as_ref(), Place::Before, &point) {
            self.act(i).await?;
            if self.exited {
                self.lock().dropped += 1;
                return Ok(());
            }
        }
        let mut departure = None;
        for i in self.chosen(json.as_ref(), Place::Records, &[DepartureKind::Merge]) {
            let d = &self.departures[i].departure;
            if let (Some(target), Some(patch)) = (json.as_mut(), d.merge.as_ref()) {
                merge(target, patch);
                departure = Some(format!(
                    "fields merged in (synthesised: {})",
                    d.reason.as_deref().unwrap_or("")
                ));
            }
        }
        if departure.is_some()
            && let Some(json) = &json
        {
            bytes = serde_json::to_vec(json).unwrap_or_default();
            bytes.push(b'\n');
        }
        let split = self
            .chosen(json.as_ref(), Place::Records, &[DepartureKind::Split])
            .first()
            .map(|&i| {
                let d = &self.departures[i].departure;
                (d.split.unwrap_or(1), d.pause_ms.unwrap_or(0))
            });
        if let Some((piece, _)) = split {
            let cut = cut_characters(&bytes, piece);
            let mut note = format!(
                "written in {} writes of {piece} byte(s)",
                bytes.len().div_ceil(piece.max(1))
            );
            if cut > 0 {
                note.push_str(&format!(
                    ", {cut} multi-byte character(s) cut between two writes"
                ));
            }
            departure = Some(note);
        }
        self.stdout(&bytes, departure, split).await?;
        for i in self.chosen(json.as_ref(), Place::After, &point) {
            self.act(i).await?;
            if self.exited {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Does a point departure (insert, stderr, pause, exit).
    async fn act(&mut self, i: usize) -> std::io::Result<()> {
        let d = self.departures[i].departure.clone();
        let reason = d.reason.clone().unwrap_or_default();
        match self.departures[i].kind {
            DepartureKind::Insert => {
                for record in d.insert.iter().flatten() {
                    let mut bytes = serde_json::to_vec(record).unwrap_or_default();
                    bytes.push(b'\n');
                    let why = format!("inserted (synthesised: {reason})");
                    self.stdout(&bytes, Some(why), None).await?;
                }
            }
            DepartureKind::Stderr => {
                let bytes = d.stderr.as_ref().map(|s| s.bytes()).unwrap_or_default();
                let line = self.lock().lines.len();
                self.lock().events.push(format!(
                    "the stand-in wrote {} on stderr after line {line} (synthesised: {reason})",
                    crate::standin::observe::size(bytes.len())
                ));
                for chunk in bytes.chunks(wire::MAX_PAYLOAD) {
                    self.frame(wire::STDERR, chunk, 0).await?;
                }
            }
            DepartureKind::Pause => {
                let ms = d.pause_ms.unwrap_or(0);
                self.relay.flush().await?;
                tokio::time::sleep(Duration::from_millis(ms)).await;
            }
            DepartureKind::Exit => {
                let code = d.exit.unwrap_or(0);
                let line = self.lock().lines.len();
                self.lock().events.push(format!(
                    "the stand-in exited with code {code} after line {line} (synthesised: \
                     {reason})"
                ));
                self.relay
                    .write_all(&wire::frame(wire::EXIT, &code.to_be_bytes()))
                    .await?;
                self.relay.flush().await?;
                self.exited = true;
            }
            DepartureKind::Merge | DepartureKind::Split | DepartureKind::Unprompted => {}
        }
        Ok(())
    }

    /// Writes one stdout line, in one frame or in pieces `(bytes, pause_ms)` apart.
    async fn stdout(
        &mut self,
        bytes: &[u8],
        departure: Option<String>,
        split: Option<(usize, u64)>,
    ) -> std::io::Result<()> {
        let number = {
            let mut log = self.lock();
            log.stdout.extend_from_slice(bytes);
            log.line(bytes, departure)
        };
        let (piece, pause) = split.unwrap_or((wire::MAX_PAYLOAD, 0));
        for (n, chunk) in bytes.chunks(piece.max(1)).enumerate() {
            if n > 0 && pause > 0 {
                self.relay.flush().await?;
                tokio::time::sleep(Duration::from_millis(pause)).await;
            }
            self.frame(wire::STDOUT, chunk, number).await?;
        }
        let seq = self.lock().seq;
        if let Some(line) = self.lock().lines.get_mut(number - 1) {
            line.last_seq = seq;
        }
        Ok(())
    }

    async fn frame(&mut self, tag: u8, bytes: &[u8], line: usize) -> std::io::Result<()> {
        {
            let mut log = self.lock();
            let seq = log.next_seq();
            log.writes.push(Written {
                line,
                stderr: tag == wire::STDERR,
                bytes: bytes.len(),
                seq,
                at: Instant::now(),
            });
        }
        self.relay.write_all(&wire::frame(tag, bytes)).await?;
        self.relay.flush().await
    }
}

/// Merges `patch` into `target` key by key; nested objects are merged, anything else replaced.
pub fn merge(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Object(target), Value::Object(patch)) => {
            for (key, value) in patch {
                match target.get_mut(key) {
                    Some(existing) if existing.is_object() && value.is_object() => {
                        merge(existing, value);
                    }
                    _ => {
                        target.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (target, patch) => *target = patch.clone(),
    }
}

/// How many UTF-8 characters cutting `bytes` into pieces of `piece` bytes splits.
fn cut_characters(bytes: &[u8], piece: usize) -> usize {
    (piece..bytes.len())
        .step_by(piece.max(1))
        .filter(|&at| bytes[at] & 0xc0 == 0x80)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merging_adds_keys_at_any_depth_and_keeps_the_rest() {
        let mut record = json!({"type": "message_end", "message": {"role": "assistant", "n": 1}});
        merge(
            &mut record,
            &json!({"message": {"futureField": true}, "extra": [1]}),
        );
        assert_eq!(
            record,
            json!({"type": "message_end", "message": {"role": "assistant", "n": 1, "futureField": true}, "extra": [1]})
        );
    }

    #[test]
    fn cuts_inside_characters_are_counted() {
        assert_eq!(cut_characters("aé€".as_bytes(), 1), 3);
        assert_eq!(cut_characters("ab".as_bytes(), 1), 0);
        assert_eq!(cut_characters("é".as_bytes(), 2), 0);
    }
}
