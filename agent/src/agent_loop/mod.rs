//! A run: the agent loop of one prompt (or continuation), spawned as its own task. It streams the
//! model's answer (the model call runs inside this task, polled as a
//! [`ProviderStream`](crate::provider::ProviderStream)), runs the tools it calls, takes steering
//! and follow-up messages from the session between turns, and reports every event to the
//! session in the reference's order.

mod arguments;
mod hooks;
mod tools;

pub use hooks::{BeforeCall, RunHooks};

use pi_rpc_protocol::content::AssistantContent;
use pi_rpc_protocol::event::{Event, MessageEvent, NoFields};
use pi_rpc_protocol::message::{AgentMessage, AssistantMessage, StopReason, TaggedToolResult};
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::convert::convert_shared;
use crate::provider::{self, LlmRequest, ProviderEvent, RequestDetails};
use crate::store::{Role, SharedMessage};

/// What a run tells the session.
#[derive(Debug)]
pub enum RunMessage {
    /// An event to record and write.
    Event(Box<Event>),
    /// Events to record and write, in order, as one write (a burst of streaming deltas).
    Events(Vec<Event>),
    /// Asks for the steering messages due now (per the steering mode).
    DrainSteering(oneshot::Sender<Vec<AgentMessage>>),
    /// Asks for the follow-up messages due now (per the follow-up mode).
    DrainFollowUp(oneshot::Sender<Vec<AgentMessage>>),
    /// `message_end` of a message the run keeps too: shared with the session, not copied.
    MessageEnd(Arc<AgentMessage>),
    /// `agent_end` with the run's messages, shared with the session (`willRetry` is the
    /// session's to decide).
    AgentEnd(Vec<Arc<AgentMessage>>),
    /// `turn_end`, with the turn's tool results: its assistant message is the last one the
    /// session recorded (its `message_end`), so the session writes the record from its own copy
    /// instead of receiving another.
    TurnEnd(Vec<TaggedToolResult>),
    /// The model stream waits until what came before is written out (a paced stream, see
    /// [`crate::provider::StreamOptions::paced`]): the session signals once it is.
    Written(provider::WrittenSignal),
}

/// Where a run's messages go: the session's channel of its tasks' reports, which tells the
/// session the run is over once [`drive`] returns.
pub trait RunSink: Send + Sync + std::fmt::Debug {
    /// Sends `message`, waiting while the session is behind; fails once the session is gone.
    fn send(
        &self,
        message: RunMessage,
    ) -> Pin<Box<dyn Future<Output = Result<(), SessionGone>> + Send + '_>>;
}

/// Everything a run needs, copied out of the session when it starts.
#[derive(Debug)]
pub struct RunSpec {
    /// Messages delivered first, in the first turn (the prompt, or queued messages).
    pub prompts: Vec<AgentMessage>,
    /// The conversation before this run, shared with the session (not copied, nor parsed: a
    /// message read from a session file is parsed only while a request encodes it).
    pub history: Vec<Arc<SharedMessage>>,
    /// The model, with the headers of its request.
    pub model: Model,
    /// What authenticates its calls, or why that could not be resolved (each call then fails).
    pub auth: Result<crate::config::RequestAuth, crate::config::RequestAuthError>,
    /// The system prompt.
    pub system_prompt: String,
    /// The thinking level.
    pub thinking_level: ThinkingLevel,
    /// The session id, sent to providers that cache by session.
    pub session_id: String,
    /// Skip the steering poll before the first model call (a continuation that already took
    /// a steering message).
    pub skip_initial_steering_poll: bool,
    /// Working folder, cancel signal and settings of the tools.
    pub tool_context: crate::tools::ToolContext,
    /// What extensions do for the run: their tools, run in the extension host, their handlers
    /// around tool calls and model requests, the system prompt rebuilt after registrations.
    pub hooks: Option<Arc<dyn RunHooks>>,
    /// The HTTP client.
    pub http: reqwest::Client,
    /// Transport settings of the model calls (provider-level retries).
    pub stream_options: crate::provider::StreamOptions,
    /// Cancelled by `abort`.
    pub cancel: CancellationToken,
    /// Streaming deltas may go to the session in bursts (no one needs to see them one at a
    /// time, as an extension handling `message_update` does).
    pub batch_updates: bool,
    /// The release of pi's RPC protocol spoken: what the records carry.
    pub release: crate::release::RpcRelease,
}

