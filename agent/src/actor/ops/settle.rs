//! The agent settling: what waits for `agent_settled` (`abort`, a session replacement and
//! `compact` that stopped a run; `ctx.waitForIdle()` calls) and the `agent_settled` handlers,
//! which hold client lines until they are done.
//!
//! | state | input | next | what happens |
//! |---|---|---|---|
//! | `Open` | `abort`, a replacement or `compact` stops a busy agent | `Awaiting([w])` | the run and any retry wait are cancelled; the command waits |
//! | `Awaiting(ws)` | another such command | `Awaiting(ws + w)` | |
//! | `Open`, `Awaiting(ws)` | the run is over, nothing queued, some extension handles `agent_settled` | `Handlers(ws)` | `agent_settled` goes to the host (route `Settled`); lines wait |
//! | `Open`, `Awaiting(ws)` | the same, no handlers | `Open` | settles (below) |
//! | `Handlers(ws)` | the handlers are done (or the host ended) | `Open` | settles (below) |
//! | any | `ctx.waitForIdle()`: the agent streams or `Handlers` | same | the call waits for the next settle |
//! | any | `ctx.waitForIdle()`: otherwise | same | answered `true` at once |
//!
//! Settling writes `agent_settled` (aborted when something waited), answers the
//! `ctx.waitForIdle()` calls, then carries out what waited, in arrival order: `abort` is
//! answered, a replacement goes on and a `compact` starts (their operations, by key).
//!
//! Start-up (`Startup`), before the agent first settles:
//!
//! | state | input | next | what happens |
//! |---|---|---|---|
//! | `Done` | start-up, some extension handles `session_start` | `Handlers` | `session_start` (reason `startup`; route `Startup`); lines wait |
//! | `Done`, `Handlers` | start-up or those handlers done (or the host ended), some extension handles `resources_discover` | `Handlers` | `resources_discover` (reason `startup`; route `StartupDiscover`); lines wait |
//! | `Handlers` | the handlers are done, no `resources_discover` to ask or its handlers answered | `Done` | their skills and prompt templates added; lines are read |

use pi_rpc_protocol::{RequestId, Response};

use super::gates::Gates;
use super::ids::{OpKey, OpRoute};
use crate::actor::State;
use crate::extensions::HostEvent;

/// The `session_start` handlers at start-up.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(in crate::actor) enum Startup {
    /// They run: lines wait.
    Handlers,
    /// Done, or none (the loop starts after start-up was asked for).
    #[default]
    Done,
}

impl Startup {
    /// Lines wait while the start-up handlers run.
    pub(in crate::actor) fn gates(self) -> Gates {
        match self {
            Self::Handlers => Gates::NO_LINES,
            Self::Done => Gates::OPEN,
        }
    }
}

/// What waits for the agent to settle.
#[derive(Debug)]
pub(in crate::actor) enum AfterSettle {
    /// `abort`: answered once settled.
    Abort(Option<RequestId>),
    /// A session replacement's operation, which goes on once settled.
    Operation(OpKey),
    /// A `compact` command's compaction, which starts once settled.
    Compaction(OpKey),
}

/// Where the settling is.
#[derive(Debug)]
enum SettleState {
    /// Nothing waits for the agent to settle.
    Open,
    /// A run was stopped; these wait for `agent_settled`.
    Awaiting(Vec<AfterSettle>),
    /// The `agent_settled` handlers run; these wait for them.
    Handlers(Vec<AfterSettle>),
}

/// The settle operation, owned by the actor's operations.
#[derive(Debug)]
pub(in crate::actor) struct Settle {
    state: SettleState,
    /// `ctx.waitForIdle()` calls (the host's reply ids) waiting for the next settle.
    idle_waiters: Vec<String>,
}

impl Default for Settle {
    fn default() -> Self {
        Self {
            state: SettleState::Open,
            idle_waiters: Vec::new(),
        }
    }
}

