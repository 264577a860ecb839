//! `value || fallback` as the reference's template strings show it.

use serde_json::Value;

use super::super::openai_completions::js_truthy;

/// `value || fallback` shown as text.
pub(super) fn js_or(value: Option<&Value>, fallback: &str) -> String {
    match value.filter(|value| js_truthy(value)) {
        Some(value) => crate::js::display(Some(value)),
        None => fallback.to_owned(),
    }
}
