//! Compaction as the session runs it: the `compact` command (after aborting a run in progress),
//! automatic compaction after a run (context above `contextWindow - reserveTokens`, or an
//! overflow the provider reported, which is compacted and retried once), the
//! `compaction_start` / `compaction_end` events around it, and the conversation rebuilt from the
//! new `compaction` entry. The model calls run in their own task; the session keeps serving
//! commands meanwhile (`get_state` says `isCompacting`).

use pi_rpc_protocol::RequestId;
use pi_rpc_protocol::Response;
use pi_rpc_protocol::event::{CompactionEndEvent, CompactionReason, CompactionStartEvent, Event};
use pi_rpc_protocol::message::{AgentMessage, StopReason};
use pi_rpc_protocol::response::CompactionResult;

use super::ops::settle::AfterSettle;
use super::tasks::TaskKind;
use super::waiting::CompactionEnd;
use super::{Session, TaskEvent, log_store_error};
use crate::compaction::summarize::{Summary, SummaryContext, SummaryError, summarize};
use crate::compaction::{CompactionSettings, Preparation, prepare};
use crate::extensions::{CompactionPreparation, HostEvent};
use crate::session::NewCompaction;

mod auto;

/// The extensions' `session_before_compact` event for a compaction.
fn before_compact_event<'a>(
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

/// The compaction state of a session.
#[derive(Debug)]
pub(super) struct CompactionState {
    /// The compaction in progress (its model calls run as a [`TaskKind::Compaction`] task).
    active: Option<ActiveCompaction>,
    /// Counts the compactions started.
    started: u64,
    /// Whether the current overflow was already compacted and retried once.
    pub(super) overflow_recovery_attempted: bool,
    /// [`CompactionState::started`] when the current run started: a run's messages are newer
    /// than every compaction started before it, whatever their timestamps say.
    started_at_run_start: u64,
    /// A prompt that waits for the compaction its arrival started (answered and run after it).
    next_prompt: Option<(Option<RequestId>, AgentMessage)>,
}

impl CompactionState {
    pub(super) fn new() -> Self {
        Self {
            active: None,
            started: 0,
            overflow_recovery_attempted: false,
            started_at_run_start: 0,
            next_prompt: None,
        }
    }

    /// Notes that a run starts now, after every compaction started so far.
    pub(super) fn mark_run_start(&mut self) {
        self.started_at_run_start = self.started;
    }

    /// Whether no compaction started since the current run did.
    pub(super) fn none_since_run_start(&self) -> bool {
        self.started == self.started_at_run_start
    }

    /// `isCompacting`.
    pub(super) fn is_active(&self) -> bool {
        self.active.is_some()
    }

    /// Whether a compaction runs outside a run (the `compact` command, or one a prompt
    /// started): prompts are refused meanwhile.
    pub(super) fn blocks_prompts(&self) -> bool {
        self.active
            .as_ref()
            .is_some_and(|active| active.reason == CompactionReason::Manual)
            || self.next_prompt.is_some()
    }
}

#[derive(Debug)]
struct ActiveCompaction {
    reason: CompactionReason,
    will_retry: bool,
    /// The `compact` command's id (manual compactions).
    reply: Option<Option<RequestId>>,
}

/// The end of a compaction task.
#[derive(Debug)]
pub(super) struct Finished {
    first_kept_entry_id: String,
    tokens_before: u64,
    details: serde_json::Value,
    outcome: Result<Summary, SummaryError>,
    /// The summary is an extension's (`session_before_compact`), not the model's.
    from_extension: bool,
}

impl Session {
    /// `compact`: a run in progress is aborted first and the compaction starts once the agent
    /// settled. When the conversation so far has nothing to summarise, `compact` fails at once
    /// and leaves the run alone (the reference aborts the answer first, then fails): only the
    /// answer being streamed could have made a difference, and it can be compacted once done.
    pub(super) async fn compact_command(
        &mut self,
        id: Option<RequestId>,
        custom_instructions: Option<String>,
    ) {
        if self.streaming && self.compaction_preparation().is_none() {
            // Fails without starting anything: there is nothing to prepare.
            self.start_manual_compaction(id, custom_instructions).await;
            return;
        }
        if self.stop_activity() {
            let after = AfterSettle::Compact(id, custom_instructions);
            self.ops.settle.wait_for(after);
            return;
        }
        self.start_manual_compaction(id, custom_instructions).await;
    }

