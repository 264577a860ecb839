//! An extension's model calls (pi-ai's `complete`, `stream` and the built-in apis, and
//! `ctx.modelRegistry.complete`), which pi makes in the extension and pi-agent makes with its
//! own providers: the host's request read into a provider call ([`ModelCall::prepare`]), run
//! on its own task with its events streamed back to the host and its final message answered
//! by id ([`ModelCallReply`]); and what `ctx.modelRegistry` asks about keys ([`model_auth`],
//! [`provider_key`]).
//!
//! What pi-ai's options change is read where the agent's providers have it: `apiKey`,
//! `headers`, `maxTokens`, `sessionId`, `cacheRetention`, `timeoutMs`, `maxRetries`,
//! `maxRetryDelayMs`, and the thinking level (`reasoning` and `thinkingBudgets` of the simple
//! calls; `reasoningEffort` or `effort` of the others). The others (`temperature`,
//! `onPayload`, `onResponse`, ...) are not applied.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use pi_rpc_protocol::message::{AgentMessage, AssistantMessage, StopReason};
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::protocol::ToHost;
use super::{Host, HostClient, ReplyValue, SendError};
use crate::config::{ModelRegistry, RequestAuth, RequestModel, StreamOptions, ThinkingBudgets};
use crate::provider::{CacheRetention, LlmRequest, ProviderEvent, RequestDetails};
use crate::tools::ToolDefinition;

/// One model call as the host asks for it (the JSON of pi-ai's arguments).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelCall {
    /// pi-ai's `Model`.
    pub model: Value,
    /// pi-ai's `Context`: `systemPrompt`, `messages`, `tools`.
    pub context: Value,
    /// pi-ai's stream options, without what only runs in JavaScript.
    pub options: Value,
    /// `streamSimple` / `completeSimple` (`reasoning` is a thinking level).
    pub simple: bool,
    /// `ctx.modelRegistry.complete`: the registry's credentials, as the session's calls use.
    pub registry: bool,
}

/// Why a call cannot be made: its message's `errorMessage`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelCallError {
    /// `ctx.modelRegistry.complete` for a provider the registry does not have.
    #[error("Unknown provider: {0}")]
    UnknownProvider(String),
    /// `ctx.modelRegistry.complete` for a provider without credentials.
    #[error("Provider is not configured: {0}")]
    NotConfigured(String),
    /// The model is not one pi-agent can read.
    #[error("pi-agent cannot read the model of the call: {0}")]
    Model(String),
    /// A message of the context is not one pi-agent can read.
    #[error("pi-agent cannot read message {index} of the call: {reason}")]
    Message {
        /// Its place in `context.messages`.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
}

/// A call ready to run.
#[derive(Debug, Clone)]
pub struct PreparedCall {
    request: LlmRequest,
    options: StreamOptions,
}

impl ModelCall {
    /// The provider call: the model as given (for `registry` calls, its provider's headers and
    /// credentials added as the session's calls get them; else the `apiKey` option or the
    /// provider's environment variable), the context, and what the options change.
    /// `idle_timeout` is the settings' (`httpIdleTimeoutMs`), which every call honours.
    pub fn prepare(
        &self,
        registry: &ModelRegistry,
        idle_timeout: Option<Duration>,
        release: crate::release::RpcRelease,
    ) -> Result<PreparedCall, ModelCallError> {
        let model = read_model(&self.model)?;
        let options = &self.options;
        let given_key = text(options, "apiKey").map(str::to_owned);
        let (mut model, auth) = if self.registry {
            if !registry.provider_names().any(|name| name == model.provider) {
                return Err(ModelCallError::UnknownProvider(model.provider));
            }
            if given_key.is_none() && !registry.has_auth(&model.provider) {
                return Err(ModelCallError::NotConfigured(model.provider));
            }
            let RequestModel {
                model: resolved,
                auth,
            } = registry.resolve(&model);
            match (auth, given_key) {
                (Ok(mut auth), key) => {
                    auth.api_key = key.or(auth.api_key);
                    (resolved, Ok(auth))
                }
                // A key given is the call's: the provider's own need not resolve.
                (Err(_), Some(key)) => {
                    let auth = RequestAuth {
                        api_key: Some(key),
                        ..RequestAuth::default()
                    };
                    (model, Ok(auth))
                }
                (Err(error), None) => (resolved, Err(error)),
            }
        } else {
            let api_key = given_key.or_else(|| ModelRegistry::environment_api_key(&model.provider));
            let auth = RequestAuth {
                api_key,
                ..RequestAuth::default()
            };
            (model, Ok(auth))
        };
        if let Some(Value::Object(headers)) = options.get("headers") {
            let mut all = model.headers.take().unwrap_or_default();
            all.extend(headers.iter().map(|(k, v)| (k.clone(), v.clone())));
            model.headers = Some(all);
        }
        if let Some(max) = number(options, "maxTokens").filter(|n| *n >= 1.0) {
            model.max_tokens = max as u64;
        }
        let context = &self.context;
        let messages = read_messages(context.get("messages"))?;
        let cache_retention = match text(options, "cacheRetention") {
            Some("none") => CacheRetention::Off,
            Some("long") => CacheRetention::Long,
            Some(_) => CacheRetention::Short,
            None => CacheRetention::configured(&auth),
        };
        let request = LlmRequest {
            model,
            auth,
            system_prompt: text(context, "systemPrompt").unwrap_or_default().to_owned(),
            messages,
            tools: read_tools(context.get("tools")),
            thinking_level: self.thinking_level(),
            session_id: text(options, "sessionId").map(str::to_owned),
            cache_retention,
            thinking_budgets: read_budgets(options.get("thinkingBudgets")),
            details: RequestDetails::for_release(release),
        };
        let defaults = StreamOptions::default();
        let stream_options = StreamOptions {
            idle_timeout,
            max_retries: number(options, "maxRetries").map_or(0, |n| n.max(0.0) as u32),
            max_retry_delay: number(options, "maxRetryDelayMs")
                .map_or(defaults.max_retry_delay, |ms| {
                    Duration::from_millis(ms.max(0.0) as u64)
                }),
            request_timeout: number(options, "timeoutMs")
                .map(|ms| Duration::from_millis(ms.max(0.0) as u64)),
            ..defaults
        };
        Ok(PreparedCall {
            request,
            options: stream_options,
        })
    }

