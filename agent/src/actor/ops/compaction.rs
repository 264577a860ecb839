//! A compaction: the `compact` command's and an extension's `ctx.compact()` (manual; the
//! latter answered to the host, which calls its `onComplete` / `onError`), and the automatic
//! ones after a run or before a prompt (threshold, overflow; `compaction/auto.rs` decides when). What it
//! summarises, the summary task and the saving are `actor/compaction.rs`'s.
//!
//! | state | input | next | what happens |
//! |---|---|---|---|
//! | requested (manual) | the agent is busy, something to compact | `AwaitingSettle` | the run (and a retry wait) cancelled (`settle.rs` holds the key) |
//! | requested (manual), `AwaitingSettle` settled | another compaction summarises | ended | `compaction_start`, `compaction_end` failed, the error answered |
//! | requested (manual), `AwaitingSettle` settled | nothing to summarise | ended | the same ("Nothing to compact", "Already compacted") |
//! | requested (manual), `AwaitingSettle` settled | otherwise | begun | `compaction_start` |
//! | requested (automatic) | nothing summarises, something to summarise | begun | `compaction_start` (after what begun asks for); a prompt that started it waits (prompts are refused meanwhile) |
//! | begun | some extension handles `session_before_compact` | `AskingExtensions` | the event goes to the host (`intercept`) |
//! | begun | otherwise | `Summarizing` | a `Compaction` task spawned |
//! | `AskingExtensions` | a handler cancels (or the session was replaced meanwhile) | ended(aborted) | |
//! | `AskingExtensions` | a handler gives the compaction | saved | no model call; `fromExtension` |
//! | `AskingExtensions` | nothing decided (also: a handler threw, the host ended) | `Summarizing` | a `Compaction` task spawned |
//! | `AskingExtensions`, `Summarizing` | `abort` (from 0.85.0; manual or automatic) | ended(aborted) | the task forgotten, a late decision ignored |
//! | `Summarizing` | the task's `summarization_retry_*` | same | written |
//! | `Summarizing` | the summary failed or was cancelled (or the session was replaced meanwhile) | ended(error) | |
//! | `Summarizing` | the model's summary | saved | |
//! | saved | | | the `compaction` entry appended, the conversation rebuilt |
//! | saved | some extension handles `session_compact` | `CompactHandlers` | the event goes to the host |
//! | saved, `CompactHandlers` done | | ended | |
//!
//! Ended: `compaction_end`, then what follows: the answer (manual: the command's response, or
//! the host's reply `{result}` / `{error}`), the prompt that waited for
//! it answered and started, the overflowed turn retried (its failed message dropped), or the
//! run's end (continue or settle). `isCompacting` is "a compaction asks its extensions or
//! summarises"; prompts are refused while a manual one does or a prompt waits for one.

use std::collections::BTreeMap;

use pi_rpc_protocol::event::{CompactionReason, CompactionStartEvent, Event};
use pi_rpc_protocol::message::{AgentMessage, StopReason};
use pi_rpc_protocol::response::CompactionResult;
use pi_rpc_protocol::{RequestId, Response};

use super::ids::{Answer, OpKey, OpRoute};
use super::settle::AfterSettle;
use crate::actor::State;
use crate::actor::compaction::{Finished, before_compact_event, end_event, end_event_retrying};
use crate::actor::tasks::TaskKind;
use crate::compaction::Preparation;
use crate::compaction::summarize::SummaryError;
use crate::extensions::{BeforeCompactResult, HostEvent, ReplyValue};

/// Where a compaction is.
#[derive(Debug)]
enum Stage {
    /// A manual compaction waits for the run it stopped to settle.
    AwaitingSettle { instructions: Option<String> },
    /// The `session_before_compact` handlers decide whether and how it goes on.
    AskingExtensions(Box<Asking>),
    /// Its task summarises.
    Summarizing,
    /// Saved; the `session_compact` handlers run.
    CompactHandlers(Box<CompactionResult>),
}

