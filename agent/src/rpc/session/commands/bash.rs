//! `abort_bash`. The `bash` command's entry point, `user_bash`, asks the extensions' `user_bash`
//! handlers first (`rpc/session/extensions/lifecycle.rs`); `rpc/session/bash.rs` runs it.

use pi_rpc_protocol::{RequestId, Response};

use crate::rpc::session::Session;

impl Session {
    pub(super) async fn abort_bash_command(&mut self, id: Option<RequestId>) {
        self.abort_bash();
        self.write(&Response::ok(id, "abort_bash")).await;
    }
}
