//! The extensions' handlers whose answers change what follows, asked by a run with one request
//! each (`intercept`, answered by `intercepted`): `tool_call` and `tool_result` around a run's
//! tool calls, `context` before each model request, and the provider hooks around each model
//! call. Each is asked only when some extension handles it. (A compaction's
//! `session_before_compact` is the actor's to ask: `Host::intercept`.)

use pi_rpc_protocol::message::AgentMessage;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::client::HostClient;
use super::protocol::{
    ContextResult, HostEvent, ProviderHeadersResult, ProviderRequestResult, ToHost,
    ToolCallDecision,
};
use super::tools::{HOST_GONE, split_result};
use crate::agent_loop::BeforeCall;
use crate::provider::hooks::HookFuture;
use crate::tools::ToolOutcome;

impl HostClient {
    /// Sends `event` to its handlers and waits for what they made of it, read as `T`; `None`
    /// when the host is gone (or nothing is readable).
    async fn intercept<T: DeserializeOwned + Default>(&self, event: &HostEvent<'_>) -> Option<T> {
        let reply = self.ask(|id| ToHost::Intercept { id, event }).await.ok()?;
        let reply = reply.await.ok()?;
        Some(reply.decision().unwrap_or_default())
    }

    /// Runs the `context` handlers on the messages of the next model request: they may
    /// replace them for that request (the conversation itself stays). `None` when nothing
    /// handles `context`, the host is gone or its answer is not a list of messages.
    pub async fn transform_context(&self, messages: &[&AgentMessage]) -> Option<Vec<AgentMessage>> {
        if !self.handles("context") {
            return None;
        }
        let answer: ContextResult = self.intercept(&HostEvent::Context { messages }).await?;
        match serde_json::from_value(answer.messages?) {
            Ok(messages) => Some(messages),
            Err(error) => {
                tracing::warn!(%error, "context handlers gave messages that cannot be sent");
                None
            }
        }
    }

    /// Runs the `tool_call` handlers before the call `call_id` runs: they may change its
    /// arguments or block it.
    pub async fn before_call(&self, call_id: &str, name: &str, args: &Value) -> BeforeCall {
        if !self.handles("tool_call") {
            return BeforeCall::Run(args.clone());
        }
        let event = HostEvent::ToolCall {
            tool_name: name,
            tool_call_id: call_id,
            input: args,
        };
        let Some(answer) = self.intercept::<ToolCallDecision>(&event).await else {
            return BeforeCall::Fail(HOST_GONE.into());
        };
        if let Some(error) = answer.error {
            return BeforeCall::Fail(error);
        }
        if answer.block == Some(true) {
            let reason = answer
                .reason
                .filter(|reason| !reason.is_empty())
                .unwrap_or_else(|| "Tool execution was blocked".to_owned());
            return BeforeCall::Fail(reason);
        }
        BeforeCall::Run(answer.input.unwrap_or_else(|| args.clone()))
    }

    /// Runs the `tool_result` handlers on the outcome of the call `call_id`: each may replace
    /// its content, details or error flag.
    pub async fn after_call(
        &self,
        call_id: &str,
        name: &str,
        args: &Value,
        outcome: ToolOutcome,
    ) -> ToolOutcome {
        if !self.handles("tool_result") {
            return outcome;
        }
        let event = HostEvent::ToolResult {
            tool_name: name,
            tool_call_id: call_id,
            input: args,
            content: &outcome.content,
            details: &outcome.details,
            is_error: outcome.is_error,
        };
        let Some(answer) = self.intercept::<Value>(&event).await else {
            return outcome;
        };
        let (content, details) = split_result(&answer);
        ToolOutcome {
            structured: None,
            content,
            details: details.filter(|details| !details.is_null()),
            is_error: answer
                .get("isError")
                .and_then(Value::as_bool)
                .unwrap_or(outcome.is_error),
        }
    }
}

/// Extensions' `before_provider_headers`, `before_provider_request` and
/// `after_provider_response` handlers, around each
/// model call of a run.
impl crate::provider::hooks::ProviderHooks for HostClient {
    fn wants_payload(&self) -> bool {
        self.handles("before_provider_request")
    }

    /// Each handler sees the payload as the previous ones left it; one that returns something
    /// replaces it. The payload is sent unchanged when the host is gone.
    fn before_request(&self, payload: Value) -> HookFuture<'_, Value> {
        Box::pin(async move {
            let event = HostEvent::BeforeProviderRequest { payload: &payload };
            let answer = self.intercept::<ProviderRequestResult>(&event).await;
            answer.and_then(|answer| answer.payload).unwrap_or(payload)
        })
    }

    fn wants_response(&self) -> bool {
        self.handles("after_provider_response")
    }

    fn after_response(&self, status: u16, headers: Map<String, Value>) -> HookFuture<'_, ()> {
        Box::pin(async move {
            let event = HostEvent::AfterProviderResponse {
                status,
                headers: &headers,
            };
            self.intercept::<Value>(&event).await;
        })
    }

    fn wants_headers(&self) -> bool {
        self.handles("before_provider_headers")
    }

    /// The handlers change one headers object in turn; the headers go as given when the host
    /// is gone.
    fn before_headers(&self, headers: Map<String, Value>) -> HookFuture<'_, Map<String, Value>> {
        Box::pin(async move {
            let event = HostEvent::BeforeProviderHeaders { headers: &headers };
            let answer = self.intercept::<ProviderHeadersResult>(&event).await;
            answer.and_then(|answer| answer.headers).unwrap_or(headers)
        })
    }
}
