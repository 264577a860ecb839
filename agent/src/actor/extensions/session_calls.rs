//! What extensions change in the session itself: `pi.setSessionName` (a `session_info` entry,
//! announced by `session_info_changed`, as the `set_session_name` command does),
//! `pi.setLabel` (a `label` entry, announced by nothing, as in the reference), and a context's
//! `ctx.shutdown()`.
//!
//! `ctx.shutdown()` in the reference's RPC mode sets a flag it looks at each time it has handled
//! a client command (for a `prompt` running an extension command: right after the synchronous
//! part of its handler) and each time it has written `agent_settled`: it then exits (`session_shutdown` handlers, reason `quit`), the
//! command's answer coming after those handlers start.
//!
//! | state | input | next | what happens |
//! |---|---|---|---|
//! | `None` | asked for by a command's handler, synchronously | `InCommand(None)` | |
//! | `None` | asked for otherwise (a tool, a handler, later in a command) | `Requested` | |
//! | `Requested` | a client line handled, an extension command running | `InCommand(None)` | |
//! | `Requested` | a client line handled, none running | `Due` | |
//! | `Requested` | `agent_settled` written | `Due` | |
//! | `InCommand(None)` | the extension command answered | `InCommand(Some(answer))` | held; the loop ends |
//! | `Due` / `InCommand(Some(_))` | (the loop ends, as at the end of input) | | `session_shutdown`, then the held answer |

use pi_rpc_protocol::RequestId;
use pi_rpc_protocol::event::{Event, SessionInfoChangedEvent};

use super::State;
use crate::actor::log_store_error;
use crate::release::Disposition;

/// Where a `ctx.shutdown()` request is.
#[derive(Debug, Default, Clone, PartialEq)]
pub(in crate::actor) enum Shutdown {
    /// None asked for.
    #[default]
    None,
    /// Asked for: the agent exits after the next client command.
    Requested,
    /// The agent exits with the running extension command: its answer (`Some` once given) is
    /// written after the `session_shutdown` handlers.
    InCommand(Option<Option<RequestId>>),
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

    /// `ctx.shutdown()` from the host (`during_command`: from a command handler's synchronous
    /// part).
    pub(in crate::actor) fn request_shutdown(&mut self, during_command: bool) {
        if self.shutdown != Shutdown::None {
            return;
        }
        self.shutdown = if during_command && self.ops.commands.running() {
            Shutdown::InCommand(None)
        } else {
            Shutdown::Requested
        };
    }

    /// A client line has been handled: a requested shutdown is due now, or with the extension
    /// command the line started.
    pub(in crate::actor) fn command_handled(&mut self) {
        if self.shutdown == Shutdown::Requested {
            self.shutdown = if self.ops.commands.running() {
                Shutdown::InCommand(None)
            } else {
                Shutdown::Due
            };
        }
    }

    /// `agent_settled` is written: a requested shutdown is due.
    pub(in crate::actor) fn settled_for_shutdown(&mut self) {
        if self.shutdown == Shutdown::Requested {
            self.shutdown = Shutdown::Due;
        }
    }

    /// An extension command's answer (`id`): kept for after the `session_shutdown` handlers when
    /// the agent exits with that command (true), else to be written now.
    pub(in crate::actor) fn hold_answer_for_shutdown(&mut self, id: &Option<RequestId>) -> bool {
        if self.shutdown != Shutdown::InCommand(None) {
            return false;
        }
        self.shutdown = Shutdown::InCommand(Some(id.clone()));
        true
    }

    /// Whether the agent is to exit now, as `ctx.shutdown()` asked.
    pub(in crate::actor) fn shutdown_due(&self) -> bool {
        matches!(self.shutdown, Shutdown::Due | Shutdown::InCommand(Some(_)))
    }

    /// At the exit `ctx.shutdown()` asked for, after the `session_shutdown` handlers: the
    /// answer of the command it came with.
    pub(in crate::actor) fn write_answer_held_for_shutdown(&mut self) {
        if let Shutdown::InCommand(Some(id)) = std::mem::take(&mut self.shutdown) {
            let answer = self.release.accepted(id, "prompt", Disposition::Handled);
            self.write(answer);
        }
    }
}
