//! The Responses body's `input`, encoded one item at a time from the typed history (see
//! [`body`](crate::provider::body)): the system prompt (`developer` for reasoning models, unless
//! the flavour sends it as `instructions`), user messages of `input_text` / `input_image` parts,
//! each assistant message as the output items the API gave (a reasoning item replayed from its
//! thinking signature, a `message` item per text, a `function_call` per tool call) and each
//! tool result as a `function_call_output`.

use std::collections::VecDeque;
use std::sync::Arc;

use pi_rpc_protocol::content::{AssistantContent, ImageContent, MessageContent, UserContent};
use pi_rpc_protocol::message::{AgentMessage, AssistantMessage, ToolResultMessage};
use serde::Serialize;
use serde_json::Value;

use super::super::LlmRequest;
use super::super::body::{HistoryEncoder, write_element};
use super::super::json::parse_strict;
use super::super::openai_completions::request::short_hash;
use super::super::transform::{TransformState, text_and_images};
use super::request::{InputOptions, normalize_tool_call_id};

/// One element of `input`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Item {
    /// The system prompt or a user message.
    Said {
        role: &'static str,
        content: Said,
    },
    Wire(WireItem),
    /// A reasoning item, as its signature holds it.
    Replayed(Value),
}

/// What a message or a tool's output says: a text, or parts.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Said {
    Text(String),
    Parts(Vec<InputPart>),
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum InputPart {
    InputText {
        text: String,
    },
    InputImage {
        detail: &'static str,
        image_url: String,
    },
}

/// The items of the model's own output, and the tools' answers, their `type` first.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireItem {
    Message {
        role: &'static str,
        content: [OutputText; 1],
        status: &'static str,
        id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        phase: Option<String>,
    },
    FunctionCall {
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        call_id: String,
        name: String,
        arguments: String,
    },
    FunctionCallOutput {
        call_id: String,
        output: Said,
    },
}

#[derive(Debug, Serialize)]
struct OutputText {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
    annotations: [(); 0],
}

impl InputPart {
    fn image(image: ImageContent) -> Self {
        Self::InputImage {
            detail: "auto",
            image_url: format!("data:{};base64,{}", image.mime_type, image.data),
        }
    }
}

/// Writes the `input` of one request (a fresh one for each pass over the body).
pub(super) struct ResponsesHistory {
    request: Arc<LlmRequest>,
    options: InputOptions,
    transform: TransformState,
    supports_images: bool,
    /// Items converted and not yet written (the items of one assistant message).
    ready: VecDeque<Item>,
    /// The system prompt is behind.
    opened: bool,
    /// Conversation messages converted so far (for the ids of text items without one).
    message_index: usize,
}

impl ResponsesHistory {
    pub(super) fn new(request: Arc<LlmRequest>, options: InputOptions) -> Self {
        Self {
            transform: TransformState::new(&request.model),
            supports_images: request.model.input.iter().any(|kind| kind == "image"),
            request,
            options,
            ready: VecDeque::new(),
            opened: false,
            message_index: 0,
        }
    }

    fn system_item(&self) -> Option<Item> {
        let request = &self.request;
        if !self.options.include_system_prompt || request.system_prompt.is_empty() {
            return None;
        }
        let model = &request.model;
        let developer = model.reasoning
            && model
                .compat
                .as_ref()
                .and_then(|compat| compat.get("supportsDeveloperRole"))
                .and_then(Value::as_bool)
                != Some(false);
        Some(Item::Said {
            role: if developer { "developer" } else { "system" },
            content: Said::Text(request.system_prompt.clone()),
        })
    }

    /// Converts transformed messages until an item is ready; `false` after the last.
    fn fill(&mut self) -> serde_json::Result<bool> {
        while self.ready.is_empty() {
            let request = &self.request;
            let model = &request.model;
            let providers = self.options.tool_call_providers;
            let normalize = |id: &str| normalize_tool_call_id(id, model, providers);
            let Some(message) = self.transform.next(&request.messages, model, &normalize) else {
                return Ok(false);
            };
            match message {
                AgentMessage::User(user) => match user_item(user.content) {
                    Some(item) => self.ready.push_back(item),
                    None => continue,
                },
                AgentMessage::Assistant(assistant) => {
                    let different_model = assistant.model != model.id
                        && assistant.provider == model.provider
                        && assistant.api == model.api;
                    let items = assistant_items(assistant, self.message_index, different_model)
                        .map_err(serde::ser::Error::custom)?;
                    if items.is_empty() {
                        continue;
                    }
                    self.ready.extend(items);
                }
                AgentMessage::ToolResult(result) => self
                    .ready
                    .push_back(tool_output(result, self.supports_images)),
                _ => continue,
            }
            self.message_index += 1;
        }
        Ok(true)
    }
}