impl Settle {
    /// A command that stopped a busy agent waits for it to settle.
    pub(in crate::actor) fn wait_for(&mut self, after: AfterSettle) {
        match &mut self.state {
            SettleState::Open => self.state = SettleState::Awaiting(vec![after]),
            SettleState::Awaiting(waiting) | SettleState::Handlers(waiting) => {
                waiting.push(after);
            }
        }
    }

    /// Whether a command stopped the agent and waits for it to settle (the run was aborted).
    pub(in crate::actor) fn stopped(&self) -> bool {
        match &self.state {
            SettleState::Open => false,
            SettleState::Awaiting(waiting) | SettleState::Handlers(waiting) => !waiting.is_empty(),
        }
    }

    /// Whether an `abort` waits for the agent to settle.
    pub(in crate::actor) fn abort_waiting(&self) -> bool {
        match &self.state {
            SettleState::Open => false,
            SettleState::Awaiting(waiting) | SettleState::Handlers(waiting) => waiting
                .iter()
                .any(|after| matches!(after, AfterSettle::Abort(_))),
        }
    }

    /// At the agent's exit: the `abort` commands waiting for a settle that will not come.
    pub(in crate::actor) fn take_aborts(&mut self) -> Vec<Option<RequestId>> {
        let (SettleState::Awaiting(waiting) | SettleState::Handlers(waiting)) = &mut self.state
        else {
            return Vec::new();
        };
        waiting
            .extract_if(.., |after| matches!(after, AfterSettle::Abort(_)))
            .filter_map(|after| match after {
                AfterSettle::Abort(id) => Some(id),
                _ => None,
            })
            .collect()
    }

    /// Whether the `agent_settled` handlers run.
    pub(in crate::actor) fn in_handlers(&self) -> bool {
        matches!(self.state, SettleState::Handlers(_))
    }

    /// The `agent_settled` handlers started.
    fn handlers_started(&mut self) {
        let waiting = match std::mem::replace(&mut self.state, SettleState::Open) {
            SettleState::Open => Vec::new(),
            SettleState::Awaiting(waiting) | SettleState::Handlers(waiting) => waiting,
        };
        self.state = SettleState::Handlers(waiting);
    }

    /// Settled: what waited, and the idle waiters to answer.
    fn settled(&mut self) -> (Vec<AfterSettle>, Vec<String>) {
        let waiting = match std::mem::replace(&mut self.state, SettleState::Open) {
            SettleState::Open => Vec::new(),
            SettleState::Awaiting(waiting) | SettleState::Handlers(waiting) => waiting,
        };
        (waiting, std::mem::take(&mut self.idle_waiters))
    }

    /// Lines wait while the `agent_settled` handlers run (a command then would act before the
    /// agent settled).
    pub(in crate::actor) fn gates(&self) -> Gates {
        if self.in_handlers() {
            Gates::NO_LINES
        } else {
            Gates::OPEN
        }
    }
}

impl State {
    /// At start-up: `session_start` (reason `startup`) to its handlers, when some extension
    /// has them; lines wait until they are done.
    pub(in crate::actor) fn start_up_handlers(&mut self) {
        let event = HostEvent::SessionStart {
            reason: "startup",
            previous_session_file: None,
        };
        if self.send_op_event(OpRoute::Startup, &event) {
            self.ops.startup = Startup::Handlers;
        } else {
            self.start_up_handlers_done();
        }
    }

    /// The start-up `session_start` handlers are done (or the host ended): the
    /// `resources_discover` handlers are asked, when some extension has them; then lines are
    /// read.
    pub(in crate::actor) fn start_up_handlers_done(&mut self) {
        self.ops.startup = if self.ask_resources_discover(OpRoute::StartupDiscover, "startup") {
            Startup::Handlers
        } else {
            Startup::Done
        };
    }

