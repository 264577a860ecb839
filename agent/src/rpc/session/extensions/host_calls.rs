//! What the extension host asks of the session: the model's state for `ctx.model`,
//! `ctx.modelRegistry` and `pi.getThinkingLevel` (sent at start-up, after a reload and after
//! every change of model or level); `pi.setModel` and `pi.setThinkingLevel`, which change the
//! session as the `set_model` / `set_thinking_level` commands do; and a command's
//! `ctx.waitForIdle()`, `ctx.newSession()`, `ctx.switchSession()`, `ctx.fork()` and
//! `ctx.reload()`, answered to the host (`reply`) instead of the client.

use super::{Pending, Session, handles_event};
use crate::extensions::{HostEvent, ReplyValue};
use crate::rpc::session::waiting::{AfterShutdown, Replacement};

impl Session {
    /// Tells the host the model, the thinking level and the levels the model supports, for its
    /// getters.
    pub(in crate::rpc::session) async fn send_model_state(&mut self) {
        self.send_model_state_with(false).await;
    }

    /// As [`Session::send_model_state`]; `with_models`: also every model (with whether each
    /// has credentials), which do not change while the agent runs (at start-up and reloads).
    pub(in crate::rpc::session) async fn send_model_state_with(&mut self, with_models: bool) {
        let Some(ext) = self.extensions.as_ref().filter(|ext| !ext.gone) else {
            return;
        };
        let (models, available): (Vec<&pi_rpc_protocol::model::Model>, Vec<String>) = if with_models
        {
            let available = self
                .config
                .registry
                .available()
                .iter()
                .map(|model| format!("{}/{}", model.provider, model.id))
                .collect();
            (self.config.registry.all_models().collect(), available)
        } else {
            (Vec::new(), Vec::new())
        };
        let sent = ext
            .host
            .model_state(
                &self.shown_model(),
                self.thinking_level,
                &self.thinking_levels(),
                with_models.then_some((models.as_slice(), available.as_slice())),
            )
            .await;
        if let Err(error) = sent {
            tracing::warn!(%error, "cannot tell the extension host the model");
        }
    }

    /// Answers the host's call `id` with `value`.
    pub(in crate::rpc::session) async fn reply_to_host(&mut self, id: &str, value: bool) {
        self.reply_value_to_host(id, &ReplyValue::Flag(value)).await;
    }

    /// Answers the host's call `id` with `value`.
    pub(in crate::rpc::session) async fn reply_value_to_host(
        &mut self,
        id: &str,
        value: &ReplyValue,
    ) {
        if let Some(ext) = self.extensions.as_ref().filter(|ext| !ext.gone)
            && let Err(error) = ext.host.reply(id, value).await
        {
            tracing::warn!(%error, "cannot answer the extension host");
        }
    }

    /// `pi.setModel(model)`: false when the model has no credentials (or is unknown); else the
    /// model is set as `set_model` sets it, and the call resolves after the `model_select`
    /// handlers (source `set`).
    pub(in crate::rpc::session) async fn extension_set_model(
        &mut self,
        reply: String,
        provider: &str,
        model_id: &str,
    ) {
        let found = self
            .config
            .registry
            .available()
            .into_iter()
            .find(|model| model.provider == provider && model.id == model_id);
        let Some(model) = found else {
            self.reply_to_host(&reply, false).await;
            return;
        };
        let previous = self.model.clone();
        self.switch_model(model, None).await;
        if let Some(event) = self.model_select_event(previous.as_ref(), "set") {
            let pending = Pending::ModelSet(reply.clone());
            if self.send_event(pending, &event).await {
                return;
            }
        }
        self.reply_to_host(&reply, true).await;
    }

    /// A command's `ctx.newSession()`: the session is replaced as by `new_session` (after the
    /// run, if one goes on), and the host is answered `{cancelled}` instead of the client.
    pub(in crate::rpc::session) async fn command_new_session(
        &mut self,
        reply: String,
        parent_session: Option<String>,
    ) {
        if !self.claim_command_replacement(reply).await {
            return;
        }
        self.begin_replacement(AfterShutdown::NewSession(None, parent_session))
            .await;
    }

