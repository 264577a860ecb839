//! Session lifecycle events for extensions: `agent_settled`, `session_shutdown` and
//! `session_start` around session replacements and at the end of input, and `session_compact`
//! after a compaction is saved. Each waits for its handlers, as in the reference.

use pi_rpc_protocol::response::BashResult;
use pi_rpc_protocol::{RequestId, Response};
use serde_json::Value;

use super::{AfterReload, Pending, Session, handles_event, next_message};
use crate::extensions::{
    HostEvent, HostInput, RegisteredCommand, RegisteredTool, ReplyValue, UserBashResult,
};
use crate::model_resolver::same_model;
use crate::rpc::session::replace::ReplaceError;
use crate::rpc::session::waiting::{AfterShutdown, CompactionEnd, Replacement};

/// A replacement session made before the old session's `session_shutdown` handlers run.
#[derive(Debug)]
pub(in crate::rpc::session) struct PreparedSession {
    /// The new session.
    pub(in crate::rpc::session) store: crate::session::SessionStore,
    /// A fork's text (of the user message forked before).
    pub(in crate::rpc::session) fork_text: Option<String>,
}

impl Session {
    /// Sends `agent_settled` to its handlers; true when it waits for them (then
    /// [`Session::settle`] follows when they are done).
    pub(in crate::rpc::session) async fn hold_settled_for_extensions(&mut self) -> bool {
        handles_event(&self.extensions, "agent_settled")
            && self
                .send_event(Pending::Settled, &HostEvent::AgentSettled)
                .await
    }

    /// Before a session replacement, while a run may still stream: the
    /// `session_before_switch` / `session_before_fork` handlers, which may cancel it. `None`
    /// when it waits for them (it then goes on as `then`); else `then` back.
    pub(in crate::rpc::session) async fn before_replace_handlers(
        &mut self,
        then: AfterShutdown,
    ) -> Option<AfterShutdown> {
        let before = self.before_replace_event(&then);
        if handles_event(&self.extensions, before.kind())
            && self
                .send_event(Pending::BeforeReplace(then.clone()), &before)
                .await
        {
            return None;
        }
        Some(then)
    }

    /// Answers a replacement that cannot be made: to the extension host when a command's
    /// `ctx` asked for it (the call rejects), else to the client.
    pub(in crate::rpc::session) async fn refuse_replacement(
        &mut self,
        then: AfterShutdown,
        error: String,
    ) {
        let reply = self
            .extensions
            .as_mut()
            .and_then(|ext| ext.command_replacement.take());
        match reply {
            Some(reply) => {
                self.reply_value_to_host(&reply, &ReplyValue::Error { error })
                    .await;
            }
            None => {
                let command = then.command();
                self.write(&Response::error(then.id(), Some(command), error))
                    .await;
            }
        }
    }

    /// Before a session replacement is carried out: the `session_shutdown` handlers (with
    /// `reason`). True when the replacement waits for them; it is then carried out again, as
    /// `then`.
    pub(in crate::rpc::session) async fn shutdown_for_extensions(
        &mut self,
        then: AfterShutdown,
        reason: &str,
    ) -> bool {
        let Some(ext) = &mut self.extensions else {
            return false;
        };
        if std::mem::take(&mut ext.shut_down) {
            return false;
        }
        if !handles_event(&self.extensions, "session_shutdown") {
            return false;
        }
        // As in the reference, the new session is made (and a fork that cannot be made fails)
        // before the old one shuts down, whose handlers are told the new session's file.
        let prepared = match self.prepare_replacement(&then) {
            Ok(prepared) => prepared,
            Err(error) => {
                self.refuse_replacement(then, error.to_string()).await;
                return true;
            }
        };
        let event = HostEvent::SessionShutdown {
            reason,
            target_session_file: prepared
                .store
                .session_file()
                .map(|file| file.display().to_string()),
        };
        if let Some(ext) = &mut self.extensions {
            ext.prepared = Some(prepared);
        }
        self.send_event(Pending::Shutdown(then), &event).await
    }

    /// The session that replaces the current one, made as `then` says (the current one stays
    /// until the replacement is carried out).
    fn prepare_replacement(&self, then: &AfterShutdown) -> Result<PreparedSession, ReplaceError> {
        let mut store = self.store.clone();
        let mut fork_text = None;
        match then {
            AfterShutdown::NewSession(_, parent) => {
                store.new_session(parent.as_deref());
            }
            AfterShutdown::Replace(_, Replacement::Switch(path)) => {
                store = self.open_session_file(path)?;
            }
            AfterShutdown::Replace(_, Replacement::Fork(entry_id)) => {
                fork_text = store.fork(entry_id)?;
            }
            AfterShutdown::Replace(_, Replacement::Clone) => {
                store.clone_at_leaf()?;
            }
        }
        Ok(PreparedSession { store, fork_text })
    }

