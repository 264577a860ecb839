//! The session itself: `new_session`, `switch_session`, `fork` and `clone` (each a
//! replacement operation, `actor/ops/replacement.rs`), and `set_session_name`.

use pi_rpc_protocol::command::{
    ForkCommand, NewSessionCommand, SetSessionNameCommand, SwitchSessionCommand,
};
use pi_rpc_protocol::event::{Event, SessionInfoChangedEvent};
use pi_rpc_protocol::{RequestId, Response};

use crate::actor::ops::ids::Answer;
use crate::actor::waiting::Target;
use crate::actor::{State, log_store_error};

impl State {
    pub(super) fn new_session_command(
        &mut self,
        id: Option<RequestId>,
        new_session: NewSessionCommand,
    ) {
        let target = Target::New(new_session.parent_session);
        self.request_replacement(id, target);
    }

    pub(super) fn switch_session_command(
        &mut self,
        id: Option<RequestId>,
        switch: SwitchSessionCommand,
    ) {
        self.request_replacement(id, Target::Switch(switch.session_path));
    }

    pub(super) fn fork_command(&mut self, id: Option<RequestId>, fork: ForkCommand) {
        self.request_replacement(id, Target::Fork(fork.entry_id));
    }

    pub(super) fn clone_command(&mut self, id: Option<RequestId>) {
        self.request_replacement(id, Target::Clone);
    }

    /// `new_session`, `switch_session`, `fork` or `clone` from the client.
    fn request_replacement(&mut self, id: Option<RequestId>, target: Target) {
        if matches!(target, Target::Clone) && self.store.leaf_id().is_none() {
            let message = "Cannot clone session: no current entry selected";
            self.write(Response::error(id, Some("clone"), message));
            return;
        }
        let answer = Answer::Client(id, target.command());
        self.begin_replacement(answer, target);
    }

    pub(super) fn set_session_name_command(
        &mut self,
        id: Option<RequestId>,
        set: SetSessionNameCommand,
    ) {
        let kind = "set_session_name";
        let name = crate::store::sanitize_name(&set.name);
        let name = name.as_str();
        if name.is_empty() {
            let response = Response::error(id, Some(kind), "Session name cannot be empty");
            self.write(response);
            return;
        }
        self.session_name = Some(name.to_owned());
        log_store_error(self.store.append_session_info(name));
        let event = Event::SessionInfoChanged(SessionInfoChangedEvent {
            name: Some(name.to_owned()),
        });
        self.emit(event);
        self.answer_after_session_info_changed(id);
    }
}
