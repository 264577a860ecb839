//! The ChatGPT Codex backend's Responses stream as the reference's Codex client reads it: its
//! own event mapping and its wording of error statuses.

use serde_json::Value;

use super::super::json::parse_strict;
use super::super::openai_completions::js_truthy;
use super::super::partial::PartialMessage;
use super::events::ResponsesEvents;
use crate::js::display;

impl ResponsesEvents {
    /// One Codex event, mapped as the reference's Codex client maps it.
    pub(super) fn on_codex_event(
        &mut self,
        data: &str,
        partial: &mut PartialMessage,
    ) -> Result<(), String> {
        let trimmed = data.trim();
        if trimmed.is_empty() {
            return Ok(());
        }
        let mut event =
            parse_strict(trimmed).map_err(|error| format!("Invalid Codex SSE JSON: {error}"))?;
        let Some(kind) = event.get("type").and_then(Value::as_str).map(str::to_owned) else {
            return Ok(());
        };
        let field =
            |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        match kind.as_str() {
            "error" => {
                let nested = event.get("error").filter(|e| e.is_object());
                let code = field(&event, "code").or_else(|| nested.and_then(|e| field(e, "code")));
                let message =
                    field(&event, "message").or_else(|| nested.and_then(|e| field(e, "message")));
                let shown = message
                    .filter(|m| !m.is_empty())
                    .or(code.filter(|c| !c.is_empty()))
                    .unwrap_or_else(|| {
                        pi_rpc_protocol::json::to_string(&event).unwrap_or_default()
                    });
                Err(format!("Codex error: {shown}"))
            }
            "response.failed" => Err(event
                .pointer("/response/error/message")
                .and_then(Value::as_str)
                .filter(|m| !m.is_empty())
                .unwrap_or("Codex response failed")
                .to_owned()),
            "response.done" | "response.completed" | "response.incomplete" => {
                if let Some(map) = event.as_object_mut() {
                    map.insert("type".into(), Value::from("response.completed"));
                }
                if let Some(response) = event.get_mut("response").and_then(Value::as_object_mut) {
                    let known = response
                        .get("status")
                        .and_then(Value::as_str)
                        .is_some_and(|s| {
                            matches!(
                                s,
                                "completed"
                                    | "incomplete"
                                    | "failed"
                                    | "cancelled"
                                    | "queued"
                                    | "in_progress"
                            )
                        });
                    if !known {
                        response.remove("status");
                    }
                }
                self.done = true;
                self.apply(&event, partial)
            }
            _ => self.apply(&event, partial),
        }
    }
}

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
        && let Some(error) = parsed.get("error").filter(|e| js_truthy(e))
    {
        let text = |key: &str| {
            error
                .get(key)
                .filter(|v| js_truthy(v))
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
                    let minutes = ((at * 1000.0 - super::super::now_ms() as f64) / 60000.0).round();
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
