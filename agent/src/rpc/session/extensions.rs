//! The session's side of extensions: it forwards events to the extension host and holds each
//! event until its handlers are done (so that what they cause comes first, as in the
//! reference), runs extension commands invoked by a prompt, and writes what the extensions
//! send: UI requests, `extension_error`, `entry_appended`. `prompt` handles the messages
//! extensions send and the prompt's `input` / `before_agent_start` events; `lifecycle` the
//! session events (`agent_settled`, shutdown at exit, compaction, `model_select`);
//! `active_tools` the tools' state and `pi.setActiveTools`; `host_calls` the model's state and
//! the other calls the host makes (`pi.setModel`, a command's `ctx.newSession()`, ...). The
//! handlers an operation in flight waits for (`rpc/session/ops/`: a replacement, a reload, the
//! settle) are sent here and their `done` routed back to it by key. Extension tools and the
//! `tool_call` / `tool_result` handlers run from the run itself, through its clone of the host's
//! one client (`crate::extensions::HostClient`): the actor's requests and the run's take their
//! ids from the same counter, and the actor's replies reach it in order with the host's other
//! messages.

use std::collections::HashMap;

use pi_rpc_protocol::RequestId;
use pi_rpc_protocol::command::PromptCommand;
use pi_rpc_protocol::event::{Event, ExtensionErrorEvent};
use pi_rpc_protocol::message::AgentMessage;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

mod access;
mod active_tools;
mod commands;
mod host_calls;
mod lifecycle;
mod prompt;

use super::ops::ids::OpRoute;
use super::ops::settle::Startup;
use super::{Session, log_store_error};
use crate::extensions::{CancelResult, Host, HostEvent, HostInput, HostMessage, HostReply};
use crate::release::Disposition;
pub(super) use access::{
    gates, handles_event, host_client, next_message, provider_hooks, streaming_changed,
};

/// What the reply (`done`) to the actor's request completes, by the request's id.
#[derive(Debug)]
enum Pending {
    /// `session_start` at start-up: commands are served once it is done.
    Startup,
    /// The held run event.
    RunEvent,
    /// An extension command invoked by the `prompt` with this id.
    Command(Option<RequestId>),
    /// The `input` handlers of this prompt.
    Input(Option<RequestId>, PromptCommand),
    /// The `before_agent_start` handlers of the prompt with this id, about to run these
    /// messages.
    BeforeStart(Option<RequestId>, Vec<AgentMessage>),
    /// The `before_agent_start` handlers of a user message an extension sent while the agent
    /// was idle.
    UserBeforeStart(Vec<AgentMessage>),
    /// The `agent_settled` handlers: `agent_settled` is written once they are done.
    Settled,
    /// Handlers (of `model_select`) that run before `command` is answered with `data`.
    Respond(Option<RequestId>, &'static str, Value),
    /// The `model_select` handlers of a `pi.setModel`, before the host's call resolves (its
    /// reply id).
    ModelSet(String),
    /// Handlers an operation in flight waits for (`ops/`).
    Op(OpRoute),
}

/// The extension host and what waits for it.
#[derive(Debug)]
pub(crate) struct Extensions {
    host: Host,
    /// Whether the host has ended (then nothing waits for it any more).
    gone: bool,
    /// A run event whose handlers are running; later run events wait behind it.
    held: Option<Event>,
    /// The actor's requests waiting for their `done`, by the id the host client gave them.
    pending: HashMap<u64, Pending>,
    /// `sendMessage(.., {deliverAs: "nextTurn"})` messages, delivered with the next prompt.
    next_turn: Vec<AgentMessage>,
    /// `sendUserMessage` messages sent by a running command (each the prompts of one run):
    /// their run starts once the command's prompt is answered, as in the reference.
    after_command: Vec<Vec<AgentMessage>>,
    /// The answer of a command that is done, waiting for the `before_agent_start` handlers of
    /// the user messages it sent.
    command_answer: Option<Option<RequestId>>,
    /// Errors of user messages a running command sent, reported after its answer.
    errors_after_command: Vec<Event>,
    /// Where a run that a command started with `sendMessage(.., {triggerTurn})` is.
    triggered: Triggered,
    /// The answer to the command that started that run, written after its `agent_start`.
    response_after_start: Option<Option<RequestId>>,
    /// The system prompt `before_agent_start` handlers gave the next run.
    system_prompt: Option<String>,
    /// The tool flags' choice, kept while `pi.setActiveTools` chose the tools instead.
    flag_tools: Option<crate::tools::ToolSelection>,
}

/// A run a running command triggered: the reference answers the command between the run's
/// `agent_start` and the rest of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Triggered {
    /// No such run.
    No,
    /// Started; its `agent_start` has not come yet.
    BeforeStart,
    /// Its `agent_start` is written; the rest waits for the command's answer.
    AfterStart,
}

