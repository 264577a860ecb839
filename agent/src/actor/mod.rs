//! The session task: it owns every piece of session state, answers commands, starts runs and
//! relays their events to the writer, in the order the reference emits them.
//!
//! Its handlers (of a line, a task's report, the host's message or reply) are plain methods of
//! `State`, which holds everything but the actor's end of the output: they change the state
//! and push what they ask of the outside world to its outbox (`outbox.rs`: records, messages
//! for the extension host, the start of a task's work). [`Actor`] awaits only its next input
//! and the flush that performs those effects in order (`flush.rs`); registering and
//! cancelling a task are synchronous and stay direct calls (`tasks.rs`).

mod answer;
mod commands;
mod compaction;
mod ending;
mod extensions;
mod flush;
#[cfg(test)]
mod host_tests;
mod input;
mod later_releases;
mod ops;
mod outbox;
mod output;
mod queue;
mod replace;
mod start;
mod tasks;
#[cfg(test)]
mod tests;
mod waiting;

use std::collections::VecDeque;
use std::sync::Arc;

use pi_rpc_protocol::command::QueueMode;
use pi_rpc_protocol::event::{Event, QueueUpdateEvent};
use pi_rpc_protocol::message::{AgentMessage, AssistantMessage, StopReason};
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::agent_loop::{RunMessage, RunSpec};
use crate::config::Config;
use crate::rpc::OutputSender;
use tasks::TaskKind;

/// What a session starts with.
#[derive(Debug)]
pub struct ActorInit {
    /// Loaded configuration.
    pub config: Config,
    /// `--name`, recorded in the session first.
    pub name: Option<String>,
    /// The models `cycle_model` walks (`--models`); empty for every available model.
    pub scoped_models: Vec<crate::model_resolver::ScopedModel>,
    /// The model `--model` chose, for every session this process starts or opens.
    pub cli_model: Option<Model>,
    /// The thinking level `--thinking` (or the `--model` suffix) chose, for every session.
    pub cli_thinking_level: Option<ThinkingLevel>,
    /// The session store (in memory with `--no-session`).
    pub store: crate::store::SessionStore,
    /// Discovery of prompt templates and skills (`--approve`, `--no-skills`,
    /// `--no-prompt-templates`).
    pub resources: crate::resources::ResourceOptions,
    /// The extension host, when extensions are loaded.
    pub extensions: Option<crate::extensions::Host>,
    /// The release of pi's RPC protocol to speak.
    pub rpc_release: crate::release::RpcRelease,
    /// The commands of the built-in extensions `get_commands` lists.
    pub builtin_commands: Vec<serde_json::Value>,
    /// Set when a termination signal arrives: the actor saves what the session holds unsaved
    /// and ends (none: it never is).
    pub termination: Option<tokio::sync::watch::Receiver<bool>>,
}

/// What the actor's tasks report ([`tasks`]); the last report of each is its outcome.
#[derive(Debug)]
enum TaskEvent {
    /// A run's message (a run's reports are held back while the loop's gates
    /// hold loop events).
    Run(RunMessage),
    /// The run is over (it emitted `agent_end`, or was cancelled with the session's end).
    RunFinished,
    /// The wait before an automatic retry is over: `elapsed`, or cancelled (`abort`).
    RetryWaitOver { elapsed: bool },
    /// A chunk of a `bash` command's output.
    BashOutput { key: ops::ids::OpKey, delta: String },
    /// A `bash` command ended (or could not start).
    BashDone(ops::ids::OpKey, Box<ops::bash::BashOutcome>),
    /// A compaction's `summarization_retry_*` event.
    SummaryRetry(Box<Event>),
    /// A compaction's summary, or why there is none.
    CompactionDone(ops::ids::OpKey, Box<compaction::Finished>),
    /// The summary of the branch a tree navigation leaves, or why there is none.
    BranchSummaryDone(
        ops::ids::OpKey,
        Box<
            Result<
                crate::compaction::branch::BranchSummary,
                crate::compaction::summarize::SummaryError,
            >,
        >,
    ),
}

impl From<RunMessage> for TaskEvent {
    fn from(message: RunMessage) -> Self {
        Self::Run(message)
    }
}

/// The session actor: its state, and its end of the output, which only the loop's flush
/// touches.
pub struct Actor {
    state: State,
    output: flush::Output,
    termination: Option<tokio::sync::watch::Receiver<bool>>,
}

