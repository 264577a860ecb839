//! The Gemini body's `contents`, encoded one content at a time from the typed history (see
//! [`body`](crate::provider::body)): user contents of text and `inlineData` parts, `model`
//! contents (texts, thoughts with their signatures when the model is the same, function
//! calls), and each run of tool results as one user content of `functionResponse` parts (with
//! their images, or the images in a user content after it for models before Gemini 3). A tool
//! result joins the content before it, so the last content is held until the next is known.

use std::collections::VecDeque;
use std::sync::Arc;

use pi_rpc_protocol::content::{AssistantContent, ImageContent, MessageContent, UserContent};
use pi_rpc_protocol::message::{AgentMessage, AssistantMessage, ToolResultMessage};
use serde::Serialize;
use serde_json::{Map, Value};

use super::super::LlmRequest;
use super::super::body::{HistoryEncoder, write_element};
use super::super::json::js_trim;
use super::super::transform::{TransformState, text_and_images};
use super::request::{gemini_major, requires_tool_call_id};

/// One element of `contents`.
#[derive(Debug, Serialize)]
struct Content {
    parts: Vec<Part>,
    role: &'static str,
}

/// A part, its keys in the SDK's order.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct Part {
    #[serde(skip_serializing_if = "Option::is_none")]
    function_call: Option<FunctionCall>,
    #[serde(skip_serializing_if = "Option::is_none")]
    function_response: Option<FunctionResponse>,
    #[serde(skip_serializing_if = "Option::is_none")]
    inline_data: Option<InlineData>,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thought: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thought_signature: Option<String>,
}

/// A function call: the Google SDK writes `id`, `args`, `name`; in Vertex mode `name`,
/// `args`, `id`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum FunctionCall {
    Gemini {
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        args: Map<String, Value>,
        name: String,
    },
    Vertex {
        name: String,
        args: Map<String, Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
    },
}

#[derive(Debug, Serialize)]
struct FunctionResponse {
    name: String,
    response: Answer,
    #[serde(skip_serializing_if = "Option::is_none")]
    parts: Option<Vec<Part>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
}

/// A tool's answer: `{"output": text}`, or `{"error": text}`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "snake_case")]
enum Answer {
    Output(String),
    Error(String),
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct InlineData {
    data: String,
    mime_type: String,
}

impl Part {
    fn text(text: String) -> Self {
        Self {
            text: Some(text),
            ..Self::default()
        }
    }

    fn image(image: ImageContent) -> Self {
        Self {
            inline_data: Some(InlineData {
                data: image.data,
                mime_type: image.mime_type,
            }),
            ..Self::default()
        }
    }
}

impl Content {
    /// A user content of function responses, which the next tool result joins.
    fn takes_responses(&self) -> bool {
        self.role == "user" && self.parts.iter().any(|p| p.function_response.is_some())
    }
}

/// Writes the `contents` of one request (a fresh one for each pass over the body).
pub(super) struct GeminiHistory {
    request: Arc<LlmRequest>,
    transform: TransformState,
    include_ids: bool,
    supports_images: bool,
    vertex: bool,
    multimodal_responses: bool,
    /// Contents converted and not yet written; the last may still be joined.
    ready: VecDeque<Content>,
    /// Every message was converted.
    finished: bool,
}

impl GeminiHistory {
    pub(super) fn new(request: Arc<LlmRequest>) -> Self {
        let model = &request.model;
        Self {
            transform: TransformState::new(model),
            include_ids: requires_tool_call_id(&model.id),
            supports_images: model.input.iter().any(|kind| kind == "image"),
            vertex: model.api == super::VERTEX_API,
            multimodal_responses: gemini_major(&model.id).is_none_or(|major| major >= 3),
            request,
            ready: VecDeque::new(),
            finished: false,
        }
    }

    /// Converts the next transformed message; `false` after the last.
    fn convert_next(&mut self) -> bool {
        let request = &self.request;
        let model_id = request.model.id.as_str();
        let normalize = |id: &str| normalize_id(id, model_id);
        let Some(message) = self
            .transform
            .next(&request.messages, &request.model, &normalize)
        else {
            return false;
        };
        match message {
            AgentMessage::User(user) => {
                let parts: Vec<Part> = match user.content {
                    MessageContent::Text(text) => vec![Part::text(text)],
                    MessageContent::Blocks(blocks) => blocks
                        .into_iter()
                        .map(|block| match block {
                            UserContent::Text(text) => Part::text(text.text),
                            UserContent::Image(image) => Part::image(image),
                        })
                        .collect(),
                };
                if !parts.is_empty() {
                    self.ready.push_back(Content {
                        parts,
                        role: "user",
                    });
                }
            }
            AgentMessage::Assistant(assistant) => {
                let parts = self.model_parts(assistant);
                if !parts.is_empty() {
                    self.ready.push_back(Content {
                        parts,
                        role: "model",
                    });
                }
            }
            AgentMessage::ToolResult(result) => self.tool_result(result),
            _ => {}
        }
        true
    }