impl Extensions {
    /// Wraps a started host.
    pub(crate) fn new(host: Host) -> Self {
        Self {
            host,
            gone: false,
            held: None,
            pending: HashMap::new(),
            next_turn: Vec::new(),
            after_command: Vec::new(),
            command_answer: None,
            errors_after_command: Vec::new(),
            triggered: Triggered::No,
            response_after_start: None,
            system_prompt: None,
            flag_tools: None,
        }
    }
}

impl Extensions {
    /// The host, while it lives.
    pub(super) fn live_host(&self) -> Option<&Host> {
        (!self.gone).then_some(&self.host)
    }

    /// The host, live or not.
    pub(super) fn host_mut(&mut self) -> &mut Host {
        &mut self.host
    }

    /// A session replacement: what the old instances left for their session goes with it.
    pub(super) fn forget_session(&mut self) {
        self.next_turn.clear();
        self.after_command.clear();
        self.system_prompt = None;
    }

    /// Whether the `before_agent_start` handlers of some extension user message still run
    /// (a running command's answer then waits for them).
    fn user_messages_starting(&self) -> bool {
        self.pending
            .values()
            .any(|pending| matches!(pending, Pending::UserBeforeStart(_)))
    }
}

impl Session {
    /// Emits `session_start` (reason `startup`) to the extensions; commands wait until its
    /// handlers are done.
    pub(super) async fn start_extensions(&mut self) {
        self.send_tools_state().await;
        self.send_model_state_with(true).await;
        if !handles_event(&self.extensions, "session_start") {
            return;
        }
        let event = HostEvent::SessionStart {
            reason: "startup",
            previous_session_file: None,
        };
        if self.send_event(Pending::Startup, &event).await {
            self.ops.startup = Startup::Handlers;
        }
    }

    /// The system prompt of the next request: the tools extensions registered so far are
    /// among its tools.
    pub(super) fn system_prompt(&self) -> String {
        let (tools, prompts) = host_client(&self.extensions)
            .map(|client| (client.tools(), client.prompts()))
            .unwrap_or_default();
        self.resources
            .system_prompt(&self.config.cwd, &tools, &prompts)
    }

    /// A run's system prompt, tool context and extension hooks. Unless `before_agent_start`
    /// handlers gave the run its prompt, the run rebuilds it when extensions register tools
    /// during it, as the reference does before each model request.
    pub(super) fn run_prompt_and_tools(
        &mut self,
        cancel: tokio_util::sync::CancellationToken,
    ) -> (
        String,
        crate::tools::ToolContext,
        Option<std::sync::Arc<dyn crate::run::RunHooks>>,
    ) {
        use crate::extensions::ExtensionRunHooks;
        let given = self.take_extension_system_prompt();
        let context = self.tool_context(cancel);
        let hooks = host_client(&self.extensions).map(|client| {
            let hooks = if given.is_some() {
                ExtensionRunHooks::new(client)
            } else {
                ExtensionRunHooks::rebuilding_prompt(
                    client,
                    self.resources.clone(),
                    self.config.cwd.clone(),
                )
            };
            let hooks: std::sync::Arc<dyn crate::run::RunHooks> = std::sync::Arc::new(hooks);
            hooks
        });
        (
            given.unwrap_or_else(|| self.system_prompt()),
            context,
            hooks,
        )
    }

    /// Sends `event` to the host, to be completed as `pending`; false when the host is gone.
    async fn send_event(&mut self, pending: Pending, event: &HostEvent<'_>) -> bool {
        let Some(ext) = &mut self.extensions else {
            return false;
        };
        if ext.gone {
            return false;
        }
        match ext.host.emit(event).await {
            Ok(id) => {
                ext.pending.insert(id, pending);
                true
            }
            Err(error) => {
                tracing::error!(%error, "cannot send an event to the extension host");
                false
            }
        }
    }

