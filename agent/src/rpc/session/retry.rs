//! The session's automatic retry decides with the failure classifier of the model layer.

use pi_rpc_protocol::message::AssistantMessage;

pub(super) use crate::provider::failure::{is_context_overflow, is_retryable};

/// What the decisions after a run read of its last assistant message: everything but the
/// content, which may be large.
pub(super) fn outline(message: &AssistantMessage) -> AssistantMessage {
    AssistantMessage {
        content: Vec::new(),
        api: message.api.clone(),
        provider: message.provider.clone(),
        model: message.model.clone(),
        response_model: message.response_model.clone(),
        usage: message.usage.clone(),
        stop_reason: message.stop_reason,
        timestamp: message.timestamp,
        response_id: message.response_id.clone(),
        raw_stop_reason: message.raw_stop_reason.clone(),
        error_message: message.error_message.clone(),
        extra: message.extra.clone(),
    }
}
