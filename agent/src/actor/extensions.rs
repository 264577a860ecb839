//! The session's side of extensions: it forwards events to the extension host, to be completed
//! when their handlers are done (so that what they cause comes first, as in the reference),
//! sends the extension commands a prompt invokes, and writes what the extensions send: UI
//! requests, `extension_error`, `entry_appended`. `prompt` handles the messages extensions send
//! and the `before_agent_start` event; `lifecycle` the `session_shutdown` at exit;
//! `active_tools` the tools' state and `pi.setActiveTools`; `host_calls` the model's state and
//! the other calls the host makes (`pi.setModel`, a command's `ctx.newSession()`, ...).
//! Whatever waits for the host is an operation in flight (`actor/ops/`: start-up's
//! `session_start` and the `agent_settled` handlers, a replacement, a reload, an extension
//! command, a prompt's start, a held loop event, a `bash` command's `user_bash`, a compaction's
//! `session_before_compact` and a saved one's `session_compact`, a model change's
//! `model_select`, a tree navigation's `session_before_tree` and `session_tree`): its requests
//! are sent here and their replies routed back to it by its route (`ops::ids::OpRoute`).
//! Extension tools and the `tool_call` / `tool_result` handlers run from the run itself,
//! through its clone of the host's one client (`crate::extensions::HostClient`): the actor's
//! requests and the run's take their ids from the same counter, and the actor's replies reach
//! it in order with the host's other messages.

use std::collections::HashMap;

use pi_rpc_protocol::event::{Event, ExtensionErrorEvent};
use pi_rpc_protocol::message::AgentMessage;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

mod access;
mod active_tools;
mod commands;
mod host_calls;
mod lifecycle;
mod model_calls;
mod prompt;
mod resources_discover;
mod session_calls;
mod session_mirror;

use super::ops::ids::OpRoute;
use super::outbox::{Effect, IfLost};
use super::{State, log_store_error};
use crate::extensions::{
    CancelResult, Host, HostEvent, HostInput, HostLine, HostMessage, HostReply, SendError,
};
pub(super) use access::{handles_event, host_client, next_message, provider_hooks};
pub(super) use session_calls::Shutdown;

/// The extension host and what waits for it.
#[derive(Debug)]
pub(crate) struct Extensions {
    host: Host,
    /// Whether the host has ended (then nothing waits for it any more).
    gone: bool,
    /// The actor's requests waiting for their reply, by the id the host client gave them:
    /// the operation each reply goes to.
    pending: HashMap<u64, OpRoute>,
    /// `sendMessage(.., {deliverAs: "nextTurn"})` messages, delivered with the next prompt.
    next_turn: Vec<AgentMessage>,
    /// The system prompt `before_agent_start` handlers gave the next run.
    system_prompt: Option<String>,
    /// The tool flags' choice, kept while `pi.setActiveTools` chose the tools instead.
    flag_tools: Option<crate::tools::ToolSelection>,
    /// What the host was last told of the session.
    mirror: session_mirror::SessionMirror,
    /// The extensions' model calls running, for their aborts.
    model_calls: crate::extensions::RunningCalls,
}

impl Extensions {
    /// Wraps a started host.
    pub(crate) fn new(host: Host) -> Self {
        Self {
            host,
            gone: false,
            pending: HashMap::new(),
            next_turn: Vec::new(),
            system_prompt: None,
            flag_tools: None,
            mirror: session_mirror::SessionMirror::default(),
            model_calls: crate::extensions::RunningCalls::default(),
        }
    }
}

impl Extensions {
    /// The host, while it lives.
    pub(super) fn live_host(&self) -> Option<&Host> {
        (!self.gone).then_some(&self.host)
    }

    /// The host, live or not.
    pub(super) fn host(&self) -> &Host {
        &self.host
    }

    /// The host, live or not.
    pub(super) fn host_mut(&mut self) -> &mut Host {
        &mut self.host
    }

