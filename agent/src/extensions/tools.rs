//! Tools that extensions register (`pi.registerTool`): offered to the model beside the built-in
//! ones and executed in the extension host. A run calls them through a [`ToolBridge`], which
//! writes to the host directly (not through the session, which may be holding an event for the
//! host's handlers meanwhile) and receives the call's partial results and result from the
//! host's reader.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};

use pi_rpc_protocol::message::AgentMessage;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::provider::hooks::HookFuture;
use crate::run::BeforeCall;
use crate::system_prompt::ToolPrompt;
use crate::tools::{Tool, ToolContent, ToolDefinition, ToolOutcome, ToolUpdate};

/// A tool an extension registered, as the host reports it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RegisteredTool {
    /// The name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    #[serde(default)]
    pub description: String,
    /// JSON schema of its arguments.
    #[serde(default)]
    pub parameters: Value,
    /// Its line in the system prompt's tool list (without one it is not listed).
    #[serde(default, rename = "promptSnippet")]
    pub prompt_snippet: Option<String>,
    /// What it adds to the system prompt's guidelines.
    #[serde(default, rename = "promptGuidelines")]
    pub prompt_guidelines: Vec<String>,
    /// The extension's file.
    pub path: String,
}

/// What a registered tool adds to the system prompt: its snippet on one line (runs of white
/// space become one space), its guidelines trimmed, without empty or repeated ones.
fn tool_prompt(tool: &RegisteredTool) -> ToolPrompt {
    let snippet = tool
        .prompt_snippet
        .as_deref()
        .map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|text| !text.is_empty());
    let mut guidelines: Vec<String> = Vec::new();
    for line in &tool.prompt_guidelines {
        let line = line.trim();
        if !line.is_empty() && !guidelines.iter().any(|kept| kept == line) {
            guidelines.push(line.to_owned());
        }
    }
    ToolPrompt {
        name: tool.name.clone(),
        snippet,
        guidelines,
    }
}

/// What the host says about one running tool call.
#[derive(Debug)]
pub(super) enum ToolReply {
    /// `onUpdate(partial)`.
    Update(Value),
    /// The call's end: `{content, details}` and whether `execute` threw.
    Result { result: Value, is_error: bool },
    /// What the `tool_call` or `tool_result` handlers made of the call.
    Intercepted(Value),
    /// A piece of the output of a `bash` command run by an extension's operations.
    BashData(Vec<u8>),
    /// The end of that command: its exit code, or why `exec` failed.
    BashExit {
        exit_code: Option<i64>,
        error: Option<String>,
    },
}

/// The tool calls waiting for the host, by the id they were sent with.
#[derive(Debug, Clone, Default)]
pub(super) struct ToolCalls(Arc<Mutex<HashMap<u64, mpsc::UnboundedSender<ToolReply>>>>);

impl ToolCalls {
    fn lock(&self) -> MutexGuard<'_, HashMap<u64, mpsc::UnboundedSender<ToolReply>>> {
        // A panic while holding the lock leaves the map itself sound.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Hands `reply` to the call `id`; its result also ends the call.
    pub(super) fn deliver(&self, id: u64, reply: ToolReply) {
        let mut calls = self.lock();
        let sender = if matches!(reply, ToolReply::Update(_) | ToolReply::BashData(_)) {
            calls.get(&id).cloned()
        } else {
            calls.remove(&id)
        };
        if let Some(sender) = sender {
            // The run may have gone (end of input); the reply is then not needed.
            let _ = sender.send(reply);
        }
    }

    /// The host ended: every waiting call ends with an error.
    pub(super) fn fail_all(&self) {
        self.lock().clear();
    }

    /// Waits for the replies to `id`.
    pub(super) fn insert(&self, id: u64, sender: mpsc::UnboundedSender<ToolReply>) {
        self.lock().insert(id, sender);
    }

    /// Stops waiting for the replies to `id`.
    pub(super) fn remove(&self, id: u64) {
        self.lock().remove(&id);
    }
}

/// Runs extension tools for a run, and the `tool_call` and `tool_result` handlers around every
/// tool call; cheap to clone.
#[derive(Debug, Clone)]
pub struct ToolBridge {
    writer: mpsc::Sender<Vec<u8>>,
    pub(super) calls: ToolCalls,
    pub(super) next_id: Arc<AtomicU64>,
    /// What the extensions registered, shared by every clone: a run sees a tool registered
    /// during it from its next model request on, as in the reference.
    registry: Arc<RwLock<Registry>>,
}

/// The registered tools and the events extensions handle.
#[derive(Debug, Default)]
struct Registry {
    /// Counts the updates.
    version: u64,
    definitions: Vec<ToolDefinition>,
    prompts: Vec<ToolPrompt>,
    events: Vec<String>,
}

