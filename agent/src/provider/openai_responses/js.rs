//! Values shown as JavaScript shows them, for texts the reference builds with template strings.

use serde_json::Value;

use super::super::openai_completions::js_truthy;

/// A value as JavaScript's template strings show it.
pub(super) fn js_display(value: Option<&Value>) -> String {
    match value {
        None => "undefined".to_owned(),
        Some(Value::Null) => "null".to_owned(),
        Some(Value::String(text)) => text.clone(),
        Some(Value::Object(_)) => "[object Object]".to_owned(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::Null => String::new(),
                other => js_display(Some(other)),
            })
            .collect::<Vec<_>>()
            .join(","),
        Some(other) => other.to_string(),
    }
}

/// `value || fallback` shown as text.
pub(super) fn js_or(value: Option<&Value>, fallback: &str) -> String {
    match value.filter(|value| js_truthy(value)) {
        Some(value) => js_display(Some(value)),
        None => fallback.to_owned(),
    }
}
