//! A command's `ctx.navigateTree(targetId, options)`: the leaf moves to another entry of the same
//! session (pi's RPC protocol has no command for it; this is how a client reaches it), after the
//! `session_before_tree` handlers and, when asked for, a summary of the branch left behind. The
//! host is answered; the client sees only what the handlers write.
//!
//! | state | input | next | what happens |
//! |---|---|---|---|
//! | requested | the agent streams | answered | the error (pi's words) |
//! | requested | the target is the leaf | answered | `{cancelled: false}`; nothing changes, no event |
//! | requested | a summary is asked for without a model, or the target is no entry | answered | the error |
//! | requested | some extension handles `session_before_tree` | `AskingExtensions` | the event goes to the host (`intercept`) with what would be left behind |
//! | requested | otherwise | (as `AskingExtensions` with nothing decided) | |
//! | `AskingExtensions` | a handler cancels (or the session was replaced meanwhile) | answered | `{cancelled: true}` |
//! | `AskingExtensions` | a summary is asked for, none given, something is left behind | `Summarizing` | a `BranchSummary` task spawned (instructions as the handlers left them) |
//! | `AskingExtensions` | otherwise | moved | |
//! | `Summarizing` | the task's `summarization_retry_*` | same | written |
//! | `Summarizing` | the summary was cancelled (or the session replaced meanwhile) | answered | `{cancelled: true}` |
//! | `Summarizing` | the summary failed | answered | the error |
//! | `Summarizing` | the summary | moved | |
//! | moved | | | the leaf moved: to the target, or to its parent when it is a user or custom message; a summary becomes a `branch_summary` entry there (the label goes on it; its `fromId` the new leaf, from 0.84.3 the old one), else the label goes on the target; the conversation rebuilt |
//! | moved | some extension handles `session_tree` | `TreeHandlers` | the event goes to the host |
//! | moved (`TreeHandlers` done) | | answered | `{cancelled: false}` |

use pi_rpc_protocol::usage::Usage;
use serde_json::{Map, Value};

use super::ids::{OpKey, OpRoute};
use crate::actor::outbox::Effect;
use crate::actor::tasks::TaskKind;
use crate::actor::{State, TaskEvent, log_store_error};
use crate::compaction::branch::{BranchSummary, summarize_branch};
use crate::compaction::summarize::SummaryError;
use crate::extensions::{BeforeTreeResult, HostEvent, ReplyValue, TreeOptions, TreePreparation};
use crate::release::Feature;
use crate::store::{Entry, Role};

/// pi's error when the agent runs.
const WHILE_STREAMING: &str =
    "Wait for the current response to finish before navigating the session tree.";
/// pi's error when a summary is asked for without a model.
const NO_MODEL: &str = "No model available for summarization";

/// Where a navigation is.
#[derive(Debug)]
enum Stage {
    /// The `session_before_tree` handlers decide.
    AskingExtensions,
    /// Its task summarises the branch left behind.
    Summarizing,
    /// The leaf moved; the `session_tree` handlers run.
    TreeHandlers,
}

/// A tree navigation in flight.
#[derive(Debug)]
pub(in crate::actor) struct TreeNavigation {
    stage: Stage,
    /// The host's id for the answer.
    reply: String,
    target: String,
    /// The options, with the instructions and label as the handlers left them.
    options: TreeOptions,
    old_leaf: Option<String>,
    /// The entries left behind, oldest first.
    abandoned: Vec<Entry>,
    /// The session generation it began in (a replaced session ends it).
    generation: u64,
}

/// A summary ready to be saved: its text, details and usage, and whether an extension gave it.
struct Saved {
    text: String,
    details: Option<Value>,
    usage: Option<Usage>,
    from_extension: bool,
}

