//! The Chat Completions body's `messages`, encoded one message at a time from the typed history
//! (see [`body`](crate::provider::body)): the system prompt first (`developer` or `system`),
//! user messages, assistant messages (text as one string, thinking in the field its signature
//! names, tool calls), each tool result as a `tool` message (its images in a user message
//! after the run of results), and the compat's filler assistant message after tool results.
//!
//! With Anthropic-style caching (OpenRouter), the system prompt and the last text of the last
//! conversation message carry `cache_control`: a first pass finds which message that is.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::Arc;

use pi_rpc_protocol::content::{AssistantContent, MessageContent, UserContent};
use pi_rpc_protocol::message::AgentMessage;
use pi_rpc_protocol::model::Model;
use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::Value;

use super::super::LlmRequest;
use super::super::body::{HistoryEncoder, write_element};
use super::super::json::js_trim;
use super::super::transform::{TransformState, joined_text};
use super::compat::Compat;
use super::request::normalize_tool_call_id;

/// What the compat's filler assistant message says after tool results.
const PROCESSED: &str = "I have processed the tool results.";

/// One message: its fields in order, a field set again keeping its place (as the reference's
/// object does).
#[derive(Debug, Default)]
struct Element {
    fields: Vec<(Cow<'static, str>, Field)>,
}

#[derive(Debug)]
enum Field {
    Text(String),
    Null,
    Parts(Vec<Part>),
    ToolCalls(Vec<ToolCall>),
    Values(Vec<Value>),
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part {
    Text {
        text: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<Value>,
    },
    ImageUrl {
        image_url: ImageUrl,
    },
}

#[derive(Debug, Serialize)]
struct ImageUrl {
    url: String,
}

/// A tool call in an assistant message (also Mistral's, with its `index`).
#[derive(Debug, Serialize)]
pub(crate) struct ToolCall {
    id: String,
    #[serde(rename = "type")]
    kind: &'static str,
    function: Function,
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<u32>,
}

#[derive(Debug, Serialize)]
struct Function {
    name: String,
    arguments: String,
}

impl ToolCall {
    /// A call of `name` with `arguments` (JSON text).
    pub(crate) fn new(id: String, name: String, arguments: String, index: Option<u32>) -> Self {
        Self {
            id,
            kind: "function",
            function: Function { name, arguments },
            index,
        }
    }
}

impl Element {
    fn with(role: &'static str, content: Field) -> Self {
        let mut element = Self::default();
        element.set("role", Field::Text(role.to_owned()));
        element.set("content", content);
        element
    }

    fn set(&mut self, key: impl Into<Cow<'static, str>>, value: Field) {
        let key = key.into();
        match self.fields.iter_mut().find(|(name, _)| *name == key) {
            Some(slot) => slot.1 = value,
            None => self.fields.push((key, value)),
        }
    }

    fn get(&self, key: &str) -> Option<&Field> {
        self.fields
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value)
    }

    fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    fn role(&self) -> Option<&str> {
        match self.get("role") {
            Some(Field::Text(role)) => Some(role),
            _ => None,
        }
    }

    /// Puts `cache_control` on the content's last text (a text content becomes one text part);
    /// whether there was one. With `cache_control` `None`, only says whether there is one.
    fn mark_text(&mut self, cache_control: Option<&Value>) -> bool {
        let Some((_, content)) = self.fields.iter_mut().find(|(name, _)| name == "content") else {
            return false;
        };
        match content {
            Field::Text(text) if text.is_empty() => false,
            Field::Text(text) => {
                if let Some(cache_control) = cache_control {
                    *content = Field::Parts(vec![Part::Text {
                        text: std::mem::take(text),
                        cache_control: Some(cache_control.clone()),
                    }]);
                }
                true
            }
            Field::Parts(parts) => {
                let last_text = parts.iter_mut().rev().find_map(|part| match part {
                    Part::Text { cache_control, .. } => Some(cache_control),
                    Part::ImageUrl { .. } => None,
                });
                match last_text {
                    Some(slot) => {
                        if let Some(cache_control) = cache_control {
                            *slot = Some(cache_control.clone());
                        }
                        true
                    }
                    None => false,
                }
            }
            _ => false,
        }
    }
}

impl Serialize for Element {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.fields.len()))?;
        for (key, value) in &self.fields {
            match value {
                Field::Text(text) => map.serialize_entry(key, text)?,
                Field::Null => map.serialize_entry(key, &())?,
                Field::Parts(parts) => map.serialize_entry(key, parts)?,
                Field::ToolCalls(calls) => map.serialize_entry(key, calls)?,
                Field::Values(values) => map.serialize_entry(key, values)?,
            }
        }
        map.end()
    }
}

