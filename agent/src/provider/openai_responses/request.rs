//! The Responses request body, built as the reference builds it.
//!
//! Keys in the reference's order: `model`, `input`, `stream`, `prompt_cache_key` (the session,
//! at most 64 characters), `prompt_cache_retention` (`24h` with `PI_CACHE_RETENTION=long`);
//! with caching off neither, but `prompt_cache_options: {mode: "explicit"}` where the model's
//! `supportsExplicitPromptCacheMode` allows; then `store: false`, `max_output_tokens` (at least 16), `tools`, `reasoning` (`{effort, summary:
//! "auto"}` plus `include: ["reasoning.encrypted_content"]` when thinking, else the model's
//! `off` effort, `none` by default), then the model's `samplingParams`.
//!
//! The input holds the system prompt (`developer` for reasoning models), user messages of
//! `input_text` / `input_image` parts, assistant output items as the Responses API gave them
//! (reasoning items from the thinking signature, `message` items whose id comes from the text
//! signature, `function_call` items from `call_id|item_id` tool-call ids) and
//! `function_call_output` items.

use pi_rpc_protocol::content::{AssistantContent, MessageContent, UserContent};
use pi_rpc_protocol::message::AgentMessage;
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use serde_json::{Map, Value, json};

use super::super::json::{JsonError, parse_strict};
use super::super::openai_completions::request::short_hash;
use super::super::options::{clamp_to_context, estimate_context_tokens};
use super::super::transform::transform_messages;
use super::super::{CacheRetention, LlmRequest};

/// Providers whose `call|item` tool-call ids are kept (with the item id normalised).
pub(crate) const TOOL_CALL_ID_PROVIDERS: &[&str] = &["openai", "openai-codex", "opencode"];

/// How the conversation becomes the `input` list, where the Responses flavours differ.
#[derive(Debug, Clone, Copy)]
pub(crate) struct InputOptions {
    /// Providers whose `call|item` tool-call ids are kept.
    pub tool_call_providers: &'static [&'static str],
    /// Whether the system prompt opens the input (Codex sends it as `instructions`).
    pub include_system_prompt: bool,
}

/// Why a Responses request body cannot be built; the request is not sent and the answer fails
/// with this text.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    /// A thinking block's signature, the reasoning item replayed to the model, is not JSON.
    #[error(transparent)]
    Signature(#[from] JsonError),
}

/// The input options of OpenAI's own Responses API.
const OPENAI_INPUT: InputOptions = InputOptions {
    tool_call_providers: TOOL_CALL_ID_PROVIDERS,
    include_system_prompt: true,
};
/// The smallest `max_output_tokens` sent.
const MIN_OUTPUT_TOKENS: i64 = 16;

/// The request body, or the error that stops the request (a thinking signature that is not
/// JSON).
pub(crate) fn build_body(request: &LlmRequest) -> Result<Value, BodyError> {
    let model = &request.model;
    let compat_flag = |key: &str| compat_bool(model, key);
    let input = convert_messages(request, OPENAI_INPUT)?;
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    body.insert("input".into(), Value::Array(input));
    body.insert("stream".into(), json!(true));
    let caching = request.cache_retention != CacheRetention::Off;
    if let Some(session) = request.cache_session() {
        let key: String = session.chars().take(64).collect();
        body.insert("prompt_cache_key".into(), json!(key));
    }
    if request.cache_retention == CacheRetention::Long
        && compat_flag("supportsLongCacheRetention").unwrap_or(true)
    {
        body.insert("prompt_cache_retention".into(), json!("24h"));
    }
    if !caching && compat_flag("supportsExplicitPromptCacheMode").unwrap_or(false) {
        body.insert("prompt_cache_options".into(), json!({"mode": "explicit"}));
    }
    body.insert("store".into(), json!(false));
    let context = estimate_context_tokens(request);
    let max_tokens = clamp_to_context(model, context, model.max_tokens as i64);
    if max_tokens != 0 {
        body.insert(
            "max_output_tokens".into(),
            json!(max_tokens.max(MIN_OUTPUT_TOKENS)),
        );
    }
    if !request.tools.is_empty() {
        body.insert(
            "tools".into(),
            Value::Array(convert_tools(
                request,
                compat_flag("supportsStrictMode")
                    .unwrap_or(false)
                    .then_some(Value::Bool(false)),
            )),
        );
    }
    insert_reasoning(request, &mut body);
    if let Some(params) = &model.sampling_params {
        for (key, value) in params {
            body.insert(key.clone(), value.clone());
        }
    }
    Ok(Value::Object(body))
}

