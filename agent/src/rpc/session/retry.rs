//! The session's automatic retry: it decides with the failure classifier of the model layer,
//! announces each attempt and waits before it.

use pi_rpc_protocol::message::AssistantMessage;

pub(super) use crate::provider::failure::{is_context_overflow, is_retryable};

use pi_rpc_protocol::event::{AutoRetryEndEvent, Event, RetryScheduledEvent};
use tokio_util::sync::CancellationToken;

use super::Session;
use crate::session::Role;

impl Session {
    /// Announces the next attempt, drops the failed message from the conversation the model
    /// sees, and waits `baseDelayMs * 2^(attempt-1)` (cancellable). False when retries are off
    /// or used up.
    pub(super) async fn schedule_retry(&mut self, message: &AssistantMessage) -> bool {
        let settings = self.config.settings.retry();
        if !settings.enabled || self.retry_attempt >= settings.max_retries {
            return false;
        }
        self.retry_attempt += 1;
        let delay_ms = settings
            .base_delay_ms
            .saturating_mul(1u64 << (self.retry_attempt - 1).min(32));
        let error_message = message
            .error_message
            .clone()
            .filter(|error| !error.is_empty())
            .unwrap_or_else(|| "Unknown error".into());
        self.emit(Event::AutoRetryStart(RetryScheduledEvent {
            attempt: self.retry_attempt,
            max_attempts: settings.max_retries,
            delay_ms,
            error_message,
        }))
        .await;
        if self.messages.last_role() == Some(Role::Assistant) {
            self.messages.pop();
            self.record_context_edit().await;
        }
        let wait = CancellationToken::new();
        self.retry_wait = Some(wait.clone());
        let done = self.retry_tx.clone();
        tokio::spawn(async move {
            let elapsed = tokio::select! {
                () = tokio::time::sleep(std::time::Duration::from_millis(delay_ms)) => true,
                () = wait.cancelled() => false,
            };
            // The session may be gone (end of input); then nobody waits for the retry.
            let _ = done.send(elapsed).await;
        });
        true
    }

    pub(super) async fn on_retry_wait_over(&mut self, elapsed: bool) {
        if self.retry_wait.take().is_none() {
            // `abort_retry` already ended this wait.
            return;
        }
        if elapsed {
            self.start_run(Vec::new(), false);
            return;
        }
        self.end_cancelled_retry().await;
        self.continue_or_settle().await;
    }

    /// `auto_retry_end` of a retry whose wait was cancelled.
    pub(super) async fn end_cancelled_retry(&mut self) {
        let attempt = std::mem::take(&mut self.retry_attempt);
        self.emit(Event::AutoRetryEnd(AutoRetryEndEvent {
            success: false,
            attempt,
            final_error: Some("Retry cancelled".into()),
        }))
        .await;
    }
}

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
