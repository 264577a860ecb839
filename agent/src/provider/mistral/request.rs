//! The Mistral chat request body, as the Mistral SDK serialises the reference's payload: keys
//! in the SDK's order (`model`, `max_tokens`, `stream`, `messages`, `tools`,
//! `reasoning_effort`, `prompt_mode`, `prompt_cache_key`), snake_case names, assistant messages
//! with `prefix: false` and tool calls with `index: 0`.
//!
//! Tool-call ids become the nine letters and digits Mistral accepts: an id that is nine
//! alphanumerics once other characters go is kept, any other is hashed, and ids that would
//! collide are hashed again with a counter.

use std::cell::RefCell;
use std::collections::HashMap;

use pi_rpc_protocol::content::{AssistantContent, MessageContent, UserContent};
use pi_rpc_protocol::message::AgentMessage;
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use serde_json::{Map, Value, json};

use super::super::LlmRequest;
use super::super::openai_completions::request::short_hash;
use super::super::options::{clamp_to_context, estimate_context_tokens};
use super::super::transform::transform_messages;

const TOOL_CALL_ID_LENGTH: usize = 9;

/// Models that take `reasoning_effort` (the other reasoning models take `prompt_mode`).
const REASONING_EFFORT_MODELS: [&str; 3] = [
    "mistral-small-2603",
    "mistral-small-latest",
    "mistral-medium-3.5",
];

fn derive_tool_call_id(id: &str, attempt: usize) -> String {
    let normalized: String = id.chars().filter(char::is_ascii_alphanumeric).collect();
    if attempt == 0 && normalized.chars().count() == TOOL_CALL_ID_LENGTH {
        return normalized;
    }
    let base = if normalized.is_empty() {
        id
    } else {
        &normalized
    };
    let seed = if attempt == 0 {
        base.to_owned()
    } else {
        format!("{base}:{attempt}")
    };
    short_hash(&seed)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(TOOL_CALL_ID_LENGTH)
        .collect()
}

/// The id a tool call streamed without one gets (`toolcall:<index>` hashed).
pub(super) fn fallback_tool_call_id(index: u64) -> String {
    derive_tool_call_id(&format!("toolcall:{index}"), 0)
}

/// Maps ids one to one within a request.
#[derive(Default)]
struct IdNormalizer {
    ids: HashMap<String, String>,
    owners: HashMap<String, String>,
}

impl IdNormalizer {
    fn normalize(&mut self, id: &str) -> String {
        if let Some(known) = self.ids.get(id) {
            return known.clone();
        }
        let mut attempt = 0;
        loop {
            let candidate = derive_tool_call_id(id, attempt);
            match self.owners.get(&candidate) {
                Some(owner) if owner != id => attempt += 1,
                _ => {
                    self.ids.insert(id.to_owned(), candidate.clone());
                    self.owners.insert(candidate.clone(), id.to_owned());
                    return candidate;
                }
            }
        }
    }
}

fn uses_reasoning_effort(model: &Model) -> bool {
    REASONING_EFFORT_MODELS.contains(&model.id.as_str())
}

