//! The model calls an extension provider's `streamSimple` answers (`pi.registerProvider(name,
//! {api, streamSimple, ...})`): for the models of that provider and `api`, as in the reference,
//! a run's call goes to the extension host (`provider_stream`), which runs the extension's
//! function and streams back pi-ai's events (`provider_event`s, then `provider_done` with the
//! final message). They become the call's [`ProviderEvent`]s, which the run sees as any
//! provider's; cancelling the run aborts the signal the extension got.

use pi_rpc_protocol::event::AssistantMessageEvent;
use pi_rpc_protocol::message::{AgentMessage, AssistantMessage, StopReason};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::client::HostClient;
use super::protocol::{HostReply, ToHost};
use crate::provider::hooks::{HookFuture, ProviderHooks};
use crate::provider::{EventSender, LlmRequest, ProviderEvent, ProviderStream};
use crate::store::Role;

/// The final message when the host ended before the stream did.
const HOST_GONE: &str = "The extension host ended before the provider stream finished";

/// A run's provider hooks: the extensions' handlers (through the host client) and the
/// providers whose calls an extension's `streamSimple` answers.
#[derive(Debug)]
pub struct ExtensionProviderHooks {
    client: HostClient,
    /// Provider name and the `api` its `streamSimple` is for.
    streams: Vec<(String, String)>,
    /// The providers whose key their `oauth` makes of the login in `auth.json`, and that file.
    logins: super::provider_login::Logins,
}

impl ExtensionProviderHooks {
    /// The hooks of a run; `None` when the extensions neither handle the provider events nor
    /// stream any provider's calls nor make any key.
    pub fn for_run(client: HostClient, registry: &crate::config::ModelRegistry) -> Option<Self> {
        let streams = registry.extension_streams();
        let logins = super::provider_login::Logins::of(registry);
        let hooks = client.wants_payload() || client.wants_response();
        (hooks || !streams.is_empty() || !logins.is_empty()).then_some(Self {
            client,
            streams,
            logins,
        })
    }

    fn streams(&self, request: &LlmRequest) -> bool {
        let model = &request.model;
        self.streams
            .iter()
            .any(|(provider, api)| *provider == model.provider && *api == model.api)
    }
}

impl ProviderHooks for ExtensionProviderHooks {
    fn wants_payload(&self) -> bool {
        self.client.wants_payload()
    }

    fn before_request(&self, payload: Value) -> HookFuture<'_, Value> {
        self.client.before_request(payload)
    }

    fn wants_response(&self) -> bool {
        self.client.wants_response()
    }

    fn after_response(&self, status: u16, headers: Map<String, Value>) -> HookFuture<'_, ()> {
        self.client.after_response(status, headers)
    }

    fn wants_headers(&self) -> bool {
        self.client.wants_headers()
    }

    fn before_headers(&self, headers: Map<String, Value>) -> HookFuture<'_, Map<String, Value>> {
        self.client.before_headers(headers)
    }

    fn login_key<'a>(
        &'a self,
        request: &'a LlmRequest,
    ) -> Option<HookFuture<'a, Result<String, String>>> {
        self.logins.key(&self.client, &request.model.provider)
    }

    fn custom_stream(
        &self,
        request: &LlmRequest,
        cancel: &CancellationToken,
    ) -> Option<ProviderStream> {
        if !self.streams(request) {
            return None;
        }
        let client = self.client.clone();
        let request = request.clone();
        let cancel = cancel.clone();
        Some(ProviderStream::new(move |tx| async move {
            let done = client.provider_stream(&request, &cancel, &tx).await;
            tx.send(ProviderEvent::Done(done)).await;
        }))
    }
}

/// pi-ai's event read as the call's event (`started`: whether `start` came already); `None`
/// for what the run does not see: deltas before `start` (the reference's agent loop drops
/// them), a second `start`, an unreadable event.
fn call_event(event: Value, started: &mut bool) -> Option<ProviderEvent> {
    if event.get("type").and_then(Value::as_str) == Some("start") {
        let partial = event.get("partial").cloned().unwrap_or(Value::Null);
        let partial = assistant_message(partial)
            .map_err(|error| tracing::warn!(%error, "an extension stream's start is unreadable"))
            .ok()
            .filter(|_| !*started)?;
        *started = true;
        return Some(ProviderEvent::Start(partial));
    }
    if !*started {
        return None;
    }
    serde_json::from_value::<AssistantMessageEvent>(event)
        .map_err(|error| tracing::debug!(%error, "an extension stream's event is not a delta"))
        .ok()
        .map(|delta| ProviderEvent::Deltas(vec![delta]))
}