impl State {
    /// A command's `ctx.navigateTree()` (the host's reply id).
    pub(in crate::actor) fn navigate_tree(
        &mut self,
        reply: String,
        target: String,
        options: TreeOptions,
    ) {
        let old_leaf = self.store.leaf_id().map(str::to_owned);
        let refused = if self.streaming {
            Some(WHILE_STREAMING.to_owned())
        } else if old_leaf.as_deref() == Some(target.as_str()) {
            self.reply_value_to_host(&reply, &ReplyValue::Cancelled { cancelled: false });
            return;
        } else if options.summarize && self.model.is_none() {
            Some(NO_MODEL.to_owned())
        } else if self.store.entry(&target).is_none() {
            Some(crate::store::Error::EntryNotFound(target.clone()).to_string())
        } else {
            None
        };
        if let Some(error) = refused {
            self.reply_value_to_host(&reply, &ReplyValue::Error { error });
            return;
        }
        let (abandoned, common) = self.store.abandoned_entries(&target);
        let abandoned: Vec<Entry> = abandoned.into_iter().cloned().collect();
        let raw: Vec<Map<String, Value>> = abandoned.iter().map(Entry::raw).collect();
        let key = self.ops.key();
        let event = HostEvent::SessionBeforeTree {
            preparation: TreePreparation {
                target_id: &target,
                old_leaf_id: old_leaf.as_deref(),
                common_ancestor_id: common.as_deref(),
                entries_to_summarize: &raw,
                user_wants_summary: options.summarize,
                custom_instructions: options.custom_instructions.as_deref(),
                replace_instructions: options.replace_instructions,
                label: options.label.as_deref(),
            },
        };
        let asked = self.ask_op(OpRoute::BeforeTree(key), &event);
        let navigation = TreeNavigation {
            stage: Stage::AskingExtensions,
            reply,
            target,
            options,
            old_leaf,
            abandoned,
            generation: self.tasks.generation(),
        };
        self.ops.tree.insert(key, navigation);
        if !asked {
            self.before_tree_done(key, BeforeTreeResult::default());
        }
    }

    /// The `session_before_tree` handlers decided (nothing, when the host ended).
    pub(in crate::actor) fn before_tree_done(&mut self, key: OpKey, decision: BeforeTreeResult) {
        let generation = self.tasks.generation();
        let Some(mut navigation) = self.ops.tree.remove(&key) else {
            return;
        };
        if decision.cancel == Some(true) || navigation.generation != generation {
            self.answer_navigation(&navigation, ReplyValue::Cancelled { cancelled: true });
            return;
        }
        let given = decision
            .summary
            .filter(|_| navigation.options.summarize)
            .map(|given| Saved {
                text: given.summary.unwrap_or_default(),
                details: given.details,
                usage: given.usage,
                from_extension: true,
            });
        let options = &mut navigation.options;
        if decision.custom_instructions.is_some() {
            options.custom_instructions = decision.custom_instructions;
        }
        if decision.replace_instructions.is_some() {
            options.replace_instructions = decision.replace_instructions;
        }
        if decision.label.is_some() {
            options.label = decision.label;
        }
        if given.is_none() && options.summarize && !navigation.abandoned.is_empty() {
            self.spawn_branch_summary(key, &navigation);
            navigation.stage = Stage::Summarizing;
            self.ops.tree.insert(key, navigation);
            return;
        }
        self.move_leaf(key, navigation, given);
    }

    /// Spawns the task that summarises the branch `navigation` leaves behind.
    fn spawn_branch_summary(&mut self, key: OpKey, navigation: &TreeNavigation) {
        let task = self.tasks.start(TaskKind::BranchSummary);
        let events = task.sender();
        let context = self.summary_context(task.cancel_token(), None);
        let reserve_tokens = self.config.settings.branch_summary_reserve_tokens();
        let entries = navigation.abandoned.clone();
        let instructions = navigation.options.custom_instructions.clone();
        let replace = navigation.options.replace_instructions == Some(true);
        let launch = task.launch(async move {
            let mut on_event = move |event| {
                // The session may be gone (end of input); then nobody needs the event.
                let _ = events.send_now(TaskEvent::SummaryRetry(Box::new(event)));
            };
            let entries: Vec<&Entry> = entries.iter().collect();
            let outcome = summarize_branch(
                &entries,
                instructions.as_deref(),
                replace,
                reserve_tokens,
                &context,
                &mut on_event,
            )
            .await;
            TaskEvent::BranchSummaryDone(key, Box::new(outcome))
        });
        self.outbox.push(Effect::Spawn(launch));
    }

