//! The script format: an ordered list of responses, each optionally guarded by a matcher.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

mod raw;
mod validate;

pub use raw::{BadCrc, RawChunk, RawFrame, RawItem, RawResponse};
pub(crate) use validate::decode_hex;

/// A script: the responses the server serves, in order.
///
/// Each request takes the first response that still has uses left and whose matcher fits.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// The responses, in the order they are tried.
    pub responses: Vec<Response>,
    /// Where the script came from (a file name or a label); used in error messages.
    #[serde(skip)]
    #[schemars(skip)]
    pub origin: String,
}

/// One scripted response. Exactly one of `text`, `content`, `error`, `raw` or `quirk` is set.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Response {
    /// Which requests this response may answer; absent means any.
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub matcher: Option<Matcher>,
    /// How many requests this response answers before it is used up (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
    /// Answer any number of requests (never used up).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub repeat: bool,
    /// Shorthand for `content: [{text: ...}]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<Deltas>,
    /// Neutral content blocks, rendered into the request's wire format.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Vec<ContentItem>>,
    /// An HTTP error response instead of a stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<HttpError>,
    /// Raw bytes written exactly as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<RawResponse>,
    /// The responses of a named quirk fixture, inserted here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quirk: Option<String>,
    /// Stop reason: `stop`, `tool_use`, `length`, or any provider-specific string passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<String>,
    /// Token usage reported by the stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// A mid-stream fault.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<Fault>,
    /// Byte-level framing changes applied to the rendered stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub framing: Option<Framing>,
    /// Hold the response before its headers until this gate is released.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<String>,
    /// Delay before the status line and headers, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    /// Delay between two writes of the body, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk_delay_ms: Option<u64>,
    /// Pace the body at this many writes per second (overrides `chunk_delay_ms`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_per_second: Option<f64>,
    /// The provider's response/message id (default derived from the request index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The model name reported in the stream (default: the requested model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Extra response headers.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
}

/// Text given whole or as explicit deltas.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Deltas {
    /// One string.
    Whole(String),
    /// Explicit deltas, each sent as its own delta event.
    Pieces(Vec<String>),
}

impl Deltas {
    /// The full text.
    pub fn joined(&self) -> String {
        match self {
            Deltas::Whole(text) => text.clone(),
            Deltas::Pieces(pieces) => pieces.concat(),
        }
    }

    /// The deltas to send: explicit pieces, or the whole text cut into `chunks` pieces.
    pub(crate) fn pieces(&self, chunks: Option<usize>) -> Vec<String> {
        match self {
            Deltas::Pieces(pieces) => pieces.clone(),
            Deltas::Whole(text) => split_chars(text, chunks.unwrap_or(1)),
        }
    }
}

/// Cut `text` into `n` pieces of nearly equal length in characters (fewer if it is shorter).
pub(crate) fn split_chars(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Vec::new();
    }
    let n = n.clamp(1, chars.len());
    let base = chars.len() / n;
    let extra = chars.len() % n;
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for i in 0..n {
        let len = base + usize::from(i < extra);
        out.push(chars[start..start + len].iter().collect());
        start += len;
    }
    out
}

/// One neutral content item. Exactly one of `text`, `thinking`, `redacted_thinking`,
/// `tool_call`, `gate` or `pause_ms` is set.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContentItem {
    /// A text block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<Deltas>,
    /// A thinking (reasoning) block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Deltas>,
    /// The thinking block's signature (Anthropic `signature_delta`, Gemini `thoughtSignature`,
    /// Responses `encrypted_content`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// A redacted thinking block with this opaque data (Anthropic only; skipped elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted_thinking: Option<String>,
    /// A tool call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call: Option<ToolCall>,
    /// Pause the stream here until the named gate is released.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<String>,
    /// Pause the stream here for this many milliseconds (a stall).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_ms: Option<u64>,
    /// Cut a whole `text`/`thinking` into this many deltas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunks: Option<usize>,
}

/// A tool call in neutral form.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// The call id (default `toolu_mock_<n>` / `call_mock_<n>`; Gemini sends it only if given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The tool name.
    pub name: String,
    /// The arguments as a JSON value (default `{}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// The arguments as literal JSON text, sent as is (may be invalid on purpose).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments_raw: Option<String>,
    /// Cut the argument JSON text into this many deltas (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunks: Option<usize>,
    /// Explicit argument deltas (their concatenation is the argument text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argument_chunks: Option<Vec<String>>,
}

impl ToolCall {
    /// The argument JSON text.
    pub(crate) fn arguments_text(&self) -> String {
        if let Some(chunks) = &self.argument_chunks {
            return chunks.concat();
        }
        if let Some(raw) = &self.arguments_raw {
            return raw.clone();
        }
        match &self.arguments {
            Some(value) => value.to_string(),
            None => "{}".to_owned(),
        }
    }

