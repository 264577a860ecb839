//! Large answers (`get_messages`, `get_entries`, `get_tree`, `get_fork_messages`) written to
//! the writer in pieces as they are produced, so that the record is never held whole: a long
//! session's answer costs a piece of memory, not several copies of the session.

use pi_rpc_protocol::{RequestId, Response};

use crate::rpc::OutputSender;
use crate::store::JsonPieces;

/// Bytes handed to the writer at a time.
pub(super) const PIECE_BYTES: usize = 64 * 1024;

/// How a streamed answer ended.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Streamed {
    /// The whole record went to the writer.
    Sent,
    /// The writer is gone (stdout closed).
    OutputClosed,
}

/// Writes the success record of `kind` with `data` from `pieces`:
/// `{"id"?,"type":"response","command":KIND,"success":true,"data":DATA}` and its LF.
pub(super) async fn stream_answer(
    out: &mut OutputSender,
    id: Option<RequestId>,
    kind: &str,
    mut pieces: impl JsonPieces,
) -> Streamed {
    if out.ready().await.is_err() {
        return Streamed::OutputClosed;
    }
    let mut buffer = match pi_rpc_protocol::encode_record(&Response::ok(id, kind)) {
        Ok(envelope) => envelope,
        Err(error) => {
            tracing::error!(%error, "cannot encode a response");
            return Streamed::Sent;
        }
    };
    // `{...,"success":true}\n` becomes `{...,"success":true,"data":DATA}\n`.
    buffer.truncate(buffer.len().saturating_sub(2));
    buffer.extend_from_slice(b",\"data\":");
    loop {
        let more = match pieces.write_more(&mut buffer, PIECE_BYTES) {
            Ok(more) => more,
            Err(error) => {
                // Our own types always serialise; should one not, the line still ends.
                tracing::error!(%error, "cannot encode a response");
                buffer.extend_from_slice(b"null");
                false
            }
        };
        if !more {
            buffer.extend_from_slice(b"}\n");
        }
        let piece = std::mem::replace(&mut buffer, Vec::with_capacity(PIECE_BYTES + 4096));
        if out.send(piece).await.is_err() {
            return Streamed::OutputClosed;
        }
        if !more {
            return Streamed::Sent;
        }
    }
}

/// `get_messages` data: `{"messages":[...]}`.
pub(super) struct MessagesJson<'a> {
    conversation: &'a crate::store::Conversation,
    next: usize,
    started: bool,
}

impl<'a> MessagesJson<'a> {
    pub(super) fn new(conversation: &'a crate::store::Conversation) -> Self {
        Self {
            conversation,
            next: 0,
            started: false,
        }
    }
}

impl JsonPieces for MessagesJson<'_> {
    fn write_more(&mut self, out: &mut Vec<u8>, limit: usize) -> serde_json::Result<bool> {
        if !self.started {
            out.extend_from_slice(b"{\"messages\":[");
            self.started = true;
        }
        self.next = self.conversation.write_json_from(self.next, out, limit)?;
        if self.next < self.conversation.len() {
            return Ok(true);
        }
        out.extend_from_slice(b"]}");
        Ok(false)
    }
}
