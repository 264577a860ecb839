//! The Anthropic body's `messages`, encoded one message at a time from the typed history (see
//! [`body`](crate::provider::body)): user text and blocks (blank texts left out), assistant
//! blocks (`text`, `thinking` with its signature, `redacted_thinking`, `tool_use`), and each run
//! of tool results as one user message of `tool_result` blocks. The last block of a final user
//! message carries `cache_control`, so each message is held until the next one is known.

use std::sync::Arc;

use pi_rpc_protocol::content::{AssistantContent, ImageContent, MessageContent, UserContent};
use pi_rpc_protocol::message::{AgentMessage, ToolResultMessage};
use serde::Serialize;
use serde_json::{Map, Value};

use super::super::LlmRequest;
use super::super::body::{HistoryEncoder, LastHeld};
use super::super::json::js_trim;
use super::super::transform::{RequestHistory, joined_text};
use super::names::to_claude_code_name;
use super::request::{Compat, normalize_tool_call_id};

/// One element of `messages`.
#[derive(Debug, Serialize)]
struct WireMessage {
    role: &'static str,
    content: Content,
}

/// A message's content: a text, or blocks.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Content {
    Text(String),
    Blocks(Vec<Block>),
}

/// A content block, its `type` first.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Text {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<Value>,
    },
    Image {
        source: ImageSource,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<Value>,
    },
    Thinking {
        thinking: String,
        signature: String,
    },
    RedactedThinking {
        data: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Map<String, Value>,
    },
    ToolResult {
        tool_use_id: String,
        content: Content,
        is_error: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<Value>,
    },
}

#[derive(Debug, Serialize)]
struct ImageSource {
    #[serde(rename = "type")]
    kind: &'static str,
    media_type: String,
    data: String,
}

impl Block {
    fn text(text: String) -> Self {
        Self::Text {
            text,
            cache_control: None,
        }
    }

    fn image(image: ImageContent) -> Self {
        Self::Image {
            source: ImageSource {
                kind: "base64",
                media_type: image.mime_type,
                data: image.data,
            },
            cache_control: None,
        }
    }
}

/// Writes the `messages` of one request (a fresh one for each pass over the body).
pub(super) struct AnthropicHistory {
    history: RequestHistory,
    compat: Compat,
    cache_control: Option<Value>,
    oauth: bool,
    /// The converted message not yet written: the last one may still be marked.
    held: LastHeld<WireMessage>,
}

impl AnthropicHistory {
    pub(super) fn new(
        request: Arc<LlmRequest>,
        compat: Compat,
        cache_control: Option<Value>,
        oauth: bool,
    ) -> Self {
        Self {
            history: RequestHistory::new(request, normalize_tool_call_id),
            compat,
            cache_control,
            oauth,
            held: LastHeld::default(),
        }
    }

    /// The next element, converted.
    fn next_wire(&mut self) -> Option<WireMessage> {
        loop {
            let converted = match self.history.next()? {
                AgentMessage::User(user) => user_message(user.content),
                AgentMessage::Assistant(assistant) => {
                    let blocks = assistant_blocks(assistant.content, self.compat, self.oauth);
                    (!blocks.is_empty()).then_some(WireMessage {
                        role: "assistant",
                        content: Content::Blocks(blocks),
                    })
                }
                AgentMessage::ToolResult(first) => {
                    let mut results = vec![tool_result(first)];
                    while let Some(result) = self.history.next_tool_result() {
                        results.push(tool_result(result));
                    }
                    Some(WireMessage {
                        role: "user",
                        content: Content::Blocks(results),
                    })
                }
                _ => None,
            };
            if converted.is_some() {
                return converted;
            }
        }
    }
}

impl HistoryEncoder for AnthropicHistory {
    fn write_next(&mut self, out: &mut Vec<u8>) -> serde_json::Result<bool> {
        loop {
            let next = self.next_wire();
            let cache_control = &self.cache_control;
            let mark = |last: &mut WireMessage| {
                if let Some(cache_control) = cache_control {
                    mark_last_user_message(last, cache_control);
                }
            };
            if let Some(written) = self.held.pass(next, out, mark)? {
                return Ok(written);
            }
        }
    }
}

