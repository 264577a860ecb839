//! The Gemini request body, as the reference builds it and the Google SDK serialises it.
//!
//! Keys in the SDK's order: `contents`, `systemInstruction` (`{parts:[{text}],role:"user"}`),
//! `tools` (`[{functionDeclarations:[{name,description,parametersJsonSchema}]}]`),
//! `generationConfig` (`maxOutputTokens`, `thinkingConfig`). Parts keep the SDK's key order:
//! `functionCall` (`id`, `args`, `name`), `functionResponse`, `inlineData` (`data`,
//! `mimeType`), `text`, `thought`, `thoughtSignature`.

use pi_rpc_protocol::content::{AssistantContent, MessageContent, UserContent};
use pi_rpc_protocol::message::AgentMessage;
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use serde_json::{Map, Value, json};

use super::super::LlmRequest;
use super::super::json::js_trim;
use super::super::options::{clamp_to_context, estimate_context_tokens};
use super::super::transform::transform_messages;

/// The request body.
pub(crate) fn build_body(request: &LlmRequest) -> Value {
    let model = &request.model;
    let mut body = Map::new();
    body.insert("contents".into(), Value::Array(convert_messages(request)));
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
    Value::Object(body)
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
fn gemini_major(id: &str) -> Option<u32> {
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

fn multimodal_function_response(id: &str) -> bool {
    gemini_major(id).is_none_or(|major| major >= 3)
}

/// A signature Gemini accepts back: non-empty base64 whose length is a multiple of four.
fn valid_signature(signature: Option<&str>) -> Option<&str> {
    let signature = signature.filter(|s| !s.is_empty())?;
    let body = signature.trim_end_matches('=');
    let padding = signature.len() - body.len();
    let valid = signature.len() % 4 == 0
        && padding <= 2
        && !body.is_empty()
        && body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '/');
    valid.then_some(signature)
}

fn inline_data(mime_type: &str, data: &str) -> Value {
    json!({"inlineData": {"data": data, "mimeType": mime_type}})
}

fn normalize_id(id: &str, model_id: &str) -> String {
    if !requires_tool_call_id(model_id) {
        return id.to_owned();
    }
    let mut out = String::new();
    let mut units = 0;
    for ch in id.chars() {
        let replacement = if ch.is_ascii_alphanumeric() || ch == '_' || ch == '-' {
            ch.to_string()
        } else {
            "_".repeat(ch.len_utf16())
        };
        for piece in replacement.chars() {
            if units == 64 {
                return out;
            }
            out.push(piece);
            units += 1;
        }
    }
    out
}

fn convert_messages(request: &LlmRequest) -> Vec<Value> {
    let model = &request.model;
    let normalize = |id: &str| normalize_id(id, &model.id);
    let history = transform_messages(&request.messages, model, &normalize);
    let include_ids = requires_tool_call_id(&model.id);
    let supports_images = model.input.iter().any(|kind| kind == "image");
    let mut contents: Vec<Value> = Vec::new();
    for message in &history {
        match message {
            AgentMessage::User(user) => {
                let parts: Vec<Value> = match &user.content {
                    MessageContent::Text(text) => vec![json!({"text": text})],
                    MessageContent::Blocks(blocks) => blocks
                        .iter()
                        .map(|block| match block {
                            UserContent::Text(text) => json!({"text": text.text}),
                            UserContent::Image(image) => inline_data(&image.mime_type, &image.data),
                        })
                        .collect(),
                };
                if parts.is_empty() {
                    continue;
                }
                contents.push(json!({"parts": parts, "role": "user"}));
            }
            AgentMessage::Assistant(assistant) => {
                let same = assistant.provider == model.provider && assistant.model == model.id;
                let mut parts = Vec::new();
                for block in &assistant.content {
                    match block {
                        AssistantContent::Text(text) => {
                            let signature =
                                valid_signature(text.text_signature.as_deref()).filter(|_| same);
                            if js_trim(&text.text).is_empty() && signature.is_none() {
                                continue;
                            }
                            let mut part = Map::new();
                            part.insert("text".into(), json!(text.text));
                            if let Some(signature) = signature {
                                part.insert("thoughtSignature".into(), json!(signature));
                            }
                            parts.push(Value::Object(part));
                        }
                        AssistantContent::Thinking(thinking) => {
                            if same {
                                let signature =
                                    valid_signature(thinking.thinking_signature.as_deref());
                                if js_trim(&thinking.thinking).is_empty() && signature.is_none() {
                                    continue;
                                }
                                let mut part = Map::new();
                                part.insert("text".into(), json!(thinking.thinking));
                                part.insert("thought".into(), json!(true));
                                if let Some(signature) = signature {
                                    part.insert("thoughtSignature".into(), json!(signature));
                                }
                                parts.push(Value::Object(part));
                            } else if !js_trim(&thinking.thinking).is_empty() {
                                parts.push(json!({"text": thinking.thinking}));
                            }
                        }
                        AssistantContent::ToolCall(call) => {
                            let mut function = Map::new();
                            let args = Value::Object(call.arguments.clone());
                            if model.api == super::VERTEX_API {
                                // The Google SDK in Vertex mode writes name, args, id.
                                function.insert("name".into(), json!(call.name));
                                function.insert("args".into(), args);
                                if include_ids {
                                    function.insert("id".into(), json!(call.id));
                                }
                            } else {
                                if include_ids {
                                    function.insert("id".into(), json!(call.id));
                                }
                                function.insert("args".into(), args);
                                function.insert("name".into(), json!(call.name));
                            }
                            let mut part = Map::new();
                            part.insert("functionCall".into(), Value::Object(function));
                            if let Some(signature) =
                                valid_signature(call.thought_signature.as_deref()).filter(|_| same)
                            {
                                part.insert("thoughtSignature".into(), json!(signature));
                            }
                            parts.push(Value::Object(part));
                        }
                    }
                }
                if parts.is_empty() {
                    continue;
                }
                contents.push(json!({"parts": parts, "role": "model"}));
            }
            AgentMessage::ToolResult(result) => {
                let text: Vec<&str> = result
                    .content
                    .iter()
                    .filter_map(|block| match block {
                        UserContent::Text(text) => Some(text.text.as_str()),
                        UserContent::Image(_) => None,
                    })
                    .collect();
                let text = text.join("\n");
                let images: Vec<Value> = if supports_images {
                    result
                        .content
                        .iter()
                        .filter_map(|block| match block {
                            UserContent::Image(image) => {
                                Some(inline_data(&image.mime_type, &image.data))
                            }
                            UserContent::Text(_) => None,
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                let value = if !text.is_empty() {
                    text
                } else if !images.is_empty() {
                    "(see attached image)".to_owned()
                } else {
                    String::new()
                };
                let multimodal = multimodal_function_response(&model.id);
                let mut response = Map::new();
                response.insert("name".into(), json!(result.tool_name));
                let key = if result.is_error { "error" } else { "output" };
                response.insert("response".into(), json!({key: value}));
                if !images.is_empty() && multimodal {
                    response.insert("parts".into(), Value::Array(images.clone()));
                }
                if include_ids {
                    response.insert("id".into(), json!(result.tool_call_id));
                }
                let part = json!({"functionResponse": response});
                let appended = match contents.last_mut() {
                    Some(last)
                        if last["role"] == "user"
                            && last["parts"].as_array().is_some_and(|parts| {
                                parts.iter().any(|p| p.get("functionResponse").is_some())
                            }) =>
                    {
                        if let Some(parts) = last["parts"].as_array_mut() {
                            parts.push(part.clone());
                        }
                        true
                    }
                    _ => false,
                };
                if !appended {
                    contents.push(json!({"parts": [part], "role": "user"}));
                }
                if !images.is_empty() && !multimodal {
                    let mut parts = vec![json!({"text": "Tool result image:"})];
                    parts.extend(images);
                    contents.push(json!({"parts": parts, "role": "user"}));
                }
            }
            _ => {}
        }
    }
    contents
}
