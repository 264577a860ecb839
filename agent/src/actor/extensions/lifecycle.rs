//! The end of the session for extensions: `session_shutdown` at the end of input, whose
//! handlers run before the agent exits, as in the reference. (The lifecycle events an
//! operation waits for, such as `session_start`, `agent_settled`, `model_select` or those of a
//! session replacement, a reload, `bash` or a compaction, are the operation's, in
//! `actor/ops/`.)

use super::{handles_event, next_message};
use crate::actor::Actor;
use crate::extensions::{HostEvent, HostInput};

impl Actor {
    /// At the end of input: runs the `session_shutdown` handlers (reason `quit`) and writes
    /// what they send, until they are done or the host is gone.
    pub(in crate::actor) async fn shutdown_extensions_at_exit(&mut self) {
        if self.output.is_closed() || !handles_event(&self.state.extensions, "session_shutdown") {
            return;
        }
        let Some(ext) = &mut self.state.extensions else {
            return;
        };
        let event = HostEvent::SessionShutdown {
            reason: "quit",
            target_session_file: None,
        };
        let Ok((id, line)) = ext.host.emit(&event) else {
            return;
        };
        if ext.host.send(line).await.is_err() {
            return;
        }
        loop {
            match next_message(&mut self.state.extensions).await {
                Some(HostInput::Reply(done, _)) if done == id => return,
                None => return,
                input => {
                    self.state.on_host_input(input);
                    self.flush().await;
                }
            }
        }
    }
}
