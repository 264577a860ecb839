//! A recorded response body replayed through a wire format's stream reader, without HTTP: the
//! deltas and the final message the agent makes of those bytes when they arrive in the given
//! pieces (each piece one read of the body), exactly as a live exchange reads them. For
//! regression fixtures of streaming quirks, and for fuzzing the readers (`agent/fuzz`).

use pi_rpc_protocol::event::AssistantMessageEvent;
use pi_rpc_protocol::message::{AssistantMessage, StopReason};
use pi_rpc_protocol::model::Model;

use super::driver::{WireFormat, apply};
use super::partial::PartialMessage;
use super::sse::SseDecoder;
use super::stream_error::StreamError;
use super::{anthropic, google, openai_completions, openai_responses};

/// What a replayed body produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Replayed {
    /// The `message_update` deltas, in order.
    pub deltas: Vec<AssistantMessageEvent>,
    /// The final message (`stopReason: "error"` with the reader's error text when the body is
    /// not a complete, valid stream).
    pub message: AssistantMessage,
}

/// A model whose `api` is not one of the wire formats.
#[derive(Debug, thiserror::Error)]
#[error("No API provider registered for api: {0}")]
pub struct UnknownApi(pub String);

/// Replays `pieces` of a response body for `model` (its `api` chooses the wire format).
pub fn replay<'a>(
    model: &Model,
    pieces: impl IntoIterator<Item = &'a [u8]>,
) -> Result<Replayed, UnknownApi> {
    let model = model.clone();
    Ok(match model.api.as_str() {
        anthropic::API => read(anthropic::wire(model.clone()), &model, pieces),
        openai_completions::API => read(openai_completions::wire(model.clone()), &model, pieces),
        openai_responses::API => read(openai_responses::wire(model.clone()), &model, pieces),
        google::API => read(google::wire(model.clone()), &model, pieces),
        other => return Err(UnknownApi(other.to_owned())),
    })
}

fn read<'a>(
    mut wire: impl WireFormat,
    model: &Model,
    pieces: impl IntoIterator<Item = &'a [u8]>,
) -> Replayed {
    let mut partial = PartialMessage::new(model);
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    let mut deltas = Vec::new();
    for piece in pieces {
        let applied = if wire.reads_raw_body() {
            wire.on_bytes(piece, &mut partial)
        } else {
            decoder.feed(piece, &mut events);
            apply(&mut events, &mut partial, &mut wire)
        };
        deltas.extend(partial.take_events());
        if let Err(error) = applied {
            return failed(partial, deltas, error);
        }
    }
    decoder.finish(&mut events);
    let applied = apply(&mut events, &mut partial, &mut wire);
    deltas.extend(partial.take_events());
    if let Err(error) = applied {
        return failed(partial, deltas, error);
    }
    let ended = wire.on_end(&mut partial);
    deltas.extend(partial.take_events());
    match ended {
        Ok(()) => Replayed {
            deltas,
            message: partial.message,
        },
        Err(error) => failed(partial, deltas, error),
    }
}

fn failed(
    partial: PartialMessage,
    deltas: Vec<AssistantMessageEvent>,
    error: StreamError,
) -> Replayed {
    Replayed {
        deltas,
        message: partial.fail(StopReason::Error, error.to_string()),
    }
}
