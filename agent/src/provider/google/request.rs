//! The Gemini request body, as the reference builds it and the Google SDK serialises it.
//!
//! Keys in the SDK's order: `contents`, `systemInstruction` (`{parts:[{text}],role:"user"}`),
//! `tools` (`[{functionDeclarations:[{name,description,parametersJsonSchema}]}]`),
//! `generationConfig` (`maxOutputTokens`, `thinkingConfig`). The `contents` are written while
//! the body is sent, by `history`.

use pi_rpc_protocol::model::{Model, ThinkingLevel};
use serde_json::{Map, Value, json};

use super::super::LlmRequest;
use super::super::options::{clamp_to_context, estimate_context_tokens};

/// The key of the history in the body.
pub(crate) const CONTENTS: &str = "contents";

/// The body's fixed part, every key in place, `contents` a placeholder for the history that
/// [`GeminiHistory`](super::history::GeminiHistory) writes.
pub(crate) fn body_skeleton(request: &LlmRequest) -> Map<String, Value> {
    let model = &request.model;
    let mut body = Map::new();
    body.insert(CONTENTS.into(), Value::Null);
    if !request.system_prompt.is_empty() {
        body.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": request.system_prompt}], "role": "user"}),
        );
    }
    if !request.tools.is_empty() {
        let declarations: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                // The Google SDK in Vertex mode writes the description first.
                if model.api == super::VERTEX_API {
                    json!({
                        "description": tool.description,
                        "name": tool.name,
                        "parametersJsonSchema": tool.parameters,
                    })
                } else {
                    json!({
                        "name": tool.name,
                        "description": tool.description,
                        "parametersJsonSchema": tool.parameters,
                    })
                }
            })
            .collect();
        body.insert(
            "tools".into(),
            json!([{"functionDeclarations": declarations}]),
        );
    }
    let mut config = Map::new();
    let context = estimate_context_tokens(request);
    let max_tokens = clamp_to_context(model, context, model.max_tokens as i64);
    config.insert("maxOutputTokens".into(), json!(max_tokens));
    if model.reasoning {
        config.insert(
            "thinkingConfig".into(),
            thinking_config(
                model,
                request.thinking_level,
                request.thinking_budgets.get(request.thinking_level),
            ),
        );
    }
    body.insert("generationConfig".into(), Value::Object(config));
    body
}

fn is_gemma_4(id: &str) -> bool {
    let id = id.to_ascii_lowercase();
    id.contains("gemma4") || id.contains("gemma-4")
}

/// `gemini-3-pro`, `gemini-3.1-pro`, ...
fn is_gemini_3_kind(id: &str, kind: &str) -> bool {
    let id = id.to_ascii_lowercase();
    let mut rest = id.as_str();
    while let Some(at) = rest.find("gemini-3") {
        let after = &rest[at + "gemini-3".len()..];
        let after = match after.strip_prefix('.') {
            Some(minor) => {
                let digits =
                    minor.len() - minor.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                if digits == 0 {
                    rest = &rest[at + 1..];
                    continue;
                }
                &minor[digits..]
            }
            None => after,
        };
        if after.starts_with(&format!("-{kind}")) {
            return true;
        }
        rest = &rest[at + 1..];
    }
    false
}

fn is_gemini_3_pro(id: &str) -> bool {
    is_gemini_3_kind(id, "pro")
}

fn is_gemini_3_flash(id: &str) -> bool {
    let lower = id.to_ascii_lowercase();
    is_gemini_3_kind(id, "flash")
        || lower == "gemini-flash-latest"
        || lower == "gemini-flash-lite-latest"
}

/// The thinking configuration for a level: a level name for Gemini 3 and Gemma 4 models, a
/// token budget for others (`-1`, dynamic, unless the model has known budgets); thinking off
/// asks for the least thinking the model allows. A `custom` budget (settings `thinkingBudgets`)
/// replaces the budget.
fn thinking_config(model: &Model, level: ThinkingLevel, custom: Option<i64>) -> Value {
    let id = model.id.as_str();
    // The Vertex adapter knows neither Gemma 4 nor Flash-Lite's own budgets.
    let vertex = model.api == super::VERTEX_API;
    let is_gemma_4 = |id: &str| !vertex && is_gemma_4(id);
    if level == ThinkingLevel::Off {
        return if is_gemini_3_pro(id) {
            json!({"thinkingLevel": "LOW"})
        } else if is_gemini_3_flash(id) || is_gemma_4(id) {
            json!({"thinkingLevel": "MINIMAL"})
        } else {
            json!({"thinkingBudget": 0})
        };
    }
    let effort = match level {
        ThinkingLevel::Minimal => "minimal",
        ThinkingLevel::Low => "low",
        ThinkingLevel::Medium => "medium",
        _ => "high",
    };
    if is_gemini_3_pro(id) || is_gemini_3_flash(id) || is_gemma_4(id) {
        let name = if is_gemini_3_pro(id) {
            if matches!(effort, "minimal" | "low") {
                "LOW"
            } else {
                "HIGH"
            }
        } else if is_gemma_4(id) {
            if matches!(effort, "minimal" | "low") {
                "MINIMAL"
            } else {
                "HIGH"
            }
        } else {
            match effort {
                "minimal" => "MINIMAL",
                "low" => "LOW",
                "medium" => "MEDIUM",
                _ => "HIGH",
            }
        };
        return json!({"includeThoughts": true, "thinkingLevel": name});
    }
    let budgets: Option<[i64; 4]> = if id.contains("2.5-pro") {
        Some([128, 2048, 8192, 32768])
    } else if id.contains("2.5-flash-lite") && !vertex {
        Some([512, 2048, 8192, 24576])
    } else if id.contains("2.5-flash") {
        Some([128, 2048, 8192, 24576])
    } else {
        None
    };
    let budget = match (custom, budgets) {
        (Some(custom), _) => custom,
        (None, Some(budgets)) => match effort {
            "minimal" => budgets[0],
            "low" => budgets[1],
            "medium" => budgets[2],
            _ => budgets[3],
        },
        (None, None) => -1,
    };
    json!({"includeThoughts": true, "thinkingBudget": budget})
}

/// The Gemini major version of a model id (`gemini-2.5-pro` -> 2).
pub(super) fn gemini_major(id: &str) -> Option<u32> {
    let id = id.to_ascii_lowercase();
    let rest = id
        .strip_prefix("gemini-live-")
        .or_else(|| id.strip_prefix("gemini-"))?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Whether the model needs ids on function calls and responses.
pub(crate) fn requires_tool_call_id(id: &str) -> bool {
    id.starts_with("claude-")
        || id.starts_with("gpt-oss-")
        || gemini_major(id).is_some_and(|v| v >= 3)
}
