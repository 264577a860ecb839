//! The Codex backend's wording of an HTTP error status, apart from the stream reader so that
//! the reader's error texts and the Codex event mapping do not import each other.

use serde_json::Value;

use crate::js::{display, truthy};

/// The Codex client's text for an error status: its "usage limit" sentence for a 429 or a
/// usage-limit code, else the error's message, else the body (or the status text).
pub(super) fn status_error(status: u16, body: &str) -> String {
    let status_text = reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|code| code.canonical_reason())
        .unwrap_or("");
    let mut message = if !body.is_empty() {
        body.to_owned()
    } else if !status_text.is_empty() {
        status_text.to_owned()
    } else {
        "Request failed".to_owned()
    };
    let mut friendly = None;
    if let Ok(parsed) = serde_json::from_str::<Value>(body)
        && let Some(error) = parsed.get("error").filter(|e| truthy(e))
    {
        let text = |key: &str| {
            error
                .get(key)
                .filter(|v| truthy(v))
                .map(|v| display(Some(v)))
        };
        let code = text("code").or_else(|| text("type")).unwrap_or_default();
        let limited = [
            "usage_limit_reached",
            "usage_not_included",
            "rate_limit_exceeded",
        ]
        .iter()
        .any(|needle| code.to_lowercase().contains(needle));
        if limited || status == 429 {
            let plan = text("plan_type")
                .map(|plan| format!(" ({} plan)", plan.to_lowercase()))
                .unwrap_or_default();
            let when = error
                .get("resets_at")
                .and_then(Value::as_f64)
                .filter(|at| *at != 0.0)
                .map(|at| {
                    let minutes = ((at * 1000.0 - crate::js::now_ms() as f64) / 60000.0).round();
                    format!(" Try again in ~{} min.", minutes.max(0.0))
                })
                .unwrap_or_default();
            friendly = Some(
                format!("You have hit your ChatGPT usage limit{plan}.{when}")
                    .trim()
                    .to_owned(),
            );
        }
        message = text("message")
            .or_else(|| friendly.clone())
            .unwrap_or(message);
    }
    friendly.unwrap_or(message)
}
