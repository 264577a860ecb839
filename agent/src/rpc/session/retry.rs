//! The session's automatic retry: it announces each attempt and waits before it (whether to
//! retry is the failure classifier's answer, `provider::failure`, asked after each run).

use pi_rpc_protocol::event::{AutoRetryEndEvent, Event, RetryScheduledEvent};
use pi_rpc_protocol::message::AssistantMessage;

use super::tasks::TaskKind;
use super::{Session, TaskEvent};
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
        let delay_ms = settings.delay_ms(self.retry_attempt);
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
        let task = self.tasks.start(TaskKind::RetryWait);
        let wait = task.cancel_token();
        task.spawn(async move {
            let elapsed = tokio::select! {
                () = tokio::time::sleep(std::time::Duration::from_millis(delay_ms)) => true,
                () = wait.cancelled() => false,
            };
            TaskEvent::RetryWaitOver { elapsed }
        });
        true
    }

    /// The wait is over (a wait `abort_retry` ended is forgotten: it never gets here).
    pub(super) async fn on_retry_wait_over(&mut self, elapsed: bool) {
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