/// Everything the actor's handlers read and change; what they ask of the outside world goes
/// to its outbox.
pub(crate) struct State {
    config: Config,
    /// The session's model; `None` when no model is available.
    model: Option<Model>,
    thinking_level: ThinkingLevel,
    steering_mode: QueueMode,
    follow_up_mode: QueueMode,
    store: crate::store::SessionStore,
    scoped_models: Vec<crate::model_resolver::ScopedModel>,
    session_name: Option<String>,
    auto_compaction: bool,
    messages: crate::store::Conversation,
    /// Texts shown in `queue_update`, removed when a matching user message starts.
    steering_texts: Vec<String>,
    follow_up_texts: Vec<String>,
    /// The queued messages themselves, taken by the run.
    steering_queue: VecDeque<AgentMessage>,
    follow_up_queue: VecDeque<AgentMessage>,
    /// Whether a run (or its continuation) is in progress: `isStreaming`.
    streaming: bool,
    /// The last assistant message of the current run, without its content, for the post-run
    /// retry and compaction decisions.
    last_assistant: Option<AssistantMessage>,
    /// The operations in flight (`ops/`): start-up, the settle, replacements, reloads, the
    /// automatic retry, `bash` commands, compactions; the loop's gates are theirs.
    ops: ops::Operations,
    /// What the input being handled asks for, performed at the flush.
    outbox: outbox::Outbox,
    /// The long work in progress: runs, compactions, the retry wait, `bash` commands.
    tasks: tasks::Tasks<TaskEvent>,
    /// While the lines of one read are handled: the answers of `steer` and `follow_up`,
    /// written after the read's last line.
    held_answers: Option<Vec<u8>>,
    /// What the command line fixed for every session ([`start`]).
    cli_start: start::CliStart,
    http: crate::config::HttpClient,
    file_locks: crate::tools::FileLocks,
    /// `bashExecution` messages of commands that ended during a run, added after it.
    pending_bash: Vec<AgentMessage>,
    /// Prompt templates and skills.
    resources: crate::resources::Resources,
    /// What the command line says about them (the project's trust decided), for `ctx.reload()`
    /// to discover them again.
    resource_options: crate::resources::ResourceOptions,
    /// Loaded extensions.
    extensions: Option<extensions::Extensions>,
    /// The release of pi's RPC protocol spoken: what the records carry.
    release: crate::release::RpcRelease,
    /// The commands of the built-in extensions `get_commands` lists.
    builtin_commands: Vec<serde_json::Value>,
    /// Whether an extension asked the agent to exit (`ctx.shutdown()`).
    shutdown: extensions::Shutdown,
}

impl Actor {
    /// A new session writing its records to `out`.
    pub fn new(mut init: ActorInit, out: OutputSender) -> Self {
        let termination = init.termination.take();
        Self {
            state: State::new(init),
            output: flush::Output::new(out),
            termination,
        }
    }

    /// Serves lines until the input ends (or stdout is gone), then cancels every task.
    pub async fn run(mut self, mut lines: mpsc::Receiver<crate::rpc::InputLine>) {
        self.state.start_extensions();
        let mut termination = self.termination.take();
        // Until the input ends, stdout is gone or an extension's `ctx.shutdown()` is due.
        let mut input = ending::InputEnd::default();
        // A signal ends the loop also while a flush waits for a client that stopped reading
        // (its stdout full): the session is saved all the same.
        while self.flush_or_terminated(&mut termination).await
            && !self.output.is_closed()
            && !self.state.shutdown_due()
            && !input.over(&self.state)
        {
            let gates = self.state.gates();
            let (run_events, commands) = (gates.loop_events, gates.lines && input.open());
            let state = &mut self.state;
            tokio::select! {
                biased;
                () = ending::terminated(&mut termination) => break,
                () = ending::expired(input.deadline()) => break,
                input = extensions::next_message(&mut state.extensions) => {
                    state.on_host_input(input);
                }
                report = state.tasks.next(run_events) => state.on_task_report(report),
                line = lines.recv(), if commands => match line {
                    Some(line) => self.on_input(line, &mut lines).await,
                    None if input.ended(state) => break,
                    None => {}
                },
            }
        }
        self.state.tasks.cancel_all();
        self.state.answer_commands_in_hand();
        // What the client was told is accepted is not lost, however the agent ends.
        if let Err(error) = self.state.store.save_unsaved() {
            tracing::warn!(%error, "cannot save the session at the end");
        }
        self.shutdown_extensions_at_exit().await;
        self.state.write_answer_held_for_shutdown();
        self.flush().await;
    }

