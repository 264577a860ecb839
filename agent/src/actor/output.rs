//! How the session writes records: each encoded once the output has room for it (after a long
//! line, once that line is written, so that two long records are never in memory as text at
//! once), gathered into one write during a burst of events, long lines on their own. A run's
//! `turn_end` is written from the session's own copy of the turn's message. A long record (a
//! long delta, a long block's `text_end`, a long message's `message_end`, `turn_end` and
//! `agent_end`) goes to the writer in pieces as it is encoded: its line is never held whole
//! beside the message it quotes.

use std::io;
use std::sync::Arc;

use pi_rpc_protocol::event::AssistantMessageEvent;
use pi_rpc_protocol::event::{AgentEndEvent, Event, MessageEvent, TurnEndEvent};
use pi_rpc_protocol::framing::{encode_record, write_record};
use pi_rpc_protocol::message::{AgentMessage, TaggedToolResult};
use pi_rpc_protocol::{RequestId, Response};
use serde::{Serialize, Serializer};
use tokio::sync::mpsc;

use super::answer::PIECE_BYTES;
use super::{Actor, extensions};

/// `turn_end` as [`Event::TurnEnd`] writes it, sharing its message.
#[derive(Serialize)]
#[serde(tag = "type", rename = "turn_end", rename_all = "camelCase")]
struct TurnEndRecord {
    #[serde(serialize_with = "shared")]
    message: Arc<AgentMessage>,
    tool_results: Vec<TaggedToolResult>,
}

/// `message_end` as [`Event::MessageEnd`] writes it, sharing its message.
#[derive(Serialize)]
#[serde(tag = "type", rename = "message_end")]
pub(super) struct MessageEndRecord {
    #[serde(serialize_with = "shared")]
    pub(super) message: Arc<AgentMessage>,
}

/// `agent_end` as [`Event::AgentEnd`] writes it, sharing its messages.
#[derive(Serialize)]
#[serde(tag = "type", rename = "agent_end", rename_all = "camelCase")]
struct AgentEndRecord {
    #[serde(serialize_with = "all_shared")]
    messages: Vec<Arc<AgentMessage>>,
    will_retry: bool,
}

fn shared<S: Serializer>(message: &Arc<AgentMessage>, serializer: S) -> Result<S::Ok, S::Error> {
    message.as_ref().serialize(serializer)
}

fn all_shared<S: Serializer>(
    messages: &[Arc<AgentMessage>],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(messages.iter().map(|message| &**message))
}

/// Lines longer than this are written on their own, not copied into a batch.
const LONG_LINE_BYTES: usize = 64 * 1024;

/// Bytes of a streamed record that may wait for the writer: its pieces are made on another
/// thread, whose memory nothing else reuses, so few of them are out at a time.
const STREAMED_WAITING_BYTES: usize = 4 * PIECE_BYTES;

impl Actor {
    /// Writes one record. Serialisation cannot fail for our types; if it does, it is logged.
    pub(super) async fn write<T: Serialize>(&mut self, record: &T) {
        if let Some(line) = self.encode(record).await {
            self.write_line(line).await;
        }
    }

    /// Writes the success response of `kind` with `data` (an error response should `data` not
    /// encode).
    pub(super) async fn respond<T: Serialize>(
        &mut self,
        id: Option<RequestId>,
        kind: &str,
        data: &T,
    ) {
        let response = match Response::with_data(id.clone(), kind, data) {
            Ok(response) => response,
            Err(error) => {
                Response::error(id, Some(kind), format!("cannot encode the result: {error}"))
            }
        };
        self.write(&response).await;
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

    /// Writes a record that may be long: measured first, [streamed](Self::write_streamed) when
    /// it is long, else encoded as one line.
    pub(super) async fn write_long<T: Serialize + Send + 'static>(&mut self, record: T) {
        match pi_rpc_protocol::json::encoded_len(&record) {
            Ok(len) if len > LONG_LINE_BYTES => self.write_streamed(record).await,
            _ => self.write(&record).await,
        }
    }

