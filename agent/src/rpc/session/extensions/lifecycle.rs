//! Session lifecycle events for extensions: `agent_settled`, `session_shutdown` at the end of
//! input, `session_compact` after a compaction is saved, `model_select` and `user_bash`. Each
//! waits for its handlers, as in the reference. (Those around a session replacement or reload
//! are the operations' in `rpc/session/ops/`.)

use pi_rpc_protocol::RequestId;
use pi_rpc_protocol::response::BashResult;
use serde_json::Value;

use super::{Pending, Session, handles_event, next_message};
use crate::extensions::{HostEvent, HostInput, UserBashResult};
use crate::model_resolver::same_model;
use crate::rpc::session::waiting::CompactionEnd;

impl Session {
    /// Sends `agent_settled` to its handlers; true when it waits for them (then
    /// [`Session::settle`] follows when they are done).
    pub(in crate::rpc::session) async fn hold_settled_for_extensions(&mut self) -> bool {
        handles_event(&self.extensions, "agent_settled")
            && self
                .send_event(Pending::Settled, &HostEvent::AgentSettled)
                .await
    }

    /// At the end of input: runs the `session_shutdown` handlers (reason `quit`) and writes
    /// what they send, until they are done or the host is gone.
    pub(in crate::rpc::session) async fn shutdown_extensions_at_exit(&mut self) {
        if self.output_closed || !handles_event(&self.extensions, "session_shutdown") {
            return;
        }
        let Some(ext) = &mut self.extensions else {
            return;
        };
        let event = HostEvent::SessionShutdown {
            reason: "quit",
            target_session_file: None,
        };
        let Ok(id) = ext.host.emit(&event).await else {
            return;
        };
        loop {
            match next_message(&mut self.extensions).await {
                Some(HostInput::Reply(done, _)) if done == id => return,
                None => return,
                input => self.on_host_input(input).await,
            }
        }
    }

    /// Sends `session_compact` (the saved `entry`) to its handlers; the compaction's end is
    /// handed back when nothing waits for them.
    pub(in crate::rpc::session) async fn hold_compacted_for_extensions(
        &mut self,
        entry: Value,
        from_extension: bool,
        end: CompactionEnd,
    ) -> Option<CompactionEnd> {
        if !handles_event(&self.extensions, "session_compact") {
            return Some(end);
        }
        let event = HostEvent::SessionCompact {
            compaction_entry: &entry,
            from_extension,
            reason: end.reason,
            will_retry: end.will_retry,
        };
        let Some(ext) = self.extensions.as_mut() else {
            return Some(end);
        };
        match ext.host.emit(&event).await {
            Ok(id) => {
                ext.pending.insert(id, Pending::Compacted(Box::new(end)));
                None
            }
            Err(error) => {
                tracing::error!(%error, "cannot send an event to the extension host");
                Some(end)
            }
        }
    }

    /// Answers `set_model` or `cycle_model` (`source` `set` or `cycle`) after the
    /// `model_select` handlers, when the model changed from `previous`.
    pub(in crate::rpc::session) async fn respond_after_model_select<T: serde::Serialize>(
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
            if self.send_event(pending, &event).await {
                return;
            }
        }
        self.respond(id, command, data).await;
    }

    /// The `model_select` event (`source` `set` or `cycle`) when the model changed from
    /// `previous` and some extension handles it.
    pub(in crate::rpc::session) fn model_select_event(
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

    /// The `bash` command: its `user_bash` handlers first, when there are some.
    pub(in crate::rpc::session) async fn user_bash(
        &mut self,
        id: Option<RequestId>,
        bash: pi_rpc_protocol::command::BashCommand,
    ) {
        if handles_event(&self.extensions, "user_bash") {
            let event = HostEvent::UserBash {
                command: &bash.command,
                exclude_from_context: bash.exclude_from_context.unwrap_or(false),
                cwd: self.config.cwd.display().to_string(),
            };
            let pending = Pending::UserBash(id.clone(), bash.clone());
            if self.send_event(pending, &event).await {
                return;
            }
        }
        self.start_bash(id, bash);
    }

    /// A handler's `result` answers the command (and is recorded as the command's run); else
    /// the command runs, through the handler's `operations` when it gave some.
    pub(super) async fn after_user_bash(
        &mut self,
        id: Option<RequestId>,
        bash: pi_rpc_protocol::command::BashCommand,
        result: UserBashResult,
    ) {
        let Some(answer) = result.result else {
            self.start_bash_with(id, bash, result.operations);
            return;
        };
        match serde_json::from_value::<BashResult>(answer.clone()) {
            Ok(recorded) => {
                self.record_bash(bash.command, &recorded, bash.exclude_from_context);
            }
            Err(error) => tracing::warn!(%error, "a user_bash result that cannot be recorded"),
        }
        self.respond(id, "bash", &answer).await;
    }
}