impl ToolBridge {
    /// A bridge with nothing registered yet.
    pub(super) fn new(writer: mpsc::Sender<Vec<u8>>, calls: ToolCalls) -> Self {
        Self {
            writer,
            calls,
            next_id: Arc::new(AtomicU64::new(0)),
            registry: Arc::default(),
        }
    }

    /// Counts the registry's updates: a run's system prompt is built anew once it changed.
    pub(super) fn registry_version(&self) -> u64 {
        self.registry().version
    }

    /// Takes what the extensions registered now (every clone sees it).
    pub(super) fn update(&self, tools: &[RegisteredTool], events: &[String]) {
        let definitions = tools
            .iter()
            .map(|tool| ToolDefinition {
                name: intern(&tool.name),
                description: tool.description.clone(),
                parameters: tool.parameters.clone(),
            })
            .collect();
        let mut registry = self.registry_mut();
        *registry = Registry {
            version: registry.version + 1,
            definitions,
            prompts: tools.iter().map(tool_prompt).collect(),
            events: events.to_vec(),
        };
    }

    fn registry(&self) -> RwLockReadGuard<'_, Registry> {
        // A panic while holding the lock leaves the registry itself sound.
        self.registry
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn registry_mut(&self) -> RwLockWriteGuard<'_, Registry> {
        self.registry
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether some extension handles events of `kind`.
    fn handles(&self, kind: &str) -> bool {
        self.registry().events.iter().any(|event| event == kind)
    }

    /// Runs the `session_before_compact` handlers of a compaction (`event`, the event record):
    /// `{cancel: true}`, `{compaction: {summary, firstKeptEntryId, tokensBefore}}`, or `None`
    /// to go on (also when nothing handles it or the host is gone).
    pub async fn before_compact(&self, event: Value) -> Option<Value> {
        if !self.handles("session_before_compact") {
            return None;
        }
        self.intercept(event)
            .await
            .filter(|answer| answer.get("cancel").is_some() || answer.get("compaction").is_some())
    }

    /// Runs the `context` handlers on the messages of the next model request: they may
    /// replace them for that request (the conversation itself stays). `None` when nothing
    /// handles `context`, the host is gone or its answer is not a list of messages.
    pub async fn transform_context(&self, messages: &[&AgentMessage]) -> Option<Vec<AgentMessage>> {
        if !self.handles("context") {
            return None;
        }
        let event = json!({"type": "context", "messages": messages});
        let mut answer = self.intercept(event).await?;
        match serde_json::from_value(answer.get_mut("messages").map(Value::take)?) {
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
        let event =
            json!({"type": "tool_call", "toolName": name, "toolCallId": call_id, "input": args});
        let Some(answer) = self.intercept(event).await else {
            return BeforeCall::Fail(HOST_GONE.into());
        };
        if let Some(error) = answer.get("error").and_then(Value::as_str) {
            return BeforeCall::Fail(error.to_owned());
        }
        if answer.get("block").and_then(Value::as_bool) == Some(true) {
            let reason = answer
                .get("reason")
                .and_then(Value::as_str)
                .filter(|reason| !reason.is_empty())
                .unwrap_or("Tool execution was blocked");
            return BeforeCall::Fail(reason.to_owned());
        }
        BeforeCall::Run(answer.get("input").cloned().unwrap_or_else(|| args.clone()))
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
        let event = json!({
            "type": "tool_result",
            "toolName": name,
            "toolCallId": call_id,
            "input": args,
            "content": outcome.content,
            "details": outcome.details,
            "isError": outcome.is_error,
        });
        let Some(answer) = self.intercept(event).await else {
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

    /// Sends `event` to its handlers and waits for what they made of it; `None` when the host
    /// is gone.
    async fn intercept(&self, event: Value) -> Option<Value> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, mut replies) = mpsc::unbounded_channel();
        self.calls.lock().insert(id, tx);
        if !self
            .send(&json!({"type": "intercept", "id": id, "event": event}))
            .await
        {
            self.calls.lock().remove(&id);
            return None;
        }
        while let Some(reply) = replies.recv().await {
            if let ToolReply::Intercepted(answer) = reply {
                return Some(answer);
            }
        }
        None
    }

    /// The registered tools as the model sees them, in registration order.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.registry().definitions.clone()
    }

    /// What the registered tools add to the system prompt, in registration order.
    pub fn prompts(&self) -> Vec<ToolPrompt> {
        self.registry().prompts.clone()
    }