/// What a compaction asking its extensions goes on with.
#[derive(Debug)]
struct Asking {
    preparation: Preparation,
    instructions: Option<String>,
    /// The session generation it was asked in (a replaced session drops the compaction).
    generation: u64,
}

/// What follows a compaction's end.
#[derive(Debug)]
enum Then {
    /// The answer of a manual compaction: the `compact` command's, or an extension's
    /// `ctx.compact()` (its `onComplete` / `onError`).
    Answer(Answer),
    /// The prompt whose arrival started it: answered and run.
    Prompt(Option<RequestId>, Box<AgentMessage>),
    /// The end of the run that started it: the overflowed turn retried, or continue or settle.
    Run,
}

/// A compaction in flight.
#[derive(Debug)]
pub(in crate::actor) struct Compaction {
    stage: Stage,
    reason: CompactionReason,
    /// The overflowed turn is retried after it.
    will_retry: bool,
    then: Then,
}

/// The compactions in flight, and what the automatic check remembers between them.
#[derive(Debug, Default)]
pub(in crate::actor) struct Compactions {
    ops: BTreeMap<OpKey, Compaction>,
    /// Counts the compactions started.
    started: u64,
    /// [`Compactions::started`] when the current run started: a run's messages are newer
    /// than every compaction started before it, whatever their timestamps say.
    started_at_run_start: u64,
    /// Whether the current overflow was already compacted and retried once.
    pub(in crate::actor) overflow_recovery_attempted: bool,
    /// A prompt whose automatic check is under way: it waits for the compaction the check
    /// starts.
    next_prompt: Option<(Option<RequestId>, AgentMessage)>,
}

impl Compactions {
    /// Notes that a run starts now, after every compaction started so far.
    pub(in crate::actor) fn mark_run_start(&mut self) {
        self.started_at_run_start = self.started;
    }

    /// Whether no compaction started since the current run did.
    pub(in crate::actor) fn none_since_run_start(&self) -> bool {
        self.started == self.started_at_run_start
    }

    /// `isCompacting`: a compaction asks its extensions or summarises.
    pub(in crate::actor) fn is_active(&self) -> bool {
        self.ops.values().any(Compaction::compacting)
    }

    /// Whether prompts are refused: a manual compaction summarises, or a prompt waits for the
    /// compaction it started.
    pub(in crate::actor) fn blocks_prompts(&self) -> bool {
        self.next_prompt.is_some()
            || self.ops.values().any(|op| match op.then {
                Then::Answer(_) => op.compacting(),
                Then::Prompt(..) => true,
                Then::Run => false,
            })
    }

    /// The prompt whose automatic check starts (`Some`) or ended (`None`).
    pub(in crate::actor) fn set_next_prompt(
        &mut self,
        prompt: Option<(Option<RequestId>, AgentMessage)>,
    ) {
        self.next_prompt = prompt;
    }

    /// A compaction begins at `stage` (an automatic one takes the prompt that waits).
    fn begin(
        &mut self,
        key: OpKey,
        (reason, will_retry): (CompactionReason, bool),
        then: Then,
        stage: Stage,
    ) {
        let then = match (then, self.next_prompt.take()) {
            (Then::Run, Some((id, prompt))) => Then::Prompt(id, Box::new(prompt)),
            (then, prompt) => {
                self.next_prompt = prompt;
                then
            }
        };
        let op = Compaction {
            stage,
            reason,
            will_retry,
            then,
        };
        self.started += 1;
        self.ops.insert(key, op);
    }

    /// At the agent's exit: the client's `compact` commands in flight, taken unanswered (their
    /// summaries are dropped, as the reference's at stdin's end).
    pub(in crate::actor) fn take_client_commands(
        &mut self,
    ) -> Vec<(Option<RequestId>, &'static str)> {
        self.ops
            .extract_if(.., |_, op| {
                matches!(op.then, Then::Answer(Answer::Client(..)))
            })
            .filter_map(|(_, op)| match op.then {
                Then::Answer(Answer::Client(id, command)) => Some((id, command)),
                _ => None,
            })
            .collect()
    }