    /// Writes a record straight to the writer, in pieces of [`PIECE_BYTES`] as it is encoded
    /// (a long record: its line is never held whole). serde encodes synchronously, so the
    /// encoding runs on a blocking thread and hands each piece over a one-piece channel; this
    /// task passes the pieces on as the writer takes them.
    pub(super) async fn write_streamed<T: Serialize + Send + 'static>(&mut self, record: T) {
        if self.out.ready().await.is_err() {
            self.output_closed = true;
        }
        // What the batch holds goes first.
        if let Some(batch) = self.out_batch.as_mut().map(std::mem::take)
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
                self.output_closed = true;
                break;
            }
        }
        drop(pieces);
        match encoder.await {
            Ok(Ok(())) => {}
            Ok(Err(error)) if error.is_io() => self.output_closed = true,
            Ok(Err(error)) => tracing::error!(%error, "cannot serialise a record"),
            Err(error) => tracing::error!(%error, "the encoding of a record failed"),
        }
    }

    pub(super) async fn send_output(&mut self, line: Vec<u8>) {
        if self.out.send(line).await.is_err() {
            self.output_closed = true;
        }
    }

    /// `turn_end` of the turn whose assistant message the session recorded last. Extensions
    /// that handle `turn_end` get the whole event (a copy is made for them).
    pub(super) async fn write_turn_end(&mut self, tool_results: Vec<TaggedToolResult>) {
        let assistant = self.messages.last_with_role(crate::store::Role::Assistant);
        let Some(message) = assistant.as_deref().and_then(|shared| shared.shared()) else {
            tracing::error!("turn_end without an assistant message");
            return;
        };
        let message = Arc::clone(message);
        if extensions::handles_event(&self.extensions, "turn_end") {
            let event = Event::TurnEnd(TurnEndEvent {
                message: (*message).clone(),
                tool_results,
            });
            if let Some(event) = self.hold_for_extensions(event).await {
                self.on_run_event(event).await;
            }
            return;
        }
        self.write_long(TurnEndRecord {
            message,
            tool_results,
        })
        .await;
    }

    /// `message_end` of a message the run shares with the session: written from the shared
    /// copy, then recorded. Extensions that handle `message_end` get the whole event (a copy is
    /// made for them).
    pub(super) async fn write_message_end(&mut self, message: Arc<AgentMessage>) {
        if extensions::handles_event(&self.extensions, "message_end") {
            let event = Event::MessageEnd(MessageEvent {
                message: (*message).clone(),
            });
            if let Some(event) = self.hold_for_extensions(event).await {
                self.on_run_event(event).await;
            }
            return;
        }
        let record = MessageEndRecord {
            message: Arc::clone(&message),
        };
        self.write_long(record).await;
        self.record_ended_message(message).await;
    }

    /// `agent_end` with the run's messages, shared with the session (copied only for the
    /// extensions that handle it).
    pub(super) async fn write_agent_end(&mut self, messages: Vec<Arc<AgentMessage>>) {
        if extensions::handles_event(&self.extensions, "agent_end") {
            let event = Event::AgentEnd(AgentEndEvent {
                messages: messages.iter().map(|message| (**message).clone()).collect(),
                will_retry: false,
            });
            if let Some(event) = self.hold_for_extensions(event).await {
                self.on_run_event(event).await;
            }
            return;
        }
        let record = AgentEndRecord {
            will_retry: self.will_retry(messages.iter().map(|message| &**message)),
            messages,
        };
        self.write_long(record).await;
    }
}

/// Whether an event may make a long line: one carrying a whole message (a long delta or block
/// text is [streamed](carries_long_text)).
pub(super) fn may_be_long(event: &Event) -> bool {
    matches!(
        event,
        Event::MessageEnd(_) | Event::TurnEnd(_) | Event::AgentEnd(_)
    )
}

/// Whether an event is a long delta, or the end of a long block with its whole text: such an
/// event is written with [`Actor::write_streamed`].
pub(super) fn carries_long_text(event: &Event) -> bool {
    let Event::MessageUpdate(update) = event else {
        return false;
    };
    match &update.assistant_message_event {
        AssistantMessageEvent::TextDelta(delta)
        | AssistantMessageEvent::ThinkingDelta(delta)
        | AssistantMessageEvent::ToolcallDelta(delta) => delta.delta.len() > LONG_LINE_BYTES,
        AssistantMessageEvent::TextEnd(end) | AssistantMessageEvent::ThinkingEnd(end) => {
            end.content.len() > LONG_LINE_BYTES
        }
        _ => false,
    }
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