    /// [`Self::flush`], unless a termination signal comes first: false then.
    async fn flush_or_terminated(
        &mut self,
        termination: &mut Option<tokio::sync::watch::Receiver<bool>>,
    ) -> bool {
        tokio::select! {
            biased;
            () = ending::terminated(termination) => false,
            () = self.flush() => true,
        }
    }

    /// Performs what the input handled asked for ([`outbox`]), in order. A message that did
    /// not reach the extension host is an input of its own: what waited for it goes on, and
    /// what that asks for is performed too.
    async fn flush(&mut self) {
        let state = &mut self.state;
        // What changed in the session reaches the host's mirror by the end of the input.
        state.sync_session_mirror();
        while !state.outbox.is_empty() {
            let effects = state.outbox.take();
            let sources = flush::Sources {
                messages: &state.messages,
                store: &state.store,
                host: state.extensions.as_ref().map(extensions::Extensions::host),
            };
            let lost = self.output.flush(effects, sources).await;
            for lost in lost {
                state.on_host_message_lost(lost);
            }
        }
    }
}

impl State {
    /// A new session (its store's start recorded, nothing written yet).
    fn new(init: ActorInit) -> Self {
        let steering_mode = init.config.settings.steering_mode();
        let follow_up_mode = init.config.settings.follow_up_mode();
        let auto_compaction = init.config.settings.compaction_enabled();
        let http = init.config.settings.http_client();
        let mut store = init.store;
        store.set_saved_at(crate::store::SavedAt::for_release(init.rpc_release));
        let mut resource_options = init.resources;
        resource_options.project_trust =
            Some(resource_options.project_trust.unwrap_or_else(|| {
                crate::resources::project_trusted_by_settings(
                    &init.config.agent_dir,
                    &init.config.cwd,
                )
            }));
        let resources = crate::resources::Resources::discover(
            &init.config.cwd,
            &init.config.agent_dir,
            resource_options.clone(),
        );
        if let Some(name) = &init.name {
            log_store_error(store.append_session_info(name));
        }
        let mut session = Self {
            config: init.config,
            model: None,
            thinking_level: ThinkingLevel::Off,
            steering_mode,
            follow_up_mode,
            store,
            scoped_models: init.scoped_models,
            session_name: None,
            auto_compaction,
            messages: crate::store::Conversation::new(),
            steering_texts: Vec::new(),
            follow_up_texts: Vec::new(),
            steering_queue: VecDeque::new(),
            follow_up_queue: VecDeque::new(),
            streaming: false,
            last_assistant: None,
            ops: ops::Operations::default(),
            outbox: outbox::Outbox::default(),
            tasks: tasks::Tasks::new(),
            held_answers: None,
            cli_start: start::CliStart {
                model: init.cli_model,
                thinking_level: init.cli_thinking_level,
            },
            http,
            file_locks: crate::tools::FileLocks::default(),
            pending_bash: Vec::new(),
            resources,
            resource_options,
            extensions: init.extensions.map(extensions::Extensions::new),
            release: init.rpc_release,
            builtin_commands: init.builtin_commands,
            shutdown: extensions::Shutdown::None,
        };
        session.start_on_store();
        session
    }

    /// What the loop may take now: what the operations in flight allow.
    fn gates(&self) -> ops::gates::Gates {
        self.ops.gates()
    }

    fn emit_queue_update(&mut self) {
        let event = Event::QueueUpdate(QueueUpdateEvent {
            steering: self.steering_texts.clone(),
            follow_up: self.follow_up_texts.clone(),
        });
        self.emit(event);
    }

    fn on_task_report(&mut self, report: tasks::TaskReport<TaskEvent>) {
        match report.event {
            TaskEvent::Run(message) => self.on_run_message(message),
            TaskEvent::RunFinished => self.on_run_finished(),
            TaskEvent::RetryWaitOver { elapsed } => self.on_retry_wait_over(elapsed),
            TaskEvent::BashOutput { key, delta } => self.on_bash_output(key, delta),
            TaskEvent::BashDone(key, outcome) => {
                self.on_bash_done(key, *outcome, report.generation);
            }
            TaskEvent::SummaryRetry(event) => self.emit(*event),
            TaskEvent::CompactionDone(key, done) => {
                self.on_compaction_done(key, *done, report.generation);
            }
            TaskEvent::BranchSummaryDone(key, outcome) => {
                self.on_branch_summary_done(key, *outcome, report.generation);
            }
        }
    }