    /// Announces and starts the `compact` command's compaction, or fails it at once when there
    /// is nothing to summarise.
    pub(super) async fn start_manual_compaction(
        &mut self,
        id: Option<RequestId>,
        custom_instructions: Option<String>,
    ) {
        self.emit(Event::CompactionStart(CompactionStartEvent {
            reason: CompactionReason::Manual,
        }))
        .await;
        if self.compaction.is_active() {
            self.fail_manual(id, "Compaction already in progress").await;
            return;
        }
        if !self.spawn_compaction(
            CompactionReason::Manual,
            false,
            Some(id.clone()),
            custom_instructions,
        ) {
            let ends_compacted = self
                .store
                .branch(None)
                .last()
                .is_some_and(|entry| entry.kind() == "compaction");
            let error = if ends_compacted {
                "Already compacted"
            } else {
                "Nothing to compact (session too small)"
            };
            self.fail_manual(id, error).await;
        }
    }

    async fn fail_manual(&mut self, id: Option<RequestId>, error: &str) {
        self.emit(end_event(
            CompactionReason::Manual,
            None,
            false,
            Some(format!("Compaction failed: {error}")),
        ))
        .await;
        self.write(&Response::error(id, Some("compact"), error))
            .await;
    }

    /// What a compaction of the active branch would summarise and keep; `None` when nothing.
    fn compaction_preparation(&self) -> Option<Preparation> {
        let (reserve_tokens, keep_recent_tokens) = self.config.settings.compaction_tokens();
        let settings = CompactionSettings {
            reserve_tokens,
            keep_recent_tokens,
        };
        let context = self.context_for_estimate(self.store.build_context().messages);
        prepare(&self.store.branch(None), &context, settings)
    }

    /// Prepares and spawns a compaction; false when there is nothing to summarise.
    fn spawn_compaction(
        &mut self,
        reason: CompactionReason,
        will_retry: bool,
        reply: Option<Option<RequestId>>,
        custom_instructions: Option<String>,
    ) -> bool {
        let Some(preparation) = self.compaction_preparation() else {
            return false;
        };
        let (reserve_tokens, _) = self.config.settings.compaction_tokens();
        self.compaction.started += 1;
        self.compaction.active = Some(ActiveCompaction {
            reason,
            will_retry,
            reply,
        });
        let task = self.tasks.start(TaskKind::Compaction);
        let cancel = task.cancel_token();
        let events = task.sender();
        let crate::config::RequestModel { model, auth } =
            self.config.registry.resolve(&self.shown_model());
        let summary_context = SummaryContext {
            model,
            auth,
            thinking_level: self.thinking_level,
            reserve_tokens,
            retry: self.config.settings.retry(),
            http: self.http.clone(),
            cancel,
            reason,
            stream_options: self.config.settings.stream_options(),
            release: self.release,
        };
        let extensions = super::extensions::host_client(&self.extensions);
        task.spawn(async move {
            let mut on_event = move |event: Event| {
                // The session may be gone (end of input); then nobody needs the event.
                let _ = events.send_now(TaskEvent::SummaryRetry(Box::new(event)));
            };
            let decision = match &extensions {
                Some(extensions) => {
                    let event = before_compact_event(
                        &preparation,
                        custom_instructions.as_deref(),
                        reason,
                        will_retry,
                    );
                    extensions.before_compact(&event).await
                }
                None => None,
            };
            let mut finished = Finished {
                first_kept_entry_id: preparation.first_kept_entry_id.clone(),
                tokens_before: preparation.tokens_before,
                details: preparation.file_ops.lists().to_details(),
                outcome: Err(SummaryError::Cancelled),
                from_extension: false,
            };
            match decision
                .as_ref()
                .map(|decision| (decision.cancel.is_some(), decision.given()))
            {
                Some((true, _)) => {}
                Some((false, Some(given))) => {
                    if let Some(id) = given.first_kept_entry_id {
                        finished.first_kept_entry_id = id;
                    }
                    if let Some(tokens) = given.tokens_before {
                        finished.tokens_before = tokens;
                    }
                    finished.outcome = Ok(Summary {
                        text: given.summary.unwrap_or_default(),
                        usage: Default::default(),
                        combined: false,
                    });
                    finished.from_extension = true;
                }
                Some((false, None)) | None => {
                    finished.outcome = summarize(
                        &preparation,
                        custom_instructions.as_deref(),
                        &summary_context,
                        &mut on_event,
                    )
                    .await;
                }
            }
            TaskEvent::CompactionDone(Box::new(finished))
        });
        true
    }

