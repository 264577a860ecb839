//! A session replacement: `new_session`, `switch_session`, `fork`, `clone`, and an extension
//! command's `ctx.newSession()`, `ctx.switchSession()` and `ctx.fork()` (what it makes of the
//! session is `replace.rs`'s; whom it answers, the client or the host, is its `Answer`).
//!
//! | state | input | next | what happens |
//! |---|---|---|---|
//! | requested | some extension handles `session_before_switch` / `_fork` | `BeforeHandlers` | the event goes to the host |
//! | requested | otherwise | (as `BeforeHandlers` going on) | |
//! | `BeforeHandlers` | a handler cancelled | answered | `{cancelled: true}` |
//! | `BeforeHandlers` | go on, the agent streams and the target is invalid | answered | the error; the run goes on |
//! | `BeforeHandlers` | go on, the agent is busy | `AwaitingSettle` | the run (and a retry wait) cancelled (`settle.rs` holds the key) |
//! | `BeforeHandlers` | go on, idle | (as `AwaitingSettle` settled) | |
//! | `AwaitingSettle` | `agent_settled` written | `ShutdownHandlers` or swapped | |
//! | (settled) | some extension handles `session_shutdown` | `ShutdownHandlers(prepared)` | the new session made first (failure: answered with the error); `session_shutdown` with its file |
//! | (settled) | otherwise | swapped | |
//! | `ShutdownHandlers(prepared)` | the handlers are done (or the host ended) | swapped | |
//! | swapped | the new session cannot be made | answered | the error |
//! | swapped | made | `Restart(Reloading)` (`reload.rs`) | store swapped, generation + 1, queues and `bash` dropped, the session started on the store; the settings, prompt templates, skills and system prompt's sources read again; the extensions found again and loaded afresh (a host that is gone or refuses: `Restart(StartHandlers)`) |
//!
//! A command's `ctx.fork(.., {position: "at"})` forks at any entry (`ForkAt`: the path up to
//! and including it). The restart runs a `ctx.newSession` `setup` first, then answers
//! `{cancelled: false}` (a fork: with the forked message's text). A
//! command's `ctx` call is one at a time: while another change answers the host it is
//! answered `{cancelled: true}` at once.

use pi_rpc_protocol::response::CancelledResult;
use serde::Serialize;
use serde_json::Value;

use super::ids::{Answer, OpKey, OpRoute};
use super::reload::Restart;
use super::settle::AfterSettle;
use crate::actor::State;
use crate::actor::extensions::handles_event;
use crate::actor::outbox::IfLost;
use crate::actor::replace::PreparedSession;
use crate::actor::waiting::Target;
use crate::extensions::{HostEvent, ReplyValue};

/// Where a replacement is.
#[derive(Debug)]
enum ReplacementState {
    /// The `session_before_switch` / `session_before_fork` handlers run.
    BeforeHandlers,
    /// The run was cancelled; the replacement goes on once the agent settled.
    AwaitingSettle,
    /// The `session_shutdown` handlers run; the new session is made.
    ShutdownHandlers(Box<PreparedSession>),
}

/// A replacement in flight, until it hands over to its restart.
#[derive(Debug)]
pub(in crate::actor) struct Replacement {
    state: ReplacementState,
    answer: Answer,
    target: Target,
    /// The token of a `ctx.newSession` `setup`, for the restart to run.
    setup: Option<String>,
}

impl Replacement {
    /// Whom it answers.
    pub(in crate::actor) fn answer(&self) -> &Answer {
        &self.answer
    }
}

/// `fork` data.
#[derive(Debug, Serialize)]
struct ForkResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    cancelled: bool,
}

impl State {
    /// Starts a replacement: the `session_before_*` handlers first, which may cancel it while
    /// a run goes on.
    pub(in crate::actor) fn begin_replacement(&mut self, answer: Answer, target: Target) {
        self.begin_replacement_with(answer, target, None);
    }

    /// [`State::begin_replacement`], with a `ctx.newSession` `setup` (its token) to run.
    fn begin_replacement_with(&mut self, answer: Answer, target: Target, setup: Option<String>) {
        let key = self.ops.key();
        let before = self.before_replace_event(&target);
        let replacement = Replacement {
            state: ReplacementState::BeforeHandlers,
            answer,
            target,
            setup,
        };
        self.ops.replacements.insert(key, replacement);
        if self.send_op_event(OpRoute::Replacement(key), &before) {
            return;
        }
        self.before_handlers_done(key, false);
    }

    /// A command's `ctx.newSession()`, `ctx.switchSession()` or `ctx.fork()` (the host's
    /// reply id; `setup`: the token of `ctx.newSession`'s `setup`): one at a time.
    pub(in crate::actor) fn begin_command_replacement(
        &mut self,
        reply: String,
        target: Target,
        setup: Option<String>,
    ) {
        if self.extensions.is_none() || self.ops.answers_host() {
            let value = ReplyValue::Cancelled { cancelled: true };
            self.reply_value_to_host(&reply, &value);
            return;
        }
        self.begin_replacement_with(Answer::Host(reply), target, setup);
    }

    /// The handlers a replacement waited for are done (`cancelled`: a `session_before_*`
    /// handler cancelled it).
    pub(in crate::actor) fn replacement_handlers_done(&mut self, key: OpKey, cancelled: bool) {
        let Some(replacement) = self.ops.replacements.get_mut(&key) else {
            return;
        };
        match std::mem::replace(&mut replacement.state, ReplacementState::AwaitingSettle) {
            ReplacementState::BeforeHandlers => self.before_handlers_done(key, cancelled),
            ReplacementState::ShutdownHandlers(prepared) => self.swap(key, Some(*prepared)),
            ReplacementState::AwaitingSettle => {
                tracing::warn!("a reply to a replacement that waits for the agent to settle");
            }
        }
    }