    /// The compaction that asks its extensions or summarises (manual or automatic), for
    /// `abort`.
    fn compacting(&self) -> Option<OpKey> {
        self.ops
            .iter()
            .find_map(|(key, op)| op.compacting().then_some(*key))
    }
}

impl Compaction {
    /// Whether it asks its extensions or summarises (saved and ending is no longer
    /// compacting).
    fn compacting(&self) -> bool {
        matches!(self.stage, Stage::AskingExtensions(_) | Stage::Summarizing)
    }

    /// The end event's error for a summary that failed with `error`.
    fn error_message(&self, error: &SummaryError) -> Option<String> {
        match (error, self.reason, &self.then) {
            (SummaryError::Cancelled, _, _) => None,
            (_, _, Then::Answer(_)) => Some(format!("Compaction failed: {error}")),
            (_, CompactionReason::Overflow, _) => {
                Some(format!("Context overflow recovery failed: {error}"))
            }
            (_, _, _) => Some(format!("Auto-compaction failed: {error}")),
        }
    }
}

impl State {
    /// `compact`: a run in progress is aborted first and the compaction starts once the agent
    /// settled. When the conversation so far has nothing to summarise, `compact` fails at once
    /// and leaves the run alone (the reference aborts the answer first, then fails): only the
    /// answer being streamed could have made a difference, and it can be compacted once done.
    pub(in crate::actor) fn compact_command(
        &mut self,
        id: Option<RequestId>,
        instructions: Option<String>,
    ) {
        self.compact_manually(Answer::Client(id, "compact"), instructions);
    }

    /// An extension's `ctx.compact()`: the `compact` command's compaction, answered to the
    /// host (`{result}`, or `{error}` with the text the command would fail with).
    pub(in crate::actor) fn extension_compact(
        &mut self,
        reply: String,
        instructions: Option<String>,
    ) {
        self.compact_manually(Answer::Host(reply), instructions);
    }

    /// A manual compaction answering `answer` (see [`State::compact_command`]).
    fn compact_manually(&mut self, answer: Answer, instructions: Option<String>) {
        if self.streaming && self.compaction_preparation().is_none() {
            // Fails without starting anything: there is nothing to prepare.
            self.start_manual_compaction(answer, instructions);
            return;
        }
        if self.stop_activity() {
            let key = self.ops.key();
            let op = Compaction {
                stage: Stage::AwaitingSettle { instructions },
                reason: CompactionReason::Manual,
                will_retry: false,
                then: Then::Answer(answer),
            };
            self.ops.compaction.ops.insert(key, op);
            self.ops.settle.wait_for(AfterSettle::Compaction(key));
            return;
        }
        self.start_manual_compaction(answer, instructions);
    }

    /// The agent settled after `compact` stopped it: the compaction starts.
    pub(in crate::actor) fn compaction_after_settle(&mut self, key: OpKey) {
        let Some(op) = self.ops.compaction.ops.remove(&key) else {
            return;
        };
        if let (Stage::AwaitingSettle { instructions }, Then::Answer(answer)) = (op.stage, op.then)
        {
            self.start_manual_compaction(answer, instructions);
        }
    }

    /// Announces and starts the `compact` command's compaction, or fails it at once when
    /// another summarises or there is nothing to summarise.
    fn start_manual_compaction(&mut self, answer: Answer, instructions: Option<String>) {
        let reason = CompactionReason::Manual;
        self.emit(Event::CompactionStart(CompactionStartEvent { reason }));
        if self.ops.compaction.is_active() {
            self.fail_manual(answer, "Compaction already in progress");
            return;
        }
        let Some(preparation) = self.compaction_preparation() else {
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
            self.fail_manual(answer, error);
            return;
        };
        let key = self.ops.key();
        let then = Then::Answer(answer);
        self.begin_compaction(key, (reason, false), then, instructions, preparation);
    }