/// Sends run messages to the session; every method fails once the session is gone.
#[derive(Debug, Clone)]
pub(crate) struct Emitter {
    tx: Arc<dyn RunSink>,
    /// Whether [`Emitter::emit_all`] sends one burst or one message per event.
    batch: bool,
}

/// The session stopped listening; the run ends quietly.
#[derive(Debug)]
pub struct SessionGone;

impl Emitter {
    pub(crate) async fn emit(&self, event: Event) -> Result<(), SessionGone> {
        self.tx.send(RunMessage::Event(Box::new(event))).await
    }

    /// Emits several events: at once when batching (they cross to the session and reach
    /// stdout together), else one by one.
    async fn emit_all(&self, events: Vec<Event>) -> Result<(), SessionGone> {
        if !self.batch {
            for event in events {
                self.emit(event).await?;
            }
            return Ok(());
        }
        self.tx.send(RunMessage::Events(events)).await
    }

    async fn message_end(&self, message: Arc<AgentMessage>) -> Result<(), SessionGone> {
        self.tx.send(RunMessage::MessageEnd(message)).await
    }

    async fn turn_end(&self, tool_results: Vec<TaggedToolResult>) -> Result<(), SessionGone> {
        self.tx.send(RunMessage::TurnEnd(tool_results)).await
    }

    async fn drain(
        &self,
        make: fn(oneshot::Sender<Vec<AgentMessage>>) -> RunMessage,
    ) -> Result<Vec<AgentMessage>, SessionGone> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(make(reply)).await?;
        answer.await.map_err(|_| SessionGone)
    }
}

/// Runs the agent loop (it is over when this returns).
pub async fn drive(spec: RunSpec, tx: Arc<dyn RunSink>) {
    let emitter = Emitter {
        tx,
        batch: spec.batch_updates,
    };
    // A run whose session is gone (end of input) just stops.
    let _ = run_loop(spec, &emitter).await;
}