    /// The argument deltas.
    pub(crate) fn argument_pieces(&self) -> Vec<String> {
        match &self.argument_chunks {
            Some(chunks) => chunks.clone(),
            None => split_chars(&self.arguments_text(), self.chunks.unwrap_or(1)),
        }
    }
}

/// Guards a response: every given condition must hold.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Matcher {
    /// The request's 0-based index among the requests this server answered since the last reset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_index: Option<usize>,
    /// The requested model, exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The wire format of the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<crate::format::Format>,
    /// The role of the last message of the conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_message_role: Option<Role>,
    /// The last message's text contains this substring.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_message_text: Option<String>,
    /// The last message's text matches this regular expression.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_message_pattern: Option<String>,
    /// The conversation contains a tool result for this tool call id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_tool_result: Option<String>,
}

/// A neutral message role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Role {
    /// A user message (that is not only tool results).
    #[serde(rename = "user")]
    User,
    /// An assistant (model) message.
    #[serde(rename = "assistant")]
    Assistant,
    /// A message carrying tool results.
    #[serde(rename = "toolResult", alias = "tool_result", alias = "tool")]
    ToolResult,
}

/// Token usage in neutral form.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    /// Input (prompt) tokens, not counting cache reads or writes.
    #[serde(default)]
    pub input: u64,
    /// Output tokens (including reasoning tokens).
    #[serde(default)]
    pub output: u64,
    /// Input tokens read from the cache.
    #[serde(default)]
    pub cache_read: u64,
    /// Input tokens written to the cache.
    #[serde(default)]
    pub cache_write: u64,
    /// Reasoning tokens (part of `output`).
    #[serde(default)]
    pub reasoning: u64,
}

/// An HTTP error response.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpError {
    /// The HTTP status.
    pub status: u16,
    /// The provider error type (default from the status, e.g. 529 -> `overloaded_error`).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The error message (default from the status).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The whole body instead of the provider-shaped default: a string is sent as is (`""` for
    /// no body), anything else as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
    /// Extra headers (`retry-after`, `retry-after-ms`, `x-should-retry`, ...).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
}

/// A mid-stream fault.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fault {
    /// What happens.
    pub kind: FaultKind,
    /// How many body writes go out first. For `drop` and `reset`, absent means before the
    /// headers; for `error` and `stall`, absent means after the whole stream but its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_chunks: Option<usize>,
    /// For `error`: the provider error type (default `overloaded_error` or its equivalent).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub error_type: Option<String>,
    /// For `error`: the message (default `Overloaded`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// For `stall`: how long no byte is sent, then the stream goes on; absent stalls forever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stall_ms: Option<u64>,
}

/// The kinds of mid-stream fault.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// An in-band error event in the provider's format, then the stream ends.
    #[default]
    Error,
    /// Close the connection (FIN) without finishing the body.
    Drop,
    /// Reset the connection (RST).
    Reset,
    /// Send nothing for `stall_ms` (or forever).
    Stall,
}

/// Byte-level framing changes applied to a rendered stream.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Framing {
    /// Line endings (default: the provider's, CRLF for Gemini, LF otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_ending: Option<LineEnding>,
    /// Cut every event into writes of at most this many bytes (may split UTF-8 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split_bytes: Option<usize>,
    /// Send the whole body in one write.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub coalesce: bool,
    /// A comment line (e.g. `: ping`) written before every event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// Leave out `event:` lines.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_event_lines: bool,
    /// Spread each event's JSON over several `data:` lines.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub multiline_data: bool,
    /// Leave out these events (by type; Chat also knows `role`, `finish`, `usage`, `done`;
    /// Gemini `finish`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub omit: Vec<String>,
    /// Bedrock: spoil this checksum of the event-stream messages (of those of type
    /// `bad_crc_event` if given, else of every one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bad_crc: Option<BadCrc>,
    /// Bedrock: the event type whose messages `bad_crc` spoils (`contentBlockDelta`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bad_crc_event: Option<String>,
}

/// SSE line endings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LineEnding {
    /// `\n`
    Lf,
    /// `\r\n`
    Crlf,
    /// `\r`
    Cr,
}

impl Script {
    /// A script that answers every request with `text`, streamed in the request's format.
    pub fn reply(text: &str) -> Script {
        Script {
            responses: vec![Response {
                repeat: true,
                text: Some(Deltas::Whole(text.to_owned())),
                ..Response::default()
            }],
            origin: "--reply".to_owned(),
        }
    }

    /// Every gate name the script declares (response gates, content gates, raw gates).
    pub fn gate_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for response in &self.responses {
            names.extend(response.gate.iter().cloned());
            for item in response.content.iter().flatten() {
                names.extend(item.gate.iter().cloned());
            }
            for chunk in response.raw.iter().flat_map(|raw| raw.chunks.iter()) {
                if let RawChunk::Item(item) = chunk {
                    names.extend(item.gate.iter().cloned());
                }
            }
        }
        names.sort();
        names.dedup();
        names
    }
}
