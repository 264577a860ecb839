//! Session lifecycle events for extensions: `agent_settled`, `session_shutdown` at the end of
//! input and `model_select`. Each waits for its handlers, as in the reference. (Those of an
//! operation, such as a session replacement, a reload, `bash` or a compaction, are the
//! operation's in `actor/ops/`.)

use pi_rpc_protocol::RequestId;
use serde_json::Value;

use super::{Pending, handles_event, next_message};
use crate::actor::{Actor, State};
use crate::extensions::{HostEvent, HostInput};
use crate::model_resolver::same_model;

impl State {
    /// Sends `agent_settled` to its handlers; true when it waits for them (then
    /// [`State::settle`] follows when they are done).
    pub(in crate::actor) fn hold_settled_for_extensions(&mut self) -> bool {
        handles_event(&self.extensions, "agent_settled")
            && self.send_event(Pending::Settled, &HostEvent::AgentSettled)
    }

    /// Answers `set_model` or `cycle_model` (`source` `set` or `cycle`) after the
    /// `model_select` handlers, when the model changed from `previous`.
    pub(in crate::actor) fn respond_after_model_select<T: serde::Serialize>(
        &mut self,
        id: Option<RequestId>,
        command: &'static str,
        data: &T,
        previous: Option<&pi_rpc_protocol::model::Model>,
        source: &'static str,
    ) {
        if let Some(event) = self.model_select_event(previous, source) {
            let data = serde_json::to_value(data).unwrap_or(Value::Null);
            let pending = Pending::Respond(id.clone(), command, data.clone());
            if self.send_event(pending, &event) {
                return;
            }
        }
        self.respond(id, command, data);
    }

    /// The `model_select` event (`source` `set` or `cycle`) when the model changed from
    /// `previous` and some extension handles it.
    pub(in crate::actor) fn model_select_event(
        &self,
        previous: Option<&pi_rpc_protocol::model::Model>,
        source: &'static str,
    ) -> Option<HostEvent<'static>> {
        let model = self.model.as_ref()?;
        let changed = previous.is_none_or(|previous| !same_model(previous, model));
        if !changed || !handles_event(&self.extensions, "model_select") {
            return None;
        }
        Some(HostEvent::ModelSelect {
            model: Box::new(model.clone()),
            previous_model: previous.cloned().map(Box::new),
            source,
        })
    }
}

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
