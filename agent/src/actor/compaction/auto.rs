//! Automatic compaction: the check after each turn and before each prompt (threshold and
//! context overflow); the compaction it starts is an operation (`ops/compaction.rs`).

use pi_rpc_protocol::RequestId;
use pi_rpc_protocol::event::CompactionReason;
use pi_rpc_protocol::message::{AgentMessage, AssistantMessage, StopReason};

use super::super::State;
use super::{OVERFLOW_AGAIN, end_event};
use crate::compaction::estimate::{context_tokens, estimate_context};
use crate::provider::failure::is_context_overflow;

impl State {
    /// Before a prompt runs, the last assistant message (aborted ones included) gets the
    /// automatic compaction check too. True when a compaction started: the prompt is then
    /// answered and run once it ended.
    pub(in crate::actor) fn compact_before_prompt(
        &mut self,
        id: Option<RequestId>,
        prompt: AgentMessage,
    ) -> bool {
        let last = self
            .messages
            .iter()
            .rev()
            .find_map(|message| match message {
                AgentMessage::Assistant(assistant) => Some(assistant.clone()),
                _ => None,
            });
        let Some(last) = last else {
            return false;
        };
        self.ops.compaction.set_next_prompt(Some((id, prompt)));
        let started = self.check_compaction(&last, false);
        self.ops.compaction.set_next_prompt(None);
        started
    }

    /// Automatic compaction for `message`: the last assistant message of the run that just
    /// ended (`from_run`; skipped when it was aborted) or of the conversation before a prompt.
    /// True when a compaction started (the run's settling then waits for it).
    pub(in crate::actor) fn check_compaction(
        &mut self,
        message: &AssistantMessage,
        from_run: bool,
    ) -> bool {
        if !self.auto_compaction || (from_run && message.stop_reason == StopReason::Aborted) {
            return false;
        }
        let (context_window, max_tokens, same_model) = {
            let model = self.shown_model();
            let same = message.provider == model.provider && message.model == model.id;
            (model.context_window, model.max_tokens, same)
        };
        let compacted_at = self.latest_compaction_ms();
        // A message older than the latest compaction must not start another one. Timestamps
        // alone cannot tell it: the retry after an overflow compaction can be stamped in the
        // same millisecond as the compaction entry. A message of the run that just ended is
        // newer when no compaction started during that run.
        let newer_than_compaction = from_run && self.ops.compaction.none_since_run_start();
        if !newer_than_compaction && compacted_at.is_some_and(|at| message.timestamp <= at) {
            return false;
        }
        let recoverable_length = message.stop_reason == StopReason::Length
            && max_tokens > 0
            && message.usage.output < max_tokens;
        if same_model && (is_context_overflow(message, context_window) || recoverable_length) {
            let will_retry = message.stop_reason != StopReason::Stop;
            if !will_retry {
                return self.start_auto_compaction(CompactionReason::Overflow, false);
            }
            if self.ops.compaction.overflow_recovery_attempted {
                let end = end_event(
                    CompactionReason::Overflow,
                    None,
                    false,
                    Some(OVERFLOW_AGAIN.into()),
                );
                self.emit(end);
                return false;
            }
            self.ops.compaction.overflow_recovery_attempted = true;
            if matches!(self.messages.last(), Some(AgentMessage::Assistant(_))) {
                self.messages.pop();
                self.record_context_edit();
            }
            return self.start_auto_compaction(CompactionReason::Overflow, true);
        }
        let direct = context_tokens(&message.usage);
        let tokens = if message.stop_reason == StopReason::Error || direct == 0 {
            let estimate = estimate_context(&self.messages);
            let Some(index) = estimate.last_usage_index else {
                return false;
            };
            if let (Some(at), Some(AgentMessage::Assistant(source))) =
                (compacted_at, self.messages.get(index))
                && source.timestamp <= at
            {
                return false;
            }
            estimate.tokens
        } else {
            direct
        };
        let (reserve_tokens, _) = self.config.settings.compaction_tokens();
        if tokens > context_window.saturating_sub(reserve_tokens) {
            return self.start_auto_compaction(CompactionReason::Threshold, false);
        }
        false
    }
}
