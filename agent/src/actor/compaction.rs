//! Compaction's work as the actor does it (its states are the operation's,
//! `ops/compaction.rs`): what a compaction of the branch summarises, the
//! `session_before_compact` event that asks the extensions about it, the summary task (the
//! model calls, in their own task while the actor keeps serving commands), the `compaction`
//! entry saved and the conversation rebuilt from it, and the `compaction_end` event. `auto` is the automatic check (context above
//! `contextWindow - reserveTokens`, or an overflow the provider reported, which is compacted
//! and retried once).

use pi_rpc_protocol::event::{CompactionEndEvent, CompactionReason, Event};
use pi_rpc_protocol::response::CompactionResult;

use super::ops::ids::OpKey;
use super::outbox::Effect;
use super::tasks::TaskKind;
use super::{State, TaskEvent, log_store_error};
use crate::compaction::summarize::{Summary, SummaryContext, SummaryError, summarize};
use crate::compaction::{CompactionSettings, Preparation, prepare};
use crate::extensions::{CompactionGiven, CompactionPreparation, HostEvent};
use crate::store::NewCompaction;

mod auto;

/// The extensions' `session_before_compact` event for a compaction.
pub(super) fn before_compact_event<'a>(
    preparation: &'a Preparation,
    custom_instructions: Option<&'a str>,
    reason: CompactionReason,
    will_retry: bool,
) -> HostEvent<'a> {
    HostEvent::SessionBeforeCompact {
        preparation: CompactionPreparation {
            first_kept_entry_id: &preparation.first_kept_entry_id,
            messages_to_summarize: &preparation.messages_to_summarize,
            turn_prefix_messages: &preparation.turn_prefix_messages,
            is_split_turn: preparation.is_split_turn,
            tokens_before: preparation.tokens_before,
            previous_summary: preparation.previous_summary.as_deref(),
        },
        custom_instructions,
        reason,
        will_retry,
    }
}

/// The error when a second overflow follows the compact-and-retry of the first.
const OVERFLOW_AGAIN: &str = "Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model.";

/// The error of a prompt sent while the `compact` command runs.
pub(super) const PROMPT_WHILE_COMPACTING: &str = "Cannot submit a prompt while compaction is in progress. Wait for compaction to finish and retry.";

/// The end of a compaction task.
#[derive(Debug)]
pub(super) struct Finished {
    first_kept_entry_id: String,
    tokens_before: u64,
    details: serde_json::Value,
    pub(super) outcome: Result<Summary, SummaryError>,
    /// The summary is an extension's (`session_before_compact`), not the model's.
    pub(super) from_extension: bool,
}

impl Finished {
    /// The end of the compaction of `preparation`, with `outcome` (the model's summary).
    fn prepared(preparation: &Preparation, outcome: Result<Summary, SummaryError>) -> Self {
        Self {
            first_kept_entry_id: preparation.first_kept_entry_id.clone(),
            tokens_before: preparation.tokens_before,
            details: preparation.file_ops.lists().to_details(),
            outcome,
            from_extension: false,
        }
    }

    /// The compaction an extension's `session_before_compact` handler made of `preparation`:
    /// its summary, and where it says the kept part starts and how big the context was.
    pub(super) fn given(preparation: &Preparation, given: CompactionGiven) -> Self {
        let summary = Summary {
            text: given.summary.unwrap_or_default(),
            usage: Default::default(),
            combined: false,
        };
        let mut finished = Self::prepared(preparation, Ok(summary));
        if let Some(id) = given.first_kept_entry_id {
            finished.first_kept_entry_id = id;
        }
        if let Some(tokens) = given.tokens_before {
            finished.tokens_before = tokens;
        }
        finished.from_extension = true;
        finished
    }

    /// A compaction the actor cancelled itself (`abort`).
    pub(super) fn cancelled() -> Self {
        Self {
            first_kept_entry_id: String::new(),
            tokens_before: 0,
            details: serde_json::Value::Null,
            outcome: Err(SummaryError::Cancelled),
            from_extension: false,
        }
    }
}

impl State {
    /// What a compaction of the active branch would summarise and keep; `None` when nothing.
    pub(super) fn compaction_preparation(&self) -> Option<Preparation> {
        let (reserve_tokens, keep_recent_tokens) = self.config.settings.compaction_tokens();
        let settings = CompactionSettings {
            reserve_tokens,
            keep_recent_tokens,
        };
        let context = self.context_for_estimate(self.store.build_context().messages);
        prepare(&self.store.branch(None), &context, settings)
    }