    /// How much the model thinks: a simple call's `reasoning`; another's `reasoningEffort` or
    /// `effort` (the provider-specific names); off without one.
    fn thinking_level(&self) -> ThinkingLevel {
        let keys: &[&str] = if self.simple {
            &["reasoning"]
        } else {
            &["reasoningEffort", "effort"]
        };
        keys.iter()
            .find_map(|key| self.options.get(*key))
            .and_then(|level| serde_json::from_value(level.clone()).ok())
            .unwrap_or(ThinkingLevel::Off)
    }

    /// The message of a call that could not be made, as pi-ai's streams end such a call.
    pub fn failed(&self, error: &ModelCallError) -> AssistantMessage {
        let field = |key: &str| text(&self.model, key).unwrap_or_default().to_owned();
        AssistantMessage {
            content: Vec::new(),
            api: field("api"),
            provider: field("provider"),
            model: field("id"),
            response_model: None,
            usage: Default::default(),
            stop_reason: StopReason::Error,
            timestamp: crate::js::now_ms(),
            response_id: None,
            raw_stop_reason: None,
            error_message: Some(error.to_string()),
            extra: Map::new(),
        }
    }
}

/// A non-empty text option.
fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value
        .get(key)
        .and_then(Value::as_str)
        .filter(|text| !text.is_empty())
}

/// A finite number option.
fn number(value: &Value, key: &str) -> Option<f64> {
    value
        .get(key)
        .and_then(Value::as_f64)
        .filter(|n| n.is_finite())
}

