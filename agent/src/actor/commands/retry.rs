//! Automatic retries: `abort_retry` (ends the wait before the next attempt) and
//! `set_auto_retry`.

use pi_rpc_protocol::command::SetEnabledCommand;
use pi_rpc_protocol::{RequestId, Response};

use crate::actor::State;

impl State {
    pub(super) fn abort_retry_command(&mut self, id: Option<RequestId>) {
        // As in the reference, the retry ends before the answer and the agent settles after it.
        let waiting = self.cancel_retry_wait();
        self.write(Response::ok(id, "abort_retry"));
        if waiting {
            self.continue_or_settle();
        }
    }

    pub(super) fn set_auto_retry_command(&mut self, id: Option<RequestId>, set: SetEnabledCommand) {
        self.config.settings.set_retry_enabled(set.enabled);
        self.write(Response::ok(id, "set_auto_retry"));
    }
}