impl HistoryEncoder for ResponsesHistory {
    fn write_next(&mut self, out: &mut Vec<u8>) -> serde_json::Result<bool> {
        if !self.opened {
            self.opened = true;
            if let Some(system) = self.system_item() {
                write_element(out, &system)?;
                return Ok(true);
            }
        }
        if !self.fill()? {
            return Ok(false);
        }
        match self.ready.pop_front() {
            Some(item) => write_element(out, &item).map(|()| true),
            None => Ok(false),
        }
    }
}

fn user_item(content: MessageContent) -> Option<Item> {
    let parts: Vec<InputPart> = match content {
        MessageContent::Text(text) => vec![InputPart::InputText { text }],
        MessageContent::Blocks(blocks) => blocks
            .into_iter()
            .map(|block| match block {
                UserContent::Text(text) => InputPart::InputText { text: text.text },
                UserContent::Image(image) => InputPart::image(image),
            })
            .collect(),
    };
    (!parts.is_empty()).then_some(Item::Said {
        role: "user",
        content: Said::Parts(parts),
    })
}

fn tool_output(result: ToolResultMessage, supports_images: bool) -> Item {
    let call_id = result
        .tool_call_id
        .split('|')
        .next()
        .unwrap_or("")
        .to_owned();
    let (text, images) = text_and_images(result.content);
    let output = if images.is_empty() || !supports_images {
        Said::Text(if !text.is_empty() {
            text
        } else if !images.is_empty() {
            "(see attached image)".to_owned()
        } else {
            "(no tool output)".to_owned()
        })
    } else {
        let mut parts = Vec::with_capacity(images.len() + 1);
        if !text.is_empty() {
            parts.push(InputPart::InputText { text });
        }
        parts.extend(images.into_iter().map(InputPart::image));
        Said::Parts(parts)
    };
    Item::Wire(WireItem::FunctionCallOutput { call_id, output })
}

/// The output items of one assistant message.
fn assistant_items(
    assistant: AssistantMessage,
    message_index: usize,
    different_model: bool,
) -> Result<Vec<Item>, super::super::json::JsonError> {
    let mut items = Vec::new();
    let mut text_index = 0usize;
    for block in assistant.content {
        match block {
            AssistantContent::Thinking(thinking) => {
                if let Some(signature) = thinking
                    .thinking_signature
                    .as_deref()
                    .filter(|s| !s.is_empty())
                {
                    items.push(Item::Replayed(parse_strict(signature)?));
                }
            }
            AssistantContent::Text(text) => {
                let (id, phase) = parse_text_signature(text.text_signature.as_deref());
                let fallback = || {
                    if text_index == 0 {
                        format!("msg_pi_{message_index}")
                    } else {
                        format!("msg_pi_{message_index}_{text_index}")
                    }
                };
                let id = match id {
                    Some(id) if id.is_empty() => fallback(),
                    Some(id) if crate::js::utf16_len(&id) > 64 => {
                        format!("msg_{}", short_hash(&id))
                    }
                    Some(id) => id,
                    None => fallback(),
                };
                text_index += 1;
                items.push(Item::Wire(WireItem::Message {
                    role: "assistant",
                    content: [OutputText {
                        kind: "output_text",
                        text: text.text,
                        annotations: [],
                    }],
                    status: "completed",
                    id,
                    phase,
                }));
            }
            AssistantContent::ToolCall(call) => {
                let mut parts = call.id.split('|');
                let call_id = parts.next().unwrap_or("").to_owned();
                let id = parts
                    .next()
                    .filter(|item| item.starts_with("fc_") && !different_model)
                    .map(str::to_owned);
                items.push(Item::Wire(WireItem::FunctionCall {
                    id,
                    call_id,
                    name: call.name,
                    arguments: pi_rpc_protocol::json::to_string(&call.arguments)
                        .unwrap_or_default(),
                }));
            }
        }
    }
    Ok(items)
}

/// The message id and phase kept in a text signature: `{"v":1,"id":...,"phase":...}`, or a
/// bare id.
fn parse_text_signature(signature: Option<&str>) -> (Option<String>, Option<String>) {
    let Some(signature) = signature.filter(|s| !s.is_empty()) else {
        return (None, None);
    };
    if signature.starts_with('{')
        && let Ok(parsed) = serde_json::from_str::<Value>(signature)
        && parsed.get("v").and_then(Value::as_f64) == Some(1.0)
        && let Some(id) = parsed.get("id").and_then(Value::as_str)
    {
        let phase = parsed
            .get("phase")
            .and_then(Value::as_str)
            .filter(|phase| matches!(*phase, "commentary" | "final_answer"))
            .map(str::to_owned);
        return (Some(id.to_owned()), phase);
    }
    (Some(signature.to_owned()), None)
}
