//! The Converse request body as the reference builds it and the AWS SDK serialises it:
//! `messages`, `system`, `inferenceConfig`, `toolConfig`, `additionalModelRequestFields`.
//!
//! Blank texts are left out (`<empty>` stands for a user message or tool result with nothing
//! else), consecutive tool results share one user message, Claude models that cache get a
//! `cachePoint` after the system prompt and on the last user message (`ttl: "1h"` with
//! `PI_CACHE_RETENTION=long`; none with caching off), and Claude thinking is `adaptive` with an
//! effort (Opus 4.6+, Sonnet 4.6+) or `enabled` with a token budget and the interleaved-thinking
//! beta.

use base64::Engine;
use pi_rpc_protocol::content::{AssistantContent, MessageContent, UserContent};
use pi_rpc_protocol::message::AgentMessage;
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use serde_json::{Map, Value, json};

use super::super::options::{clamp_to_context, estimate_context_tokens, fit_thinking};
use super::super::transform::transform_messages;
use super::super::{CacheRetention, LlmRequest, stored_env};

const EMPTY_TEXT: &str = "<empty>";

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

fn caches(model: &Model, request: &LlmRequest) -> bool {
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
    if long {
        json!({"cachePoint": {"type": "default", "ttl": "1h"}})
    } else {
        json!({"cachePoint": {"type": "default"}})
    }
}

fn normalize_tool_call_id(id: &str) -> String {
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

fn text_block(text: &str) -> Option<Value> {
    (!text.trim().is_empty()).then(|| json!({"text": text}))
}

/// An image Bedrock cannot take; the call fails with this text before it is sent.
#[derive(Debug, thiserror::Error)]
#[error("Unknown image type: {0}")]
pub struct UnknownImageType(String);

fn image_block(mime_type: &str, data: &str) -> Result<Value, UnknownImageType> {
    let format = match mime_type {
        "image/jpeg" | "image/jpg" => "jpeg",
        "image/png" => "png",
        "image/gif" => "gif",
        "image/webp" => "webp",
        other => return Err(UnknownImageType(other.to_owned())),
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap_or_default();
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    Ok(json!({"image": {"format": format, "source": {"bytes": data}}}))
}

fn tool_result(
    result: &pi_rpc_protocol::message::ToolResultMessage,
) -> Result<Value, UnknownImageType> {
    let mut content = Vec::new();
    for part in &result.content {
        match part {
            UserContent::Image(image) => content.push(image_block(&image.mime_type, &image.data)?),
            UserContent::Text(text) => content.extend(text_block(&text.text)),
        }
    }
    if content.is_empty() {
        content.push(json!({"text": EMPTY_TEXT}));
    }
    let status = if result.is_error { "error" } else { "success" };
    Ok(
        json!({"toolResult": {"toolUseId": result.tool_call_id, "content": content, "status": status}}),
    )
}

fn messages(request: &LlmRequest, long_cache: bool) -> Result<Vec<Value>, UnknownImageType> {
    let model = &request.model;
    let history = transform_messages(&request.messages, model, &normalize_tool_call_id);
    let mut out: Vec<Value> = Vec::new();
    let mut index = 0;
    while index < history.len() {
        match &history[index] {
            AgentMessage::User(user) => {
                let mut content = Vec::new();
                match &user.content {
                    MessageContent::Text(text) => content
                        .push(text_block(text).unwrap_or_else(|| json!({"text": EMPTY_TEXT}))),
                    MessageContent::Blocks(blocks) => {
                        for block in blocks {
                            match block {
                                UserContent::Text(text) => content.extend(text_block(&text.text)),
                                UserContent::Image(image) => {
                                    content.push(image_block(&image.mime_type, &image.data)?);
                                }
                            }
                        }
                        if content.is_empty() {
                            content.push(json!({"text": EMPTY_TEXT}));
                        }
                    }
                }
                out.push(json!({"role": "user", "content": content}));
            }
            AgentMessage::Assistant(assistant) => {
                let mut blocks = Vec::new();
                for block in &assistant.content {
                    match block {
                        AssistantContent::Text(text) => blocks.extend(text_block(&text.text)),
                        AssistantContent::ToolCall(call) => blocks.push(json!({"toolUse": {
                            "toolUseId": call.id, "name": call.name, "input": call.arguments
                        }})),
                        AssistantContent::Thinking(thinking) => {
                            if thinking.thinking.trim().is_empty() {
                                continue;
                            }
                            let signature = thinking
                                .thinking_signature
                                .as_deref()
                                .filter(|s| !s.trim().is_empty());
                            blocks.push(match (is_claude(model), signature) {
                                (true, Some(signature)) => json!({"reasoningContent": {"reasoningText": {"text": thinking.thinking, "signature": signature}}}),
                                (true, None) => json!({"text": thinking.thinking}),
                                (false, _) => json!({"reasoningContent": {"reasoningText": {"text": thinking.thinking}}}),
                            });
                        }
                    }
                }
                if !blocks.is_empty() {
                    out.push(json!({"role": "assistant", "content": blocks}));
                }
            }
            AgentMessage::ToolResult(_) => {
                let mut results = Vec::new();
                while let Some(AgentMessage::ToolResult(result)) = history.get(index) {
                    results.push(tool_result(result)?);
                    index += 1;
                }
                out.push(json!({"role": "user", "content": results}));
                continue;
            }
            _ => {}
        }
        index += 1;
    }
    if caches(model, request)
        && let Some(last) = out.last_mut()
        && last["role"] == "user"
        && let Some(content) = last.get_mut("content").and_then(Value::as_array_mut)
    {
        content.push(cache_point(long_cache));
    }
    Ok(out)
}

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

/// The request body.
pub fn build_body(request: &LlmRequest) -> Result<Value, UnknownImageType> {
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
    body.insert(
        "messages".into(),
        Value::Array(messages(request, long_cache)?),
    );
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
    Ok(Value::Object(body))
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
        let body = build_body(&request).unwrap_or_else(|error| panic!("{error}"));
        let point = json!({"cachePoint": {"type": "default"}});
        assert_eq!(body["system"][1], point);
        assert_eq!(body["messages"][0]["content"][1], point);
        request.cache_retention = CacheRetention::Off;
        let body = build_body(&request).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(body["system"], json!([{"text": "Be brief."}]));
        assert_eq!(body["messages"][0]["content"], json!([{"text": "hi"}]));
    }
}
