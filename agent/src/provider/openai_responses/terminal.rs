//! The terminal response of a Responses stream as the reference reads it: thinking signatures
//! completed from the final output, usage and cost, and the stop reason its status maps to.

use pi_rpc_protocol::content::AssistantContent;
use pi_rpc_protocol::message::StopReason;
use pi_rpc_protocol::usage::Usage;
use serde_json::Value;

use super::super::cost::calculate_cost;
use super::super::partial::PartialMessage;
use super::events::ResponsesEvents;
use crate::js::{display, truthy};
use crate::provider::StreamError;

impl ResponsesEvents {
    /// The terminal response (`response.completed` / `response.incomplete`): thinking
    /// signatures completed, usage and cost, the stop reason and its error.
    pub(super) fn finalize(
        &mut self,
        response: &Value,
        partial: &mut PartialMessage,
    ) -> Result<(), StreamError> {
        self.saw_terminal = true;
        for item in response
            .get("output")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.backfill_signature(item, partial);
        }
        let message = &mut partial.message;
        if let Some(id) = response.get("id").filter(|id| truthy(id)) {
            message.response_id = Some(display(Some(id)));
        }
        if let Some(usage) = response.get("usage").filter(|usage| truthy(usage)) {
            let count = |pointer: &str| usage.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
            let cached = count("/input_tokens_details/cached_tokens");
            let cache_write = count("/input_tokens_details/cache_write_tokens");
            message.usage = Usage {
                input: count("/input_tokens").saturating_sub(cached + cache_write),
                output: count("/output_tokens"),
                cache_read: cached,
                cache_write,
                reasoning: Some(count("/output_tokens_details/reasoning_tokens")),
                total_tokens: count("/total_tokens"),
                ..Usage::default()
            };
        }
        calculate_cost(&self.model, &mut message.usage);
        let status = response.get("status").and_then(Value::as_str);
        let reason = response
            .pointer("/incomplete_details/reason")
            .and_then(Value::as_str);
        message.raw_stop_reason = match (status, reason) {
            (Some(status), Some(reason)) => Some(format!("{status}.{reason}")),
            (Some(status), None) => Some(status.to_owned()),
            (None, Some(reason)) => Some(format!("undefined.{reason}")),
            (None, None) => None,
        };
        let (stop_reason, error) = map_status(status, reason)?;
        message.stop_reason = stop_reason;
        message.error_message = error;
        let has_calls = message
            .content
            .iter()
            .any(|block| matches!(block, AssistantContent::ToolCall(_)));
        if has_calls && message.stop_reason == StopReason::Stop {
            message.stop_reason = StopReason::ToolUse;
        }
        Ok(())
    }

    /// Adds the final `encrypted_content` to a thinking signature that lacked it.
    fn backfill_signature(&self, item: &Value, partial: &mut PartialMessage) {
        if item.get("type").and_then(Value::as_str) != Some("reasoning") {
            return;
        }
        let Some(encrypted) = item.get("encrypted_content").filter(|e| truthy(e)) else {
            return;
        };
        let id = display(item.get("id"));
        let Some(&index) = self.reasoning_blocks.get(&id) else {
            return;
        };
        let Some(AssistantContent::Thinking(block)) = partial.message.content.get_mut(index) else {
            return;
        };
        let Some(Ok(Value::Object(mut stored))) = block
            .thinking_signature
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(serde_json::from_str::<Value>)
        else {
            return;
        };
        if stored.get("encrypted_content").is_some_and(truthy) {
            return;
        }
        stored.insert("encrypted_content".into(), encrypted.clone());
        block.thinking_signature =
            Some(pi_rpc_protocol::json::to_string(&Value::Object(stored)).unwrap_or_default());
    }
}

/// A terminal response's status as the reference maps it.
fn map_status(
    status: Option<&str>,
    reason: Option<&str>,
) -> Result<(StopReason, Option<String>), StreamError> {
    Ok(match status {
        None | Some("") => (StopReason::Stop, None),
        Some("completed" | "in_progress" | "queued") => (StopReason::Stop, None),
        Some("incomplete") => match reason {
            Some("max_output_tokens") => (StopReason::Length, None),
            Some(reason) => (
                StopReason::Error,
                Some(format!("Response incomplete: {reason}")),
            ),
            None => (
                StopReason::Error,
                Some("Response incomplete without a provider reason".to_owned()),
            ),
        },
        Some("failed" | "cancelled") => (StopReason::Error, None),
        Some(other) => return Err(StreamError::UnhandledStopReason(other.to_owned())),
    })
}
