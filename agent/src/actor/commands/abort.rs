//! `abort`: stops the run and any retry wait (and, from the release that has it, a `compact`
//! command's compaction); answered at once when idle, else after `agent_settled`.

use pi_rpc_protocol::{RequestId, Response};

use crate::actor::State;
use crate::actor::ops::settle::AfterSettle;
use crate::actor::tasks::TaskKind;
use crate::release::Feature;

impl State {
    pub(super) fn abort_command(&mut self, id: Option<RequestId>) {
        if self.release.has(Feature::AbortCancelsCompaction) {
            self.cancel_manual_compaction();
        }
        if self.stop_activity() {
            self.ops.settle.wait_for(AfterSettle::Abort(id));
        } else {
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
