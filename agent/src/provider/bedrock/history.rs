//! The Converse body's `messages`, encoded one message at a time from the typed history (see
//! [`body`](crate::provider::body)): blank texts left out (`<empty>` for a user message or a
//! tool result with nothing else), consecutive tool results in one user message, and, for
//! models that cache, a `cachePoint` closing the last message when it is the user's (so each
//! message is held until the next one is known).

use std::sync::Arc;

use base64::Engine;
use pi_rpc_protocol::content::{AssistantContent, ImageContent, MessageContent, UserContent};
use pi_rpc_protocol::message::{AgentMessage, ToolResultMessage};
use serde::Serialize;
use serde_json::{Map, Value};

use super::super::LlmRequest;
use super::super::body::{HistoryEncoder, LastHeld};
use super::super::transform::RequestHistory;
use super::request::{UnknownImageType, is_claude, normalize_tool_call_id};

const EMPTY_TEXT: &str = "<empty>";

#[derive(Debug, Serialize)]
struct WireMessage {
    role: &'static str,
    content: Vec<Block>,
}

/// A content block: an object of one key naming its kind.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
enum Block {
    Text(String),
    Image(Image),
    ToolUse(ToolUse),
    ToolResult(ToolResult),
    ReasoningContent(Reasoning),
    CachePoint(CachePoint),
}

#[derive(Debug, Serialize)]
struct Image {
    format: &'static str,
    source: ImageSource,
}

