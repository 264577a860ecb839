//! Why a streamed answer failed while it was read. The wire formats' readers
//! ([`WireFormat`](super::driver::WireFormat)) return it; the exchange ends the message with
//! `stopReason: "error"` and the error's text, in the reference's words, as `errorMessage`.

use pi_rpc_protocol::message::AssistantMessage;

use super::bedrock::eventstream::FramingError;
use super::json::JsonError;

/// A failed stream, worded as the format's SDK words it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    /// An event that is not JSON (`JSON.parse`'s message, in V8's words).
    #[error(transparent)]
    Json(#[from] JsonError),
    /// A Codex event that is not JSON.
    #[error("Invalid Codex SSE JSON: {0}")]
    CodexJson(JsonError),
    /// An Anthropic event that is not JSON, quoted with its name, data and raw lines.
    #[error("Could not parse Anthropic SSE event {name}: {error}; data={data}; raw={raw}")]
    AnthropicEvent {
        name: String,
        error: JsonError,
        data: String,
        raw: String,
    },
    /// The provider reported an error in the stream (an error event, chunk or exception), or
    /// ended the answer with an error stop reason: the text its SDK makes of it.
    #[error("{0}")]
    Provider(String),
    /// The body ended before the answer did (no stop reason, no final event, a JSON segment
    /// cut short).
    #[error("{0}")]
    Incomplete(&'static str),
    /// An event the SDK cannot place (an unknown event type, a message that is not the
    /// assistant's, a chunk its schema refuses).
    #[error("{0}")]
    Unexpected(String),
    /// A stop reason the format does not know.
    #[error("Unhandled stop reason: {0}")]
    UnhandledStopReason(String),
    /// Bedrock's binary event framing broke.
    #[error(transparent)]
    Framing(#[from] FramingError),
}

impl StreamError {
    /// The error of an answer that ended with an error stop reason: its error message, else
    /// the SDKs' `An unknown error occurred`.
    pub(crate) fn stopped(message: &AssistantMessage) -> Self {
        StreamError::Provider(
            message
                .error_message
                .clone()
                .unwrap_or_else(|| "An unknown error occurred".to_owned()),
        )
    }
}
