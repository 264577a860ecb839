//! `abort_bash`. The `bash` command's entry point, `user_bash`, is its operation's
//! (`actor/ops/bash.rs`).

use pi_rpc_protocol::{RequestId, Response};

use crate::actor::State;

impl State {
    pub(super) fn abort_bash_command(&mut self, id: Option<RequestId>) {
        self.abort_bash();
        self.write(Response::ok(id, "abort_bash"));
    }
}