#[derive(Debug, Serialize)]
struct ImageSource {
    bytes: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolUse {
    tool_use_id: String,
    name: String,
    input: Map<String, Value>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ToolResult {
    tool_use_id: String,
    content: Vec<Block>,
    status: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Reasoning {
    reasoning_text: ReasoningText,
}

#[derive(Debug, Serialize)]
struct ReasoningText {
    text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    signature: Option<String>,
}

/// `{"type": "default"}`, with `ttl: "1h"` for the long retention.
#[derive(Debug, Serialize)]
pub(super) struct CachePoint {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl: Option<&'static str>,
}

impl CachePoint {
    pub(super) fn new(long: bool) -> Self {
        Self {
            kind: "default",
            ttl: long.then_some("1h"),
        }
    }
}

/// Writes the `messages` of one request (a fresh one for each pass over the body).
pub(super) struct ConverseHistory {
    history: RequestHistory,
    claude: bool,
    /// The cache point closing the last user message, for models that cache.
    cache_point: Option<bool>,
    /// The converted message not yet written: the last one may still be marked.
    held: LastHeld<WireMessage>,
}

impl ConverseHistory {
    /// `cache_point`: `Some(long)` when the model caches.
    pub(super) fn new(request: Arc<LlmRequest>, cache_point: Option<bool>) -> Self {
        Self {
            claude: is_claude(&request.model),
            history: RequestHistory::new(request, normalize_tool_call_id),
            cache_point,
            held: LastHeld::default(),
        }
    }

    fn next_wire(&mut self) -> Result<Option<WireMessage>, UnknownImageType> {
        loop {
            let Some(message) = self.history.next() else {
                return Ok(None);
            };
            let converted = match message {
                AgentMessage::User(user) => Some(user_message(user.content)?),
                AgentMessage::Assistant(assistant) => {
                    let blocks = assistant_blocks(assistant.content, self.claude);
                    (!blocks.is_empty()).then_some(WireMessage {
                        role: "assistant",
                        content: blocks,
                    })
                }
                AgentMessage::ToolResult(first) => {
                    let mut results = vec![tool_result(first)?];
                    while let Some(result) = self.history.next_tool_result() {
                        results.push(tool_result(result)?);
                    }
                    Some(WireMessage {
                        role: "user",
                        content: results,
                    })
                }
                _ => None,
            };
            if converted.is_some() {
                return Ok(converted);
            }
        }
    }
}

impl HistoryEncoder for ConverseHistory {
    fn write_next(&mut self, out: &mut Vec<u8>) -> serde_json::Result<bool> {
        loop {
            let next = self.next_wire().map_err(serde::ser::Error::custom)?;
            let cache_point = self.cache_point;
            let mark = |last: &mut WireMessage| {
                if let Some(long) = cache_point
                    && last.role == "user"
                {
                    last.content.push(Block::CachePoint(CachePoint::new(long)));
                }
            };
            if let Some(written) = self.held.pass(next, out, mark)? {
                return Ok(written);
            }
        }
    }
}

fn text_block(text: String) -> Option<Block> {
    (!text.trim().is_empty()).then_some(Block::Text(text))
}

fn empty_text() -> Block {
    Block::Text(EMPTY_TEXT.to_owned())
}

fn image_block(image: ImageContent) -> Result<Block, UnknownImageType> {
    let format = match image.mime_type.as_str() {
        "image/jpeg" | "image/jpg" => "jpeg",
        "image/png" => "png",
        "image/gif" => "gif",
        "image/webp" => "webp",
        _ => return Err(UnknownImageType(image.mime_type)),
    };
    // Bedrock takes the bytes the data decodes to, encoded again.
    let engine = base64::engine::general_purpose::STANDARD;
    let bytes = engine.decode(&image.data).unwrap_or_default();
    Ok(Block::Image(Image {
        format,
        source: ImageSource {
            bytes: engine.encode(bytes),
        },
    }))
}

fn user_message(content: MessageContent) -> Result<WireMessage, UnknownImageType> {
    let mut blocks = Vec::new();
    match content {
        MessageContent::Text(text) => blocks.push(text_block(text).unwrap_or_else(empty_text)),
        MessageContent::Blocks(parts) => {
            for part in parts {
                match part {
                    UserContent::Text(text) => blocks.extend(text_block(text.text)),
                    UserContent::Image(image) => blocks.push(image_block(image)?),
                }
            }
            if blocks.is_empty() {
                blocks.push(empty_text());
            }
        }
    }
    Ok(WireMessage {
        role: "user",
        content: blocks,
    })
}

fn assistant_blocks(content: Vec<AssistantContent>, claude: bool) -> Vec<Block> {
    let mut blocks = Vec::new();
    for block in content {
        match block {
            AssistantContent::Text(text) => blocks.extend(text_block(text.text)),
            AssistantContent::ToolCall(call) => blocks.push(Block::ToolUse(ToolUse {
                tool_use_id: call.id,
                name: call.name,
                input: call.arguments,
            })),
            AssistantContent::Thinking(thinking) => {
                if thinking.thinking.trim().is_empty() {
                    continue;
                }
                let signature = thinking
                    .thinking_signature
                    .filter(|signature| !signature.trim().is_empty());
                blocks.push(match (claude, signature) {
                    // Claude's thinking goes back signed, or as text.
                    (true, None) => Block::Text(thinking.thinking),
                    (true, signature) => Block::ReasoningContent(Reasoning {
                        reasoning_text: ReasoningText {
                            text: thinking.thinking,
                            signature,
                        },
                    }),
                    (false, _) => Block::ReasoningContent(Reasoning {
                        reasoning_text: ReasoningText {
                            text: thinking.thinking,
                            signature: None,
                        },
                    }),
                });
            }
        }
    }
    blocks
}

fn tool_result(result: ToolResultMessage) -> Result<Block, UnknownImageType> {
    let mut content = Vec::new();
    for part in result.content {
        match part {
            UserContent::Image(image) => content.push(image_block(image)?),
            UserContent::Text(text) => content.extend(text_block(text.text)),
        }
    }
    if content.is_empty() {
        content.push(empty_text());
    }
    Ok(Block::ToolResult(ToolResult {
        tool_use_id: result.tool_call_id,
        content,
        status: if result.is_error { "error" } else { "success" },
    }))
}