impl HostClient {
    /// Runs the call `request` in the extension provider's `streamSimple`: its events go to
    /// `tx`, `cancel` aborts the extension's signal; the final message.
    async fn provider_stream(
        &self,
        request: &LlmRequest,
        cancel: &CancellationToken,
        tx: &EventSender,
    ) -> AssistantMessage {
        let model = &request.model;
        let gone = || crate::agent_loop::failed_message(model, StopReason::Error, HOST_GONE);
        let context = stream_context(request);
        let options = stream_options(request);
        let call = |id| ToHost::ProviderStream {
            id,
            provider: &model.provider,
            model,
            context: &context,
            options: &options,
        };
        let Ok((id, mut replies)) = self.open_stream(call).await else {
            return gone();
        };
        let mut abort_sent = false;
        let mut started = false;
        loop {
            tokio::select! {
                reply = replies.recv() => match reply {
                    Some(HostReply::ProviderEvent { event }) => {
                        if let Some(event) = call_event(event, &mut started) {
                            tx.send(event).await;
                        }
                    }
                    Some(HostReply::ProviderDone { message }) => {
                        return assistant_message(message).unwrap_or_else(|error| {
                            let text = format!("pi-agent cannot read the provider's message: {error}");
                            crate::agent_loop::failed_message(model, StopReason::Error, &text)
                        });
                    }
                    Some(_) | None => return gone(),
                },
                () = cancel.cancelled(), if !abort_sent => {
                    abort_sent = true;
                    // A host that is gone ends the call through its replies.
                    let _ = self.send(&ToHost::ProviderStreamAbort { id }).await;
                }
            }
        }
    }
}

/// pi-ai's assistant message read as the agent's (whose `role` is its place, not a field).
fn assistant_message(mut message: Value) -> Result<AssistantMessage, serde_json::Error> {
    if let Some(fields) = message.as_object_mut() {
        fields.remove("role");
    }
    serde_json::from_value(message)
}

/// pi-ai's `Context` of the call: the system prompt, the conversation (user, assistant and
/// tool-result messages) and the tools.
fn stream_context(request: &LlmRequest) -> Value {
    // Copies for the call (a message read from a session file is parsed for it, not kept).
    let messages: Vec<AgentMessage> = request
        .messages
        .iter()
        .filter(|message| {
            matches!(
                message.role(),
                Role::User | Role::Assistant | Role::ToolResult
            )
        })
        .filter_map(|message| message.typed_copy())
        .collect();
    json!({
        "systemPrompt": request.system_prompt,
        "messages": messages,
        "tools": request.tools,
    })
}

/// pi-ai's simple stream options of a run's call, without the signal (the host's own):
/// the thinking level (`reasoning`, none when off), the key, the session.
fn stream_options(request: &LlmRequest) -> Value {
    let mut options = Map::new();
    let level = request.thinking_level;
    if level != pi_rpc_protocol::model::ThinkingLevel::Off {
        options.insert("reasoning".into(), json!(level.as_str()));
    }
    if let Some(session) = &request.session_id {
        options.insert("sessionId".into(), json!(session));
    }
    if let Some(key) = request.api_key() {
        options.insert("apiKey".into(), json!(key));
    }
    Value::Object(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(stop_reason: &str) -> Value {
        json!({
            "role": "assistant", "content": [], "api": "echo-api", "provider": "echo",
            "model": "echo-1", "stopReason": stop_reason, "timestamp": 1,
            "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}
        })
    }

    #[test]
    fn deltas_count_from_the_first_start_and_the_message_loses_its_role() {
        let mut started = false;
        let delta = json!({"type": "text_delta", "contentIndex": 0, "delta": "x"});
        assert!(call_event(delta.clone(), &mut started).is_none());
        let start = json!({"type": "start", "partial": message("stop")});
        let Some(ProviderEvent::Start(partial)) = call_event(start.clone(), &mut started) else {
            panic!("no start");
        };
        assert!(!partial.extra.contains_key("role"));
        assert!(call_event(start, &mut started).is_none());
        assert!(matches!(
            call_event(delta, &mut started),
            Some(ProviderEvent::Deltas(deltas)) if deltas.len() == 1
        ));
        let unknown = json!({"type": "nonsense"});
        assert!(call_event(unknown, &mut started).is_none());
    }

    #[test]
    fn a_final_message_is_read_as_the_agent_s() {
        let done = assistant_message(message("aborted")).unwrap();
        assert_eq!(done.stop_reason, StopReason::Aborted);
        assert_eq!(done.provider, "echo");
        assert!(assistant_message(json!({"role": "assistant"})).is_err());
    }
}
