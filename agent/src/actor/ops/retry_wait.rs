//! The automatic retry of a failed answer (whether a failure is worth retrying is the failure
//! classifier's answer, `provider::failure`, asked after each run).
//!
//! | state | input | next | what happens |
//! |---|---|---|---|
//! | `Idle`, `Retrying(a)` | a run ended with a retryable failure, retries on, `a < maxRetries` | `Waiting(a + 1)` | scheduled: `auto_retry_start` (delay `RetrySettings::delay_ms`), the failed message dropped from the model's context, a `RetryWait` task spawned |
//! | `Idle`, `Retrying(a)` | the same, retries off or used up | same | not retried (below) |
//! | `Waiting(a)` | the wait elapsed | `Retrying(a)` | the agent loop starts again |
//! | `Waiting(a)` | the wait was cancelled (`abort`, a replacement) | `Idle` | `auto_retry_end` "Retry cancelled", then continue or settle |
//! | `Waiting(a)` | `abort_retry` | `Idle` | the task forgotten; `auto_retry_end` "Retry cancelled", the answer, then continue or settle |
//! | `Retrying(a)` | an assistant message that is not an error ends | `Idle` | `auto_retry_end` success |
//! | `Retrying(a)` | the run ended failed and is not retried | `Idle` | `auto_retry_end` with its error |
//! | any | the session is rebound to a store (a replacement's swap) | `Idle` (a wait still running: `Waiting(0)`) | |
//!
//! `agent_end.willRetry` is read from the same state: retries on, `a < maxRetries` and the
//! run's last assistant message retryable.

use pi_rpc_protocol::event::{AutoRetryEndEvent, Event, RetryScheduledEvent};
use pi_rpc_protocol::message::{AgentMessage, AssistantMessage, StopReason};

use crate::actor::outbox::Effect;
use crate::actor::tasks::TaskKind;
use crate::actor::{State, TaskEvent};
use crate::config::RetrySettings;
use crate::provider::failure::is_retryable;
use crate::store::Role;

/// Where the automatic retry of the current failure is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(in crate::actor) enum RetryWait {
    /// No retry for the current answer.
    #[default]
    Idle,
    /// Attempt `attempt` is scheduled; its wait runs as a `RetryWait` task.
    Waiting { attempt: u32 },
    /// Attempt `attempt` runs (the agent loop started again).
    Retrying { attempt: u32 },
}

/// An attempt scheduled: what `auto_retry_start` announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::actor) struct Scheduled {
    pub(in crate::actor) attempt: u32,
    pub(in crate::actor) max_attempts: u32,
    pub(in crate::actor) delay_ms: u64,
}

impl RetryWait {
    /// The attempts made for the current failure (0 when none).
    pub(in crate::actor) fn attempt(self) -> u32 {
        match self {
            Self::Idle => 0,
            Self::Waiting { attempt } | Self::Retrying { attempt } => attempt,
        }
    }

    /// Whether `settings` leave an attempt to make.
    fn may_retry(self, settings: &RetrySettings) -> bool {
        settings.enabled && self.attempt() < settings.max_retries
    }

    /// Schedules the next attempt, when `settings` leave one.
    fn schedule(&mut self, settings: &RetrySettings) -> Option<Scheduled> {
        if !self.may_retry(settings) {
            return None;
        }
        let attempt = self.attempt() + 1;
        *self = Self::Waiting { attempt };
        Some(Scheduled {
            attempt,
            max_attempts: settings.max_retries,
            delay_ms: settings.delay_ms(attempt),
        })
    }

    /// The wait elapsed: the attempt runs.
    fn elapsed(&mut self) {
        *self = Self::Retrying {
            attempt: self.attempt(),
        };
    }

    /// Whether a wait runs (`abort_retry` ends it).
    pub(in crate::actor) fn waiting(self) -> bool {
        matches!(self, Self::Waiting { .. })
    }

    /// The attempts succeeded or were given up: the retry ends, when it made some.
    fn end(&mut self) -> Option<u32> {
        let attempt = self.attempt();
        if attempt == 0 {
            return None;
        }
        *self = Self::Idle;
        Some(attempt)
    }

    /// The wait was cancelled: the retry ends; the attempts it made.
    fn cancelled(&mut self) -> u32 {
        let attempt = self.attempt();
        *self = Self::Idle;
        attempt
    }

    /// The session is rebound to a store: the count starts again (a wait still running
    /// keeps running, with no attempt counted).
    pub(in crate::actor) fn reset(&mut self) {
        *self = match self {
            Self::Waiting { .. } => Self::Waiting { attempt: 0 },
            Self::Idle | Self::Retrying { .. } => Self::Idle,
        };
    }
}