    /// A manual compaction that cannot start ends at once: `compaction_end`, then the error
    /// answered. An extension's comes after the answer of the command that runs (as the
    /// reference's, which fails after awaiting, does).
    fn fail_manual(&mut self, answer: Answer, error: &str) {
        let message = format!("Compaction failed: {error}");
        let end = end_event(CompactionReason::Manual, None, false, Some(message));
        match answer {
            Answer::Client(..) => self.emit(end),
            Answer::Host(_) => self.report_after_command(end),
        }
        self.answer_compaction_error(answer, error.to_owned());
    }

    /// A manual compaction failed with `error`: the command's error, or the host's call
    /// rejects with it.
    fn answer_compaction_error(&mut self, answer: Answer, error: String) {
        match answer {
            Answer::Client(id, command) => self.write(Response::error(id, Some(command), error)),
            Answer::Host(reply) => self.reply_value_to_host(&reply, &ReplyValue::Error { error }),
        }
    }

    /// Starts an automatic compaction (after `compaction_start`'s event is written); false
    /// when another summarises or there is nothing to summarise.
    pub(in crate::actor) fn start_auto_compaction(
        &mut self,
        reason: CompactionReason,
        will_retry: bool,
    ) -> bool {
        if self.ops.compaction.is_active() {
            return false;
        }
        let Some(preparation) = self.compaction_preparation() else {
            return false;
        };
        let key = self.ops.key();
        self.begin_compaction(key, (reason, will_retry), Then::Run, None, preparation);
        self.emit(Event::CompactionStart(CompactionStartEvent { reason }));
        true
    }

    /// Compaction `key` begins: its `session_before_compact` handlers are asked when some
    /// extension has them, else its summary task starts.
    fn begin_compaction(
        &mut self,
        key: OpKey,
        (reason, will_retry): (CompactionReason, bool),
        then: Then,
        instructions: Option<String>,
        preparation: Preparation,
    ) {
        let event = before_compact_event(&preparation, instructions.as_deref(), reason, will_retry);
        let asked = self.ask_op(OpRoute::BeforeCompact(key), &event);
        let (stage, summary) = if asked {
            let asking = Asking {
                preparation,
                instructions,
                generation: self.tasks.generation(),
            };
            (Stage::AskingExtensions(Box::new(asking)), None)
        } else {
            (Stage::Summarizing, Some((instructions, preparation)))
        };
        (self.ops.compaction).begin(key, (reason, will_retry), then, stage);
        if let Some((instructions, preparation)) = summary {
            self.spawn_summary(key, reason, instructions, preparation);
        }
    }

    /// The `session_before_compact` handlers of compaction `key` decided (the default when the
    /// host ended or a handler threw): it ends cancelled, saves the compaction a handler
    /// gave, or summarises.
    pub(in crate::actor) fn before_compact_done(
        &mut self,
        key: OpKey,
        decision: BeforeCompactResult,
    ) {
        let Some(op) = self.ops.compaction.ops.get_mut(&key) else {
            // Ended meanwhile (`abort`).
            return;
        };
        if !matches!(op.stage, Stage::AskingExtensions(_)) {
            return;
        }
        let Stage::AskingExtensions(asking) = std::mem::replace(&mut op.stage, Stage::Summarizing)
        else {
            return;
        };
        let Asking {
            preparation,
            instructions,
            generation,
        } = *asking;
        let reason = op.reason;
        let current = self.tasks.generation();
        if generation != current || decision.cancel.is_some() {
            self.on_compaction_done(key, Finished::cancelled(), current);
        } else if let Some(given) = decision.given() {
            let finished = Finished::given(&preparation, given);
            self.on_compaction_done(key, finished, current);
        } else {
            self.spawn_summary(key, reason, instructions, preparation);
        }
    }

    /// Cancels the compaction in progress, reported as aborted (`abort` from 0.85.0): a
    /// manual one fails its command; after an automatic one, what followed it goes on (the run
    /// settles, a waiting prompt starts), as when its summary fails. True when there was one.
    pub(in crate::actor) fn cancel_compaction(&mut self) -> bool {
        let Some(key) = self.ops.compaction.compacting() else {
            return false;
        };
        self.tasks.forget(TaskKind::Compaction);
        let generation = self.tasks.generation();
        self.on_compaction_done(key, Finished::cancelled(), generation);
        true
    }

