//! The Mistral chat request body, as the Mistral SDK serialises the reference's payload: keys
//! in the SDK's order (`model`, `max_tokens`, `stream`, `messages`, `tools`,
//! `reasoning_effort`, `prompt_mode`, `prompt_cache_key`), snake_case names, assistant messages
//! with `prefix: false` and tool calls with `index: 0`.
//!
//! Tool-call ids become the nine letters and digits Mistral accepts: an id that is nine
//! alphanumerics once other characters go is kept, any other is hashed, and ids that would
//! collide are hashed again with a counter.

use std::collections::HashMap;

use pi_rpc_protocol::model::{Model, ThinkingLevel};
use serde_json::{Map, Value, json};

use super::super::LlmRequest;
use super::super::openai_completions::request::short_hash;
use super::super::options::{clamp_to_context, estimate_context_tokens};

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
#[derive(Debug, Default)]
pub(super) struct IdNormalizer {
    ids: HashMap<String, String>,
    owners: HashMap<String, String>,
}

impl IdNormalizer {
    pub(super) fn normalize(&mut self, id: &str) -> String {
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

/// The key of the history in the body.
pub(super) const MESSAGES: &str = "messages";

/// The body's fixed part, every key in place, `messages` a placeholder for the history that
/// [`MistralHistory`](super::history::MistralHistory) writes.
pub(super) fn body_skeleton(request: &LlmRequest) -> Map<String, Value> {
    let model = &request.model;
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    let max_tokens = clamp_to_context(
        model,
        estimate_context_tokens(request),
        model.max_tokens as i64,
    );
    body.insert("max_tokens".into(), json!(max_tokens));
    body.insert("stream".into(), json!(true));
    body.insert(MESSAGES.into(), Value::Null);
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
    body
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
