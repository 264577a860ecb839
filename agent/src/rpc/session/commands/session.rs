//! The session itself: `new_session`, `switch_session`, `fork` and `clone` (carried out by
//! `rpc/session/replace.rs` once the extensions' `session_before_*` handlers and a run in
//! progress allow), and `set_session_name`.

use pi_rpc_protocol::command::{
    ForkCommand, NewSessionCommand, SetSessionNameCommand, SwitchSessionCommand,
};
use pi_rpc_protocol::event::{Event, SessionInfoChangedEvent};
use pi_rpc_protocol::{RequestId, Response};

use crate::rpc::session::waiting::{AfterShutdown, Replacement};
use crate::rpc::session::{Session, log_store_error};

impl Session {
    pub(super) async fn new_session_command(
        &mut self,
        id: Option<RequestId>,
        new_session: NewSessionCommand,
    ) {
        let then = AfterShutdown::NewSession(id, new_session.parent_session);
        self.begin_replacement(then).await;
    }

    pub(super) async fn switch_session_command(
        &mut self,
        id: Option<RequestId>,
        switch: SwitchSessionCommand,
    ) {
        let replacement = Replacement::Switch(switch.session_path);
        self.request_replacement(id, replacement).await;
    }

    pub(super) async fn fork_command(&mut self, id: Option<RequestId>, fork: ForkCommand) {
        let replacement = Replacement::Fork(fork.entry_id);
        self.request_replacement(id, replacement).await;
    }

    pub(super) async fn clone_command(&mut self, id: Option<RequestId>) {
        self.request_replacement(id, Replacement::Clone).await;
    }

    /// `switch_session`, `fork` or `clone` from the client.
    async fn request_replacement(&mut self, id: Option<RequestId>, replacement: Replacement) {
        if matches!(replacement, Replacement::Clone) && self.store.leaf_id().is_none() {
            let message = "Cannot clone session: no current entry selected";
            self.write(&Response::error(id, Some("clone"), message))
                .await;
            return;
        }
        self.begin_replacement(AfterShutdown::Replace(id, replacement))
            .await;
    }

    pub(super) async fn set_session_name_command(
        &mut self,
        id: Option<RequestId>,
        set: SetSessionNameCommand,
    ) {
        let kind = "set_session_name";
        let name = crate::session::sanitize_name(&set.name);
        let name = name.as_str();
        if name.is_empty() {
            let response = Response::error(id, Some(kind), "Session name cannot be empty");
            self.write(&response).await;
            return;
        }
        self.session_name = Some(name.to_owned());
        log_store_error(self.store.append_session_info(name));
        let event = Event::SessionInfoChanged(SessionInfoChangedEvent {
            name: Some(name.to_owned()),
        });
        self.emit(event).await;
        self.write(&Response::ok(id, kind)).await;
    }
}
