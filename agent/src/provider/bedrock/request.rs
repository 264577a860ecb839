//! The Converse request body as the reference builds it and the AWS SDK serialises it:
//! `messages`, `system`, `inferenceConfig`, `toolConfig`, `additionalModelRequestFields`.
//!
//! Blank texts are left out (`<empty>` stands for a user message or tool result with nothing
//! else), consecutive tool results share one user message, Claude models that cache get a
//! `cachePoint` after the system prompt and on the last user message (`ttl: "1h"` with
//! `PI_CACHE_RETENTION=long`; none with caching off), and Claude thinking is `adaptive` with an
//! effort (Opus 4.6+, Sonnet 4.6+) or `enabled` with a token budget and the interleaved-thinking
//! beta.

use pi_rpc_protocol::model::{Model, ThinkingLevel};
use serde_json::{Map, Value, json};

use super::super::options::{clamp_to_context, estimate_context_tokens, fit_thinking};
use super::super::{CacheRetention, LlmRequest, stored_env};
use super::history::CachePoint;

/// Lower-case forms of the model's id and name, also with separators as dashes.
fn candidates(model: &Model) -> Vec<String> {
    [model.id.as_str(), model.name.as_str()]
        .iter()
        .flat_map(|value| {
            let lower = value.to_lowercase();
            let dashed: String = lower
                .chars()
                .map(|c| {
                    if matches!(c, ' ' | '_' | '.' | ':') {
                        '-'
                    } else {
                        c
                    }
                })
                .collect();
            [lower, dashed]
        })
        .collect()
}

fn any(model: &Model, needles: &[&str]) -> bool {
    candidates(model)
        .iter()
        .any(|c| needles.iter().any(|needle| c.contains(needle)))
}

/// Whether the model is Anthropic's Claude on Bedrock.
pub(super) fn is_claude(model: &Model) -> bool {
    let id = model.id.to_lowercase();
    let name = model.name.to_lowercase();
    id.contains("anthropic.claude")
        || id.contains("anthropic/claude")
        || name.contains("anthropic.claude")
        || name.contains("anthropic/claude")
        || name.contains("claude")
}

fn adaptive_thinking(model: &Model) -> bool {
    any(
        model,
        &[
            "opus-4-6",
            "opus-4-7",
            "opus-4-8",
            "opus-5",
            "sonnet-4-6",
            "sonnet-5",
            "fable-5",
        ],
    )
}

pub(super) fn caches(model: &Model, request: &LlmRequest) -> bool {
    if request.cache_retention == CacheRetention::Off {
        return false;
    }
    if !candidates(model).iter().any(|c| c.contains("claude")) {
        return stored_env(request, "AWS_BEDROCK_FORCE_CACHE").as_deref() == Some("1");
    }
    any(
        model,
        &[
            "fable-5",
            "opus-5",
            "sonnet-5",
            "-4-",
            "claude-3-7-sonnet",
            "claude-3-5-haiku",
        ],
    )
}

fn cache_point(long: bool) -> Value {
    json!({"cachePoint": CachePoint::new(long)})
}

pub(super) fn normalize_tool_call_id(id: &str) -> String {
    let mut out: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    out.truncate(64);
    out
}

/// An image Bedrock cannot take; the call fails with this text before it is sent.
#[derive(Debug, thiserror::Error)]
#[error("Unknown image type: {0}")]
pub struct UnknownImageType(pub(super) String);

/// The adaptive-thinking effort for a level.
fn effort(model: &Model, level: ThinkingLevel) -> Value {
    let native_xhigh = any(
        model,
        &["opus-4-7", "opus-4-8", "opus-5", "sonnet-5", "fable-5"],
    );
    if level == ThinkingLevel::Xhigh && native_xhigh {
        return json!("xhigh");
    }
    let mapped = model
        .thinking_level_map
        .as_ref()
        .and_then(|map| map.get(level.as_str()))
        .filter(|value| value.is_string());
    if let Some(mapped) = mapped {
        return mapped.clone();
    }
    json!(match level {
        ThinkingLevel::Minimal | ThinkingLevel::Low => "low",
        ThinkingLevel::Medium => "medium",
        _ => "high",
    })
}

/// The key of the history in the body.
pub(super) const MESSAGES: &str = "messages";

