//! What the extension host asks of the session: the model's state for `ctx.model`,
//! `ctx.modelRegistry`, `pi.getThinkingLevel` and `ctx.getContextUsage()` (sent at start-up,
//! after a reload and after every change of model or level); `pi.setModel` and `pi.setThinkingLevel`, which change the
//! session as the `set_model` / `set_thinking_level` commands do; and a command's
//! `ctx.newSession()`, `ctx.switchSession()` and `ctx.fork()`, read into a replacement
//! (`ops/replacement.rs`) answered to the host (`reply`) instead of the client; and
//! `pi.registerProvider` / `pi.unregisterProvider` after loading, which change the model
//! registry at once. (A command's `ctx.waitForIdle()` is `ops/settle.rs`'s, its `ctx.reload()`
//! `ops/reload.rs`'s.)

use pi_rpc_protocol::event::{Event, ExtensionErrorEvent};

use super::State;
use crate::actor::waiting::Target;
use crate::extensions::{ProviderCallOrigin, ProviderRegistration, ReplyValue};

impl State {
    /// Tells the host the model, the thinking level and the levels the model supports, for its
    /// getters.
    pub(in crate::actor) fn send_model_state(&mut self) {
        self.send_model_state_with(false);
    }

    /// As [`State::send_model_state`]; `with_models`: also every model (with whether each
    /// has credentials), which do not change while the agent runs (at start-up and reloads).
    pub(in crate::actor) fn send_model_state_with(&mut self, with_models: bool) {
        if self.live_host().is_none() {
            return;
        }
        // The context window is the model's: the usage goes with it.
        let usage = self.context_usage_for_host();
        let Some(host) = self.live_host() else {
            return;
        };
        let registry = &self.config.registry;
        let (models, available, configured): (Vec<&pi_rpc_protocol::model::Model>, Vec<String>, _) =
            if with_models {
                let available = registry
                    .available()
                    .iter()
                    .map(|model| format!("{}/{}", model.provider, model.id))
                    .collect();
                let configured: Vec<&str> = registry
                    .provider_names()
                    .filter(|provider| registry.has_auth(provider))
                    .collect();
                (registry.all_models().collect(), available, configured)
            } else {
                (Vec::new(), Vec::new(), Vec::new())
            };
        let line = host.model_state(
            &self.shown_model(),
            self.thinking_level,
            &self.thinking_levels(),
            with_models.then_some((
                models.as_slice(),
                available.as_slice(),
                configured.as_slice(),
            )),
            usage.as_ref(),
        );
        self.tell_host("cannot tell the extension host the model", Some(line));
    }

    /// `pi.registerProvider(name, config)` after loading: the provider is registered at once,
    /// as the reference does. A registration that cannot be composed changes nothing and is
    /// reported as an `extension_error` of the handler the call came from (`origin`), as the
    /// throw the reference makes in the call would be when the handler lets it through.
    pub(in crate::actor) fn extension_register_provider(
        &mut self,
        registration: &ProviderRegistration,
        origin: ProviderCallOrigin,
    ) {
        let registered = self
            .config
            .registry
            .register_extension_provider(&registration.name, &registration.config);
        match registered {
            Ok(()) => self.providers_changed(),
            Err(error) => self.emit(Event::ExtensionError(ExtensionErrorEvent {
                extension_path: origin.extension_path,
                event: origin.event,
                error: error.to_string(),
            })),
        }
    }

    /// `pi.unregisterProvider(name)` after loading: what the extensions registered for the
    /// provider is taken back at once.
    pub(in crate::actor) fn extension_unregister_provider(&mut self, name: &str) {
        self.config.registry.unregister_extension_provider(name);
        self.providers_changed();
    }

