//! The Chat Completions request body, built as the reference builds it.
//!
//! Keys in the reference's order: `model`, `messages`, `stream`, `prompt_cache_key`,
//! `prompt_cache_retention`, `stream_options`, `store`, `max_completion_tokens` (or
//! `max_tokens`), `tools` (and `tool_stream` for `zaiToolStream`), then the thinking fields of
//! the model's `thinkingFormat`, the routing objects (`provider` from `openRouterRouting`,
//! `providerOptions.gateway` from `vercelGatewayRouting`) and last the model's `samplingParams`,
//! whose keys win. The system prompt is a `developer` message for reasoning models of
//! providers that know that role, else `system`. Assistant text goes as one string, thinking as
//! the field named by its signature (`reasoning_content`, ...), tool results as `tool` messages
//! (their images follow in a user message).

use pi_rpc_protocol::content::{AssistantContent, MessageContent, UserContent};
use pi_rpc_protocol::message::AgentMessage;
use pi_rpc_protocol::model::Model;
use serde_json::{Map, Value, json};

use super::super::json::js_trim;
use super::super::options::{clamp_to_context, estimate_context_tokens};
use super::super::transform::transform_messages;
use super::super::{CacheRetention, LlmRequest};
use super::compat::Compat;
use crate::store::Role;

mod thinking;

use thinking::thinking_fields;

/// The request body.
pub(crate) fn build_body(request: &LlmRequest, compat: &Compat) -> Value {
    let model = &request.model;
    let mut messages = convert_messages(request, compat);
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    body.insert("messages".into(), Value::Null);
    body.insert("stream".into(), json!(true));
    let caching = request.cache_retention != CacheRetention::Off;
    let long = request.cache_retention == CacheRetention::Long && compat.long_cache_retention;
    if (model.base_url.contains("api.openai.com") || long)
        && let Some(session) = request.cache_session()
    {
        let key: String = session.chars().take(64).collect();
        body.insert("prompt_cache_key".into(), json!(key));
    }
    if long {
        body.insert("prompt_cache_retention".into(), json!("24h"));
    }
    if compat.usage_in_streaming {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if compat.store {
        body.insert("store".into(), json!(false));
    }
    let context = estimate_context_tokens(request);
    let max_tokens = clamp_to_context(model, context, model.max_tokens as i64);
    if max_tokens != 0 {
        body.insert(compat.max_tokens_field.into(), json!(max_tokens));
    }
    let mut tools = if !request.tools.is_empty() {
        Some(convert_tools(request, compat))
    } else if has_tool_history(&request.messages) {
        Some(Vec::new())
    } else {
        None
    };
    if compat.anthropic_cache_control && caching {
        let cache_control = if long {
            json!({"type": "ephemeral", "ttl": "1h"})
        } else {
            json!({"type": "ephemeral"})
        };
        apply_cache_control(&mut messages, tools.as_mut(), &cache_control);
    }
    body.insert("messages".into(), Value::Array(messages));
    if let Some(tools) = tools {
        let offered = !tools.is_empty();
        body.insert("tools".into(), Value::Array(tools));
        if offered && compat.zai_tool_stream {
            body.insert("tool_stream".into(), json!(true));
        }
    }
    thinking_fields(&mut body, model, compat, request.thinking_level);
    if let Some(routing) = &compat.openrouter_routing {
        body.insert("provider".into(), routing.clone());
    }
    if let Some(routing) = &compat.vercel_gateway_routing {
        let mut gateway = Map::new();
        for key in ["only", "order"] {
            if let Some(value) = routing.get(key).filter(|value| super::js_truthy(value)) {
                gateway.insert(key.into(), value.clone());
            }
        }
        if !gateway.is_empty() {
            body.insert("providerOptions".into(), json!({"gateway": gateway}));
        }
    }
    if let Some(params) = &model.sampling_params {
        for (key, value) in params {
            body.insert(key.clone(), value.clone());
        }
    }
    Value::Object(body)
}

/// Whether the history holds a tool result or call (each assistant message parsed only to look).
fn has_tool_history(messages: &[std::sync::Arc<crate::store::SharedMessage>]) -> bool {
    messages.iter().any(|message| match message.role() {
        Role::ToolResult => true,
        Role::Assistant => message
            .with_typed(|message| match message {
                AgentMessage::Assistant(assistant) => assistant
                    .content
                    .iter()
                    .any(|block| matches!(block, AssistantContent::ToolCall(_))),
                _ => false,
            })
            .unwrap_or(false),
        _ => false,
    })
}

fn convert_tools(request: &LlmRequest, compat: &Compat) -> Vec<Value> {
    request
        .tools
        .iter()
        .map(|tool| {
            let mut function = Map::new();
            function.insert("name".into(), json!(tool.name));
            function.insert("description".into(), json!(tool.description));
            function.insert("parameters".into(), tool.parameters.clone());
            if compat.strict_mode {
                function.insert("strict".into(), json!(false));
            }
            json!({"type": "function", "function": function})
        })
        .collect()
}

/// Tool-call ids as Chat Completions accepts them: a Responses `call|item` id becomes
/// `call_item` (sanitised, at most 40 characters, else shortened with a hash); OpenAI's own
/// ids are cut to 40 characters.
pub(crate) fn normalize_tool_call_id(id: &str, provider: &str) -> String {
    if let Some((call, item)) = id.split_once('|') {
        let call = sanitize_id(call);
        let item = sanitize_id(item);
        let combined = if item.is_empty() {
            call.clone()
        } else {
            format!("{call}_{item}")
        };
        if crate::js::utf16_len(&combined) <= 40 {
            return combined;
        }
        let hash = short_hash(id);
        let hash = &hash[..hash.len().min(8)];
        let keep = 40usize.saturating_sub(hash.len() + 1).max(1);
        let prefix: String = call.chars().take(keep).collect();
        return format!("{prefix}_{hash}");
    }
    if provider == "openai" && crate::js::utf16_len(id) > 40 {
        return id.chars().take(40).collect();
    }
    id.to_owned()
}

fn sanitize_id(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' || ch == '-' {
            out.push(ch);
        } else {
            for _ in 0..ch.len_utf16() {
                out.push('_');
            }
        }
    }
    out
}