/// The request body.
pub fn build_body(request: &LlmRequest) -> Value {
    let model = &request.model;
    let normalizer = RefCell::new(IdNormalizer::default());
    let normalize = |id: &str| normalizer.borrow_mut().normalize(id);
    let history = transform_messages(&request.messages, model, &normalize);
    let supports_images = model.input.iter().any(|kind| kind == "image");
    let mut messages = Vec::new();
    if !request.system_prompt.is_empty() {
        messages.push(json!({"role": "system", "content": request.system_prompt}));
    }
    for message in &history {
        match message {
            AgentMessage::User(user) => {
                messages.extend(user_message(&user.content, supports_images))
            }
            AgentMessage::Assistant(assistant) => {
                messages.extend(assistant_message(&assistant.content))
            }
            AgentMessage::ToolResult(result) => {
                let text: Vec<&str> = result
                    .content
                    .iter()
                    .filter_map(|part| match part {
                        UserContent::Text(text) => Some(text.text.as_str()),
                        UserContent::Image(_) => None,
                    })
                    .collect();
                let has_images = result
                    .content
                    .iter()
                    .any(|p| matches!(p, UserContent::Image(_)));
                let text = tool_result_text(
                    &text.join("\n"),
                    has_images,
                    supports_images,
                    result.is_error,
                );
                let mut content = vec![json!({"type": "text", "text": text})];
                if supports_images {
                    for part in &result.content {
                        if let UserContent::Image(image) = part {
                            content.push(image_chunk(&image.mime_type, &image.data));
                        }
                    }
                }
                messages.push(json!({
                    "role": "tool",
                    "content": content,
                    "tool_call_id": result.tool_call_id,
                    "name": result.tool_name,
                }));
            }
            _ => {}
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    let max_tokens = clamp_to_context(
        model,
        estimate_context_tokens(request),
        model.max_tokens as i64,
    );
    body.insert("max_tokens".into(), json!(max_tokens));
    body.insert("stream".into(), json!(true));
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                json!({"type": "function", "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "strict": false,
                    "parameters": tool.parameters,
                }})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    let reasoning = model.reasoning && request.thinking_level != ThinkingLevel::Off;
    if reasoning && uses_reasoning_effort(model) {
        let level = request.thinking_level.as_str();
        let effort = model
            .thinking_level_map
            .as_ref()
            .and_then(|map| map.get(level))
            .filter(|value| !value.is_null())
            .cloned()
            .unwrap_or_else(|| json!("high"));
        body.insert("reasoning_effort".into(), effort);
    } else if reasoning {
        body.insert("prompt_mode".into(), json!("reasoning"));
    }
    if let Some(session) = request.cache_session() {
        body.insert("prompt_cache_key".into(), json!(session));
    }
    Value::Object(body)
}

fn image_chunk(mime_type: &str, data: &str) -> Value {
    json!({"type": "image_url", "image_url": format!("data:{mime_type};base64,{data}")})
}

fn user_message(content: &MessageContent, supports_images: bool) -> Option<Value> {
    let blocks = match content {
        MessageContent::Text(text) => return Some(json!({"role": "user", "content": text})),
        MessageContent::Blocks(blocks) => blocks,
    };
    let parts: Vec<Value> = blocks
        .iter()
        .filter_map(|block| match block {
            UserContent::Text(text) => Some(json!({"type": "text", "text": text.text})),
            UserContent::Image(image) if supports_images => {
                Some(image_chunk(&image.mime_type, &image.data))
            }
            UserContent::Image(_) => None,
        })
        .collect();
    if !parts.is_empty() {
        return Some(json!({"role": "user", "content": parts}));
    }
    let had_images = blocks.iter().any(|b| matches!(b, UserContent::Image(_)));
    (had_images && !supports_images).then(
        || json!({"role": "user", "content": "(image omitted: model does not support images)"}),
    )
}

fn assistant_message(content: &[AssistantContent]) -> Option<Value> {
    let mut parts = Vec::new();
    let mut calls = Vec::new();
    for block in content {
        match block {
            AssistantContent::Text(text) if !text.text.trim().is_empty() => {
                parts.push(json!({"type": "text", "text": text.text}));
            }
            AssistantContent::Thinking(thinking) if !thinking.thinking.trim().is_empty() => {
                parts.push(json!({"type": "thinking", "thinking": [{"type": "text", "text": thinking.thinking}]}));
            }
            AssistantContent::ToolCall(call) => {
                let arguments =
                    pi_rpc_protocol::json::to_string(&call.arguments).unwrap_or_default();
                calls.push(json!({
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": arguments},
                    "index": 0,
                }));
            }
            _ => {}
        }
    }
    if parts.is_empty() && calls.is_empty() {
        return None;
    }
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    if !parts.is_empty() {
        message.insert("content".into(), Value::Array(parts));
    }
    if !calls.is_empty() {
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    message.insert("prefix".into(), json!(false));
    Some(Value::Object(message))
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
        (true, false) => "(image omitted: model does not support images)",
        (false, _) => "(no tool output)",
    };
    format!("{prefix}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_call_ids_become_nine_alphanumerics_without_collisions() {
        assert_eq!(derive_tool_call_id("abc-DEF-123", 0), "abcDEF123");
        let mut normalizer = IdNormalizer::default();
        let first = normalizer.normalize("call_1|fc_1");
        assert_eq!(first.len(), 9);
        assert!(first.chars().all(|c| c.is_ascii_alphanumeric()));
        assert_eq!(normalizer.normalize("call_1|fc_1"), first);
        assert_ne!(normalizer.normalize("call_2|fc_2"), first);
    }
}