impl State {
    /// `agent_end.willRetry`: retries are on, some are left, and the run's last assistant
    /// message failed in a way worth retrying.
    pub(in crate::actor) fn will_retry<'a>(
        &self,
        messages: impl DoubleEndedIterator<Item = &'a AgentMessage>,
    ) -> bool {
        if !self.ops.retry.may_retry(&self.config.settings.retry()) {
            return false;
        }
        messages
            .rev()
            .find_map(|message| match message {
                AgentMessage::Assistant(assistant) => Some(assistant),
                _ => None,
            })
            .is_some_and(|assistant| is_retryable(assistant, self.shown_model().context_window))
    }

    /// After a run whose last answer is `message`: schedules the next attempt when it failed
    /// in a way worth retrying and attempts are left (true), else ends a retry that gave up.
    pub(in crate::actor) fn retry_after_run(&mut self, message: &AssistantMessage) -> bool {
        if is_retryable(message, self.shown_model().context_window)
            && let Some(scheduled) = self.ops.retry.schedule(&self.config.settings.retry())
        {
            self.wait_before_retry(message, scheduled);
            return true;
        }
        if message.stop_reason == StopReason::Error
            && let Some(attempt) = self.ops.retry.end()
        {
            self.emit_retry_end(false, attempt, message.error_message.clone());
        }
        false
    }

    /// An ended assistant message that is not an error ends the retry in success.
    pub(in crate::actor) fn retry_answered(&mut self) {
        if let Some(attempt) = self.ops.retry.end() {
            self.emit_retry_end(true, attempt, None);
        }
    }

    /// Announces the attempt, drops the failed message from the conversation the model sees,
    /// and spawns the (cancellable) wait.
    fn wait_before_retry(&mut self, message: &AssistantMessage, scheduled: Scheduled) {
        let error_message = message
            .error_message
            .clone()
            .filter(|error| !error.is_empty())
            .unwrap_or_else(|| "Unknown error".into());
        self.emit(Event::AutoRetryStart(RetryScheduledEvent {
            attempt: scheduled.attempt,
            max_attempts: scheduled.max_attempts,
            delay_ms: scheduled.delay_ms,
            error_message,
        }));
        if self.messages.last_role() == Some(Role::Assistant) {
            self.messages.pop();
            self.record_context_edit();
        }
        let task = self.tasks.start(TaskKind::RetryWait);
        let wait = task.cancel_token();
        let delay = std::time::Duration::from_millis(scheduled.delay_ms);
        let launch = task.launch(async move {
            let elapsed = tokio::select! {
                () = tokio::time::sleep(delay) => true,
                () = wait.cancelled() => false,
            };
            TaskEvent::RetryWaitOver { elapsed }
        });
        self.outbox.push(Effect::Spawn(launch));
    }

    /// The wait is over (a wait `abort_retry` ended is forgotten: it never gets here).
    pub(in crate::actor) fn on_retry_wait_over(&mut self, elapsed: bool) {
        if elapsed {
            self.ops.retry.elapsed();
            self.start_run(Vec::new(), false);
            return;
        }
        self.end_cancelled_retry();
        self.continue_or_settle();
    }

    /// `abort_retry`: ends a running wait (forgotten: its report never comes) with
    /// `auto_retry_end`; true when there was one (the agent then settles after the answer, as
    /// in the reference).
    pub(in crate::actor) fn cancel_retry_wait(&mut self) -> bool {
        if !self.ops.retry.waiting() {
            return false;
        }
        self.tasks.forget(TaskKind::RetryWait);
        self.end_cancelled_retry();
        true
    }

    /// `auto_retry_end` of a retry whose wait was cancelled.
    fn end_cancelled_retry(&mut self) {
        let attempt = self.ops.retry.cancelled();
        self.emit_retry_end(false, attempt, Some("Retry cancelled".into()));
    }

    fn emit_retry_end(&mut self, success: bool, attempt: u32, final_error: Option<String>) {
        self.emit(Event::AutoRetryEnd(AutoRetryEndEvent {
            success,
            attempt,
            final_error,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(enabled: bool, max_retries: u32) -> RetrySettings {
        RetrySettings {
            enabled,
            max_retries,
            base_delay_ms: 100,
        }
    }

    #[test]
    fn attempts_are_scheduled_with_a_doubling_delay_until_used_up() {
        let settings = settings(true, 2);
        let mut retry = RetryWait::default();
        let first = retry.schedule(&settings).expect("first attempt");
        assert_eq!(
            (first.attempt, first.max_attempts, first.delay_ms),
            (1, 2, 100)
        );
        assert!(retry.waiting());
        retry.elapsed();
        assert_eq!(retry, RetryWait::Retrying { attempt: 1 });
        let second = retry.schedule(&settings).expect("second attempt");
        assert_eq!((second.attempt, second.delay_ms), (2, 200));
        retry.elapsed();
        assert!(!retry.may_retry(&settings));
        assert_eq!(retry.schedule(&settings), None, "used up");
        assert_eq!(retry.end(), Some(2), "gives up after two attempts");
        assert_eq!(retry, RetryWait::Idle);
    }

    #[test]
    fn retries_off_schedule_nothing() {
        let mut retry = RetryWait::default();
        assert_eq!(retry.schedule(&settings(false, 3)), None);
        assert_eq!(retry, RetryWait::Idle);
        assert_eq!(retry.end(), None, "nothing to end");
    }

    #[test]
    fn a_cancelled_wait_ends_with_its_attempt() {
        let mut retry = RetryWait::default();
        retry.schedule(&settings(true, 3));
        assert!(retry.waiting());
        assert_eq!(retry.cancelled(), 1);
        assert!(!retry.waiting());
    }

    #[test]
    fn a_rebound_session_counts_again_and_a_running_wait_goes_on() {
        let mut retry = RetryWait::Retrying { attempt: 2 };
        retry.reset();
        assert_eq!(retry, RetryWait::Idle);
        let mut retry = RetryWait::Waiting { attempt: 2 };
        retry.reset();
        assert_eq!(retry, RetryWait::Waiting { attempt: 0 });
        assert_eq!(retry.end(), None, "no attempt to end");
        assert!(retry.waiting(), "the wait goes on");
        assert_eq!(retry.cancelled(), 0);
    }
}