    /// The replacement session made before `session_shutdown`, if any.
    pub(in crate::rpc::session) fn take_prepared_session(&mut self) -> Option<PreparedSession> {
        self.extensions.as_mut().and_then(|ext| ext.prepared.take())
    }

    /// `session_before_switch` (`new`, `resume` with the target file) or
    /// `session_before_fork` (the entry, and whether the fork is before it or at it).
    fn before_replace_event(&self, then: &AfterShutdown) -> HostEvent<'static> {
        match then {
            AfterShutdown::NewSession(..) => HostEvent::SessionBeforeSwitch {
                reason: "new",
                target_session_file: None,
            },
            AfterShutdown::Replace(_, Replacement::Switch(path)) => {
                HostEvent::SessionBeforeSwitch {
                    reason: "resume",
                    target_session_file: Some(self.config.cwd.join(path).display().to_string()),
                }
            }
            AfterShutdown::Replace(_, Replacement::Fork(entry_id)) => {
                HostEvent::SessionBeforeFork {
                    entry_id: Some(entry_id.clone()),
                    position: "before",
                }
            }
            AfterShutdown::Replace(_, Replacement::Clone) => HostEvent::SessionBeforeFork {
                entry_id: self.store.leaf_id().map(str::to_owned),
                position: "at",
            },
        }
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

    /// Answers a session replacement after the extensions are loaded afresh and their
    /// `session_start` handlers ran (with `reason` and the session file left, if any).
    pub(in crate::rpc::session) async fn respond_replaced<T: serde::Serialize>(
        &mut self,
        id: Option<RequestId>,
        command: &'static str,
        data: &T,
        reason: &'static str,
        previous: Option<std::path::PathBuf>,
    ) {
        let after = Box::new(AfterReload {
            id,
            command,
            data: serde_json::to_value(data).unwrap_or(Value::Null),
            reason,
            previous: previous.map(|previous| previous.display().to_string()),
            // A command's replacement emits it once; the `new_session` command twice.
            again: if self
                .extensions
                .as_ref()
                .is_some_and(|ext| ext.command_replacement.is_some())
            {
                1
            } else {
                2
            },
        });
        if let Some(ext) = self.extensions.as_mut().filter(|ext| !ext.gone) {
            // What the old instances left for their session goes with it.
            ext.next_turn.clear();
            ext.after_command.clear();
            ext.system_prompt = None;
            match ext.host.reload().await {
                Ok(()) => {
                    ext.reloading = Some(after);
                    return;
                }
                Err(error) => tracing::error!(%error, "cannot reload the extensions"),
            }
        }
        self.start_replaced(after).await;
    }

    /// The extensions are loaded afresh (`Loaded` from the host): the replacement goes on.
    pub(in crate::rpc::session) async fn reloaded(
        &mut self,
        commands: Vec<RegisteredCommand>,
        tools: &[RegisteredTool],
        events: Vec<String>,
        error: Option<String>,
    ) {
        let Some(ext) = &mut self.extensions else {
            return;
        };
        let Some(after) = ext.reloading.take() else {
            tracing::warn!("the extension host reported loading unasked");
            return;
        };
        if let Some(error) = error {
            tracing::error!(%error, "the extensions failed to load again");
        }
        ext.host.loaded(commands, tools, events);
        self.reset_active_tools();
        self.send_tools_state().await;
        self.send_model_state_with(true).await;
        self.start_replaced(after).await;
    }

    /// Emits `session_start` to the new instances (as often as `after` says), then answers
    /// the replacement.
    pub(in crate::rpc::session) async fn start_replaced(&mut self, mut after: Box<AfterReload>) {
        if after.again > 0
            && handles_event(&self.extensions, "session_start")
            && let Some(ext) = self.extensions.as_mut()
        {
            after.again -= 1;
            let event = HostEvent::SessionStart {
                reason: after.reason,
                previous_session_file: after.previous.clone(),
            };
            match ext.host.emit(&event).await {
                Ok(id) => {
                    ext.pending.insert(id, Pending::Started(after));
                    return;
                }
                Err(error) => tracing::error!(%error, "cannot send an event to the extension host"),
            }
        }
        if let Some(reply) = self
            .extensions
            .as_mut()
            .and_then(|ext| ext.command_replacement.take())
        {
            // A command's `ctx.newSession()` resolves with the answer instead.
            self.reply_value_to_host(&reply, &ReplyValue::Data(after.data))
                .await;
            return;
        }
        self.respond(after.id, after.command, &after.data).await;
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
