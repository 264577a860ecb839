//! Content blocks of messages: text, thinking, images and tool calls.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Plain text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Provider signature of the text block (OpenAI Responses message ids), when any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_signature: Option<String>,
    /// Fields this crate does not model, kept in order (the reference adds `index` while a
    /// message is streaming).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TextContent {
    /// A text block holding `text`.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            text_signature: None,
            extra: Map::new(),
        }
    }
}

/// Model reasoning.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ThinkingContent {
    /// The reasoning text.
    pub thinking: String,
    /// Provider signature needed to send the block back (Anthropic `signature`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_signature: Option<String>,
    /// True for redacted reasoning, whose payload is in the signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<bool>,
    /// Fields this crate does not model, kept in order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A base64-encoded image.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64 data, without a `data:` prefix.
    pub data: String,
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub mime_type: String,
    /// Fields this crate does not model, kept in order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A call of a tool by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The provider's call id (`toolu_...`, `call_...`).
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Parsed arguments, keys in the order the model wrote them.
    pub arguments: Map<String, Value>,
    /// Gemini's thought signature, when any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
    /// Fields this crate does not model, kept in order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A block of a user message, custom message or tool result: text or image.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum UserContent {
    /// `{"type":"text","text":...}`
    Text(TextContent),
    /// `{"type":"image","data":...,"mimeType":...}`
    Image(ImageContent),
}

/// A block of an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum AssistantContent {
    /// `{"type":"text","text":...}`
    Text(TextContent),
    /// `{"type":"thinking","thinking":...}`
    Thinking(ThinkingContent),
    /// `{"type":"toolCall","id":...,"name":...,"arguments":{...}}`
    ToolCall(ToolCall),
}

/// A user message's content: a plain string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum MessageContent {
    /// `"Hello"`
    Text(String),
    /// `[{"type":"text","text":"Hello"}]`
    Blocks(Vec<UserContent>),
}

/// A tool call with its `"type":"toolCall"` tag, where the wire carries one on its own
/// (`toolcall_end.toolCall`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type")]
pub enum TaggedToolCall {
    /// `{"type":"toolCall",...}`
    #[serde(rename = "toolCall")]
    ToolCall(ToolCall),
}

/// An image with its `"type":"image"` tag, where the wire carries one on its own
/// (`prompt.images`, `steer.images`, `follow_up.images`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type")]
pub enum TaggedImage {
    /// `{"type":"image","data":...,"mimeType":...}`
    #[serde(rename = "image")]
    Image(ImageContent),
}