/// The `reasoning` setting (and `include` of the encrypted reasoning) for a reasoning model:
/// the thinking level's effort with a summary, else the model's `off` effort (`none` by
/// default) unless its map says `off: null`.
pub(crate) fn insert_reasoning(request: &LlmRequest, body: &mut Map<String, Value>) {
    let model = &request.model;
    if model.reasoning {
        let off = model
            .thinking_level_map
            .as_ref()
            .and_then(|map| map.get("off"));
        if request.thinking_level != ThinkingLevel::Off {
            let level = request.thinking_level.as_str();
            let effort = model
                .thinking_level_map
                .as_ref()
                .and_then(|map| map.get(level))
                .filter(|value| !value.is_null())
                .cloned()
                .unwrap_or_else(|| json!(level));
            body.insert(
                "reasoning".into(),
                json!({"effort": effort, "summary": "auto"}),
            );
            body.insert("include".into(), json!(["reasoning.encrypted_content"]));
        } else if model.provider != "github-copilot" && !matches!(off, Some(Value::Null)) {
            let effort = off.cloned().unwrap_or_else(|| json!("none"));
            body.insert("reasoning".into(), json!({"effort": effort}));
        }
        if model.provider == "xai" {
            body.insert("include".into(), json!(["reasoning.encrypted_content"]));
        }
    }
}

/// A boolean switch of the model's `compat`, when set.
pub(crate) fn compat_bool(model: &Model, key: &str) -> Option<bool> {
    model
        .compat
        .as_ref()
        .and_then(|compat| compat.get(key))
        .and_then(Value::as_bool)
}

/// The function tools; `strict`, when given, is each tool's `strict` value.
pub(crate) fn convert_tools(request: &LlmRequest, strict: Option<Value>) -> Vec<Value> {
    // A later definition of a name replaces an earlier one in its place.
    let mut unique: Vec<&crate::tools::ToolDefinition> = Vec::new();
    for tool in &request.tools {
        match unique
            .iter_mut()
            .find(|existing| existing.name == tool.name)
        {
            Some(slot) => *slot = tool,
            None => unique.push(tool),
        }
    }
    unique
        .into_iter()
        .map(|tool| {
            let mut out = Map::new();
            out.insert("type".into(), json!("function"));
            out.insert("name".into(), json!(tool.name));
            out.insert("description".into(), json!(tool.description));
            out.insert("parameters".into(), tool.parameters.clone());
            if let Some(strict) = &strict {
                out.insert("strict".into(), strict.clone());
            }
            Value::Object(out)
        })
        .collect()
}

/// One part of an id as the Responses API accepts it: `[a-zA-Z0-9_-]`, at most 64 characters,
/// no trailing underscores.
fn normalize_id_part(part: &str) -> String {
    let mut out = String::with_capacity(part.len());
    for ch in part.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' || ch == '-' {
            out.push(ch);
        } else {
            for _ in 0..ch.len_utf16() {
                out.push('_');
            }
        }
    }
    out.truncate(64);
    out.trim_end_matches('_').to_owned()
}

/// Tool-call ids of other models' calls. For OpenAI's own providers a `call|item` id keeps
/// both parts, the item id rebuilt from a hash (the call came from another model); other ids
/// are normalised whole.
fn normalize_tool_call_id(id: &str, model: &Model, providers: &[&str]) -> String {
    if !providers.contains(&model.provider.as_str()) {
        return normalize_id_part(id);
    }
    let mut parts = id.split('|');
    let (Some(call), Some(item)) = (parts.next(), parts.next()) else {
        return normalize_id_part(id);
    };
    let call = normalize_id_part(call);
    let mut item: String = format!("fc_{}", short_hash(item))
        .chars()
        .take(64)
        .collect();
    if !item.starts_with("fc_") {
        item = normalize_id_part(&format!("fc_{item}"));
    }
    format!("{call}|{item}")
}

fn image_part(mime_type: &str, data: &str) -> Value {
    json!({
        "type": "input_image",
        "detail": "auto",
        "image_url": format!("data:{mime_type};base64,{data}"),
    })
}

