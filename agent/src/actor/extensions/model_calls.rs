//! The model calls extensions make (pi-ai's `complete` & co, `ctx.modelRegistry.complete`),
//! each run on its own task with the session's model registry and HTTP client and answered to
//! the host (`crate::extensions::model_calls`), and `ctx.modelRegistry`'s key lookups.

use super::State;
use crate::extensions::{ModelCall, ReplyValue};

impl State {
    /// A model call of an extension: prepared with the registry's credentials (or why it
    /// cannot be made, answered as the call's failed message), then run on its own task. The
    /// session's runs and `abort` do not reach it; its signal does (`model_call_abort`).
    pub(in crate::actor) fn extension_model_call(&mut self, id: String, call: ModelCall) {
        let Some(ext) = self.extensions.as_ref().filter(|ext| !ext.gone) else {
            return;
        };
        let reply = ext.host.model_call_reply(id, &ext.model_calls);
        let idle_timeout = self.config.settings.stream_options().idle_timeout;
        let prepared = call
            .prepare(&self.config.registry, idle_timeout, self.release)
            .map_err(|error| call.failed(&error));
        let http = self.http.get();
        tokio::spawn(async move {
            // A host gone meanwhile needs no answer.
            let _ = reply.run(http, prepared).await;
        });
    }

    /// The signal of the model call `id` aborted: the call ends `aborted`.
    pub(in crate::actor) fn extension_model_call_abort(&mut self, id: &str) {
        if let Some(ext) = &self.extensions {
            ext.model_calls.abort(id);
        }
    }

    /// `ctx.modelRegistry.getApiKeyAndHeaders(model)` (`model`) or
    /// `.getApiKeyForProvider(provider)`, answered from the registry.
    pub(in crate::actor) fn extension_model_auth(
        &mut self,
        id: &str,
        model: Option<&serde_json::Value>,
        provider: Option<&str>,
    ) {
        let registry = &self.config.registry;
        let answer = match (model, provider) {
            (Some(model), _) => crate::extensions::model_auth(registry, model),
            (None, Some(provider)) => crate::extensions::provider_key(registry, provider),
            (None, None) => serde_json::json!({"ok": false, "error": "no model or provider given"}),
        };
        self.reply_value_to_host(id, &ReplyValue::Data(answer));
    }
}