    /// The `session_before_*` handlers let the replacement go on (or cancelled it): when the
    /// agent is busy, its target is checked first (one that fails leaves the run alone), then
    /// the run is aborted and the replacement goes on once it settled.
    fn before_handlers_done(&mut self, key: OpKey, cancelled: bool) {
        let Some(replacement) = self.ops.replacements.get(&key) else {
            return;
        };
        if cancelled {
            self.cancel_replacement(key);
            return;
        }
        if self.streaming
            && let Err(error) = self.check_replacement(&replacement.target)
        {
            self.refuse_replacement(key, error.to_string());
            return;
        }
        if self.stop_activity() {
            if let Some(replacement) = self.ops.replacements.get_mut(&key) {
                replacement.state = ReplacementState::AwaitingSettle;
            }
            self.ops.settle.wait_for(AfterSettle::Operation(key));
            return;
        }
        self.shut_down_then_swap(key);
    }

    /// The agent settled (`settle.rs`): the replacement goes on.
    pub(in crate::actor) fn resume_after_settle(&mut self, key: OpKey) {
        self.shut_down_then_swap(key);
    }

    /// Before the swap: the `session_shutdown` handlers, told the new session's file (as in the
    /// reference, the new session is made, and a fork that cannot be made fails, before the
    /// old one shuts down).
    fn shut_down_then_swap(&mut self, key: OpKey) {
        let Some(replacement) = self.ops.replacements.get(&key) else {
            return;
        };
        if !handles_event(&self.extensions, "session_shutdown") {
            self.swap(key, None);
            return;
        }
        let prepared = match self.prepare_replacement(&replacement.target) {
            Ok(prepared) => prepared,
            Err(error) => {
                self.refuse_replacement(key, error.to_string());
                return;
            }
        };
        let event = HostEvent::SessionShutdown {
            reason: replacement.target.reason(),
            target_session_file: prepared
                .store
                .session_file()
                .map(|file| file.display().to_string()),
        };
        if self.send_op_event(OpRoute::Replacement(key), &event) {
            if let Some(replacement) = self.ops.replacements.get_mut(&key) {
                replacement.state = ReplacementState::ShutdownHandlers(Box::new(prepared));
            }
            return;
        }
        self.swap(key, Some(prepared));
    }

    /// Swaps the session (the one made before `session_shutdown`, if any), then restarts the
    /// extensions on it.
    fn swap(&mut self, key: OpKey, prepared: Option<PreparedSession>) {
        let Some(replacement) = self.ops.replacements.remove(&key) else {
            return;
        };
        let previous = self
            .store
            .session_file()
            .map(|file| file.display().to_string());
        let data = match &replacement.target {
            Target::New(parent) => {
                self.swap_new_session(parent.as_deref(), prepared);
                to_value(&CancelledResult { cancelled: false })
            }
            target => match self.swap_replaced(target, prepared) {
                Ok(text) if matches!(target, Target::Fork(_)) => to_value(&ForkResult {
                    text,
                    cancelled: false,
                }),
                Ok(_) => to_value(&CancelledResult { cancelled: false }),
                Err(error) => {
                    self.refuse(replacement.answer, error.to_string());
                    return;
                }
            },
        };
        // The new session's runtime reads the files again, as in the reference.
        self.read_files_again();
        let reason = replacement.target.reason();
        let restart = Restart::reloading(replacement.answer, data, reason, previous)
            .with_setup(replacement.setup);
        self.begin_restart(key, restart);
    }

    /// After the swap: the extensions are loaded afresh for the new session (what the old
    /// instances left for their session goes with it), then `reload.rs` goes on.
    fn begin_restart(&mut self, key: OpKey, restart: Restart) {
        let mut reloading = false;
        if let Some(ext) = self.extensions.as_mut()
            && ext.live_host().is_some()
        {
            ext.forget_session();
            self.ops.commands.forget_session();
            match ext.host_mut().reload(false) {
                Ok(line) => {
                    reloading = true;
                    self.push_host(line, IfLost::Restart(key));
                }
                Err(error) => tracing::error!(%error, "cannot reload the extensions"),
            }
        }
        self.ops.restarts.insert(key, restart);
        if !reloading {
            self.restart_without_reload(key);
        }
    }

    /// A `session_before_*` handler cancelled the replacement: answered `{cancelled: true}`.
    fn cancel_replacement(&mut self, key: OpKey) {
        let Some(replacement) = self.ops.replacements.remove(&key) else {
            return;
        };
        match replacement.answer {
            Answer::Host(reply) => {
                let value = ReplyValue::Cancelled { cancelled: true };
                self.reply_value_to_host(&reply, &value);
            }
            Answer::Client(id, command) => {
                let data = CancelledResult { cancelled: true };
                self.respond(id, command, &data);
            }
        }
    }

    /// Ends a replacement that cannot be made before its swap.
    fn refuse_replacement(&mut self, key: OpKey, error: String) {
        if let Some(replacement) = self.ops.replacements.remove(&key) {
            self.refuse(replacement.answer, error);
        }
    }

    /// Answers a replacement that cannot be made: to the host when a command's `ctx` asked
    /// for it (the call rejects), else to the client.
    fn refuse(&mut self, answer: Answer, error: String) {
        match answer {
            Answer::Host(reply) => {
                self.reply_value_to_host(&reply, &ReplyValue::Error { error });
            }
            Answer::Client(id, command) => {
                let response = pi_rpc_protocol::Response::error(id, Some(command), error);
                self.write(response);
            }
        }
    }
}

fn to_value<T: Serialize>(data: &T) -> Value {
    serde_json::to_value(data).unwrap_or(Value::Null)
}