/// The reference's `shortHash`: two 32-bit multiplicative hashes over the UTF-16 units, in
/// base 36.
pub(crate) fn short_hash(text: &str) -> String {
    let mut h1: u32 = 0xdead_beef;
    let mut h2: u32 = 0x41c6_ce57;
    for unit in text.encode_utf16() {
        let ch = u32::from(unit);
        h1 = (h1 ^ ch).wrapping_mul(2_654_435_761);
        h2 = (h2 ^ ch).wrapping_mul(1_597_334_677);
    }
    h1 = (h1 ^ (h1 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h2 ^ (h2 >> 13)).wrapping_mul(3_266_489_909);
    h2 = (h2 ^ (h2 >> 16)).wrapping_mul(2_246_822_507)
        ^ (h1 ^ (h1 >> 13)).wrapping_mul(3_266_489_909);
    format!("{}{}", base36(h2), base36(h1))
}

fn base36(mut value: u32) -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if value == 0 {
        return "0".to_owned();
    }
    let mut out = Vec::new();
    while value > 0 {
        out.push(DIGITS[(value % 36) as usize]);
        value /= 36;
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

fn convert_messages(request: &LlmRequest, compat: &Compat) -> Vec<Value> {
    let model = &request.model;
    let provider = model.provider.clone();
    let normalize = move |id: &str| normalize_tool_call_id(id, &provider);
    let history = transform_messages(&request.messages, model, &normalize);
    let mut out = Vec::new();
    if !request.system_prompt.is_empty() {
        let role = if model.reasoning && compat.developer_role {
            "developer"
        } else {
            "system"
        };
        out.push(json!({"role": role, "content": request.system_prompt}));
    }
    let supports_images = model.input.iter().any(|kind| kind == "image");
    let mut last_role: Option<&str> = None;
    let mut index = 0;
    while index < history.len() {
        let message = &history[index];
        index += 1;
        if compat.assistant_after_tool_result
            && last_role == Some("toolResult")
            && matches!(message, AgentMessage::User(_))
        {
            out.push(json!({"role": "assistant", "content": "I have processed the tool results."}));
        }
        match message {
            AgentMessage::User(user) => {
                match &user.content {
                    MessageContent::Text(text) => {
                        out.push(json!({"role": "user", "content": text}));
                    }
                    MessageContent::Blocks(blocks) => {
                        if blocks.is_empty() {
                            continue;
                        }
                        let content: Vec<Value> = blocks.iter().map(user_part).collect();
                        out.push(json!({"role": "user", "content": content}));
                    }
                }
                last_role = Some("user");
            }
            AgentMessage::Assistant(assistant) => {
                if let Some(converted) = assistant_message(&assistant.content, model, compat) {
                    out.push(converted);
                }
                last_role = Some("assistant");
            }
            AgentMessage::ToolResult(_) => {
                index -= 1;
                let mut images = Vec::new();
                while let Some(AgentMessage::ToolResult(result)) = history.get(index) {
                    index += 1;
                    let text: Vec<&str> = result
                        .content
                        .iter()
                        .filter_map(|block| match block {
                            UserContent::Text(text) => Some(text.text.as_str()),
                            UserContent::Image(_) => None,
                        })
                        .collect();
                    let text = text.join("\n");
                    let has_images = result
                        .content
                        .iter()
                        .any(|block| matches!(block, UserContent::Image(_)));
                    let text = if !text.is_empty() {
                        text
                    } else if has_images {
                        "(see attached image)".to_owned()
                    } else {
                        "(no tool output)".to_owned()
                    };
                    let mut tool = Map::new();
                    tool.insert("role".into(), json!("tool"));
                    tool.insert("content".into(), json!(text));
                    tool.insert("tool_call_id".into(), json!(result.tool_call_id));
                    if compat.tool_result_name && !result.tool_name.is_empty() {
                        tool.insert("name".into(), json!(result.tool_name));
                    }
                    out.push(Value::Object(tool));
                    if has_images && supports_images {
                        images.extend(
                            result
                                .content
                                .iter()
                                .filter(|block| matches!(block, UserContent::Image(_)))
                                .map(user_part),
                        );
                    }
                }
                if images.is_empty() {
                    last_role = Some("toolResult");
                } else {
                    if compat.assistant_after_tool_result {
                        out.push(json!({"role": "assistant", "content": "I have processed the tool results."}));
                    }
                    let mut content = vec![
                        json!({"type": "text", "text": "Attached image(s) from tool result:"}),
                    ];
                    content.extend(images);
                    out.push(json!({"role": "user", "content": content}));
                    last_role = Some("user");
                }
            }
            _ => {}
        }
    }
    out
}

fn user_part(block: &UserContent) -> Value {
    match block {
        UserContent::Text(text) => json!({"type": "text", "text": text.text}),
        UserContent::Image(image) => json!({
            "type": "image_url",
            "image_url": {"url": format!("data:{};base64,{}", image.mime_type, image.data)},
        }),
    }
}

fn assistant_message(
    content: &[AssistantContent],
    model: &Model,
    compat: &Compat,
) -> Option<Value> {
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    let empty = if compat.assistant_after_tool_result {
        json!("")
    } else {
        Value::Null
    };
    message.insert("content".into(), empty);
    let texts: Vec<&str> = content
        .iter()
        .filter_map(|block| match block {
            AssistantContent::Text(text) if !js_trim(&text.text).is_empty() => {
                Some(text.text.as_str())
            }
            _ => None,
        })
        .collect();
    let joined = texts.concat();
    let thinking: Vec<_> = content
        .iter()
        .filter_map(|block| match block {
            AssistantContent::Thinking(thinking) if !js_trim(&thinking.thinking).is_empty() => {
                Some(thinking)
            }
            _ => None,
        })
        .collect();
    if !thinking.is_empty() && compat.thinking_as_text {
        let text: Vec<&str> = thinking
            .iter()
            .map(|block| block.thinking.as_str())
            .collect();
        let mut parts = vec![json!({"type": "text", "text": text.join("\n\n")})];
        parts.extend(
            texts
                .iter()
                .map(|text| json!({"type": "text", "text": text})),
        );
        message.insert("content".into(), Value::Array(parts));
    } else {
        if !joined.is_empty() {
            message.insert("content".into(), json!(joined));
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
                message.insert(signature, json!(text.join("\n")));
            }
        }
    }
    let calls: Vec<_> = content
        .iter()
        .filter_map(|block| match block {
            AssistantContent::ToolCall(call) => Some(call),
            _ => None,
        })
        .collect();
    if !calls.is_empty() {
        let tool_calls: Vec<Value> = calls
            .iter()
            .map(|call| {
                json!({
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": pi_rpc_protocol::json::to_string(&call.arguments).unwrap_or_default(),
                    },
                })
            })
            .collect();
        message.insert("tool_calls".into(), Value::Array(tool_calls));
        let details: Vec<Value> = calls
            .iter()
            .filter_map(|call| call.thought_signature.as_deref())
            .filter(|signature| !signature.is_empty())
            .filter_map(|signature| serde_json::from_str::<Value>(signature).ok())
            .filter(super::js_truthy)
            .collect();
        if !details.is_empty() {
            message.insert("reasoning_details".into(), Value::Array(details));
        }
    }
    if compat.reasoning_content_on_assistant
        && model.reasoning
        && !message.contains_key("reasoning_content")
    {
        message.insert("reasoning_content".into(), json!(""));
    }
    let has_content = match message.get("content") {
        Some(Value::String(text)) => !text.is_empty(),
        Some(Value::Array(parts)) => !parts.is_empty(),
        _ => false,
    };
    if !has_content && !message.contains_key("tool_calls") {
        return None;
    }
    Some(Value::Object(message))
}

