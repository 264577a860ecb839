//! A scripted mock LLM server speaking the providers' real streaming wire formats.
//!
//! The server answers Anthropic Messages, OpenAI Chat Completions, OpenAI Responses and Google
//! Gemini requests from a [`Script`]: an ordered list of responses, each optionally guarded by a
//! matcher. A response is neutral content (text, thinking, tool calls) rendered into the wire
//! format of the request, an HTTP error, a mid-stream fault or raw bytes, with timing and gates.
//! See the crate README for the script format.

mod body;
mod control;
mod error;
mod journal;
mod matcher;
mod quirks;
mod render;
mod request;
mod script;
mod server;

pub use error::{Error, Result};
pub use journal::{JournalEntry, Outcome};
pub use quirks::{quirk, quirk_info, quirk_names};
pub use render::Format;
pub use script::{
    ContentItem, Deltas, Fault, FaultKind, Framing, HttpError, LineEnding, Matcher, RawChunk,
    RawItem, RawResponse, Response, Role, Script, ToolCall, Usage,
};
pub use server::MockServer;