    /// The ids of the actor's requests waiting for their reply, in order.
    #[cfg(test)]
    pub(super) fn waiting_ids(&self) -> Vec<u64> {
        let mut ids: Vec<u64> = self.pending.keys().copied().collect();
        ids.sort_unstable();
        ids
    }

    /// A session replacement: what the old instances left for their session goes with it.
    pub(super) fn forget_session(&mut self) {
        self.next_turn.clear();
        self.system_prompt = None;
    }
}

impl State {
    /// Tells the host the tools', the commands' and the model's state, then emits `session_start` (reason
    /// `startup`) to the extensions; commands wait until its handlers are done
    /// (`ops/settle.rs`).
    pub(super) fn start_extensions(&mut self) {
        self.send_tools_state();
        self.send_slash_commands();
        self.send_model_state_with(true);
        self.start_up_handlers();
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
        Option<std::sync::Arc<dyn crate::agent_loop::RunHooks>>,
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
            let hooks: std::sync::Arc<dyn crate::agent_loop::RunHooks> = std::sync::Arc::new(hooks);
            hooks
        });
        (
            given.unwrap_or_else(|| self.system_prompt()),
            context,
            hooks,
        )
    }

    /// Sends the request `make` makes (at the flush), its reply to go to the operation
    /// `route`; false when the host is gone. Should the request not reach the host after all,
    /// the operation goes on as when the host ends ([`State::on_host_message_lost`]).
    fn send_request(
        &mut self,
        route: OpRoute,
        make: impl FnOnce(&Host) -> Result<(u64, HostLine), SendError>,
    ) -> bool {
        let Some(ext) = &mut self.extensions else {
            return false;
        };
        if ext.gone {
            return false;
        }
        match make(&ext.host) {
            Ok((id, line)) => {
                ext.pending.insert(id, route);
                self.push_host(line, IfLost::Request(id));
                true
            }
            Err(error) => {
                tracing::error!(%error, "cannot send a request to the extension host");
                false
            }
        }
    }

    /// Sends `event` to the host when some live extension handles it, its handlers' `done` to
    /// go to the operation `route`; false when nothing waits for them.
    pub(super) fn send_op_event(&mut self, route: OpRoute, event: &HostEvent<'_>) -> bool {
        handles_event(&self.extensions, event.kind())
            && self.send_request(route, |host| host.emit(event))
    }

    /// Asks the handlers of `event` that decide what follows (`intercept`) when some live
    /// extension handles it, their decision to go to the operation `route`; false when
    /// nothing waits for them.
    pub(super) fn ask_op(&mut self, route: OpRoute, event: &HostEvent<'_>) -> bool {
        handles_event(&self.extensions, event.kind())
            && self.send_request(route, |host| host.intercept(event))
    }

    /// Asks the live host for what `event` decides whether or not extensions handle it (the
    /// host answers it itself: `session_setup`), the answer to go to the operation `route`;
    /// false when nothing waits for it.
    pub(super) fn ask_host_op(&mut self, route: OpRoute, event: &HostEvent<'_>) -> bool {
        self.send_request(route, |host| host.intercept(event))
    }

    /// The host, while it lives.
    pub(super) fn live_host(&self) -> Option<&Host> {
        self.extensions.as_ref().and_then(Extensions::live_host)
    }

    /// Sends a message the host needs only while it lives (at the flush; `line`: none without
    /// a live host). Should it not reach the host, that is logged as `what`.
    pub(super) fn tell_host(
        &mut self,
        what: &'static str,
        line: Option<Result<HostLine, SendError>>,
    ) {
        match line {
            Some(Ok(line)) => self.push_host(line, IfLost::Log(what)),
            Some(Err(error)) => tracing::warn!(%error, "{what}"),
            None => {}
        }
    }

    /// Sends `line` to the host at the flush (`if_lost`: what follows should it not reach the
    /// host), after what changed in the session since the host was last told: a handler it
    /// starts sees the session as it is now.
    pub(super) fn push_host(&mut self, line: HostLine, if_lost: IfLost) {
        self.sync_session_mirror();
        self.outbox.push(Effect::Host { line, if_lost });
    }

    /// Tells a live host whether the agent runs now (the `input` event of
    /// `pi.sendUserMessage` names its delivery only during a run; `ctx.isIdle()` answers from
    /// it).
    pub(super) fn streaming_changed(&mut self, value: bool) {
        let line = self.live_host().map(|host| host.streaming(value));
        self.tell_host("cannot tell the extension host that the agent runs", line);
    }

    /// A message for the host was lost (the host is gone): what waited for it goes on.
    pub(super) fn on_host_message_lost(&mut self, lost: IfLost) {
        match lost {
            IfLost::Log(_) => {}
            IfLost::Request(id) => {
                let pending = self
                    .extensions
                    .as_mut()
                    .and_then(|ext| ext.pending.remove(&id));
                if let Some(route) = pending {
                    self.complete(route, None);
                }
            }
            IfLost::Restart(key) => self.restart_without_reload(key),
            IfLost::Reload(key) => self.reload_not_sent(key),
        }
    }

    /// One message or reply from the host; `None` when it has ended.
    pub(super) fn on_host_input(&mut self, input: Option<HostInput>) {
        match input {
            None => self.on_host_gone(),
            Some(HostInput::Message(message)) => self.on_host_message(message),
            Some(HostInput::Reply(id, reply)) => {
                let pending = self
                    .extensions
                    .as_mut()
                    .and_then(|ext| ext.pending.remove(&id));
                match pending {
                    Some(route) => self.complete(route, Some(reply)),
                    None => tracing::warn!(id, "a reply to no request of the session"),
                }
            }
        }
    }

    /// One message from the host.
    fn on_host_message(&mut self, message: HostMessage) {
        match message {
            HostMessage::Ui { request } => {
                let mut record = serde_json::Map::with_capacity(request.len() + 1);
                record.insert("type".into(), "extension_ui_request".into());
                record.extend(request);
                self.write(Value::Object(record));
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
                self.emit(event);
            }
            HostMessage::AppendEntry { custom_type, data } => {
                self.append_extension_entry(&custom_type, data);
            }
            HostMessage::SendMessage {
                message,
                deliver_as,
                trigger_turn,
            } => {
                self.extension_custom_message(message, deliver_as.as_deref(), trigger_turn);
            }
            HostMessage::SendUserMessage {
                text,
                images,
                deliver_as,
            } => {
                self.extension_user_message(text, images, deliver_as.as_deref());
            }
            HostMessage::Loaded {
                commands,
                tools,
                events,
                error,
                providers,
                ..
            } => self.reloaded(commands, &tools, events, &providers, error),
            HostMessage::Registered {
                commands,
                tools,
                events,
            } => {
                let before = self.all_tool_names();
                if let Some(ext) = &mut self.extensions {
                    ext.host.loaded(commands, &tools, events);
                }
                self.tools_registered(&before);
            }
            HostMessage::RegisterProvider {
                registration,
                origin,
            } => self.extension_register_provider(&registration, origin),
            HostMessage::UnregisterProvider { name } => self.extension_unregister_provider(&name),
            HostMessage::SetActiveTools { names } => self.set_active_tools(names),
            HostMessage::SetModel {
                id,
                provider,
                model_id,
            } => self.extension_set_model(id, &provider, &model_id),
            // The host ran the `thinking_level_select` handlers itself, as pi runs them
            // before `pi.setThinkingLevel` returns.
            HostMessage::SetThinkingLevel { level } => {
                self.change_thinking_level(level);
            }
            HostMessage::WaitForIdle { id } => self.wait_for_idle(id),
            HostMessage::Replace {
                id,
                session_path,
                entry_id,
                position,
            } => {
                self.command_replace(id, session_path, entry_id, position.as_deref());
            }
            HostMessage::ReloadRuntime { id } => self.command_reload(id),
            HostMessage::Compact {
                id,
                custom_instructions,
            } => self.extension_compact(id, custom_instructions),
            HostMessage::ModelCall {
                id,
                model,
                context,
                options,
                simple,
                registry,
            } => {
                let call = crate::extensions::ModelCall {
                    model,
                    context,
                    options,
                    simple,
                    registry,
                };
                self.extension_model_call(id, call);
            }
            HostMessage::ModelCallAbort { id } => self.extension_model_call_abort(&id),
            HostMessage::ModelAuth {
                id,
                model,
                provider,
            } => self.extension_model_auth(&id, model.as_ref(), provider.as_deref()),
            HostMessage::RunTool {
                id,
                name,
                params,
                cwd,
            } => self.extension_run_tool(id, name, params, cwd),
            HostMessage::NavigateTree {
                id,
                target_id,
                options,
            } => self.navigate_tree(id, target_id, options),
            HostMessage::NewSession {
                id,
                parent_session,
                setup,
            } => self.command_new_session(id, parent_session, setup),
            HostMessage::SetSessionName { name } => self.extension_set_session_name(&name),
            HostMessage::SetLabel { target_id, label } => {
                self.extension_set_label(&target_id, label.as_deref());
            }
            HostMessage::Shutdown { during_command } => self.request_shutdown(during_command),
        }
    }

    /// Goes on with the operation `route` that waited for the reply to a request (`reply`:
    /// their handlers' `done`, or `intercepted`; `None` when the host has ended).
    fn complete(&mut self, route: OpRoute, reply: Option<HostReply>) {
        match route {
            OpRoute::Startup => self.start_up_handlers_done(),
            OpRoute::StartupDiscover => self.start_up_resources_discovered(decided(reply)),
            OpRoute::Discover(key) => self.restart_resources_discovered(key, decided(reply)),
            OpRoute::Settled => self.settle(),
            OpRoute::ModelSelect(key)
            | OpRoute::ThinkingLevelSelect(key)
            | OpRoute::SessionInfoChanged(key) => {
                self.model_select_done(key);
            }
            OpRoute::Replacement(key) => {
                let cancelled = decided::<CancelResult>(reply).cancelled();
                self.replacement_handlers_done(key, cancelled);
            }
            OpRoute::Reload(key) => self.reload_shutdown_done(key),
            OpRoute::Restart(key) => self.start_handlers(key),
            OpRoute::Setup(key) => self.setup_done(key, decided(reply)),
            OpRoute::Command(key) => self.extension_command_done(key),
            OpRoute::LoopEvent => self.loop_event_handlers_done(),
            OpRoute::PromptInput(key) => self.prompt_input_done(key, decided(reply)),
            OpRoute::PromptBeforeStart(key) => {
                self.prompt_before_start_done(key, decided(reply));
            }
            OpRoute::UserMessage(key) => {
                self.user_message_before_start_done(key, decided(reply));
            }
            OpRoute::BeforeCompact(key) => self.before_compact_done(key, decided(reply)),
            OpRoute::Compaction(key) => self.compact_handlers_done(key),
            OpRoute::Bash(key) => self.user_bash_handlers_done(key, decided(reply)),
            OpRoute::BeforeTree(key) => self.before_tree_done(key, decided(reply)),
            OpRoute::TreeHandlers(key) => self.tree_handlers_done(key),
        }
    }

    /// The host ended: nothing it was doing will finish, so everything waiting goes on.
    fn on_host_gone(&mut self) {
        let Some(ext) = &mut self.extensions else {
            return;
        };
        tracing::error!("the extension host ended; extensions are disabled from now on");
        ext.gone = true;
        let mut pending: Vec<(u64, OpRoute)> = ext.pending.drain().collect();
        pending.sort_by_key(|(id, _)| *id);
        for (_, route) in pending {
            self.complete(route, None);
        }
        self.restart_without_host();
    }

    /// `pi.appendEntry`: a `custom` entry in the session, announced as `entry_appended`.
    fn append_extension_entry(&mut self, custom_type: &str, data: Option<Value>) {
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
        self.write(record);
    }
}

/// What the handlers decided, read as `T` (the default when the host has ended or the answer is
/// not a `T`).
fn decided<T: DeserializeOwned + Default>(reply: Option<HostReply>) -> T {
    reply.and_then(HostReply::decision).unwrap_or_default()
}