/// Writes the `messages` of one request (a fresh one for each pass over the body).
pub(super) struct ChatHistory {
    request: Arc<LlmRequest>,
    compat: Arc<Compat>,
    transform: TransformState,
    lookahead: Option<AgentMessage>,
    ready: VecDeque<Element>,
    /// The system prompt was queued.
    started: bool,
    last_role: Option<&'static str>,
    /// Elements written so far.
    written: usize,
    /// `cache_control`, and the element whose last text carries it (besides the system prompt).
    marking: Option<(Value, Option<usize>)>,
}

impl ChatHistory {
    pub(super) fn new(
        request: Arc<LlmRequest>,
        compat: Arc<Compat>,
        marking: Option<(Value, Option<usize>)>,
    ) -> Self {
        Self {
            transform: TransformState::new(&request.model),
            request,
            compat,
            lookahead: None,
            ready: VecDeque::new(),
            started: false,
            last_role: None,
            written: 0,
            marking,
        }
    }

    /// The index of the last user, assistant or tool message with a text to mark.
    pub(super) fn last_markable(mut self) -> Option<usize> {
        let mut last = None;
        let mut index = 0;
        while let Some(mut element) = self.next_element() {
            if matches!(element.role(), Some("user" | "assistant" | "tool"))
                && element.mark_text(None)
            {
                last = Some(index);
            }
            index += 1;
        }
        last
    }

    fn next_transformed(&mut self) -> Option<AgentMessage> {
        self.lookahead.take().or_else(|| {
            let request = &self.request;
            let provider = request.model.provider.as_str();
            let normalize = |id: &str| normalize_tool_call_id(id, provider);
            self.transform
                .next(&request.messages, &request.model, &normalize)
        })
    }

    fn next_element(&mut self) -> Option<Element> {
        loop {
            if let Some(element) = self.ready.pop_front() {
                return Some(element);
            }
            if !self.started {
                self.started = true;
                let request = &self.request;
                if !request.system_prompt.is_empty() {
                    let role = if request.model.reasoning && self.compat.developer_role {
                        "developer"
                    } else {
                        "system"
                    };
                    let prompt = Field::Text(request.system_prompt.clone());
                    self.ready.push_back(Element::with(role, prompt));
                }
                continue;
            }
            let message = self.next_transformed()?;
            self.convert(message);
        }
    }

    fn convert(&mut self, message: AgentMessage) {
        let compat = Arc::clone(&self.compat);
        if compat.assistant_after_tool_result
            && self.last_role == Some("toolResult")
            && matches!(message, AgentMessage::User(_))
        {
            self.ready.push_back(processed());
        }
        match message {
            AgentMessage::User(user) => {
                let content = match user.content {
                    MessageContent::Text(text) => Field::Text(text),
                    MessageContent::Blocks(blocks) => {
                        if blocks.is_empty() {
                            return;
                        }
                        Field::Parts(blocks.into_iter().map(user_part).collect())
                    }
                };
                self.ready.push_back(Element::with("user", content));
                self.last_role = Some("user");
            }
            AgentMessage::Assistant(assistant) => {
                if let Some(element) =
                    assistant_element(assistant.content, &self.request.model, &compat)
                {
                    self.ready.push_back(element);
                }
                self.last_role = Some("assistant");
            }
            AgentMessage::ToolResult(first) => {
                let supports_images = self.request.model.input.iter().any(|kind| kind == "image");
                let mut images = Vec::new();
                let mut next = Some(AgentMessage::ToolResult(first));
                while let Some(AgentMessage::ToolResult(result)) = next {
                    let has_images = result
                        .content
                        .iter()
                        .any(|block| matches!(block, UserContent::Image(_)));
                    let text = joined_text(&result.content);
                    let text = if !text.is_empty() {
                        text
                    } else if has_images {
                        "(see attached image)".to_owned()
                    } else {
                        "(no tool output)".to_owned()
                    };
                    let mut tool = Element::with("tool", Field::Text(text));
                    tool.set("tool_call_id", Field::Text(result.tool_call_id));
                    if compat.tool_result_name && !result.tool_name.is_empty() {
                        tool.set("name", Field::Text(result.tool_name));
                    }
                    self.ready.push_back(tool);
                    if has_images && supports_images {
                        images.extend(
                            result
                                .content
                                .into_iter()
                                .filter(|block| matches!(block, UserContent::Image(_)))
                                .map(user_part),
                        );
                    }
                    next = self.next_transformed();
                }
                self.lookahead = next;
                if images.is_empty() {
                    self.last_role = Some("toolResult");
                } else {
                    if compat.assistant_after_tool_result {
                        self.ready.push_back(processed());
                    }
                    let mut content = vec![Part::Text {
                        text: "Attached image(s) from tool result:".to_owned(),
                        cache_control: None,
                    }];
                    content.extend(images);
                    self.ready
                        .push_back(Element::with("user", Field::Parts(content)));
                    self.last_role = Some("user");
                }
            }
            _ => {}
        }
    }
}