/// The conversation as Responses input items.
pub(crate) fn convert_messages(
    request: &LlmRequest,
    options: InputOptions,
) -> Result<Vec<Value>, BodyError> {
    let model = &request.model;
    let normalize = |id: &str| normalize_tool_call_id(id, model, options.tool_call_providers);
    let history = transform_messages(&request.messages, model, &normalize);
    let mut out = Vec::new();
    if options.include_system_prompt && !request.system_prompt.is_empty() {
        let developer = model.reasoning
            && model
                .compat
                .as_ref()
                .and_then(|compat| compat.get("supportsDeveloperRole"))
                .and_then(Value::as_bool)
                != Some(false);
        let role = if developer { "developer" } else { "system" };
        out.push(json!({"role": role, "content": request.system_prompt}));
    }
    let supports_images = model.input.iter().any(|kind| kind == "image");
    let mut message_index = 0usize;
    for message in &history {
        match message {
            AgentMessage::User(user) => {
                let content: Vec<Value> = match &user.content {
                    MessageContent::Text(text) => vec![json!({"type": "input_text", "text": text})],
                    MessageContent::Blocks(blocks) => blocks
                        .iter()
                        .map(|block| match block {
                            UserContent::Text(text) => {
                                json!({"type": "input_text", "text": text.text})
                            }
                            UserContent::Image(image) => image_part(&image.mime_type, &image.data),
                        })
                        .collect(),
                };
                if content.is_empty() {
                    continue;
                }
                out.push(json!({"role": "user", "content": content}));
            }
            AgentMessage::Assistant(assistant) => {
                let different_model = assistant.model != model.id
                    && assistant.provider == model.provider
                    && assistant.api == model.api;
                let items = assistant_items(&assistant.content, message_index, different_model)?;
                if items.is_empty() {
                    continue;
                }
                out.extend(items);
            }
            AgentMessage::ToolResult(result) => {
                let call_id = result.tool_call_id.split('|').next().unwrap_or("");
                let text: Vec<&str> = result
                    .content
                    .iter()
                    .filter_map(|block| match block {
                        UserContent::Text(text) => Some(text.text.as_str()),
                        UserContent::Image(_) => None,
                    })
                    .collect();
                let text = text.join("\n");
                let images: Vec<Value> = result
                    .content
                    .iter()
                    .filter_map(|block| match block {
                        UserContent::Image(image) => {
                            Some(image_part(&image.mime_type, &image.data))
                        }
                        UserContent::Text(_) => None,
                    })
                    .collect();
                let output = if images.is_empty() || !supports_images {
                    let text = if !text.is_empty() {
                        text
                    } else if !images.is_empty() {
                        "(see attached image)".to_owned()
                    } else {
                        "(no tool output)".to_owned()
                    };
                    json!(text)
                } else {
                    let mut parts = Vec::new();
                    if !text.is_empty() {
                        parts.push(json!({"type": "input_text", "text": text}));
                    }
                    parts.extend(images);
                    Value::Array(parts)
                };
                out.push(
                    json!({"type": "function_call_output", "call_id": call_id, "output": output}),
                );
            }
            _ => continue,
        }
        message_index += 1;
    }
    Ok(out)
}

fn assistant_items(
    content: &[AssistantContent],
    message_index: usize,
    different_model: bool,
) -> Result<Vec<Value>, BodyError> {
    let mut items = Vec::new();
    let mut text_index = 0usize;
    for block in content {
        match block {
            AssistantContent::Thinking(thinking) => {
                if let Some(signature) = thinking
                    .thinking_signature
                    .as_deref()
                    .filter(|s| !s.is_empty())
                {
                    items.push(parse_strict(signature)?);
                }
            }
            AssistantContent::Text(text) => {
                let (id, phase) = parse_text_signature(text.text_signature.as_deref());
                let fallback = if text_index == 0 {
                    format!("msg_pi_{message_index}")
                } else {
                    format!("msg_pi_{message_index}_{text_index}")
                };
                text_index += 1;
                let id = match id {
                    None => fallback,
                    Some(id) if id.is_empty() => fallback,
                    Some(id) if crate::js::utf16_len(&id) > 64 => {
                        format!("msg_{}", short_hash(&id))
                    }
                    Some(id) => id,
                };
                let mut item = Map::new();
                item.insert("type".into(), json!("message"));
                item.insert("role".into(), json!("assistant"));
                item.insert(
                    "content".into(),
                    json!([{"type": "output_text", "text": text.text, "annotations": []}]),
                );
                item.insert("status".into(), json!("completed"));
                item.insert("id".into(), json!(id));
                if let Some(phase) = phase {
                    item.insert("phase".into(), json!(phase));
                }
                items.push(Value::Object(item));
            }
            AssistantContent::ToolCall(call) => {
                let mut parts = call.id.split('|');
                let call_id = parts.next().unwrap_or("");
                let item_id = parts
                    .next()
                    .filter(|item| item.starts_with("fc_") && !different_model);
                let mut item = Map::new();
                item.insert("type".into(), json!("function_call"));
                if let Some(item_id) = item_id {
                    item.insert("id".into(), json!(item_id));
                }
                item.insert("call_id".into(), json!(call_id));
                item.insert("name".into(), json!(call.name));
                item.insert(
                    "arguments".into(),
                    json!(pi_rpc_protocol::json::to_string(&call.arguments).unwrap_or_default()),
                );
                items.push(Value::Object(item));
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

/// The text signature the reference stores for a message item.
pub(crate) fn encode_text_signature(id: &str, phase: Option<&str>) -> String {
    let mut payload = Map::new();
    payload.insert("v".into(), json!(1));
    payload.insert("id".into(), json!(id));
    if let Some(phase) = phase.filter(|phase| !phase.is_empty()) {
        payload.insert("phase".into(), json!(phase));
    }
    pi_rpc_protocol::json::to_string(&Value::Object(payload)).unwrap_or_default()
}