    /// The branch summary task ended.
    pub(in crate::actor) fn on_branch_summary_done(
        &mut self,
        key: OpKey,
        outcome: Result<BranchSummary, SummaryError>,
        generation: u64,
    ) {
        let Some(navigation) = self.ops.tree.remove(&key) else {
            return;
        };
        let outcome = if generation == self.tasks.generation() {
            outcome
        } else {
            Err(SummaryError::Cancelled)
        };
        match outcome {
            Ok(summary) => {
                let saved = Saved {
                    text: summary.text,
                    details: Some(summary.files.to_details()),
                    usage: summary.usage,
                    from_extension: false,
                };
                self.move_leaf(key, navigation, Some(saved));
            }
            Err(SummaryError::Cancelled) => {
                self.answer_navigation(&navigation, ReplyValue::Cancelled { cancelled: true });
            }
            Err(SummaryError::Failed(error)) => {
                self.answer_navigation(&navigation, ReplyValue::Error { error });
            }
        }
    }

    /// Moves the leaf (with the summary, if any), rebuilds the conversation, then runs the
    /// `session_tree` handlers.
    fn move_leaf(&mut self, key: OpKey, mut navigation: TreeNavigation, summary: Option<Saved>) {
        let Some(target) = self.store.entry(&navigation.target) else {
            let error = crate::store::Error::EntryNotFound(navigation.target.clone());
            let error = error.to_string();
            self.answer_navigation(&navigation, ReplyValue::Error { error });
            return;
        };
        let to_parent =
            target.message_role() == Some(Role::User) || target.kind() == "custom_message";
        let new_leaf = if to_parent {
            target.parent_id().map(str::to_owned)
        } else {
            Some(navigation.target.clone())
        };
        let label = navigation.options.label.take().filter(|l| !l.is_empty());
        let summary = summary.filter(|saved| !saved.text.is_empty());
        let from_extension = summary.as_ref().map(|saved| saved.from_extension);
        let mut summary_entry = None;
        match summary {
            Some(saved) => {
                // Where the branch was left: the old leaf from 0.84.3, the new one before.
                let from_id = if self.release.has(Feature::BranchSummaryFromOldLeaf) {
                    navigation.old_leaf.as_deref()
                } else {
                    new_leaf.as_deref()
                };
                let made = self.store.branch_with_summary(
                    new_leaf.as_deref(),
                    from_id,
                    &saved.text,
                    saved.details,
                    Some(saved.from_extension),
                    saved.usage,
                );
                match made {
                    Ok(id) => {
                        summary_entry = self.store.entry(&id).map(|e| Value::Object(e.raw()));
                        if let Some(label) = &label {
                            log_store_error(self.store.append_label_change(&id, Some(label)));
                        }
                    }
                    Err(error) => log_store_error::<()>(Err(error)),
                }
            }
            None => {
                match &new_leaf {
                    Some(leaf) => log_store_error(self.store.branch_to(leaf)),
                    None => self.store.reset_leaf(),
                }
                if let Some(label) = &label {
                    let target = navigation.target.clone();
                    log_store_error(self.store.append_label_change(&target, Some(label)));
                }
            }
        }
        self.messages = self.store.build_context().messages;
        let new_leaf = self.store.leaf_id().map(str::to_owned);
        let event = HostEvent::SessionTree {
            new_leaf_id: new_leaf.as_deref(),
            old_leaf_id: navigation.old_leaf.as_deref(),
            summary_entry: summary_entry.as_ref(),
            from_extension,
        };
        let sent = self.send_op_event(OpRoute::TreeHandlers(key), &event);
        if sent {
            navigation.stage = Stage::TreeHandlers;
            self.ops.tree.insert(key, navigation);
            return;
        }
        self.answer_navigation(&navigation, ReplyValue::Cancelled { cancelled: false });
    }

    /// The `session_tree` handlers are done: the call resolves.
    pub(in crate::actor) fn tree_handlers_done(&mut self, key: OpKey) {
        if let Some(navigation) = self.ops.tree.remove(&key) {
            if !matches!(navigation.stage, Stage::TreeHandlers) {
                tracing::warn!("session_tree handlers done for a navigation that did not move");
            }
            self.answer_navigation(&navigation, ReplyValue::Cancelled { cancelled: false });
        }
    }

    fn answer_navigation(&mut self, navigation: &TreeNavigation, value: ReplyValue) {
        self.reply_value_to_host(&navigation.reply, &value);
    }
}
