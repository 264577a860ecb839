//! How the session writes records: each encoded once the output has room for it (after a long
//! line, once that line is written, so that two long records are never in memory as text at
//! once), gathered into one write during a burst of events, long lines on their own.

use pi_rpc_protocol::framing::encode_record;
use serde::Serialize;

use super::Session;

/// Lines longer than this are written on their own, not copied into a batch.
const LONG_LINE_BYTES: usize = 64 * 1024;

impl Session {
    /// Writes one record. Serialisation cannot fail for our types; if it does, it is logged.
    pub(super) async fn write<T: Serialize>(&mut self, record: &T) {
        if let Some(line) = self.encode(record).await {
            self.write_line(line).await;
        }
    }

    /// A record as its line, once the output has room for it.
    pub(super) async fn encode<T: Serialize>(&mut self, record: &T) -> Option<Vec<u8>> {
        if self.out.ready().await.is_err() {
            self.output_closed = true;
        }
        encode_record(record)
            .inspect_err(|error| tracing::error!(%error, "cannot serialise a record"))
            .ok()
    }

    /// Writes one already encoded line (with its LF).
    pub(super) async fn write_line(&mut self, line: Vec<u8>) {
        match &mut self.out_batch {
            // A long line is not copied into the batch: the batch so far goes first.
            Some(batch) if line.len() > LONG_LINE_BYTES => {
                let batch = std::mem::take(batch);
                if !batch.is_empty() {
                    self.send_output(batch).await;
                }
                self.send_output(line).await;
            }
            Some(batch) if batch.is_empty() => *batch = line,
            Some(batch) => batch.extend_from_slice(&line),
            None => self.send_output(line).await,
        }
    }

    pub(super) async fn send_output(&mut self, line: Vec<u8>) {
        if self.out.send(line).await.is_err() {
            self.output_closed = true;
        }
    }
}