/// Marks the system prompt, the last tool and the last text of the last conversation message
/// with `cache_control` (Anthropic models behind OpenRouter).
fn apply_cache_control(messages: &mut [Value], tools: Option<&mut Vec<Value>>, cache: &Value) {
    if let Some(system) = messages
        .iter_mut()
        .find(|message| matches!(message["role"].as_str(), Some("system" | "developer")))
    {
        mark_text(system, cache);
    }
    if let Some(last) = tools.and_then(|tools| tools.last_mut())
        && let Value::Object(tool) = last
    {
        tool.insert("cache_control".into(), cache.clone());
    }
    for message in messages.iter_mut().rev() {
        if matches!(
            message["role"].as_str(),
            Some("user" | "assistant" | "tool")
        ) && mark_text(message, cache)
        {
            return;
        }
    }
}

fn mark_text(message: &mut Value, cache: &Value) -> bool {
    match message.get_mut("content") {
        Some(content @ Value::String(_)) => {
            let text = content.as_str().unwrap_or_default().to_owned();
            if text.is_empty() {
                return false;
            }
            *content = json!([{"type": "text", "text": text, "cache_control": cache}]);
            true
        }
        Some(Value::Array(parts)) => {
            for part in parts.iter_mut().rev() {
                if part["type"] == "text"
                    && let Value::Object(part) = part
                {
                    part.insert("cache_control".into(), cache.clone());
                    return true;
                }
            }
            false
        }
        _ => false,
    }
}