    /// When the latest compaction on the branch was recorded, in milliseconds.
    fn latest_compaction_ms(&self) -> Option<u64> {
        let branch = self.store.branch(None);
        let entry = branch.iter().rev().find(|e| e.kind() == "compaction")?;
        crate::session::time::parse_iso(entry.timestamp()).and_then(|ms| u64::try_from(ms).ok())
    }

    /// Cancels the `compact` command's compaction in progress, reported as aborted (`abort`
    /// from 0.85.0). True when there was one.
    pub(super) async fn cancel_manual_compaction(&mut self) -> bool {
        let Some(active) = self
            .compaction
            .active
            .take_if(|active| active.reply.is_some())
        else {
            return false;
        };
        self.tasks.forget(TaskKind::Compaction);
        let cancelled = Finished {
            first_kept_entry_id: String::new(),
            tokens_before: 0,
            details: serde_json::Value::Null,
            outcome: Err(SummaryError::Cancelled),
            from_extension: false,
        };
        let generation = self.tasks.generation();
        self.finish_compaction(active, cancelled, generation).await;
        true
    }

    /// The compaction task's summary, or why there is none; `generation` is the session
    /// generation it started in (a replaced session drops the result).
    pub(super) async fn on_compaction_done(&mut self, finished: Finished, generation: u64) {
        if let Some(active) = self.compaction.active.take() {
            self.finish_compaction(active, finished, generation).await;
        }
    }

    async fn finish_compaction(
        &mut self,
        active: ActiveCompaction,
        finished: Finished,
        generation: u64,
    ) {
        let reason = active.reason;
        let outcome = if generation == self.tasks.generation() {
            finished.outcome
        } else {
            Err(SummaryError::Cancelled)
        };
        let summary = match outcome {
            Ok(summary) => summary,
            Err(error) => {
                let error_message = match (&error, reason, &active.reply) {
                    (SummaryError::Cancelled, _, _) => None,
                    (_, _, Some(_)) => Some(format!("Compaction failed: {error}")),
                    (_, CompactionReason::Overflow, None) => {
                        Some(format!("Context overflow recovery failed: {error}"))
                    }
                    (_, _, None) => Some(format!("Auto-compaction failed: {error}")),
                };
                let aborted = error == SummaryError::Cancelled;
                self.emit(end_event(reason, None, aborted, error_message))
                    .await;
                match active.reply {
                    Some(id) => {
                        self.write(&Response::error(id, Some("compact"), error.to_string()))
                            .await;
                    }
                    None => self.after_auto_compaction(false).await,
                }
                return;
            }
        };
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
        let end = CompactionEnd {
            reason,
            result,
            will_retry: active.will_retry,
            reply: active.reply,
        };
        let entry = match entry {
            Ok(id) => self.store.entry(&id).map(|entry| entry.raw().clone()),
            Err(error) => {
                log_store_error::<()>(Err(error));
                None
            }
        };
        let end = match entry {
            // `session_compact` handlers run before `compaction_end`.
            Some(entry) => {
                let from_extension = finished.from_extension;
                let entry = serde_json::Value::Object(entry);
                match self
                    .hold_compacted_for_extensions(entry, from_extension, end)
                    .await
                {
                    Some(end) => end,
                    None => return,
                }
            }
            None => end,
        };
        self.end_compaction(end).await;
    }

    /// `compaction_end` of a saved compaction, then its answer or what follows it.
    pub(super) async fn end_compaction(&mut self, end: CompactionEnd) {
        let CompactionEnd {
            reason,
            result,
            will_retry,
            reply,
        } = end;
        self.emit(end_event_retrying(
            reason,
            Some(result.clone()),
            false,
            None,
            will_retry,
        ))
        .await;
        if let Some(id) = reply {
            self.respond(id, "compact", &result).await;
            return;
        }
        if will_retry
            && let Some(AgentMessage::Assistant(last)) = self.messages.last()
            && matches!(last.stop_reason, StopReason::Error | StopReason::Length)
        {
            self.messages.pop();
        }
        self.after_auto_compaction(will_retry).await;
    }
}

/// `compaction_end`; `willRetry` only with a result.
fn end_event(
    reason: CompactionReason,
    result: Option<CompactionResult>,
    aborted: bool,
    error_message: Option<String>,
) -> Event {
    end_event_retrying(reason, result, aborted, error_message, false)
}

fn end_event_retrying(
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
