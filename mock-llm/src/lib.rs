//! A scripted mock LLM server speaking the providers' real streaming wire formats.
//!
//! The server answers Anthropic Messages, OpenAI Chat Completions, OpenAI Responses and Google
//! Gemini requests from a [`Script`]: an ordered list of responses, each optionally guarded by a
//! matcher. A response is neutral content (text, thinking, tool calls) rendered into the wire
//! format of the request, an HTTP error, a mid-stream fault or raw bytes, with timing and gates.
//! See the crate README for the script format.

mod body;
mod conn;
mod control;
mod error;
mod format;
mod journal;
mod load;
mod matcher;
mod oauth;
mod quirks;
mod render;
mod request;
mod routes;
mod script;
mod server;
mod shared;

pub use error::{Error, Result};
pub use format::Format;
pub use journal::{JournalEntry, Outcome};
pub use load::quirk;
pub use oauth::{CHATGPT_ACCOUNT_ID, REVOKED_REFRESH_TOKEN, chatgpt_access_token};
pub use quirks::{quirk_info, quirk_names};
pub use script::{
    BadCrc, ContentItem, Deltas, Fault, FaultKind, Framing, HttpError, LineEnding, Matcher,
    RawChunk, RawFrame, RawItem, RawResponse, Response, Role, Script, ToolCall, Usage,
};
pub use server::MockServer;