    /// What a summary call of this session needs (a compaction's, or with no `reason` the
    /// summary of a branch tree navigation leaves): the session's model and credentials,
    /// thinking level, the settings' reserve, retries and stream options, stopped by `cancel`.
    pub(super) fn summary_context(
        &self,
        cancel: tokio_util::sync::CancellationToken,
        reason: Option<CompactionReason>,
    ) -> SummaryContext {
        let crate::config::RequestModel { model, auth } =
            self.config.registry.resolve(&self.shown_model());
        SummaryContext {
            model,
            auth,
            thinking_level: self.thinking_level,
            reserve_tokens: self.config.settings.compaction_tokens().0,
            retry: self.config.settings.retry(),
            http: self.http.get(),
            cancel,
            reason,
            stream_options: self.config.settings.stream_options(),
            release: self.release,
        }
    }

    /// Spawns the summary task of compaction `key` (once the `session_before_compact`
    /// handlers, if any, let it go on).
    pub(super) fn spawn_summary(
        &mut self,
        key: OpKey,
        reason: CompactionReason,
        custom_instructions: Option<String>,
        preparation: Preparation,
    ) {
        let task = self.tasks.start(TaskKind::Compaction);
        let events = task.sender();
        let summary_context = self.summary_context(task.cancel_token(), Some(reason));
        let launch = task.launch(async move {
            let mut on_event = move |event: Event| {
                // The session may be gone (end of input); then nobody needs the event.
                let _ = events.send_now(TaskEvent::SummaryRetry(Box::new(event)));
            };
            let outcome = summarize(
                &preparation,
                custom_instructions.as_deref(),
                &summary_context,
                &mut on_event,
            )
            .await;
            let finished = Finished::prepared(&preparation, outcome);
            TaskEvent::CompactionDone(key, Box::new(finished))
        });
        self.outbox.push(Effect::Spawn(launch));
    }

    /// When the latest compaction on the branch was recorded, in milliseconds.
    fn latest_compaction_ms(&self) -> Option<u64> {
        let branch = self.store.branch(None);
        let entry = branch.iter().rev().find(|e| e.kind() == "compaction")?;
        crate::store::time::parse_iso(entry.timestamp()).and_then(|ms| u64::try_from(ms).ok())
    }

    /// Saves a compaction's summary: the `compaction` entry appended (handed back, raw, for
    /// the `session_compact` handlers), the conversation rebuilt from it; its result.
    pub(super) fn save_compaction(
        &mut self,
        finished: Finished,
        summary: Summary,
    ) -> (Option<serde_json::Value>, CompactionResult) {
        // An extension's summary comes without usage or file details.
        let from_model = !finished.from_extension;
        let entry = self.store.append_compaction(NewCompaction {
            summary: summary.text.clone(),
            first_kept_entry_id: finished.first_kept_entry_id.clone(),
            tokens_before: finished.tokens_before,
            details: from_model.then(|| finished.details.clone()),
            usage: from_model.then(|| summary.usage_json()),
            from_hook: Some(finished.from_extension),
        });
        let before = std::mem::take(&mut self.messages);
        self.messages = self.store.build_context().messages;
        self.keep_system_checkpoint(&before);
        let result = CompactionResult {
            summary: summary.text,
            first_kept_entry_id: finished.first_kept_entry_id,
            tokens_before: finished.tokens_before,
            estimated_tokens_after: Some(self.estimated_tokens_after()),
            usage: from_model.then_some(summary.usage),
            details: from_model.then_some(finished.details),
        };
        let entry = match entry {
            Ok(id) => self.store.entry(&id).map(|entry| entry.raw().clone()),
            Err(error) => {
                log_store_error::<()>(Err(error));
                None
            }
        };
        (entry.map(serde_json::Value::Object), result)
    }
}

/// `compaction_end`; `willRetry` only with a result.
pub(super) fn end_event(
    reason: CompactionReason,
    result: Option<CompactionResult>,
    aborted: bool,
    error_message: Option<String>,
) -> Event {
    end_event_retrying(reason, result, aborted, error_message, false)
}

pub(super) fn end_event_retrying(
    reason: CompactionReason,
    result: Option<CompactionResult>,
    aborted: bool,
    error_message: Option<String>,
    will_retry: bool,
) -> Event {
    Event::CompactionEnd(CompactionEndEvent {
        reason,
        result,
        aborted,
        will_retry,
        error_message,
    })
}