    fn on_run_message(&mut self, message: RunMessage) {
        match message {
            RunMessage::Event(event) => {
                if let Some(event) = self.hold_for_extensions(*event) {
                    self.on_run_event(event);
                }
            }
            RunMessage::Events(events) => {
                self.outbox.push(outbox::Effect::BurstStart);
                for event in events {
                    self.on_run_event(event);
                }
                self.outbox.push(outbox::Effect::BurstEnd);
            }
            RunMessage::DrainSteering(reply) => {
                let drained = queue::drain(&mut self.steering_queue, self.steering_mode);
                send_reply(reply, drained);
            }
            RunMessage::DrainFollowUp(reply) => {
                let drained = queue::drain(&mut self.follow_up_queue, self.follow_up_mode);
                send_reply(reply, drained);
            }
            RunMessage::MessageEnd(message) => self.write_message_end(message),
            RunMessage::AgentEnd(messages) => self.write_agent_end(messages),
            RunMessage::TurnEnd(tool_results) => self.write_turn_end(tool_results),
            RunMessage::Written(signal) => self.outbox.push(outbox::Effect::Written(signal)),
        }
    }

    fn on_run_event(&mut self, mut event: Event) {
        match &mut event {
            Event::MessageStart(start) => {
                if let AgentMessage::User(user) = &start.message {
                    self.ops.compaction.overflow_recovery_attempted = false;
                    let text = queue::content_text(&user.content);
                    if !text.is_empty()
                        && queue::remove_text(
                            &mut self.steering_texts,
                            &mut self.follow_up_texts,
                            &text,
                        )
                    {
                        self.emit_queue_update();
                    }
                }
            }
            Event::AgentEnd(end) => {
                end.will_retry = self.will_retry(end.messages.iter());
            }
            _ => {}
        }
        match event {
            // The ended message is written from the copy the session keeps.
            Event::MessageEnd(end) => {
                let message = Arc::new(end.message);
                self.write_long(outbox::Record::MessageEnd(outbox::MessageEndRecord {
                    message: Arc::clone(&message),
                }));
                self.record_ended_message(message);
            }
            event if output::may_be_long(&event) => self.write_long(event),
            event if output::carries_long_text(&event) => self.write_streamed(event),
            // A short delta is encoded at once, beside the others of its burst.
            event @ Event::MessageUpdate(_) => self.outbox.record_encoded(&event),
            // The event is encoded at the flush (and dropped before the line waits for the
            // writer).
            event => self.write(event),
        }
    }

    /// Records the message of a `message_end`: in the conversation and the session file (one
    /// copy, shared with the run that made it).
    fn record_ended_message(&mut self, message: Arc<AgentMessage>) {
        self.record_custom_message(&message);
        let outline = match &*message {
            AgentMessage::Assistant(assistant) => Some(outline(assistant)),
            _ => None,
        };
        let message = crate::store::SharedMessage::from_shared(message);
        if message.role().is_recorded() {
            log_store_error(self.store.append_shared_message(message.clone()));
        }
        self.messages.push_shared(message);
        if let Some(assistant) = outline {
            if !matches!(
                assistant.stop_reason,
                StopReason::Error | StopReason::Length
            ) {
                self.ops.compaction.overflow_recovery_attempted = false;
            }
            if assistant.stop_reason != StopReason::Error {
                self.retry_answered();
            }
            self.last_assistant = Some(assistant);
        }
    }

    fn on_run_finished(&mut self) {
        if let Some(message) = self.last_assistant.take() {
            if self.retry_after_run(&message) {
                return;
            }
            if self.check_compaction(&message, true) {
                return;
            }
        }
        self.continue_or_settle();
    }

    /// After a run: a continuation when messages are queued, else `agent_settled` and the
    /// answers that waited for it.
    fn continue_or_settle(&mut self) {
        // From 0.86.1 an aborted run (its abort waits for the settle) leaves the queues as they
        // are.
        let stopped = self.release.has(crate::release::Feature::AbortKeepsQueues)
            && self.ops.settle.stopped();
        if !stopped && (!self.steering_queue.is_empty() || !self.follow_up_queue.is_empty()) {
            // Messages queued after the loop last looked (or left by an abort) start a
            // continuation, as the reference's post-run check does.
            let (prompts, skip_steering_poll) = if self.steering_queue.is_empty() {
                let drained = queue::drain(&mut self.follow_up_queue, self.follow_up_mode);
                (drained, false)
            } else {
                let drained = queue::drain(&mut self.steering_queue, self.steering_mode);
                (drained, true)
            };
            self.start_run(prompts, skip_steering_poll);
            return;
        }
        self.streaming = false;
        self.streaming_changed(false);
        self.flush_pending_bash();
        self.settle_or_hold();
    }