    /// Sends `event` to the host when some live extension handles it, its handlers' `done` to
    /// go to the operation `route`; false when nothing waits for them.
    pub(super) async fn send_op_event(&mut self, route: OpRoute, event: &HostEvent<'_>) -> bool {
        handles_event(&self.extensions, event.kind())
            && self.send_event(Pending::Op(route), event).await
    }

    /// A run event: returned to be emitted now, or held while extension handlers run (then
    /// emitted when they are done).
    pub(super) async fn hold_for_extensions(&mut self, event: Event) -> Option<Event> {
        let Some(ext) = &mut self.extensions else {
            return Some(event);
        };
        if matches!(event, Event::AgentStart(_))
            && ext.triggered == Triggered::BeforeStart
            && !ext.host.handles("agent_start")
        {
            self.on_run_event(event).await;
            self.after_triggered_start().await;
            return None;
        }
        // Only an event some handler takes is serialised (not every streamed delta).
        if ext.gone || !ext.host.handles(event.kind()) {
            return Some(event);
        }
        if !self
            .send_event(Pending::RunEvent, &HostEvent::Loop(&event))
            .await
        {
            return Some(event);
        }
        if let Some(ext) = &mut self.extensions {
            ext.held = Some(event);
        }
        None
    }

    /// One message or reply from the host; `None` when it has ended.
    pub(super) async fn on_host_input(&mut self, input: Option<HostInput>) {
        match input {
            None => self.on_host_gone().await,
            Some(HostInput::Message(message)) => self.on_host_message(message).await,
            Some(HostInput::Reply(id, reply)) => {
                let pending = self
                    .extensions
                    .as_mut()
                    .and_then(|ext| ext.pending.remove(&id));
                match pending {
                    Some(pending) => self.complete(pending, Some(reply)).await,
                    None => tracing::warn!(id, "a reply to no request of the session"),
                }
            }
        }
    }

    /// One message from the host.
    async fn on_host_message(&mut self, message: HostMessage) {
        match message {
            HostMessage::Ui { request } => {
                let mut record = serde_json::Map::with_capacity(request.len() + 1);
                record.insert("type".into(), "extension_ui_request".into());
                record.extend(request);
                self.write(&Value::Object(record)).await;
            }
            HostMessage::ExtensionError {
                extension_path,
                event,
                error,
            } => {
                let event = Event::ExtensionError(ExtensionErrorEvent {
                    extension_path,
                    event,
                    error,
                });
                self.emit(event).await;
            }
            HostMessage::AppendEntry { custom_type, data } => {
                self.append_extension_entry(&custom_type, data).await;
            }
            HostMessage::SendMessage {
                message,
                deliver_as,
                trigger_turn,
            } => {
                self.extension_custom_message(message, deliver_as.as_deref(), trigger_turn)
                    .await;
            }
            HostMessage::SendUserMessage {
                text,
                images,
                deliver_as,
            } => {
                self.extension_user_message(text, images, deliver_as.as_deref())
                    .await;
            }
            HostMessage::Loaded {
                commands,
                tools,
                events,
                error,
                ..
            } => self.reloaded(commands, &tools, events, error).await,
            HostMessage::Registered {
                commands,
                tools,
                events,
            } => {
                let before = self.all_tool_names();
                if let Some(ext) = &mut self.extensions {
                    ext.host.loaded(commands, &tools, events);
                }
                self.tools_registered(&before).await;
            }
            HostMessage::SetActiveTools { names } => self.set_active_tools(names).await,
            HostMessage::SetModel {
                id,
                provider,
                model_id,
            } => self.extension_set_model(id, &provider, &model_id).await,
            HostMessage::SetThinkingLevel { level } => self.set_thinking_level(level).await,
            HostMessage::WaitForIdle { id } => self.wait_for_idle(id).await,
            HostMessage::Replace {
                id,
                session_path,
                entry_id,
                position,
            } => {
                self.command_replace(id, session_path, entry_id, position.as_deref())
                    .await;
            }
            HostMessage::ReloadRuntime { id } => self.command_reload(id).await,
            HostMessage::NewSession { id, parent_session } => {
                self.command_new_session(id, parent_session).await;
            }
        }
    }