/// The body's fixed part, every key in place, `messages` a placeholder for the history that
/// [`ConverseHistory`](super::history::ConverseHistory) writes.
pub(super) fn body_skeleton(request: &LlmRequest) -> Map<String, Value> {
    let model = &request.model;
    let long_cache = request.cache_retention == CacheRetention::Long;
    let thinking = model.reasoning && request.thinking_level != ThinkingLevel::Off;
    let claude = is_claude(model);
    let base_max = clamp_to_context(
        model,
        estimate_context_tokens(request),
        model.max_tokens as i64,
    );
    let mut max_tokens = base_max;
    let mut budget = None;
    if thinking && claude && !adaptive_thinking(model) {
        let (adjusted, adjusted_budget) = fit_thinking(
            base_max,
            model.max_tokens as i64,
            request.thinking_level,
            &request.thinking_budgets,
        );
        max_tokens = clamp_to_context(model, estimate_context_tokens(request), adjusted);
        budget = Some(adjusted_budget.min((max_tokens - 1024).max(0)));
    }
    let mut body = Map::new();
    body.insert(MESSAGES.into(), Value::Null);
    if !request.system_prompt.is_empty() {
        let mut system = vec![json!({"text": request.system_prompt})];
        if caches(model, request) {
            system.push(cache_point(long_cache));
        }
        body.insert("system".into(), Value::Array(system));
    }
    body.insert("inferenceConfig".into(), json!({"maxTokens": max_tokens}));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                json!({"toolSpec": {
                    "name": tool.name,
                    "inputSchema": {"json": tool.parameters},
                    "description": tool.description,
                }})
            })
            .collect();
        body.insert("toolConfig".into(), json!({"tools": tools}));
    }
    if thinking && claude {
        let gov = stored_env(request, "AWS_REGION")
            .or_else(|| stored_env(request, "AWS_DEFAULT_REGION"))
            .is_some_and(|region| region.to_lowercase().starts_with("us-gov-"))
            || model.id.to_lowercase().starts_with("us-gov.")
            || model.id.to_lowercase().starts_with("arn:aws-us-gov:");
        let mut fields = Map::new();
        if adaptive_thinking(model) {
            let mut config = json!({"type": "adaptive"});
            if !gov {
                config["display"] = json!("summarized");
            }
            fields.insert("thinking".into(), config);
            fields.insert(
                "output_config".into(),
                json!({"effort": effort(model, request.thinking_level)}),
            );
        } else {
            let mut config = json!({"type": "enabled", "budget_tokens": budget.unwrap_or(0)});
            if !gov {
                config["display"] = json!("summarized");
            }
            fields.insert("thinking".into(), config);
            fields.insert(
                "anthropic_beta".into(),
                json!(["interleaved-thinking-2025-05-14"]),
            );
        }
        body.insert("additionalModelRequestFields".into(), Value::Object(fields));
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_points_follow_the_system_prompt_and_last_user_message_unless_caching_is_off() {
        let model = json!({"id": "anthropic.claude-sonnet-4-5", "name": "m",
            "api": "bedrock-converse-stream", "provider": "amazon-bedrock",
            "baseUrl": "http://127.0.0.1:1", "reasoning": false, "input": ["text"],
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
            "contextWindow": 1000, "maxTokens": 100});
        let user = json!({"role": "user", "content": "hi", "timestamp": 1});
        let mut request = LlmRequest {
            model: serde_json::from_value(model).unwrap_or_else(|error| panic!("{error}")),
            auth: Ok(Default::default()),
            system_prompt: "Be brief.".to_owned(),
            messages: vec![crate::store::SharedMessage::new(
                serde_json::from_value(user).unwrap_or_else(|error| panic!("{error}")),
            )],
            tools: Vec::new(),
            thinking_level: ThinkingLevel::Off,
            session_id: Some("sess-1".to_owned()),
            cache_retention: CacheRetention::Short,
            details: Default::default(),
            thinking_budgets: Default::default(),
        };
        let body = super::super::request_body(&request).unwrap_or_else(|error| panic!("{error}"));
        let point = json!({"cachePoint": {"type": "default"}});
        assert_eq!(body["system"][1], point);
        assert_eq!(body["messages"][0]["content"][1], point);
        request.cache_retention = CacheRetention::Off;
        let body = super::super::request_body(&request).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(body["system"], json!([{"text": "Be brief."}]));
        assert_eq!(body["messages"][0]["content"], json!([{"text": "hi"}]));
    }
}
