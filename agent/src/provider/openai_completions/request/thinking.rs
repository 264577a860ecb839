//! The thinking fields of a Chat Completions body, as the model's `thinkingFormat` asks for
//! them (`reasoning_effort`, `reasoning`, `thinking`, chat template variables, ...), with the
//! level's name mapped by the model's `thinkingLevelMap`.

use pi_rpc_protocol::model::{Model, ThinkingLevel};
use serde_json::{Map, Value, json};

use super::super::compat::{Compat, ThinkingFormat};

/// The model's name for a level (`thinkingLevelMap`): `Some(None)` when mapped to `null`.
fn mapped(model: &Model, level: &str) -> Option<Option<Value>> {
    let map = model.thinking_level_map.as_ref()?;
    map.get(level)
        .map(|value| (!value.is_null()).then(|| value.clone()))
}

/// The effort for a level: the model's mapping when there is one, else the level's name.
fn effort_value(model: &Model, level: &str) -> Value {
    match mapped(model, level) {
        Some(Some(value)) => value,
        _ => json!(level),
    }
}

/// The thinking fields of the model's `thinkingFormat` for `level`, added to `body`.
pub(super) fn thinking_fields(
    body: &mut Map<String, Value>,
    model: &Model,
    compat: &Compat,
    level: ThinkingLevel,
) {
    if !model.reasoning {
        return;
    }
    let effort = (level != ThinkingLevel::Off).then(|| level.as_str());
    let off_is_null = matches!(mapped(model, "off"), Some(None));
    match compat.thinking_format {
        ThinkingFormat::Zai => {
            let thinking = match effort {
                Some(_) => json!({"type": "enabled", "clear_thinking": false}),
                None => json!({"type": "disabled"}),
            };
            body.insert("thinking".into(), thinking);
            if let Some(effort) = effort.filter(|_| compat.reasoning_effort) {
                let value = match mapped(model, effort) {
                    Some(value) => value,
                    None => Some(json!(effort)),
                };
                if let Some(value @ Value::String(_)) = value {
                    body.insert("reasoning_effort".into(), value);
                }
            }
        }
        ThinkingFormat::Qwen => {
            body.insert("enable_thinking".into(), json!(effort.is_some()));
            if let Some(effort) = effort.filter(|_| compat.reasoning_effort)
                && let value @ Value::String(_) = effort_value(model, effort)
            {
                body.insert("reasoning_effort".into(), value);
            }
        }
        ThinkingFormat::QwenChatTemplate => {
            body.insert(
                "chat_template_kwargs".into(),
                json!({"enable_thinking": effort.is_some(), "preserve_thinking": true}),
            );
        }
        ThinkingFormat::DeepSeek => {
            if effort.is_some() {
                body.insert("thinking".into(), json!({"type": "enabled"}));
            } else if !off_is_null {
                body.insert("thinking".into(), json!({"type": "disabled"}));
            }
            if let Some(effort) = effort.filter(|_| compat.reasoning_effort) {
                body.insert("reasoning_effort".into(), effort_value(model, effort));
            }
        }
        ThinkingFormat::OpenRouter => {
            if let Some(effort) = effort {
                body.insert(
                    "reasoning".into(),
                    json!({"effort": effort_value(model, effort)}),
                );
            } else if !off_is_null {
                let off = match mapped(model, "off") {
                    Some(Some(value)) => value,
                    _ => json!("none"),
                };
                body.insert("reasoning".into(), json!({"effort": off}));
            }
        }
        ThinkingFormat::Together => {
            body.insert("reasoning".into(), json!({"enabled": effort.is_some()}));
            if let Some(effort) = effort.filter(|_| compat.reasoning_effort) {
                body.insert("reasoning_effort".into(), effort_value(model, effort));
            }
        }
        ThinkingFormat::StringThinking => {
            if let Some(effort) = effort {
                body.insert("thinking".into(), effort_value(model, effort));
            } else if !off_is_null {
                let off = match mapped(model, "off") {
                    Some(Some(value)) => value,
                    _ => json!("none"),
                };
                body.insert("thinking".into(), off);
            }
        }
        ThinkingFormat::ChatTemplate => {
            if let Some(values) =
                chat_template_values(model, effort, compat.chat_template_kwargs.as_ref())
            {
                body.insert("chat_template_kwargs".into(), Value::Object(values));
            }
        }
        ThinkingFormat::Baseten => {
            if let Some(values) =
                chat_template_values(model, effort, compat.chat_template_args.as_ref())
            {
                body.insert("chat_template_args".into(), Value::Object(values));
            }
            if compat.reasoning_effort {
                let value = match mapped(model, effort.unwrap_or("off")) {
                    Some(value) => value,
                    None => effort.map(|effort| json!(effort)),
                };
                if let Some(value @ Value::String(_)) = value {
                    body.insert("reasoning_effort".into(), value);
                }
            }
        }
        ThinkingFormat::AntLing => {
            if let Some(effort) = effort
                && let Some(Some(value @ Value::String(_))) = mapped(model, effort)
            {
                body.insert("reasoning".into(), json!({"effort": value}));
            }
        }
        ThinkingFormat::OpenAi | ThinkingFormat::Other => {
            if !compat.reasoning_effort {
                return;
            }
            match effort {
                Some(effort) => {
                    body.insert("reasoning_effort".into(), effort_value(model, effort));
                }
                None => {
                    if let Some(Some(off @ Value::String(_))) = mapped(model, "off") {
                        body.insert("reasoning_effort".into(), off);
                    }
                }
            }
        }
    }
}

/// The compat's `chatTemplateKwargs` / `chatTemplateArgs` with the thinking variables filled
/// in: `{"$var": "thinking.enabled"}` is whether the model thinks, `{"$var": "thinking.effort"}`
/// the level (mapped by `thinkingLevelMap`; left out when mapped to `null`), and `omitWhenOff`
/// leaves a variable out when thinking is off. `None` when nothing is left.
fn chat_template_values(
    model: &Model,
    effort: Option<&str>,
    values: Option<&Map<String, Value>>,
) -> Option<Map<String, Value>> {
    let mut resolved = Map::new();
    for (key, value) in values? {
        let value = match value {
            Value::Object(variable) => {
                let omit = variable
                    .get("omitWhenOff")
                    .is_some_and(super::super::js_truthy);
                if effort.is_none() && omit {
                    continue;
                }
                if variable.get("$var").and_then(Value::as_str) == Some("thinking.enabled") {
                    json!(effort.is_some())
                } else {
                    match mapped(model, effort.unwrap_or("off")) {
                        Some(Some(value @ Value::String(_))) => value,
                        Some(_) => continue,
                        None => match effort {
                            Some(effort) => json!(effort),
                            None => continue,
                        },
                    }
                }
            }
            other => other.clone(),
        };
        resolved.insert(key.clone(), value);
    }
    (!resolved.is_empty()).then_some(resolved)
}
