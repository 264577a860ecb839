//! The Responses request body, built as the reference builds it.
//!
//! Keys in the reference's order: `model`, `input`, `stream`, `prompt_cache_key` (the session,
//! at most 64 characters), `prompt_cache_retention` (`24h` with `PI_CACHE_RETENTION=long`);
//! with caching off neither, but `prompt_cache_options: {mode: "explicit"}` where the model's
//! `supportsExplicitPromptCacheMode` allows; then `store: false`, `max_output_tokens` (at least 16), `tools`,
//! `reasoning` (`{effort, summary: "auto"}` plus `include: ["reasoning.encrypted_content"]` when thinking, else the model's
//! `off` effort, `none` by default), then the model's `samplingParams`.
//!
//! The `input` is written while the body is sent, by `history`.

use std::sync::Arc;

use pi_rpc_protocol::model::{Model, ThinkingLevel};
use serde_json::{Map, Value, json};

use super::super::body::{Encoders, whole_value};
use super::super::openai_completions::request::short_hash;
use super::super::options::{clamp_to_context, estimate_context_tokens};
use super::super::{CacheRetention, LlmRequest};
use super::history::ResponsesHistory;

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
    /// A thinking block's signature, the reasoning item replayed to the model, is not JSON
    /// (worded as `JSON.parse` words it).
    #[error(transparent)]
    Signature(#[from] serde_json::Error),
}

/// The input options of OpenAI's own Responses API.
const OPENAI_INPUT: InputOptions = InputOptions {
    tool_call_providers: TOOL_CALL_ID_PROVIDERS,
    include_system_prompt: true,
};
/// The smallest `max_output_tokens` sent.
const MIN_OUTPUT_TOKENS: i64 = 16;

/// The key of the history in the body.
pub(crate) const INPUT: &str = "input";

/// The body's fixed part, every key in place, `input` a placeholder for the history that
/// [`encoders`] write.
pub(crate) fn body_skeleton(request: &LlmRequest) -> Map<String, Value> {
    let model = &request.model;
    let compat_flag = |key: &str| compat_bool(model, key);
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    body.insert(INPUT.into(), Value::Null);
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
    body
}

/// The encoders of the `input` of `request` for the flavour's `options`.
pub(crate) fn encoders(request: Arc<LlmRequest>, options: InputOptions) -> Encoders {
    Arc::new(move || Box::new(ResponsesHistory::new(Arc::clone(&request), options)))
}

/// OpenAI's own input options.
pub(crate) fn openai_encoders(request: Arc<LlmRequest>) -> Encoders {
    encoders(request, OPENAI_INPUT)
}

/// The whole body as a value (for tests, and where a body is sent whole): `skeleton` with the
/// history of `encoders` at `input`.
pub(crate) fn whole_body(
    skeleton: Map<String, Value>,
    encoders: &Encoders,
) -> Result<Value, BodyError> {
    Ok(whole_value(skeleton, INPUT, encoders)?)
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
pub(super) fn normalize_tool_call_id(id: &str, model: &Model, providers: &[&str]) -> String {
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
