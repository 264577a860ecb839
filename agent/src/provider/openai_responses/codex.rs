//! The ChatGPT Codex backend's Responses stream as the reference's Codex client reads it: its
//! own event mapping (its wording of error statuses is in `codex_status`).

use serde_json::Value;

use super::super::json::parse_strict;
use super::super::partial::PartialMessage;
use super::events::ResponsesEvents;
use crate::provider::StreamError;

impl ResponsesEvents {
    /// One Codex event, mapped as the reference's Codex client maps it.
    pub(super) fn on_codex_event(
        &mut self,
        data: &str,
        partial: &mut PartialMessage,
    ) -> Result<(), StreamError> {
        let trimmed = data.trim();
        if trimmed.is_empty() {
            return Ok(());
        }
        let mut event = parse_strict(trimmed).map_err(StreamError::CodexJson)?;
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
                Err(StreamError::Provider(format!("Codex error: {shown}")))
            }
            "response.failed" => Err(StreamError::Provider(
                event
                    .pointer("/response/error/message")
                    .and_then(Value::as_str)
                    .filter(|m| !m.is_empty())
                    .unwrap_or("Codex response failed")
                    .to_owned(),
            )),
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
