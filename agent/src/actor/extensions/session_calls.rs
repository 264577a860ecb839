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
        let running = self.ops.commands.running();
        self.shutdown.asked(during_command && running);
    }

    /// A client line has been handled: a requested shutdown is due now, or with the extension
    /// command the line started.
    pub(in crate::actor) fn command_handled(&mut self) {
        let running = self.ops.commands.running();
        self.shutdown.line_handled(running);
    }

    /// `agent_settled` is written: a requested shutdown is due.
    pub(in crate::actor) fn settled_for_shutdown(&mut self) {
        self.shutdown.settled();
    }

    /// An extension command's answer (`id`): kept for after the `session_shutdown` handlers when
    /// the agent exits with that command (true), else to be written now.
    pub(in crate::actor) fn hold_answer_for_shutdown(&mut self, id: &Option<RequestId>) -> bool {
        self.shutdown.hold(id)
    }

    /// Whether the agent is to exit now, as `ctx.shutdown()` asked.
    pub(in crate::actor) fn shutdown_due(&self) -> bool {
        self.shutdown.due()
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

impl Shutdown {
    /// Asked for (`with_command`: by the running command's handler, synchronously); once only.
    fn asked(&mut self, with_command: bool) {
        if *self == Self::None {
            *self = if with_command {
                Self::InCommand(None)
            } else {
                Self::Requested
            };
        }
    }

    /// A client line was handled (`command_running`: an extension command runs now).
    fn line_handled(&mut self, command_running: bool) {
        if *self == Self::Requested {
            *self = if command_running {
                Self::InCommand(None)
            } else {
                Self::Due
            };
        }
    }

    /// `agent_settled` was written.
    fn settled(&mut self) {
        if *self == Self::Requested {
            *self = Self::Due;
        }
    }

    /// The running command's answer: kept when the agent exits with it.
    fn hold(&mut self, id: &Option<RequestId>) -> bool {
        if *self != Self::InCommand(None) {
            return false;
        }
        *self = Self::InCommand(Some(id.clone()));
        true
    }

    fn due(&self) -> bool {
        matches!(self, Self::Due | Self::InCommand(Some(_)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(text: &str) -> Option<RequestId> {
        Some(RequestId::String(text.to_owned()))
    }

    #[test]
    fn a_command_that_asks_at_once_ends_the_agent_with_its_answer_held() {
        let mut shutdown = Shutdown::None;
        shutdown.asked(true);
        assert!(!shutdown.due(), "not before the command is answered");
        shutdown.line_handled(false);
        shutdown.settled();
        assert!(!shutdown.due(), "the command's own answer ends it");
        assert!(shutdown.hold(&id("q")));
        assert!(shutdown.due());
        assert_eq!(shutdown, Shutdown::InCommand(Some(id("q"))));
        assert!(!shutdown.hold(&id("other")), "one answer only");
    }

    #[test]
    fn a_request_from_elsewhere_waits_for_the_next_command_or_agent_settled() {
        let mut shutdown = Shutdown::None;
        shutdown.asked(false);
        assert!(!shutdown.due());
        assert!(
            !shutdown.hold(&id("q")),
            "an answer before the next line is written"
        );
        shutdown.line_handled(false);
        assert!(shutdown.due());

        let mut settled = Shutdown::None;
        settled.asked(false);
        settled.settled();
        assert!(settled.due());
    }

    #[test]
    fn the_next_line_running_a_command_ends_the_agent_with_that_command() {
        let mut shutdown = Shutdown::None;
        shutdown.asked(false);
        shutdown.line_handled(true);
        assert!(!shutdown.due());
        assert!(shutdown.hold(&id("c")));
        assert!(shutdown.due());
    }

    #[test]
    fn only_the_first_request_counts() {
        let mut shutdown = Shutdown::None;
        shutdown.asked(false);
        shutdown.asked(true);
        assert_eq!(shutdown, Shutdown::Requested);
    }
}
