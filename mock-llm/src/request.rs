//! What the server needs to know about a provider request, read from its JSON body.

use serde_json::Value;

use crate::format::{Family, Format};
use crate::script::Role;

/// A provider request reduced to what matchers and renderers use.
#[derive(Debug, Clone)]
pub(crate) struct RequestInfo {
    /// The wire format, from the path.
    pub format: Format,
    /// The requested model (body `model`, or the Gemini path segment).
    pub model: String,
    /// Whether a stream was asked for.
    pub stream: bool,
    /// Chat Completions `stream_options.include_usage`.
    pub include_usage: bool,
    /// The 0-based index of this request since the last reset.
    pub index: usize,
    /// The role of the last message.
    pub last_role: Option<Role>,
    /// The text of the last message (text parts joined with `\n`).
    pub last_text: String,
    /// Every tool call id that has a result in the conversation.
    pub tool_result_ids: Vec<String>,
    /// Tool names of results that carry no id (Gemini often sends none).
    pub tool_result_names: Vec<String>,
}

impl RequestInfo {
    /// Reads the conversation out of a request body of `format`.
    pub fn parse(format: Format, path_model: Option<&str>, body: &Value, index: usize) -> Self {
        let model = path_model
            .map(str::to_owned)
            .or_else(|| body.get("model").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default();
        let stream = match format.family() {
            Family::Gemini | Family::Bedrock => true,
            _ => body.get("stream").and_then(Value::as_bool).unwrap_or(false),
        };
        let include_usage = body
            .pointer("/stream_options/include_usage")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let mut info = RequestInfo {
            format,
            model,
            stream,
            include_usage,
            index,
            last_role: None,
            last_text: String::new(),
            tool_result_ids: Vec::new(),
            tool_result_names: Vec::new(),
        };
        match format.family() {
            Family::Anthropic => info.read_anthropic(body),
            Family::Chat | Family::Mistral => info.read_chat(body),
            Family::Responses => info.read_responses(body),
            Family::Gemini => info.read_gemini(body),
            Family::Bedrock => info.read_bedrock(body),
        }
        info
    }

    fn read_anthropic(&mut self, body: &Value) {
        for message in array(body.get("messages")) {
            let role = message
                .get("role")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let mut texts = Vec::new();
            let mut has_result = false;
            match message.get("content") {
                Some(Value::String(text)) => texts.push(text.clone()),
                content => {
                    for block in array(content) {
                        match block.get("type").and_then(Value::as_str) {
                            Some("text") => texts.push(str_of(block, "text")),
                            Some("tool_result") => {
                                has_result = true;
                                self.tool_result_ids.push(str_of(block, "tool_use_id"));
                                texts.push(content_text(block.get("content")));
                            }
                            _ => {}
                        }
                    }
                }
            }
            self.last_role = Some(match role {
                "assistant" => Role::Assistant,
                _ if has_result => Role::ToolResult,
                _ => Role::User,
            });
            self.last_text = texts.join("\n");
        }
    }

    fn read_chat(&mut self, body: &Value) {
        for message in array(body.get("messages")) {
            let role = message
                .get("role")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let text = content_text(message.get("content"));
            match role {
                "system" | "developer" => continue,
                "assistant" => self.last_role = Some(Role::Assistant),
                "tool" => {
                    self.last_role = Some(Role::ToolResult);
                    self.tool_result_ids.push(str_of(message, "tool_call_id"));
                }
                _ => self.last_role = Some(Role::User),
            }
            self.last_text = text;
        }
    }

    fn read_responses(&mut self, body: &Value) {
        if let Some(Value::String(text)) = body.get("input") {
            self.last_role = Some(Role::User);
            self.last_text = text.clone();
            return;
        }
        for item in array(body.get("input")) {
            let kind = item
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("message");
            match kind {
                "message" => {
                    let role = item.get("role").and_then(Value::as_str).unwrap_or_default();
                    match role {
                        "system" | "developer" => continue,
                        "assistant" => self.last_role = Some(Role::Assistant),
                        _ => self.last_role = Some(Role::User),
                    }
                    self.last_text = content_text(item.get("content"));
                }
                "function_call_output" | "custom_tool_call_output" => {
                    self.last_role = Some(Role::ToolResult);
                    self.tool_result_ids.push(str_of(item, "call_id"));
                    self.last_text = content_text(item.get("output"));
                }
                "function_call" | "reasoning" | "custom_tool_call" => {
                    self.last_role = Some(Role::Assistant);
                    self.last_text = String::new();
                }
                _ => {}
            }
        }
    }

    fn read_bedrock(&mut self, body: &Value) {
        for message in array(body.get("messages")) {
            let role = message
                .get("role")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let mut texts = Vec::new();
            let mut has_result = false;
            for block in array(message.get("content")) {
                if let Some(text) = block.get("text").and_then(Value::as_str) {
                    texts.push(text.to_owned());
                }
                if let Some(result) = block.get("toolResult") {
                    has_result = true;
                    self.tool_result_ids.push(str_of(result, "toolUseId"));
                    texts.push(content_text(result.get("content")));
                }
            }
            self.last_role = Some(match role {
                "assistant" => Role::Assistant,
                _ if has_result => Role::ToolResult,
                _ => Role::User,
            });
            self.last_text = texts.join("\n");
        }
    }

    fn read_gemini(&mut self, body: &Value) {
        for content in array(body.get("contents")) {
            let role = content
                .get("role")
                .and_then(Value::as_str)
                .unwrap_or("user");
            let mut texts = Vec::new();
            let mut has_result = false;
            for part in array(content.get("parts")) {
                if let Some(text) = part.get("text").and_then(Value::as_str) {
                    texts.push(text.to_owned());
                }
                if let Some(response) = part.get("functionResponse") {
                    has_result = true;
                    match response.get("id").and_then(Value::as_str) {
                        Some(id) => self.tool_result_ids.push(id.to_owned()),
                        None => self.tool_result_names.push(str_of(response, "name")),
                    }
                    if let Some(output) = response.get("response") {
                        texts.push(content_text(Some(output)));
                    }
                }
            }
            self.last_role = Some(match role {
                "model" => Role::Assistant,
                _ if has_result => Role::ToolResult,
                _ => Role::User,
            });
            self.last_text = texts.join("\n");
        }
    }
}

fn array(value: Option<&Value>) -> &[Value] {
    value
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn str_of(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// The text of a content value: a string, a list of parts with `text`, or any JSON (as text).
fn content_text(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| match part {
                Value::String(text) => Some(text.clone()),
                other => other.get("text").and_then(Value::as_str).map(str::to_owned),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Some(Value::Object(map)) => match map.get("text").or_else(|| map.get("output")) {
            Some(Value::String(text)) => text.clone(),
            _ => Value::Object(map.clone()).to_string(),
        },
        Some(other) => other.to_string(),
    }
}

/// The provider's complaint about a missing required field, if one is missing.
pub(crate) fn missing_field(format: Format, body: &Value) -> Option<String> {
    let has = |key: &str| body.get(key).is_some_and(|v| !v.is_null());
    match format {
        Format::Anthropic => ["model", "messages", "max_tokens"]
            .into_iter()
            .find(|key| !has(key))
            .map(|key| format!("{key}: Field required")),
        Format::OpenAiChat if !has("model") => {
            Some("you must provide a model parameter".to_owned())
        }
        Format::OpenAiChat | Format::Mistral if !has("messages") => {
            Some("Missing required parameter: 'messages'.".to_owned())
        }
        Format::Mistral if !has("model") => Some("model: Field required".to_owned()),
        Format::OpenAiResponses | Format::AzureResponses | Format::CodexResponses
            if !has("model") =>
        {
            Some("Missing required parameter: 'model'.".to_owned())
        }
        Format::Gemini | Format::Vertex if !has("contents") => {
            Some("* GenerateContentRequest.contents: contents is not specified".to_owned())
        }
        Format::Bedrock if !has("messages") => Some(
            "1 validation error detected: Value null at 'messages' failed to satisfy constraint: Member must not be null".to_owned(),
        ),
        _ => None,
    }
}

/// The bytes of a zstd-compressed body, or `None` when it is not zstd.
pub(crate) fn decode_zstd(bytes: &[u8]) -> Option<bytes::Bytes> {
    use std::io::Read;
    let mut decoder = ruzstd::decoding::StreamingDecoder::new(bytes).ok()?;
    let mut out = Vec::new();
    decoder.read_to_end(&mut out).ok()?;
    Some(bytes::Bytes::from(out))
}
