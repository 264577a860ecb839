//! `abort`: stops the run and any retry wait (and, from the release that has it, a compaction
//! in progress: the `compact` command's or an automatic one); answered at once when idle, else
//! after `agent_settled`.

use pi_rpc_protocol::{RequestId, Response};

use crate::actor::State;
use crate::actor::ops::settle::AfterSettle;
use crate::actor::tasks::TaskKind;
use crate::release::Feature;

impl State {
    pub(super) fn abort_command(&mut self, id: Option<RequestId>) {
        // The abort waits for the settle before the compaction is cancelled: a threshold
        // compaction's end settles the run it followed, which answers the abort.
        let answer_now = if self.stop_activity() {
            self.ops.settle.wait_for(AfterSettle::Abort(id));
            None
        } else {
            Some(id)
        };
        if self.release.has(Feature::AbortCancelsCompaction) {
            self.cancel_compaction();
        }
        if let Some(id) = answer_now {
            self.write(Response::ok(id, "abort"));
        }
    }

    /// Cancels the run and any retry wait; true when the agent was busy, so that an answer
    /// must wait for `agent_settled`.
    pub(in crate::actor) fn stop_activity(&mut self) -> bool {
        self.tasks.cancel(TaskKind::RetryWait);
        self.tasks.cancel(TaskKind::AgentLoop);
        self.streaming
    }
}
