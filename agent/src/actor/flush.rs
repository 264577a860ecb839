//! The flush: the one place the actor awaits its output. [`Output::flush`] performs an outbox's
//! effects in order: each record encoded once the output has room for it (after a long line,
//! once that line is written, so that two long records are never in memory as text at once),
//! the lines of a burst of events gathered into one write, long lines on their own. A long
//! record (a long delta, a long block's `text_end`, a long message's `message_end`, `turn_end`
//! and `agent_end`) goes to the writer in pieces as it is encoded: its line is never held whole
//! beside the message it quotes. A long answer (`get_messages`, ...) is made from the session's
//! state in pieces too.

use std::io;

use pi_rpc_protocol::Response;
use pi_rpc_protocol::framing::{encode_record, write_record};
use serde::Serialize;
use tokio::sync::mpsc;

use super::answer::{MessagesJson, PIECE_BYTES, Streamed, stream_answer};
use super::outbox::{Effect, Framing, IfLost, LongAnswer, MirrorUpdate, Record};
use crate::rpc::OutputSender;
use crate::store::{Conversation, SessionStore};

/// Lines longer than this are written on their own, not copied into a batch.
const LONG_LINE_BYTES: usize = 64 * 1024;

/// Bytes of a streamed record that may wait for the writer: its pieces are made on another
/// thread, whose memory nothing else reuses, so few of them are out at a time.
const STREAMED_WAITING_BYTES: usize = 4 * PIECE_BYTES;

/// What a long answer is made from, and the extension host.
pub(super) struct Sources<'a> {
    pub(super) messages: &'a Conversation,
    pub(super) store: &'a SessionStore,
    pub(super) host: Option<&'a crate::extensions::Host>,
}

/// The actor's end of the output.
#[derive(Debug)]
pub(super) struct Output {
    out: OutputSender,
    /// Lines collected while a burst of events is written, sent to the writer as one piece.
    batch: Option<Vec<u8>>,
    closed: bool,
}

impl Output {
    pub(super) fn new(out: OutputSender) -> Self {
        Self {
            out,
            batch: None,
            closed: false,
        }
    }

    /// Whether the writer is gone (stdout closed): the actor stops.
    pub(super) fn is_closed(&self) -> bool {
        self.closed
    }

    /// Performs `effects` in order; what follows the messages that could not reach the
    /// extension host, for the actor to go on with.
    pub(super) async fn flush(
        &mut self,
        effects: Vec<Effect>,
        sources: Sources<'_>,
    ) -> Vec<IfLost> {
        let mut lost = Vec::new();
        for effect in effects {
            match effect {
                Effect::Record(record, Framing::Line) => self.write(record).await,
                Effect::Record(record, Framing::MaybeLong) => self.write_long(record).await,
                Effect::Record(record, Framing::Streamed) => self.write_streamed(record).await,
                Effect::Lines(lines) | Effect::Encoded(lines) => self.write_line(lines).await,
                Effect::BurstStart => self.batch = Some(Vec::new()),
                Effect::BurstEnd => {
                    if let Some(batch) = self.batch.take().filter(|batch| !batch.is_empty()) {
                        self.send_output(batch).await;
                    }
                }
                Effect::Written(signal) => {
                    // Closed output: nothing will be written, the stream need not wait.
                    let _ = self.out.flushed().await;
                    signal.written();
                }
                Effect::Answer { id, answer } => self.answer(id, answer, &sources).await,
                Effect::Host { line, if_lost } => {
                    let sent = match sources.host {
                        Some(host) => host.send(line).await,
                        None => Err(crate::extensions::SendError::Gone),
                    };
                    match (sent, if_lost) {
                        (Ok(()), _) => {}
                        (Err(error), IfLost::Log(what)) => tracing::warn!(%error, "{what}"),
                        (Err(error), if_lost) => {
                            tracing::error!(%error, "cannot send to the extension host");
                            lost.push(if_lost);
                        }
                    }
                }
                Effect::HostEntries(update) => send_entries(update, &sources).await,
                Effect::Spawn(launch) => launch.start(),
            }
        }
        lost
    }

