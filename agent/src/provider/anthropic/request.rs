//! The Anthropic Messages request body, built as the reference builds it.
//!
//! Keys in the reference's order: `model`, `messages`, `max_tokens`, `stream`, `system`,
//! `tools`, `thinking`, `output_config`. The system prompt is one text block; the last tool and
//! the last block of the last user message carry `cache_control` (`{"type":"ephemeral"}`, with
//! `"ttl":"1h"` when `PI_CACHE_RETENTION=long`). This is the fixed part; the history is
//! encoded into it as the body is sent ([`super::history`]).

use pi_rpc_protocol::model::{Model, ThinkingLevel};
use serde_json::{Map, Value, json};

use super::super::options::{clamp_to_context, estimate_context_tokens, fit_thinking};
use super::super::{CacheRetention, LlmRequest};
use super::names::to_claude_code_name;

/// Minimum tokens left for the answer beside a thinking budget.
const MIN_ANSWER_TOKENS: i64 = 1024;

/// The model's `compat` switches that matter to this wire format, with their defaults.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Compat {
    pub eager_tool_input_streaming: bool,
    pub long_cache_retention: bool,
    pub session_affinity_headers: bool,
    pub cache_control_on_tools: bool,
    pub allow_empty_signature: bool,
    pub force_adaptive_thinking: bool,
}

impl Compat {
    pub(crate) fn of(model: &Model) -> Self {
        let flag = |key: &str, default: bool| {
            model
                .compat
                .as_ref()
                .and_then(|compat| compat.get(key))
                .and_then(Value::as_bool)
                .unwrap_or(default)
        };
        Self {
            eager_tool_input_streaming: flag("supportsEagerToolInputStreaming", true),
            long_cache_retention: flag("supportsLongCacheRetention", true),
            session_affinity_headers: flag("sendSessionAffinityHeaders", false),
            cache_control_on_tools: flag("supportsCacheControlOnTools", true),
            allow_empty_signature: flag("allowEmptySignature", false),
            force_adaptive_thinking: flag("forceAdaptiveThinking", false),
        }
    }
}

/// The `cache_control` object for the current cache retention setting; none when caching is off.
pub(crate) fn cache_control(compat: Compat, retention: CacheRetention) -> Option<Value> {
    match retention {
        CacheRetention::Off => None,
        CacheRetention::Long if compat.long_cache_retention => {
            Some(json!({"type": "ephemeral", "ttl": "1h"}))
        }
        CacheRetention::Short | CacheRetention::Long => Some(json!({"type": "ephemeral"})),
    }
}

/// The body's fixed part, every key in place, `messages` a placeholder for the history that
/// [`AnthropicHistory`](super::history::AnthropicHistory) encodes. `oauth` selects Claude
/// Code's identity and tool names.
pub(crate) fn body_skeleton(
    request: &LlmRequest,
    compat: Compat,
    cache_control: Option<&Value>,
    oauth: bool,
) -> Map<String, Value> {
    let model = &request.model;
    let mut body = Map::new();
    body.insert("model".to_owned(), Value::String(model.id.clone()));
    body.insert(MESSAGES.to_owned(), Value::Null);
    let (max_tokens, thinking) = plan_tokens(request, compat);
    body.insert("max_tokens".to_owned(), json!(max_tokens));
    body.insert("stream".to_owned(), Value::Bool(true));
    let mut system = Vec::new();
    if oauth {
        system.push(cached_text(
            "You are Claude Code, Anthropic's official CLI for Claude.",
            cache_control,
        ));
    }
    if !request.system_prompt.is_empty() {
        system.push(cached_text(&request.system_prompt, cache_control));
    }
    if !system.is_empty() {
        body.insert("system".to_owned(), Value::Array(system));
    }
    let tools = convert_tools(request, compat, cache_control, oauth);
    if !tools.is_empty() {
        body.insert("tools".to_owned(), Value::Array(tools));
    }
    if model.reasoning {
        match thinking {
            Thinking::Disabled => {
                let off_hidden = model
                    .thinking_level_map
                    .as_ref()
                    .is_some_and(|map| map.get("off") == Some(&Value::Null));
                if !off_hidden {
                    body.insert("thinking".to_owned(), json!({"type": "disabled"}));
                }
            }
            Thinking::Budget(budget) => {
                let budget = if budget == 0 { 1024 } else { budget };
                body.insert(
                    "thinking".to_owned(),
                    json!({"type": "enabled", "budget_tokens": budget, "display": "summarized"}),
                );
            }
            Thinking::Adaptive(effort) => {
                body.insert(
                    "thinking".to_owned(),
                    json!({"type": "adaptive", "display": "summarized"}),
                );
                body.insert("output_config".to_owned(), json!({"effort": effort}));
            }
        }
    }
    body
}