fn user_message(content: MessageContent) -> Option<WireMessage> {
    let content = match content {
        MessageContent::Text(text) => {
            if js_trim(&text).is_empty() {
                return None;
            }
            Content::Text(text)
        }
        MessageContent::Blocks(blocks) => {
            let blocks: Vec<Block> = blocks
                .into_iter()
                .filter_map(|block| match block {
                    UserContent::Text(text) if js_trim(&text.text).is_empty() => None,
                    UserContent::Text(text) => Some(Block::text(text.text)),
                    UserContent::Image(image) => Some(Block::image(image)),
                })
                .collect();
            if blocks.is_empty() {
                return None;
            }
            Content::Blocks(blocks)
        }
    };
    Some(WireMessage {
        role: "user",
        content,
    })
}

fn assistant_blocks(content: Vec<AssistantContent>, compat: Compat, oauth: bool) -> Vec<Block> {
    let mut blocks = Vec::new();
    for block in content {
        match block {
            AssistantContent::Text(text) => {
                if !js_trim(&text.text).is_empty() {
                    blocks.push(Block::text(text.text));
                }
            }
            AssistantContent::Thinking(thinking) => {
                let signature = thinking.thinking_signature.unwrap_or_default();
                if thinking.redacted == Some(true) {
                    blocks.push(Block::RedactedThinking { data: signature });
                    continue;
                }
                let signed = !js_trim(&signature).is_empty();
                if js_trim(&thinking.thinking).is_empty() && !signed {
                    continue;
                }
                if signed {
                    blocks.push(Block::Thinking {
                        thinking: thinking.thinking,
                        signature,
                    });
                } else if compat.allow_empty_signature {
                    blocks.push(Block::Thinking {
                        thinking: thinking.thinking,
                        signature: String::new(),
                    });
                } else {
                    // A block without signature (an aborted stream) goes back as text.
                    blocks.push(Block::text(thinking.thinking));
                }
            }
            AssistantContent::ToolCall(call) => {
                let name = if oauth {
                    to_claude_code_name(&call.name)
                } else {
                    call.name
                };
                blocks.push(Block::ToolUse {
                    id: call.id,
                    name,
                    input: call.arguments,
                });
            }
        }
    }
    blocks
}

fn tool_result(result: ToolResultMessage) -> Block {
    let has_images = result
        .content
        .iter()
        .any(|block| matches!(block, UserContent::Image(_)));
    let content = if has_images {
        let has_text = result
            .content
            .iter()
            .any(|block| matches!(block, UserContent::Text(_)));
        let mut blocks = Vec::with_capacity(result.content.len() + 1);
        if !has_text {
            blocks.push(Block::text("(see attached image)".to_owned()));
        }
        blocks.extend(result.content.into_iter().map(|block| match block {
            UserContent::Text(text) => Block::text(text.text),
            UserContent::Image(image) => Block::image(image),
        }));
        Content::Blocks(blocks)
    } else {
        Content::Text(joined_text(&result.content))
    };
    Block::ToolResult {
        tool_use_id: result.tool_call_id,
        content,
        is_error: result.is_error,
        cache_control: None,
    }
}

/// Caches the conversation so far: `cache_control` on the last block of a final user message
/// (a text, an image or a tool result; a text content becomes one text block).
fn mark_last_user_message(message: &mut WireMessage, cache_control: &Value) {
    if message.role != "user" {
        return;
    }
    match &mut message.content {
        Content::Blocks(blocks) => {
            if let Some(
                Block::Text {
                    cache_control: slot,
                    ..
                }
                | Block::Image {
                    cache_control: slot,
                    ..
                }
                | Block::ToolResult {
                    cache_control: slot,
                    ..
                },
            ) = blocks.last_mut()
            {
                *slot = Some(cache_control.clone());
            }
        }
        Content::Text(text) => {
            let text = std::mem::take(text);
            message.content = Content::Blocks(vec![Block::Text {
                text,
                cache_control: Some(cache_control.clone()),
            }]);
        }
    }
}