async fn run_loop(spec: RunSpec, emitter: &Emitter) -> Result<(), SessionGone> {
    let RunSpec {
        prompts,
        history,
        model,
        auth,
        system_prompt,
        thinking_level,
        session_id,
        skip_initial_steering_poll,
        tool_context,
        hooks,
        http,
        stream_options,
        cancel,
        batch_updates: _,
        release,
    } = spec;
    // The conversation the model sees; this run's own messages start at `first_new` (they
    // are `agent_end`'s, moved out at the end rather than kept twice).
    let mut context = history;
    let first_new = context.len();
    // The tools and system prompt of the next turn's model request: those of the run's start,
    // then taken anew after each turn's end (what extensions registered or chose meanwhile), as
    // the reference takes them.
    let mut turn = Turn {
        tools: tools::offered(&tool_context, hooks.as_ref()),
        system_prompt,
    };
    emitter.emit(Event::AgentStart(NoFields {})).await?;
    emitter.emit(Event::TurnStart(NoFields {})).await?;
    for prompt in prompts {
        emitter.emit(message_start(prompt.clone())).await?;
        let prompt = Arc::new(prompt);
        emitter.message_end(Arc::clone(&prompt)).await?;
        context.push(SharedMessage::from_shared(prompt));
    }
    // `PI_CACHE_RETENTION`, read once for the run's calls.
    let cache_retention = provider::CacheRetention::configured(&auth);
    let mut first_turn = true;
    let mut pending = if skip_initial_steering_poll {
        Vec::new()
    } else {
        emitter.drain(RunMessage::DrainSteering).await?
    };
    loop {
        let mut more_tool_calls = true;
        while more_tool_calls || !pending.is_empty() {
            if !first_turn {
                emitter.emit(Event::TurnStart(NoFields {})).await?;
            }
            first_turn = false;
            for message in std::mem::take(&mut pending) {
                emitter.emit(message_start(message.clone())).await?;
                let message = Arc::new(message);
                emitter.message_end(Arc::clone(&message)).await?;
                context.push(SharedMessage::from_shared(message));
            }
            // Extensions' `context` handlers may rewrite what this request sends.
            let transformed = match &hooks {
                Some(bridge) => {
                    // From 0.87.0 the handlers no longer see the `system` messages.
                    let hide_system = release.has(crate::release::Feature::ContextHidesSystem);
                    // Messages read from a session file are parsed for the handlers, not kept.
                    let messages: Vec<Cow<'_, AgentMessage>> = context
                        .iter()
                        .filter(|m| !(hide_system && m.role() == Role::System))
                        .filter_map(|m| {
                            m.parsed()
                                .map(Cow::Borrowed)
                                .or_else(|| m.typed_copy().map(Cow::Owned))
                        })
                        .collect();
                    let messages: Vec<&AgentMessage> = messages.iter().map(|m| &**m).collect();
                    bridge.transform_context(&messages).await
                }
                None => None,
            };
            // The history stays shared: a provider copies only what it transforms.
            let messages = match transformed {
                Some(messages) => convert_shared(
                    &messages
                        .into_iter()
                        .map(SharedMessage::new)
                        .collect::<Vec<_>>(),
                ),
                None => convert_shared(&context),
            };
            let request = LlmRequest {
                model: model.clone(),
                auth: auth.clone(),
                system_prompt: turn.system_prompt.clone(),
                messages: crate::convert::block_images(messages, stream_options.block_images),
                tools: turn.tools.definitions(),
                thinking_level,
                session_id: Some(session_id.clone()),
                cache_retention,
                thinking_budgets: stream_options.thinking_budgets,
                details: RequestDetails::for_release(release),
            };
            let assistant = stream_assistant(
                &http,
                &stream_options,
                request,
                cancel.clone(),
                emitter,
                release,
            )
            .await?;
            let failed = matches!(
                &*assistant,
                AgentMessage::Assistant(message)
                    if matches!(message.stop_reason, StopReason::Error | StopReason::Aborted)
            );
            context.push(SharedMessage::from_shared(Arc::clone(&assistant)));
            if failed {
                emitter.turn_end(Vec::new()).await?;
                return end(emitter, context.split_off(first_new)).await;
            }
            let results = match &*assistant {
                AgentMessage::Assistant(assistant) => {
                    let calls = tools::Calls {
                        offered: &turn.tools,
                        context: &tool_context,
                        hooks: hooks.as_ref(),
                    };
                    tools::execute_calls(assistant, calls, emitter, release).await?
                }
                _ => Vec::new(),
            };
            more_tool_calls = !results.is_empty();
            let mut tool_results = Vec::with_capacity(results.len());
            for result in results {
                context.push(SharedMessage::new(AgentMessage::ToolResult(result.clone())));
                tool_results.push(TaggedToolResult::ToolResult(result));
            }
            emitter.turn_end(tool_results).await?;
            // Answered once the `turn_end` handlers are done (the session holds the run's
            // messages meanwhile): what they, and the turn's tools, chose is seen now.
            pending = emitter.drain(RunMessage::DrainSteering).await?;
            turn.refresh(&tool_context, hooks.as_ref());
        }
        let follow_ups = emitter.drain(RunMessage::DrainFollowUp).await?;
        if follow_ups.is_empty() {
            break;
        }
        pending = follow_ups;
    }
    end(emitter, context.split_off(first_new)).await
}

/// What a turn's model request offers: the tools (its calls run among them) and the system
/// prompt.
struct Turn {
    tools: crate::tools::ToolSet,
    system_prompt: String,
}

impl Turn {
    /// Takes the tools extensions registered or chose since (`pi.setActiveTools` during a tool
    /// call or a handler applies from the next turn's request), and the system prompt rebuilt
    /// for them.
    fn refresh(&mut self, context: &crate::tools::ToolContext, hooks: Option<&Arc<dyn RunHooks>>) {
        self.tools = tools::offered(context, hooks);
        if let Some(prompt) = hooks.and_then(|hooks| hooks.system_prompt()) {
            self.system_prompt = prompt;
        }
    }
}

/// `agent_end` with the run's own messages (made here, so typed), which the session holds too.
async fn end(emitter: &Emitter, messages: Vec<Arc<SharedMessage>>) -> Result<(), SessionGone> {
    let messages = messages
        .iter()
        .filter_map(|message| message.shared().cloned())
        .collect();
    emitter.tx.send(RunMessage::AgentEnd(messages)).await
}