    /// The model registry changed: the session's model is taken from it again when it still
    /// has it (the reference keeps a model its registry lost), and the host gets every model
    /// again for `ctx.modelRegistry`.
    pub(in crate::actor) fn providers_changed(&mut self) {
        let refreshed = self.model.as_ref().and_then(|current| {
            self.config
                .registry
                .find(&current.provider, &current.id)
                .cloned()
        });
        if let Some(model) = refreshed {
            self.model = Some(model);
        }
        self.send_model_state_with(true);
    }

    /// Answers the host's call `id` with `value`.
    pub(in crate::actor) fn reply_to_host(&mut self, id: &str, value: bool) {
        self.reply_value_to_host(id, &ReplyValue::Flag(value));
    }

    /// Answers the host's call `id` with `value`.
    pub(in crate::actor) fn reply_value_to_host(&mut self, id: &str, value: &ReplyValue) {
        let line = self.live_host().map(|host| host.reply(id, value));
        self.tell_host("cannot answer the extension host", line);
    }

    /// `pi.setModel(model)`: false when the model has no credentials (or is unknown); else the
    /// model is set as `set_model` sets it, and the call resolves after the `model_select`
    /// handlers (source `set`; `ops/model_select.rs`).
    pub(in crate::actor) fn extension_set_model(
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
            self.reply_to_host(&reply, false);
            return;
        };
        let previous = self.model.clone();
        self.switch_model(model, None);
        self.resolve_after_model_select(reply, previous.as_ref());
    }

    /// A command's `ctx.newSession()`: the session is replaced as by `new_session` (after the
    /// run, if one goes on), and the host is answered `{cancelled}` instead of the client;
    /// its `setup` (the host's token) runs before the new instances' `session_start`.
    pub(in crate::actor) fn command_new_session(
        &mut self,
        reply: String,
        parent_session: Option<String>,
        setup: Option<String>,
    ) {
        self.begin_command_replacement(reply, Target::New(parent_session), setup);
    }

    /// A command's `ctx.switchSession(path)` (`session_path`) or `ctx.fork(entryId)`: carried
    /// out as `switch_session` / `fork` / `clone` are, answered to the host (`position: "at"`:
    /// a fork at any entry, up to and including it). A target that cannot be opened is
    /// answered `{error}` after the `session_before_*` handlers (the call rejects) and nothing
    /// changes.
    pub(in crate::actor) fn command_replace(
        &mut self,
        reply: String,
        session_path: Option<String>,
        entry_id: Option<String>,
        position: Option<&str>,
    ) {
        let target = match (session_path, entry_id) {
            (Some(path), _) => Ok(Target::Switch(path)),
            (None, Some(entry)) if position == Some("at") => Ok(Target::ForkAt(entry)),
            (None, Some(entry)) => Ok(Target::Fork(entry)),
            (None, None) => Err("no session file or entry given".to_owned()),
        };
        // As in pi, the target is checked after the `session_before_*` handlers (`replacement.rs`).
        match target {
            Ok(target) => self.begin_command_replacement(reply, target, None),
            Err(error) => {
                self.reply_value_to_host(&reply, &ReplyValue::Error { error });
            }
        }
    }

    /// A runtime module's call of a built-in tool (`host.callTool`): run on its own task with
    /// the session's tool context (in `cwd` when given), answered to the host by id. It runs to
    /// its end: the module's signal does not reach it.
    pub(in crate::actor) fn extension_run_tool(
        &mut self,
        id: String,
        name: String,
        params: serde_json::Value,
        cwd: Option<std::path::PathBuf>,
    ) {
        let Some(reply) = self.live_host().map(|host| host.tool_call_reply(id)) else {
            return;
        };
        let mut context = self.tool_context(tokio_util::sync::CancellationToken::new());
        if let Some(cwd) = cwd {
            context.cwd = cwd;
        }
        tokio::spawn(async move {
            let outcome = crate::tools::execute(&name, &params, &context, &mut |_| {}).await;
            // A host gone meanwhile needs no answer.
            let _ = reply.send(&outcome).await;
        });
    }
}