    /// The compaction's summary (its task's, or an extension's), or why there is none;
    /// `generation` is the session generation it started in (a replaced session drops the
    /// summary).
    pub(in crate::actor) fn on_compaction_done(
        &mut self,
        key: OpKey,
        mut finished: Finished,
        generation: u64,
    ) {
        let Some(op) = self.ops.compaction.ops.remove(&key) else {
            return;
        };
        if !op.compacting() {
            return;
        }
        let cancelled = Err(SummaryError::Cancelled);
        let outcome = std::mem::replace(&mut finished.outcome, cancelled);
        let outcome = if generation == self.tasks.generation() {
            outcome
        } else {
            Err(SummaryError::Cancelled)
        };
        let summary = match outcome {
            Ok(summary) => summary,
            Err(error) => {
                let message = op.error_message(&error);
                let aborted = error == SummaryError::Cancelled;
                self.emit(end_event(op.reason, None, aborted, message));
                match op.then {
                    Then::Answer(answer) => self.answer_compaction_error(answer, error.to_string()),
                    then => self.after_compaction(then, false),
                }
                return;
            }
        };
        let from_extension = finished.from_extension;
        let (entry, result) = self.save_compaction(finished, summary);
        if let Some(entry) = entry {
            // `session_compact` handlers run before `compaction_end`.
            let event = HostEvent::SessionCompact {
                compaction_entry: &entry,
                from_extension,
                reason: op.reason,
                will_retry: op.will_retry,
            };
            if self.send_op_event(OpRoute::Compaction(key), &event) {
                let op = Compaction {
                    stage: Stage::CompactHandlers(Box::new(result)),
                    ..op
                };
                self.ops.compaction.ops.insert(key, op);
                return;
            }
        }
        self.end_compaction(op.reason, op.will_retry, op.then, result);
    }

    /// The `session_compact` handlers of a saved compaction are done.
    pub(in crate::actor) fn compact_handlers_done(&mut self, key: OpKey) {
        let Some(op) = self.ops.compaction.ops.remove(&key) else {
            return;
        };
        let Compaction {
            stage,
            reason,
            will_retry,
            then,
        } = op;
        if let Stage::CompactHandlers(result) = stage {
            self.end_compaction(reason, will_retry, then, *result);
        }
    }

    /// `compaction_end` of a saved compaction, then its answer or what follows it.
    fn end_compaction(
        &mut self,
        reason: CompactionReason,
        will_retry: bool,
        then: Then,
        result: CompactionResult,
    ) {
        let end = end_event_retrying(reason, Some(result.clone()), false, None, will_retry);
        self.emit(end);
        match then {
            Then::Answer(Answer::Client(id, command)) => {
                self.respond(id, command, &result);
                return;
            }
            Then::Answer(Answer::Host(reply)) => {
                let data = serde_json::json!({ "result": result });
                self.reply_value_to_host(&reply, &ReplyValue::Data(data));
                return;
            }
            Then::Prompt(..) | Then::Run => {}
        }
        if will_retry
            && let Some(AgentMessage::Assistant(last)) = self.messages.last()
            && matches!(last.stop_reason, StopReason::Error | StopReason::Length)
        {
            self.messages.pop();
        }
        self.after_compaction(then, will_retry);
    }

    /// What follows an automatic compaction: the prompt that waited for it, the retry of the
    /// overflowed turn, or the end of the run (with its queued messages first).
    fn after_compaction(&mut self, then: Then, retry: bool) {
        match then {
            Then::Prompt(id, prompt) => {
                let answer =
                    self.release
                        .accepted(id, "prompt", crate::release::Disposition::Started);
                self.write(answer);
                self.start_run(vec![*prompt], false);
            }
            Then::Run if retry => self.start_run(Vec::new(), false),
            Then::Run | Then::Answer(_) => self.continue_or_settle(),
        }
    }
}

#[cfg(test)]
#[path = "compaction_tests.rs"]
mod tests;
