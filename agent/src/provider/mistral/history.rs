//! The Mistral body's `messages`, encoded one message at a time from the typed history (see
//! [`body`](crate::provider::body)): the system prompt, user messages (a text, or text and
//! image chunks), assistant messages (text and thinking chunks, tool calls, `prefix: false`)
//! and each tool result as a `tool` message.

use std::cell::RefCell;
use std::sync::Arc;

use pi_rpc_protocol::content::{AssistantContent, ImageContent, MessageContent, UserContent};
use pi_rpc_protocol::message::{AgentMessage, ToolResultMessage};
use serde::Serialize;

use super::super::LlmRequest;
use super::super::body::{HistoryEncoder, write_element};
use super::super::openai_completions::history::ToolCall;
use super::super::transform::{TransformState, USER_IMAGE_PLACEHOLDER, text_and_images};
use super::request::IdNormalizer;

/// One element of `messages`, its keys in the SDK's order.
#[derive(Debug, Serialize)]
#[serde(tag = "role", rename_all = "snake_case")]
enum WireMessage {
    System {
        content: String,
    },
    User {
        content: Content,
    },
    Assistant {
        #[serde(skip_serializing_if = "Option::is_none")]
        content: Option<Vec<Chunk>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        tool_calls: Option<Vec<ToolCall>>,
        prefix: bool,
    },
    Tool {
        content: Vec<Chunk>,
        tool_call_id: String,
        name: String,
    },
}

#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Content {
    Text(String),
    Chunks(Vec<Chunk>),
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Chunk {
    Text { text: String },
    ImageUrl { image_url: String },
    Thinking { thinking: [Box<Chunk>; 1] },
}

impl Chunk {
    fn image(image: ImageContent) -> Self {
        Self::ImageUrl {
            image_url: format!("data:{};base64,{}", image.mime_type, image.data),
        }
    }
}

/// Writes the `messages` of one request (a fresh one for each pass over the body).
pub(super) struct MistralHistory {
    request: Arc<LlmRequest>,
    transform: TransformState,
    /// Tool-call ids as Mistral takes them, one to one within the request.
    ids: RefCell<IdNormalizer>,
    supports_images: bool,
    /// The system prompt is behind.
    opened: bool,
}

impl MistralHistory {
    pub(super) fn new(request: Arc<LlmRequest>) -> Self {
        Self {
            transform: TransformState::new(&request.model),
            supports_images: request.model.input.iter().any(|kind| kind == "image"),
            request,
            ids: RefCell::new(IdNormalizer::default()),
            opened: false,
        }
    }

    fn next_message(&mut self) -> Option<WireMessage> {
        if !self.opened {
            self.opened = true;
            if !self.request.system_prompt.is_empty() {
                return Some(WireMessage::System {
                    content: self.request.system_prompt.clone(),
                });
            }
        }
        loop {
            let request = &self.request;
            let ids = &self.ids;
            let normalize = |id: &str| ids.borrow_mut().normalize(id);
            let converted =
                match self
                    .transform
                    .next(&request.messages, &request.model, &normalize)?
                {
                    AgentMessage::User(user) => user_message(user.content, self.supports_images),
                    AgentMessage::Assistant(assistant) => assistant_message(assistant.content),
                    AgentMessage::ToolResult(result) => {
                        Some(tool_message(result, self.supports_images))
                    }
                    _ => None,
                };
            if converted.is_some() {
                return converted;
            }
        }
    }
}

impl HistoryEncoder for MistralHistory {
    fn write_next(&mut self, out: &mut Vec<u8>) -> serde_json::Result<bool> {
        match self.next_message() {
            Some(message) => write_element(out, &message).map(|()| true),
            None => Ok(false),
        }
    }
}

fn user_message(content: MessageContent, supports_images: bool) -> Option<WireMessage> {
    let blocks = match content {
        MessageContent::Text(text) => {
            return Some(WireMessage::User {
                content: Content::Text(text),
            });
        }
        MessageContent::Blocks(blocks) => blocks,
    };
    let had_images = blocks.iter().any(|b| matches!(b, UserContent::Image(_)));
    let chunks: Vec<Chunk> = blocks
        .into_iter()
        .filter_map(|block| match block {
            UserContent::Text(text) => Some(Chunk::Text { text: text.text }),
            UserContent::Image(image) if supports_images => Some(Chunk::image(image)),
            UserContent::Image(_) => None,
        })
        .collect();
    if !chunks.is_empty() {
        return Some(WireMessage::User {
            content: Content::Chunks(chunks),
        });
    }
    (had_images && !supports_images).then(|| WireMessage::User {
        content: Content::Text(USER_IMAGE_PLACEHOLDER.to_owned()),
    })
}

fn assistant_message(content: Vec<AssistantContent>) -> Option<WireMessage> {
    let mut chunks = Vec::new();
    let mut calls = Vec::new();
    for block in content {
        match block {
            AssistantContent::Text(text) if !text.text.trim().is_empty() => {
                chunks.push(Chunk::Text { text: text.text });
            }
            AssistantContent::Thinking(thinking) if !thinking.thinking.trim().is_empty() => {
                chunks.push(Chunk::Thinking {
                    thinking: [Box::new(Chunk::Text {
                        text: thinking.thinking,
                    })],
                });
            }
            AssistantContent::ToolCall(call) => {
                let arguments =
                    pi_rpc_protocol::json::to_string(&call.arguments).unwrap_or_default();
                calls.push(ToolCall::new(call.id, call.name, arguments, Some(0)));
            }
            _ => {}
        }
    }
    if chunks.is_empty() && calls.is_empty() {
        return None;
    }
    Some(WireMessage::Assistant {
        content: (!chunks.is_empty()).then_some(chunks),
        tool_calls: (!calls.is_empty()).then_some(calls),
        prefix: false,
    })
}

fn tool_message(result: ToolResultMessage, supports_images: bool) -> WireMessage {
    let (text, images) = text_and_images(result.content);
    let text = tool_result_text(&text, !images.is_empty(), supports_images, result.is_error);
    let mut content = vec![Chunk::Text { text }];
    if supports_images {
        content.extend(images.into_iter().map(Chunk::image));
    }
    WireMessage::Tool {
        content,
        tool_call_id: result.tool_call_id,
        name: result.tool_name,
    }
}

fn tool_result_text(text: &str, has_images: bool, supports_images: bool, is_error: bool) -> String {
    let trimmed = text.trim();
    let prefix = if is_error { "[tool error] " } else { "" };
    if !trimmed.is_empty() {
        let suffix = if has_images && !supports_images {
            "\n[tool image omitted: model does not support images]"
        } else {
            ""
        };
        return format!("{prefix}{trimmed}{suffix}");
    }
    let body = match (has_images, supports_images) {
        (true, true) => "(see attached image)",
        (true, false) => USER_IMAGE_PLACEHOLDER,
        (false, _) => "(no tool output)",
    };
    format!("{prefix}{body}")
}