    /// A command's `ctx.switchSession(path)` (`session_path`) or `ctx.fork(entryId)`: carried
    /// out as `switch_session` / `fork` / `clone` are, answered to the host. A target that
    /// cannot be opened is answered `{error}` (the call rejects) and nothing changes.
    pub(in crate::rpc::session) async fn command_replace(
        &mut self,
        reply: String,
        session_path: Option<String>,
        entry_id: Option<String>,
        position: Option<&str>,
    ) {
        let replacement = match (session_path, entry_id) {
            (Some(path), _) => Ok(Replacement::Switch(path)),
            (None, Some(entry)) if position == Some("at") => {
                if self.store.leaf_id() == Some(entry.as_str()) {
                    Ok(Replacement::Clone)
                } else {
                    Err("pi-agent can fork \"at\" the current leaf entry only".to_owned())
                }
            }
            (None, Some(entry)) => Ok(Replacement::Fork(entry)),
            (None, None) => Err("no session file or entry given".to_owned()),
        };
        // The checks of the replacement, without making the new session yet.
        let replacement = replacement.and_then(|replacement| {
            let then = AfterShutdown::Replace(None, replacement);
            match self.check_replacement(&then) {
                Ok(()) => Ok(then),
                Err(error) => Err(error.to_string()),
            }
        });
        let replacement = match replacement {
            Ok(replacement) => replacement,
            Err(error) => {
                self.reply_value_to_host(&reply, &ReplyValue::Error { error })
                    .await;
                return;
            }
        };
        if !self.claim_command_replacement(reply).await {
            return;
        }
        self.begin_replacement(replacement).await;
    }

    /// Makes the host's call `reply` the session replacement in progress, answered when it is
    /// done. One replacement at a time: while another goes on, the call is answered
    /// `{cancelled: true}` at once and false is returned.
    async fn claim_command_replacement(&mut self, reply: String) -> bool {
        match &mut self.extensions {
            Some(ext) if ext.command_replacement.is_none() => {
                ext.command_replacement = Some(reply);
                true
            }
            _ => {
                self.reply_value_to_host(&reply, &ReplyValue::Cancelled { cancelled: true })
                    .await;
                false
            }
        }
    }

    /// A command's `ctx.reload()`: the `session_shutdown` handlers (reason `reload`), then the
    /// extensions' modules are evaluated and loaded afresh and their `session_start` handlers
    /// (reason `reload`) run; then the call resolves.
    pub(in crate::rpc::session) async fn command_reload(&mut self, reply: String) {
        let busy = self
            .extensions
            .as_ref()
            .is_none_or(|ext| ext.command_replacement.is_some() || ext.reloading.is_some());
        if busy {
            self.reply_to_host(&reply, false).await;
            return;
        }
        if handles_event(&self.extensions, "session_shutdown") {
            let event = HostEvent::SessionShutdown {
                reason: "reload",
                target_session_file: None,
            };
            let pending = Pending::ReloadShutdown(reply.clone());
            if self.send_event(pending, &event).await {
                return;
            }
        }
        self.reload_runtime(reply).await;
    }

    /// Loads the extensions afresh for `ctx.reload()`; `reloaded` goes on once they are.
    pub(in crate::rpc::session) async fn reload_runtime(&mut self, reply: String) {
        let after = Box::new(super::AfterReload {
            id: None,
            command: "reload",
            data: serde_json::Value::Null,
            reason: "reload",
            previous: None,
            again: 1,
        });
        let Some(ext) = self.extensions.as_mut().filter(|ext| !ext.gone) else {
            self.reply_to_host(&reply, false).await;
            return;
        };
        ext.command_replacement = Some(reply.clone());
        match ext.host.reload_fresh().await {
            Ok(()) => ext.reloading = Some(after),
            Err(error) => {
                tracing::error!(%error, "cannot reload the extensions");
                ext.command_replacement = None;
                self.reply_to_host(&reply, false).await;
            }
        }
    }
}