    /// A long answer, made from the session's state now.
    async fn answer(
        &mut self,
        id: Option<pi_rpc_protocol::RequestId>,
        answer: LongAnswer,
        sources: &Sources<'_>,
    ) {
        let out = &mut self.out;
        let (kind, streamed) = match answer {
            LongAnswer::Messages => {
                let pieces = MessagesJson::new(sources.messages);
                let kind = "get_messages";
                (kind, Ok(stream_answer(out, id.clone(), kind, pieces).await))
            }
            LongAnswer::Entries { since } => {
                let kind = "get_entries";
                match sources.store.entries_json(since.as_deref()) {
                    Ok(pieces) => (kind, Ok(stream_answer(out, id.clone(), kind, pieces).await)),
                    Err(error) => (kind, Err(error)),
                }
            }
            LongAnswer::Tree => {
                let kind = "get_tree";
                match sources.store.tree_pieces() {
                    Ok(pieces) => (kind, Ok(stream_answer(out, id.clone(), kind, pieces).await)),
                    Err(error) => (kind, Err(error)),
                }
            }
            LongAnswer::ForkMessages => {
                let kind = "get_fork_messages";
                let pieces = sources.store.fork_messages_json();
                (kind, Ok(stream_answer(out, id.clone(), kind, pieces).await))
            }
        };
        match streamed {
            Ok(Streamed::Sent) => {}
            Ok(Streamed::OutputClosed) => self.closed = true,
            Err(error) => {
                let response = Response::error(id, Some(kind), error.to_string());
                self.write(Record::Response(response)).await;
            }
        }
    }

    /// Writes one record as one line. Serialisation cannot fail for our types; if it does, it
    /// is logged.
    async fn write(&mut self, record: Record) {
        if let Some(line) = self.encode(&record).await {
            // The record is dropped before its line waits for the writer.
            drop(record);
            self.write_line(line).await;
        }
    }

    /// A record as its line, once the output has room for it.
    async fn encode<T: Serialize>(&mut self, record: &T) -> Option<Vec<u8>> {
        if self.out.ready().await.is_err() {
            self.closed = true;
        }
        encode_record(record)
            .inspect_err(|error| tracing::error!(%error, "cannot serialise a record"))
            .ok()
    }

