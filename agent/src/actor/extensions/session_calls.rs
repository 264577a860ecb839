//! What extensions change in the session itself: `pi.setSessionName` (a `session_info` entry,
//! announced by `session_info_changed`, as the `set_session_name` command does),
//! `pi.setLabel` (a `label` entry, announced by nothing, as in the reference), and a context's
//! `ctx.shutdown()`.
//!
//! `ctx.shutdown()` in the reference's RPC mode sets a flag that is looked at each time a
//! client command has been handled: the agent exits (`session_shutdown`, reason `quit`) then.
//!
//! | state | input | next |
//! |---|---|---|
//! | `None` | the host asks for it | `Requested` |
//! | `Requested` | a client line handled, no extension command running | `Due` |
//! | `Requested` | an extension command answered | `Due` |
//! | `Due` | (the loop ends, as at the end of input) | |
//!
//! A command's `/quit` asks during that command, so the agent exits once it is answered; a
//! tool or an event handler asks during a run, and the agent exits after the next command.

use pi_rpc_protocol::event::{Event, SessionInfoChangedEvent};

use super::State;
use crate::actor::log_store_error;

/// Where a `ctx.shutdown()` request is.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(in crate::actor) enum Shutdown {
    /// None asked for.
    #[default]
    None,
    /// Asked for: the agent exits once a client command has been handled.
    Requested,
    /// The agent exits now.
    Due,
}

impl State {
    /// `pi.setSessionName(name)`: as the reference, any name (empty clears it).
    pub(in crate::actor) fn extension_set_session_name(&mut self, name: &str) {
        log_store_error(self.store.append_session_info(name));
        self.session_name = self.store.session_name();
        let event = Event::SessionInfoChanged(SessionInfoChangedEvent {
            name: self.session_name.clone(),
        });
        self.emit(event);
    }

    /// `pi.setLabel(entryId, label)`: the host checked that the entry exists in its mirror.
    pub(in crate::actor) fn extension_set_label(&mut self, target_id: &str, label: Option<&str>) {
        log_store_error(self.store.append_label_change(target_id, label));
    }

    /// `ctx.shutdown()` from the host.
    pub(in crate::actor) fn request_shutdown(&mut self) {
        if self.shutdown == Shutdown::None {
            self.shutdown = Shutdown::Requested;
        }
    }

    /// A client command has been handled (`answered`: an extension command's answer was
    /// written; else a client line was handled): a requested shutdown is due, unless an
    /// extension command still runs for the line.
    pub(in crate::actor) fn command_handled(&mut self, answered: bool) {
        if self.shutdown == Shutdown::Requested && (answered || !self.ops.commands.running()) {
            self.shutdown = Shutdown::Due;
        }
    }

    /// Whether the agent is to exit now, as `ctx.shutdown()` asked.
    pub(in crate::actor) fn shutdown_due(&self) -> bool {
        self.shutdown == Shutdown::Due
    }
}
