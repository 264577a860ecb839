//! How the actor's loop ends: at a termination signal, or when the input ends. An `abort` read
//! before the input ended is carried out first: the client reads its run's `agent_end`,
//! `agent_settled` and the abort's answer, then the agent exits (within [`ABORT_AT_INPUT_END`]).
//! What is still in hand at the exit is answered ([`State::answer_commands_in_hand`]).

use std::time::Duration;

use pi_rpc_protocol::Response;
use tokio::time::Instant;

use super::State;

/// How long an `abort` that came before the end of the input may take to wind the run down
/// (a killed tool's process that keeps its pipes open holds it).
pub(super) const ABORT_AT_INPUT_END: Duration = Duration::from_secs(5);

/// Where the input is.
#[derive(Debug, Default)]
pub(super) struct InputEnd {
    /// Since it ended with an `abort` in hand: until when the abort may take.
    deadline: Option<Instant>,
}

impl InputEnd {
    /// Whether lines are still read.
    pub(super) fn open(&self) -> bool {
        self.deadline.is_none()
    }

    /// The input ended: true when the loop ends now, false when an abort winds down a run
    /// first. An abort that waits for a compaction (before 0.85.0 it does not reach one) is
    /// answered at the exit, the compaction dropped, as the reference does.
    pub(super) fn ended(&mut self, state: &State) -> bool {
        if state.ops.settle.abort_waiting() && !state.ops.compaction.is_active() {
            self.deadline = Some(Instant::now() + ABORT_AT_INPUT_END);
            false
        } else {
            true
        }
    }

    /// Whether the loop ends: the input ended and no abort is left to answer.
    pub(super) fn over(&self, state: &State) -> bool {
        self.deadline.is_some() && !state.ops.settle.abort_waiting()
    }

    /// Until when an abort may wind down, once the input ended.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }
}

/// Resolves at `deadline` (never without one).
pub(super) async fn expired(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// Resolves once a termination signal arrived (never without a receiver).
pub(super) async fn terminated(termination: &mut Option<tokio::sync::watch::Receiver<bool>>) {
    match termination {
        Some(receiver) => {
            if receiver.wait_for(|terminated| *terminated).await.is_err() {
                // The sender is gone without a signal: nothing will come.
                std::future::pending::<()>().await;
            }
        }
        None => std::future::pending().await,
    }
}

impl State {
    /// At the exit, however the agent ends: a `compact` command in flight fails with
    /// `Compaction cancelled` (no `compaction_end`: its summary is dropped), and an `abort`
    /// that waited for the run to settle is answered, as the reference answers both when its
    /// runtime is disposed at stdin's end.
    pub(super) fn answer_commands_in_hand(&mut self) {
        for (id, command) in self.ops.compaction.take_client_commands() {
            let cancelled = crate::compaction::summarize::SummaryError::Cancelled;
            self.write(Response::error(id, Some(command), cancelled.to_string()));
        }
        for id in self.ops.settle.take_aborts() {
            self.write(Response::ok(id, "abort"));
        }
    }
}