/// Streams one assistant message: `message_start` (late, with what the provider already has),
/// each delta as `message_update`, then `message_end` with the final message, which the run
/// shares with the session.
async fn stream_assistant(
    http: &reqwest::Client,
    options: &crate::provider::StreamOptions,
    request: LlmRequest,
    cancel: CancellationToken,
    emitter: &Emitter,
    release: crate::release::RpcRelease,
) -> Result<Arc<AgentMessage>, SessionGone> {
    if cancel.is_cancelled() {
        // Aborted between turns (during tools): the reference makes no request and ends the
        // turn with this message, an error before 1.5.2 and an abort from it.
        let stop_reason = if release.has(crate::release::Feature::AbortedTurnIsAborted) {
            StopReason::Aborted
        } else {
            StopReason::Error
        };
        let mut message = failed_message(&request.model, stop_reason, "This operation was aborted");
        release.stamp_response(
            &mut message,
            std::time::Duration::ZERO,
            request.thinking_level,
        );
        return finish_message(emitter, message, false).await;
    }
    let model = request.model.clone();
    let thinking_level = request.thinking_level;
    let started_at = std::time::Instant::now();
    // A flood of long deltas crosses to stdout one at a time.
    let options = crate::provider::StreamOptions {
        paced: true,
        ..*options
    };
    let mut events = provider::stream_with(http, request, options, cancel);
    let mut started = false;
    let mut usage = None;
    // The arguments text of each tool call as streamed, by content index.
    let mut raw_arguments: std::collections::HashMap<usize, String> = Default::default();
    while let Some(event) = events.recv().await {
        match event {
            ProviderEvent::Start(mut partial) => {
                started = true;
                release.stamp_usage(&mut partial.usage);
                usage = Some(partial.usage.clone());
                emitter
                    .emit(message_start(AgentMessage::Assistant(partial)))
                    .await?;
            }
            ProviderEvent::Usage(now) => usage = Some(now),
            ProviderEvent::Deltas(deltas) => {
                let updates = deltas
                    .into_iter()
                    .map(|mut delta| {
                        arguments::check_arguments(&mut delta, &mut raw_arguments, release);
                        Event::MessageUpdate(release.message_update(delta, usage.as_ref()))
                    })
                    .collect();
                emitter.emit_all(updates).await?;
            }
            ProviderEvent::Done(mut done) => {
                for (index, block) in done.content.iter_mut().enumerate() {
                    if let AssistantContent::ToolCall(call) = block {
                        let raw = raw_arguments.get(&index).map(String::as_str);
                        arguments::check_tool_arguments(call, raw, release);
                    }
                }
                release.stamp_response(&mut done, started_at.elapsed(), thinking_level);
                return finish_message(emitter, done, started).await;
            }
            ProviderEvent::Written(signal) => {
                emitter
                    .tx
                    .send(RunMessage::Written(signal))
                    .await
                    .map_err(|_| SessionGone)?;
            }
        }
    }
    // The provider ended without a final message (it cannot, by its contract); report an error
    // rather than hang.
    let message = failed_message(
        &model,
        StopReason::Error,
        "The provider stream ended without a final message",
    );
    finish_message(emitter, message, started).await
}

async fn finish_message(
    emitter: &Emitter,
    message: AssistantMessage,
    started: bool,
) -> Result<Arc<AgentMessage>, SessionGone> {
    if !started {
        let start = AgentMessage::Assistant(message.clone());
        emitter.emit(message_start(start)).await?;
    }
    let message = Arc::new(AgentMessage::Assistant(message));
    emitter.message_end(Arc::clone(&message)).await?;
    Ok(message)
}

pub(crate) fn failed_message(
    model: &Model,
    stop_reason: StopReason,
    error: &str,
) -> AssistantMessage {
    AssistantMessage {
        content: Vec::new(),
        api: model.api.clone(),
        provider: model.provider.clone(),
        model: model.id.clone(),
        response_model: None,
        usage: Default::default(),
        stop_reason,
        timestamp: crate::js::now_ms(),
        response_id: None,
        raw_stop_reason: None,
        error_message: Some(error.to_owned()),
        extra: Default::default(),
    }
}

fn message_start(message: AgentMessage) -> Event {
    Event::MessageStart(MessageEvent { message })
}