    /// Writes one already encoded line (with its LF).
    async fn write_line(&mut self, line: Vec<u8>) {
        match &mut self.batch {
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

    /// Writes a record that may be long: measured first, [streamed](Self::write_streamed) when
    /// it is long, else encoded as one line.
    async fn write_long(&mut self, record: Record) {
        match pi_rpc_protocol::json::encoded_len(&record) {
            Ok(len) if len > LONG_LINE_BYTES => self.write_streamed(record).await,
            _ => self.write(record).await,
        }
    }

    /// Writes a record straight to the writer, in pieces of [`PIECE_BYTES`] as it is encoded
    /// (a long record: its line is never held whole). serde encodes synchronously, so the
    /// encoding runs on a blocking thread and hands each piece over a one-piece channel; this
    /// task passes the pieces on as the writer takes them.
    async fn write_streamed(&mut self, record: Record) {
        if self.out.ready().await.is_err() {
            self.closed = true;
        }
        // What the batch holds goes first.
        if let Some(batch) = self.batch.as_mut().map(std::mem::take)
            && !batch.is_empty()
        {
            self.send_output(batch).await;
        }
        let (pieces_tx, mut pieces) = mpsc::channel(1);
        let encoder = tokio::task::spawn_blocking(move || {
            let mut writer = PieceWriter {
                piece: Vec::with_capacity(PIECE_BYTES),
                pieces: pieces_tx,
            };
            let written = write_record(&mut writer, &record);
            if written.as_ref().is_err_and(|error| !error.is_io()) {
                // Our types always serialise; should one not, its line still ends.
                let _ = io::Write::write_all(&mut writer, b"\n");
            }
            written.and(io::Write::flush(&mut writer).map_err(serde_json::Error::io))
        });
        let mut waiting = 0;
        while let Some(piece) = pieces.recv().await {
            waiting += piece.len();
            let mut sent = self.out.send(piece).await;
            if sent.is_ok() && waiting >= STREAMED_WAITING_BYTES {
                waiting = 0;
                sent = self.out.flushed().await;
            }
            if sent.is_err() {
                // The writer is gone: dropping the receiver stops the encoding.
                self.closed = true;
                break;
            }
        }
        drop(pieces);
        match encoder.await {
            Ok(Ok(())) => {}
            Ok(Err(error)) if error.is_io() => self.closed = true,
            Ok(Err(error)) => tracing::error!(%error, "cannot serialise a record"),
            Err(error) => tracing::error!(%error, "the encoding of a record failed"),
        }
    }

    async fn send_output(&mut self, line: Vec<u8>) {
        if self.out.send(line).await.is_err() {
            self.closed = true;
        }
    }
}

/// The entries of one message for the host's mirror reach about this many bytes (an entry
/// longer than that goes alone): a long session is sent in several lines, each made as the
/// last one is taken.
const MIRROR_LINE_BYTES: usize = 256 * 1024;

/// Sends the host's mirror of the session the entries `update` names, from the session now
/// (nothing when it has changed since: the update for the new one follows).
async fn send_entries(update: MirrorUpdate, sources: &Sources<'_>) {
    send_mirror_entries(&update, sources).await;
    if let (Some(host), Some(usage)) = (sources.host, &update.context_usage) {
        let sent = match host.context_usage(usage.as_ref()) {
            Ok(line) => host.send(line).await,
            Err(error) => Err(error),
        };
        if let Err(error) = sent {
            tracing::warn!(%error, "cannot tell the extension host the context usage");
        }
    }
}

/// The entries of `update`, in lines of about [`MIRROR_LINE_BYTES`].
async fn send_mirror_entries(update: &MirrorUpdate, sources: &Sources<'_>) {
    let (Some(host), store) = (sources.host, sources.store) else {
        return;
    };
    let all = store.entries();
    if store.session_id() != update.session_id || all.len() < update.to || update.from > update.to {
        return;
    }
    let entries = &all[update.from..update.to];
    let (cwd, dir, file) = (store.cwd(), store.session_dir(), store.session_file());
    let session = crate::extensions::MirroredSession {
        header: store.header(),
        session_id: store.session_id(),
        cwd: &cwd,
        session_dir: &dir,
        session_file: file.as_deref(),
    };
    let mut start = 0;
    loop {
        let mut end = start;
        let write = |out: &mut Vec<u8>| {
            let mark = out.len();
            while end < entries.len() && (end == start || out.len() - mark < MIRROR_LINE_BYTES) {
                if end > start {
                    out.push(b',');
                }
                entries[end].write_json(out)?;
                end += 1;
            }
            Ok(())
        };
        let reset = (update.reset && start == 0).then_some(&session);
        let sent = match host.session_entries(reset, write, update.leaf_id.as_deref()) {
            Ok(line) => host.send(line).await,
            Err(error) => Err(error),
        };
        if let Err(error) = sent {
            tracing::warn!(%error, "cannot tell the extension host the session's entries");
            return;
        }
        if end >= entries.len() {
            return;
        }
        start = end;
    }
}

/// Whether a record of this length is written on its own line, out of any burst, and streamed
/// when it may be long.
pub(super) fn is_long(len: usize) -> bool {
    len > LONG_LINE_BYTES
}

/// Hands what is written to the session in pieces of [`PIECE_BYTES`] (from a blocking thread:
/// each piece waits until the session has taken the last one).
struct PieceWriter {
    piece: Vec<u8>,
    pieces: mpsc::Sender<Vec<u8>>,
}

impl io::Write for PieceWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        // A long string comes in one write: only what fits the piece is taken.
        let taken = bytes.len().min(PIECE_BYTES - self.piece.len());
        self.piece.extend_from_slice(&bytes[..taken]);
        if self.piece.len() == PIECE_BYTES {
            self.flush()?;
        }
        Ok(taken)
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.piece.is_empty() {
            return Ok(());
        }
        let piece = std::mem::replace(&mut self.piece, Vec::with_capacity(PIECE_BYTES));
        self.pieces
            .blocking_send(piece)
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, crate::rpc::OutputClosed))
    }
}