/// pi-ai's `Model`, what it leaves out taken as a bare model has it.
fn read_model(given: &Value) -> Result<Model, ModelCallError> {
    let Value::Object(given) = given else {
        return Err(ModelCallError::Model("not an object".into()));
    };
    let id = given.get("id").cloned().unwrap_or_default();
    let mut model = json!({
        "id": id, "name": id, "api": "", "provider": "", "baseUrl": "", "reasoning": false,
        "input": ["text"], "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 0, "maxTokens": 0,
    });
    if let Value::Object(full) = &mut model {
        full.extend(given.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    serde_json::from_value(model).map_err(|error| ModelCallError::Model(error.to_string()))
}

/// The context's messages (none when absent).
fn read_messages(
    messages: Option<&Value>,
) -> Result<Vec<Arc<crate::store::SharedMessage>>, ModelCallError> {
    let Some(Value::Array(messages)) = messages else {
        return Ok(Vec::new());
    };
    messages
        .iter()
        .enumerate()
        .map(|(index, message)| {
            serde_json::from_value(message.clone())
                .map(crate::store::SharedMessage::new)
                .map_err(|error| ModelCallError::Message {
                    index,
                    reason: error.to_string(),
                })
        })
        .collect()
}

/// The context's tools: each with a name, its description and parameters schema.
fn read_tools(tools: Option<&Value>) -> Vec<ToolDefinition> {
    let Some(Value::Array(tools)) = tools else {
        return Vec::new();
    };
    tools
        .iter()
        .filter_map(|tool| {
            Some(ToolDefinition {
                name: Cow::Owned(text(tool, "name")?.to_owned()),
                description: tool
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                parameters: tool
                    .get("parameters")
                    .cloned()
                    .unwrap_or_else(|| json!({"type": "object", "properties": {}})),
            })
        })
        .collect()
}

/// `thinkingBudgets`: whole numbers for `minimal`, `low`, `medium`, `high`.
fn read_budgets(budgets: Option<&Value>) -> ThinkingBudgets {
    let mut read = ThinkingBudgets::default();
    let Some(budgets) = budgets else {
        return read;
    };
    for (slot, key) in ["minimal", "low", "medium", "high"].iter().enumerate() {
        read.levels[slot] = budgets
            .get(*key)
            .and_then(Value::as_i64)
            .filter(|n| *n >= 0);
    }
    read
}

/// The cancel tokens of the calls running, by the host's id (a call removes its own at its
/// end).
#[derive(Debug, Clone, Default)]
pub struct RunningCalls(Arc<Mutex<HashMap<String, CancellationToken>>>);

impl RunningCalls {
    /// Aborts the call `id` (its message ends `aborted`), if it still runs.
    pub fn abort(&self, id: &str) {
        if let Some(token) = self.lock().get(id) {
            token.cancel();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Where one call's events and final message go: the host's call `id`.
#[derive(Debug)]
pub struct ModelCallReply {
    client: HostClient,
    id: String,
    running: RunningCalls,
}

impl Host {
    /// The reply to the host's model call `id`, registered among `running` (for its abort).
    pub fn model_call_reply(&self, id: String, running: &RunningCalls) -> ModelCallReply {
        ModelCallReply {
            client: self.client(),
            id,
            running: running.clone(),
        }
    }
}

impl ModelCallReply {
    /// Makes the call (or answers why it cannot be made), streaming its start, usage and
    /// deltas to the host and answering `{message}` at its end; a host gone meanwhile ends it.
    pub async fn run(
        self,
        http: reqwest::Client,
        call: Result<PreparedCall, AssistantMessage>,
    ) -> Result<(), SendError> {
        let prepared = match call {
            Ok(prepared) => prepared,
            Err(message) => return self.finish(message).await,
        };
        let cancel = CancellationToken::new();
        self.running.lock().insert(self.id.clone(), cancel.clone());
        let result = self.stream(&http, prepared, cancel).await;
        self.running.lock().remove(&self.id);
        result
    }

    async fn stream(
        &self,
        http: &reqwest::Client,
        call: PreparedCall,
        cancel: CancellationToken,
    ) -> Result<(), SendError> {
        let mut events = crate::provider::stream_with(http, call.request, call.options, cancel);
        while let Some(event) = events.recv().await {
            let progress = |start, usage, events| ToHost::ModelStream {
                id: &self.id,
                start,
                usage,
                events,
            };
            match event {
                ProviderEvent::Start(message) => {
                    let start = AgentMessage::Assistant(message);
                    self.client
                        .send(&progress(Some(&start), None, None))
                        .await?;
                }
                ProviderEvent::Usage(usage) => {
                    self.client
                        .send(&progress(None, Some(&usage), None))
                        .await?;
                }
                ProviderEvent::Deltas(deltas) => {
                    self.client
                        .send(&progress(None, None, Some(&deltas)))
                        .await?;
                }
                ProviderEvent::Written(written) => written.written(),
                ProviderEvent::Done(message) => return self.finish(message).await,
            }
        }
        Ok(())
    }

    /// Answers the call with its final message (pi-ai's, with its `role`).
    async fn finish(&self, message: AssistantMessage) -> Result<(), SendError> {
        let message = AgentMessage::Assistant(message);
        let value = ReplyValue::Data(json!({ "message": message }));
        self.client
            .send(&ToHost::Reply {
                id: &self.id,
                value: &value,
            })
            .await
    }
}

/// `ctx.modelRegistry.getApiKeyAndHeaders(model)`: `{ok, apiKey, headers}` as a call of the
/// model would be authenticated, or `{ok: false, error}` when that cannot be resolved.
pub fn model_auth(registry: &ModelRegistry, model: &Value) -> Value {
    let model = match read_model(model) {
        Ok(model) => model,
        Err(error) => return json!({"ok": false, "error": error.to_string()}),
    };
    let configured = registry.has_auth(&model.provider);
    let RequestModel { model, auth } = registry.resolve(&model);
    match auth {
        Ok(auth) => {
            let mut answer = json!({"ok": true});
            if let Some(key) = auth.api_key.filter(|_| configured) {
                answer["apiKey"] = key.into();
            }
            if let Some(headers) = model.headers {
                answer["headers"] = Value::Object(headers);
            }
            answer
        }
        Err(error) => json!({"ok": false, "error": error.to_string()}),
    }
}

/// `ctx.modelRegistry.getApiKeyForProvider(provider)`: its key, when it has credentials.
pub fn provider_key(registry: &ModelRegistry, provider: &str) -> Value {
    match registry
        .has_auth(provider)
        .then(|| registry.api_key(provider))
        .flatten()
    {
        Some(key) => json!({"ok": true, "apiKey": key}),
        None => json!({"ok": false}),
    }
}

#[cfg(test)]
#[path = "model_calls_tests.rs"]
mod tests;
