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

use pi_rpc_protocol::content::AssistantContent;
use pi_rpc_protocol::message::AgentMessage;
use serde_json::{Map, Value, json};

use super::super::options::{clamp_to_context, estimate_context_tokens};
use super::super::{CacheRetention, LlmRequest};
use super::compat::Compat;
use crate::store::Role;

mod thinking;

use thinking::thinking_fields;

/// The body's fixed part, every key in place, `messages` a placeholder for the history that
/// [`ChatHistory`](super::history::ChatHistory) encodes; and the `cache_control` its messages
/// carry, if any.
pub(crate) fn body_skeleton(
    request: &LlmRequest,
    compat: &Compat,
) -> (Map<String, Value>, Option<Value>) {
    let model = &request.model;
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
    let cache_control = (compat.anthropic_cache_control && caching).then(|| {
        if long {
            json!({"type": "ephemeral", "ttl": "1h"})
        } else {
            json!({"type": "ephemeral"})
        }
    });
    // The last tool is cached too.
    if let Some(cache_control) = &cache_control
        && let Some(Value::Object(tool)) = tools.as_mut().and_then(|tools| tools.last_mut())
    {
        tool.insert("cache_control".into(), cache_control.clone());
    }
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
    (body, cache_control)
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