    /// Starts a run that delivers `prompts` first.
    fn start_run(&mut self, prompts: Vec<AgentMessage>, skip_initial_steering_poll: bool) {
        let task = self.tasks.start(TaskKind::AgentLoop);
        let cancel = task.cancel_token();
        let (system_prompt, tool_context, hooks) = self.run_prompt_and_tools(cancel.clone());
        let crate::config::RequestModel { model, auth } =
            self.config.registry.resolve(&self.shown_model());
        let prompts = self.with_system_declaration(
            prompts,
            &system_prompt,
            &self.active_tools().definitions(),
        );
        let spec = RunSpec {
            prompts,
            history: self.messages.shared(),
            model,
            auth,
            system_prompt,
            thinking_level: self.thinking_level,
            session_id: self.store.session_id().to_owned(),
            skip_initial_steering_poll,
            tool_context,
            hooks,
            http: self.http.get(),
            stream_options: self.config.settings.stream_options(),
            cancel: cancel.clone(),
            batch_updates: !extensions::handles_event(&self.extensions, "message_update"),
            release: self.release,
        };
        if !self.streaming {
            self.streaming_changed(true);
        }
        self.streaming = true;
        self.ops.compaction.mark_run_start();
        // Extensions' provider hooks run around each model call of the run.
        let hooks = extensions::provider_hooks(&self.extensions, &self.config.registry);
        let run = crate::agent_loop::drive(spec, Arc::new(task.sender()));
        let launch = task.launch(async move {
            crate::provider::hooks::scope(hooks, run).await;
            TaskEvent::RunFinished
        });
        self.outbox.push(outbox::Effect::Spawn(launch));
    }

    fn tool_context(&self, cancel: CancellationToken) -> crate::tools::ToolContext {
        let mut context = crate::tools::ToolContext::new(self.config.cwd.clone());
        context.cancel = cancel;
        context.release = self.release;
        let model = self.shown_model();
        context.model_accepts_images = Some(model.input.iter().any(|kind| kind == "image"));
        context.agent_dir = Some(self.config.agent_dir.clone());
        context.bash_env = vec![
            ("PI_SESSION_ID".into(), self.store.session_id().to_owned()),
            ("PI_PROVIDER".into(), model.provider.clone()),
            ("PI_MODEL".into(), model.id.clone()),
            (
                "PI_REASONING_LEVEL".into(),
                self.thinking_level.as_str().into(),
            ),
        ];
        if let Some(file) = self.store.session_file() {
            context.bash_env.push((
                "PI_SESSION_FILE".into(),
                file.to_string_lossy().into_owned(),
            ));
        }
        context.shell_path = self.config.settings.shell_path();
        context.shell_command_prefix = self.config.settings.shell_command_prefix();
        context.auto_resize_images = self.config.settings.auto_resize_images();
        context.bash_env.extend(self.config.settings.proxy_env());
        context.file_locks = self.file_locks.clone();
        context.selection = self.resources.tools.clone();
        context
    }
}

fn send_reply(reply: oneshot::Sender<Vec<AgentMessage>>, messages: Vec<AgentMessage>) {
    // The run may have been dropped meanwhile; then nobody needs the messages.
    let _ = reply.send(messages);
}

/// Session-file problems are logged; the conversation goes on in memory, as it must not stop
/// because a disk is full.
fn log_store_error<T>(result: crate::store::Result<T>) {
    if let Err(error) = result {
        tracing::warn!(%error, "cannot record the session entry");
    }
}

/// What the decisions after a run read of its last assistant message: everything but the
/// content, which may be large.
fn outline(message: &AssistantMessage) -> AssistantMessage {
    AssistantMessage {
        content: Vec::new(),
        api: message.api.clone(),
        provider: message.provider.clone(),
        model: message.model.clone(),
        response_model: message.response_model.clone(),
        usage: message.usage.clone(),
        stop_reason: message.stop_reason,
        timestamp: message.timestamp,
        response_id: message.response_id.clone(),
        raw_stop_reason: message.raw_stop_reason.clone(),
        error_message: message.error_message.clone(),
        extra: message.extra.clone(),
    }
}