    /// Goes on with what waited for the handlers of a request (`reply`: their `done`; `None`
    /// when the host has ended).
    async fn complete(&mut self, pending: Pending, reply: Option<HostReply>) {
        match pending {
            Pending::Input(id, prompt) => self.after_input(id, prompt, decided(reply)).await,
            Pending::BeforeStart(id, prompts) => {
                self.after_before_agent_start(id, prompts, decided(reply))
                    .await;
            }
            Pending::Settled => self.settle().await,
            Pending::Op(OpRoute::Replacement(key)) => {
                let cancelled = decided::<CancelResult>(reply).cancelled();
                self.replacement_handlers_done(key, cancelled).await;
            }
            Pending::Op(OpRoute::Reload(key)) => self.reload_shutdown_done(key).await,
            Pending::Op(OpRoute::Restart(key)) => self.start_handlers(key).await,
            Pending::Op(OpRoute::Compaction(key)) => self.compact_handlers_done(key).await,
            Pending::Op(OpRoute::Bash(key)) => {
                self.user_bash_handlers_done(key, decided(reply)).await;
            }
            Pending::Respond(id, command, data) => self.respond(id, command, &data).await,
            Pending::ModelSet(reply) => self.reply_to_host(&reply, true).await,
            Pending::Startup => self.ops.startup = Startup::Done,
            Pending::RunEvent => {
                let held = self.extensions.as_mut().and_then(|ext| ext.held.take());
                if let Some(event) = held {
                    let started = matches!(event, Event::AgentStart(_));
                    self.on_run_event(event).await;
                    if started {
                        self.after_triggered_start().await;
                    }
                }
            }
            Pending::UserBeforeStart(prompts) => {
                self.after_user_before_start(prompts, decided(reply)).await;
            }
            Pending::Command(id) => {
                let Some(ext) = &mut self.extensions else {
                    return;
                };
                if ext.user_messages_starting() {
                    ext.command_answer = Some(id);
                    return;
                }
                self.finish_command(id).await;
            }
        }
    }

    /// Answers an extension command that is done, then reports what waited for its answer.
    async fn finish_command(&mut self, id: Option<RequestId>) {
        let Some(ext) = &mut self.extensions else {
            return;
        };
        match ext.triggered {
            Triggered::BeforeStart => ext.response_after_start = Some(id),
            Triggered::AfterStart => {
                ext.triggered = Triggered::No;
                let answer = self.release.accepted(id, "prompt", Disposition::Handled);
                self.write(&answer).await;
            }
            Triggered::No => {
                let answer = self.release.accepted(id, "prompt", Disposition::Handled);
                self.write(&answer).await;
            }
        }
        let errors = self
            .extensions
            .as_mut()
            .map(|ext| std::mem::take(&mut ext.errors_after_command))
            .unwrap_or_default();
        for error in errors {
            self.emit(error).await;
        }
        self.start_after_command();
    }

    /// After a run's `agent_start`: the command that triggered the run is answered now, or the
    /// rest of the run waits for its answer.
    async fn after_triggered_start(&mut self) {
        let Some(ext) = &mut self.extensions else {
            return;
        };
        if ext.triggered != Triggered::BeforeStart {
            return;
        }
        match ext.response_after_start.take() {
            Some(id) => {
                ext.triggered = Triggered::No;
                let answer = self.release.accepted(id, "prompt", Disposition::Handled);
                self.write(&answer).await;
            }
            None => ext.triggered = Triggered::AfterStart,
        }
    }

    /// The host ended: nothing it was doing will finish, so everything waiting goes on.
    async fn on_host_gone(&mut self) {
        let Some(ext) = &mut self.extensions else {
            return;
        };
        tracing::error!("the extension host ended; extensions are disabled from now on");
        ext.gone = true;
        let mut pending: Vec<(u64, Pending)> = ext.pending.drain().collect();
        pending.sort_by_key(|(id, _)| *id);
        for (_, pending) in pending {
            self.complete(pending, None).await;
        }
        self.restart_without_host().await;
    }

    /// `pi.appendEntry`: a `custom` entry in the session, announced as `entry_appended`.
    async fn append_extension_entry(&mut self, custom_type: &str, data: Option<Value>) {
        let id = match self.store.append_custom_entry(custom_type, data) {
            Ok(id) => id,
            Err(error) => {
                log_store_error::<()>(Err(error));
                return;
            }
        };
        let Some(entry) = self.store.entry(&id) else {
            return;
        };
        let record = json!({"type": "entry_appended", "entry": entry.raw()});
        self.write(&record).await;
    }
}

/// What the handlers decided, read as `T` (the default when the host has ended or the answer is
/// not a `T`).
fn decided<T: DeserializeOwned + Default>(reply: Option<HostReply>) -> T {
    reply.and_then(HostReply::decision).unwrap_or_default()
}