    /// The tools extensions registered, each run in the host through this bridge.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.definitions()
            .into_iter()
            .map(|definition| {
                let tool: Arc<dyn Tool> =
                    Arc::new(super::tool::ExtensionTool::new(definition, self.clone()));
                tool
            })
            .collect()
    }

    /// Runs the tool `name` in the host: partial results go to `on_update`, `cancel` aborts the
    /// tool's signal (the tool decides how to end). A throw is a failed call with its message.
    pub(super) async fn execute(
        &self,
        call_id: &str,
        name: &str,
        args: &Value,
        cancel: &CancellationToken,
        on_update: &mut (dyn FnMut(ToolUpdate) + Send),
    ) -> ToolOutcome {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, mut replies) = mpsc::unbounded_channel();
        self.calls.lock().insert(id, tx);
        let call =
            json!({"type": "tool", "id": id, "toolCallId": call_id, "name": name, "args": args});
        if !self.send(&call).await {
            self.calls.lock().remove(&id);
            return ToolOutcome::error(HOST_GONE);
        }
        let mut abort_sent = false;
        loop {
            tokio::select! {
                reply = replies.recv() => match reply {
                    Some(ToolReply::Update(partial)) => {
                        let (content, details) = split_result(&partial);
                        on_update(ToolUpdate { content, details });
                    }
                    Some(ToolReply::Result { result, is_error }) => {
                        let (content, details) = split_result(&result);
                        return ToolOutcome {
                            content,
                            details,
                            is_error,
                            structured: None,
                        };
                    }
                    Some(_) => {}
                    None => return ToolOutcome::error(HOST_GONE),
                },
                () = cancel.cancelled(), if !abort_sent => {
                    abort_sent = true;
                    self.send(&json!({"type": "tool_abort", "id": id})).await;
                }
            }
        }
    }

    pub(super) async fn send(&self, message: &Value) -> bool {
        let mut line = message.to_string().into_bytes();
        line.push(b'\n');
        self.writer.send(line).await.is_ok()
    }
}

/// Extensions' `before_provider_request` and `after_provider_response` handlers, around each
/// model call of a run.
impl crate::provider::hooks::ProviderHooks for ToolBridge {
    fn wants_payload(&self) -> bool {
        self.handles("before_provider_request")
    }

    /// Each handler sees the payload as the previous ones left it; one that returns something
    /// replaces it. The payload is sent unchanged when the host is gone.
    fn before_request(&self, payload: Value) -> HookFuture<'_, Value> {
        Box::pin(async move {
            let event = json!({"type": "before_provider_request", "payload": &payload});
            match self.intercept(event).await {
                Some(mut answer) => match answer.get_mut("payload") {
                    Some(replaced) => replaced.take(),
                    None => payload,
                },
                None => payload,
            }
        })
    }

    fn wants_response(&self) -> bool {
        self.handles("after_provider_response")
    }

    fn after_response(&self, status: u16, headers: Map<String, Value>) -> HookFuture<'_, ()> {
        Box::pin(async move {
            let event =
                json!({"type": "after_provider_response", "status": status, "headers": headers});
            self.intercept(event).await;
        })
    }
}

/// A tool name as the `&'static str` the built-in tools use: each distinct name registered is
/// kept once for the life of the agent (extensions register few, but may register again).
fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(kept) = names.get(name) {
        return kept;
    }
    let kept: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(kept);
    kept
}

/// The result of a call the host could not finish.
pub(super) const HOST_GONE: &str = "The extension host ended before the tool finished";

/// `{content, details}` of a (partial) result: its text and image blocks (other blocks cannot
/// reach the model) and its details, if any.
fn split_result(result: &Value) -> (Vec<ToolContent>, Option<Value>) {
    let content = result
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| blocks.iter().filter_map(content_block).collect())
        .unwrap_or_default();
    (content, result.get("details").cloned())
}

fn content_block(block: &Value) -> Option<ToolContent> {
    let text = |key: &str| block.get(key).and_then(Value::as_str).map(str::to_owned);
    match block.get("type").and_then(Value::as_str)? {
        "text" => Some(ToolContent::Text {
            text: text("text").unwrap_or_default(),
        }),
        "image" => Some(ToolContent::Image {
            data: text("data")?,
            mime_type: text("mimeType")?,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_text_and_image_blocks_and_their_details() {
        let result = json!({
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "uri": "x"}
            ],
            "details": {"n": 1}
        });
        let (content, details) = split_result(&result);
        assert_eq!(
            content,
            vec![
                ToolContent::text("hi"),
                ToolContent::Image {
                    data: "AAAA".into(),
                    mime_type: "image/png".into()
                }
            ]
        );
        assert_eq!(details, Some(json!({"n": 1})));
        assert_eq!(split_result(&json!({})), (Vec::new(), None));
    }
}