    fn model_parts(&self, assistant: AssistantMessage) -> Vec<Part> {
        let model = &self.request.model;
        let same = assistant.provider == model.provider && assistant.model == model.id;
        let mut parts = Vec::new();
        for block in assistant.content {
            match block {
                AssistantContent::Text(text) => {
                    let signature = valid_signature(text.text_signature).filter(|_| same);
                    if js_trim(&text.text).is_empty() && signature.is_none() {
                        continue;
                    }
                    parts.push(Part {
                        thought_signature: signature,
                        ..Part::text(text.text)
                    });
                }
                AssistantContent::Thinking(thinking) if same => {
                    let signature = valid_signature(thinking.thinking_signature);
                    if js_trim(&thinking.thinking).is_empty() && signature.is_none() {
                        continue;
                    }
                    parts.push(Part {
                        thought: Some(true),
                        thought_signature: signature,
                        ..Part::text(thinking.thinking)
                    });
                }
                AssistantContent::Thinking(thinking) => {
                    if !js_trim(&thinking.thinking).is_empty() {
                        parts.push(Part::text(thinking.thinking));
                    }
                }
                AssistantContent::ToolCall(call) => {
                    let id = self.include_ids.then_some(call.id);
                    let function_call = if self.vertex {
                        FunctionCall::Vertex {
                            name: call.name,
                            args: call.arguments,
                            id,
                        }
                    } else {
                        FunctionCall::Gemini {
                            id,
                            args: call.arguments,
                            name: call.name,
                        }
                    };
                    parts.push(Part {
                        function_call: Some(function_call),
                        thought_signature: valid_signature(call.thought_signature).filter(|_| same),
                        ..Part::default()
                    });
                }
            }
        }
        parts
    }

    fn tool_result(&mut self, result: ToolResultMessage) {
        let (text, mut images) = text_and_images(result.content);
        if !self.supports_images {
            images.clear();
        }
        let value = if !text.is_empty() {
            text
        } else if !images.is_empty() {
            "(see attached image)".to_owned()
        } else {
            String::new()
        };
        let images: Vec<Part> = images.into_iter().map(Part::image).collect();
        let (inside, after) = match (images.is_empty(), self.multimodal_responses) {
            (true, _) => (None, None),
            (false, true) => (Some(images), None),
            (false, false) => (None, Some(images)),
        };
        let part = Part {
            function_response: Some(FunctionResponse {
                name: result.tool_name,
                response: if result.is_error {
                    Answer::Error(value)
                } else {
                    Answer::Output(value)
                },
                parts: inside,
                id: self.include_ids.then_some(result.tool_call_id),
            }),
            ..Part::default()
        };
        match self.ready.back_mut().filter(|last| last.takes_responses()) {
            Some(last) => last.parts.push(part),
            None => self.ready.push_back(Content {
                parts: vec![part],
                role: "user",
            }),
        }
        if let Some(images) = after {
            let mut parts = vec![Part::text("Tool result image:".to_owned())];
            parts.extend(images);
            self.ready.push_back(Content {
                parts,
                role: "user",
            });
        }
    }
}

impl HistoryEncoder for GeminiHistory {
    fn write_next(&mut self, out: &mut Vec<u8>) -> serde_json::Result<bool> {
        // The front content is final once another follows it, or all are converted.
        while !self.finished && self.ready.len() < 2 {
            self.finished = !self.convert_next();
        }
        match self.ready.pop_front() {
            Some(content) => write_element(out, &content).map(|()| true),
            None => Ok(false),
        }
    }
}

/// A signature Gemini accepts back: non-empty base64 whose length is a multiple of four.
fn valid_signature(signature: Option<String>) -> Option<String> {
    let signature = signature.filter(|s| !s.is_empty())?;
    let body = signature.trim_end_matches('=');
    let padding = signature.len() - body.len();
    let valid = signature.len() % 4 == 0
        && padding <= 2
        && !body.is_empty()
        && body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '/');
    valid.then_some(signature)
}

/// A tool-call id as a model that needs ids takes it: `[a-zA-Z0-9_-]`, at most 64 UTF-16
/// units; other models keep it.
fn normalize_id(id: &str, model_id: &str) -> String {
    if !requires_tool_call_id(model_id) {
        return id.to_owned();
    }
    let mut out = String::new();
    for (units, ch) in id
        .chars()
        .flat_map(|ch| {
            let keep = ch.is_ascii_alphanumeric() || ch == '_' || ch == '-';
            let count = if keep { 1 } else { ch.len_utf16() };
            std::iter::repeat_n(if keep { ch } else { '_' }, count)
        })
        .enumerate()
    {
        if units == 64 {
            break;
        }
        out.push(ch);
    }
    out
}