/// The key of the history in the body.
pub(crate) const MESSAGES: &str = "messages";

/// How thinking is asked for.
enum Thinking {
    Disabled,
    Budget(i64),
    Adaptive(String),
}

/// `max_tokens` and the thinking request for the request's level.
fn plan_tokens(request: &LlmRequest, compat: Compat) -> (i64, Thinking) {
    let model = &request.model;
    let context = estimate_context_tokens(request);
    let base = clamp_to_context(model, context, model.max_tokens as i64);
    let level = request.thinking_level;
    if level == ThinkingLevel::Off {
        return (base, Thinking::Disabled);
    }
    if compat.force_adaptive_thinking {
        return (base, Thinking::Adaptive(effort(model, level)));
    }
    let (max_tokens, budget) = fit_thinking(
        base,
        model.max_tokens as i64,
        level,
        &request.thinking_budgets,
    );
    let max_tokens = clamp_to_context(model, context, max_tokens);
    let budget = budget.min((max_tokens - MIN_ANSWER_TOKENS).max(0));
    (max_tokens, Thinking::Budget(budget))
}

/// The adaptive-thinking effort for a level: the model's own name for it, else low, medium or
/// high.
fn effort(model: &Model, level: ThinkingLevel) -> String {
    if let Some(Value::String(mapped)) = model
        .thinking_level_map
        .as_ref()
        .and_then(|map| map.get(level.as_str()))
    {
        return mapped.clone();
    }
    match level {
        ThinkingLevel::Minimal | ThinkingLevel::Low => "low",
        ThinkingLevel::Medium => "medium",
        _ => "high",
    }
    .to_owned()
}

/// Tool-call ids as Anthropic accepts them: `[a-zA-Z0-9_-]`, at most 64 characters.
pub(crate) fn normalize_tool_call_id(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for ch in id.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' || ch == '-' {
            out.push(ch);
        } else {
            // JavaScript replaces each UTF-16 unit.
            for _ in 0..ch.len_utf16() {
                out.push('_');
            }
        }
    }
    out.truncate(64);
    out
}

fn convert_tools(
    request: &LlmRequest,
    compat: Compat,
    cache_control: Option<&Value>,
    oauth: bool,
) -> Vec<Value> {
    // Later definitions of a name replace earlier ones in the earlier one's place.
    let mut unique: Vec<(String, &crate::tools::ToolDefinition)> = Vec::new();
    for tool in &request.tools {
        let name = if oauth {
            to_claude_code_name(&tool.name)
        } else {
            tool.name.to_string()
        };
        match unique.iter_mut().find(|(existing, _)| *existing == name) {
            Some(slot) => slot.1 = tool,
            None => unique.push((name, tool)),
        }
    }
    let count = unique.len();
    unique
        .into_iter()
        .enumerate()
        .map(|(index, (name, tool))| {
            let mut out = Map::new();
            out.insert("name".to_owned(), Value::String(name));
            out.insert(
                "description".to_owned(),
                Value::String(tool.description.clone()),
            );
            if compat.eager_tool_input_streaming {
                out.insert("eager_input_streaming".to_owned(), Value::Bool(true));
            }
            let schema = &tool.parameters;
            out.insert(
                "input_schema".to_owned(),
                json!({
                    "type": "object",
                    "properties": schema.get("properties").cloned().unwrap_or_else(|| json!({})),
                    "required": schema.get("required").cloned().unwrap_or_else(|| json!([])),
                }),
            );
            if compat.cache_control_on_tools
                && index + 1 == count
                && let Some(cache_control) = cache_control
            {
                out.insert("cache_control".to_owned(), cache_control.clone());
            }
            Value::Object(out)
        })
        .collect()
}

/// A system text block, with `cache_control` when caching is on.
fn cached_text(text: &str, cache_control: Option<&Value>) -> Value {
    let mut block = json!({"type": "text", "text": text});
    if let Some(cache_control) = cache_control {
        block["cache_control"] = cache_control.clone();
    }
    block
}