impl HistoryEncoder for ChatHistory {
    fn write_next(&mut self, out: &mut Vec<u8>) -> serde_json::Result<bool> {
        let Some(mut element) = self.next_element() else {
            return Ok(false);
        };
        if let Some((cache_control, marked)) = &self.marking {
            let is_system = matches!(element.role(), Some("system" | "developer"));
            if (is_system && self.written == 0) || *marked == Some(self.written) {
                element.mark_text(Some(cache_control));
            }
        }
        self.written += 1;
        write_element(out, &element)?;
        Ok(true)
    }
}

fn processed() -> Element {
    Element::with("assistant", Field::Text(PROCESSED.to_owned()))
}

fn user_part(block: UserContent) -> Part {
    match block {
        UserContent::Text(text) => Part::Text {
            text: text.text,
            cache_control: None,
        },
        UserContent::Image(image) => Part::ImageUrl {
            image_url: ImageUrl {
                url: format!("data:{};base64,{}", image.mime_type, image.data),
            },
        },
    }
}

fn assistant_element(
    content: Vec<AssistantContent>,
    model: &Model,
    compat: &Compat,
) -> Option<Element> {
    let empty = if compat.assistant_after_tool_result {
        Field::Text(String::new())
    } else {
        Field::Null
    };
    let mut message = Element::with("assistant", empty);
    let mut texts = Vec::new();
    let mut thinking = Vec::new();
    let mut calls = Vec::new();
    for block in content {
        match block {
            AssistantContent::Text(text) if !js_trim(&text.text).is_empty() => {
                texts.push(text.text)
            }
            AssistantContent::Thinking(block) if !js_trim(&block.thinking).is_empty() => {
                thinking.push(block);
            }
            AssistantContent::ToolCall(call) => calls.push(call),
            _ => {}
        }
    }
    if !thinking.is_empty() && compat.thinking_as_text {
        let text: Vec<&str> = thinking
            .iter()
            .map(|block| block.thinking.as_str())
            .collect();
        let mut parts = vec![Part::Text {
            text: text.join("\n\n"),
            cache_control: None,
        }];
        parts.extend(texts.into_iter().map(|text| Part::Text {
            text,
            cache_control: None,
        }));
        message.set("content", Field::Parts(parts));
    } else {
        let joined = texts.concat();
        if !joined.is_empty() {
            message.set("content", Field::Text(joined));
        }
        if let Some(first) = thinking.first() {
            let mut signature = first.thinking_signature.clone().unwrap_or_default();
            if model.provider == "opencode-go" && signature == "reasoning" {
                signature = "reasoning_content".to_owned();
            }
            if !signature.is_empty() {
                let text: Vec<&str> = thinking
                    .iter()
                    .map(|block| block.thinking.as_str())
                    .collect();
                message.set(signature, Field::Text(text.join("\n")));
            }
        }
    }
    if !calls.is_empty() {
        let details: Vec<Value> = calls
            .iter()
            .filter_map(|call| call.thought_signature.as_deref())
            .filter(|signature| !signature.is_empty())
            .filter_map(|signature| serde_json::from_str::<Value>(signature).ok())
            .filter(super::js_truthy)
            .collect();
        let tool_calls = calls
            .into_iter()
            .map(|call| {
                let arguments =
                    pi_rpc_protocol::json::to_string(&call.arguments).unwrap_or_default();
                ToolCall::new(call.id, call.name, arguments, None)
            })
            .collect();
        message.set("tool_calls", Field::ToolCalls(tool_calls));
        if !details.is_empty() {
            message.set("reasoning_details", Field::Values(details));
        }
    }
    if compat.reasoning_content_on_assistant && model.reasoning && !message.has("reasoning_content")
    {
        message.set("reasoning_content", Field::Text(String::new()));
    }
    let has_content = match message.get("content") {
        Some(Field::Text(text)) => !text.is_empty(),
        Some(Field::Parts(parts)) => !parts.is_empty(),
        _ => false,
    };
    if !has_content && !message.has("tool_calls") {
        return None;
    }
    Some(message)
}