    /// The start-up `resources_discover` handlers answered (nothing when the host ended):
    /// their skills and prompt templates are added, then lines are read.
    pub(in crate::actor) fn start_up_resources_discovered(
        &mut self,
        found: crate::extensions::DiscoveredResources,
    ) {
        self.add_discovered_resources(&found);
        self.ops.startup = Startup::Done;
    }

    /// The agent is idle and nothing is queued: `agent_settled`, after its handlers when some
    /// extension has them (then [`State::settle`] follows when they are done).
    pub(in crate::actor) fn settle_or_hold(&mut self) {
        if self.send_op_event(OpRoute::Settled, &HostEvent::AgentSettled) {
            self.ops.settle.handlers_started();
            return;
        }
        self.settle();
    }

    /// Emits `agent_settled`, answers the idle waiters, then carries out what waited for it.
    pub(in crate::actor) fn settle(&mut self) {
        let aborted = self.ops.settle.stopped();
        let (waiting, idle_waiters) = self.ops.settle.settled();
        self.emit(self.release.settled(aborted));
        self.settled_for_shutdown();
        for reply in idle_waiters {
            self.reply_to_host(&reply, true);
        }
        for after in waiting {
            match after {
                AfterSettle::Abort(id) => self.write(Response::ok(id, "abort")),
                AfterSettle::Operation(key) => self.resume_after_settle(key),
                AfterSettle::Compaction(key) => self.compaction_after_settle(key),
            }
        }
    }

    /// `ctx.waitForIdle()`: answered at once when the agent is idle, else after its next
    /// `agent_settled` (as in the reference, after the `agent_settled` handlers).
    pub(in crate::actor) fn wait_for_idle(&mut self, reply: String) {
        if self.streaming || self.ops.settle.in_handlers() {
            self.ops.settle.idle_waiters.push(reply);
            return;
        }
        self.reply_to_host(&reply, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(waiting: &[AfterSettle]) -> Vec<String> {
        waiting.iter().map(|after| format!("{after:?}")).collect()
    }

    #[test]
    fn commands_that_stop_the_agent_wait_in_order_and_mark_the_settle_aborted() {
        let mut settle = Settle::default();
        assert!(!settle.stopped());
        settle.wait_for(AfterSettle::Abort(None));
        settle.wait_for(AfterSettle::Operation(OpKey(7)));
        settle.wait_for(AfterSettle::Compaction(OpKey(9)));
        assert!(settle.stopped());
        assert_eq!(
            settle.gates(),
            Gates::OPEN,
            "lines go on while the run stops"
        );
        let (waiting, idle) = settle.settled();
        assert_eq!(
            ids(&waiting),
            ["Abort(None)", "Operation(OpKey(7))", "Compaction(OpKey(9))"]
        );
        assert!(idle.is_empty());
        assert!(!settle.stopped(), "a settle leaves nothing waiting");
    }

    #[test]
    fn agent_settled_handlers_close_lines_and_keep_what_waits() {
        let mut settle = Settle::default();
        settle.wait_for(AfterSettle::Abort(None));
        settle.idle_waiters.push("reply-1".into());
        settle.handlers_started();
        assert!(settle.in_handlers());
        assert!(settle.stopped());
        assert_eq!(settle.gates(), Gates::NO_LINES);
        let (waiting, idle) = settle.settled();
        assert_eq!(ids(&waiting), ["Abort(None)"]);
        assert_eq!(idle, ["reply-1"]);
        assert!(!settle.in_handlers());
        assert_eq!(settle.gates(), Gates::OPEN);
    }

    #[test]
    fn a_plain_settle_is_not_aborted() {
        let mut settle = Settle::default();
        settle.handlers_started();
        assert!(!settle.stopped());
        let (waiting, _) = settle.settled();
        assert!(waiting.is_empty());
    }

    #[test]
    fn start_up_handlers_close_lines_only() {
        assert_eq!(Startup::Handlers.gates(), Gates::NO_LINES);
        assert_eq!(Startup::Done.gates(), Gates::OPEN);
    }
}
