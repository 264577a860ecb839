//! Raw responses: status, headers and body writes exactly as given, including binary AWS
//! event-stream messages.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::LineEnding;

/// A raw response: status, headers and body writes exactly as given.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawResponse {
    /// The HTTP status (default 200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Headers (default `content-type: text/event-stream`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<BTreeMap<String, String>>,
    /// Line endings of `data` items (default LF).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_ending: Option<LineEnding>,
    /// The body, one write per chunk.
    pub chunks: Vec<RawChunk>,
}

/// One step of a raw body: a string written as one write, or a map with one of `text`, `hex`,
/// `gate`, `pause_ms`.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RawChunk {
    /// UTF-8 text written as one write.
    Text(String),
    /// A map form.
    Item(RawItem),
}

/// The map form of a raw chunk: one of `text`, `hex`, `data` (with optional `event`), `gate`,
/// `pause_ms`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawItem {
    /// UTF-8 text written as one write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Bytes in hexadecimal (spaces allowed) written as one write, e.g. split UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
    /// An SSE event written as one write: `event: <event>` (if given), `data: <data>`, blank
    /// line. A string is written as is, any other value as compact JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// The `event:` line of a `data` item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// One binary AWS event-stream message (Bedrock), written as one write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<Box<RawFrame>>,
    /// Pause until this gate is released.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<String>,
    /// Pause this many milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_ms: Option<u64>,
}

/// A binary AWS event-stream message of a raw body: exactly one of `event` (with a JSON
/// `data` payload), `exception` (a modelled error, with a JSON payload such as
/// `{message: ...}`) or `error` (an unmodelled error: code and `message` headers, no payload).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawFrame {
    /// The `:event-type` of an event message (`messageStart`, `contentBlockDelta`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// The `:exception-type` of an exception message (`throttlingException`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exception: Option<String>,
    /// The `:error-code` of an error message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The `:error-message` of an error message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The payload: a string as is, any other value as compact JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// Spoil this checksum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bad_crc: Option<BadCrc>,
}

/// Which checksum of a message to spoil, to reproduce a corrupted stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BadCrc {
    /// The prelude CRC (over the two lengths).
    Prelude,
    /// The message CRC (over the whole message).
    Message,
}

impl<'de> Deserialize<'de> for RawChunk {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        match value {
            Value::String(text) => Ok(RawChunk::Text(text)),
            other => RawItem::deserialize(other)
                .map(RawChunk::Item)
                .map_err(serde::de::Error::custom),
        }
    }
}
