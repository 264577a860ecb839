//! Executing a turn's tool calls as the reference does: every `tool_execution_start` first (a call
//! that fails validation ends at once), the calls run in parallel and end in completion order,
//! then the `toolResult` messages follow in call order.

use pi_rpc_protocol::content::{AssistantContent, ToolCall, UserContent};
use pi_rpc_protocol::event::{
    Event, MessageEvent, ToolExecutionEndEvent, ToolExecutionStartEvent, ToolExecutionUpdateEvent,
};
use pi_rpc_protocol::message::{AgentMessage, AssistantMessage, StopReason, ToolResultMessage};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio::sync::mpsc;

use super::hooks::{BeforeCall, RunHooks};
use super::{Emitter, SessionGone};
use crate::release::RpcRelease;
use crate::tools::{PreparedCall, ToolContent, ToolContext, ToolOutcome, ToolSet, ToolUpdate};

/// The tools offered now: the built-in ones and those extensions registered, as the tool flags
/// (or `pi.setActiveTools`, through the hooks) select them.
pub(super) fn offered(context: &ToolContext, hooks: Option<&Arc<dyn RunHooks>>) -> ToolSet {
    let extension_tools = hooks.map_or_else(Vec::new, |hooks| hooks.tools());
    let chosen = hooks.and_then(|hooks| hooks.selection());
    ToolSet::for_run(
        chosen.as_ref().unwrap_or(&context.selection),
        &extension_tools,
    )
}

/// What a turn's tool calls run with: the tools its model request offered (a call of another
/// one is not found), the tools' context and the extensions' hooks.
#[derive(Clone, Copy)]
pub(super) struct Calls<'a> {
    pub(super) offered: &'a ToolSet,
    pub(super) context: &'a ToolContext,
    pub(super) hooks: Option<&'a Arc<dyn RunHooks>>,
}

enum ToolMessage {
    Update(usize, ToolUpdate),
    /// The call's outcome and how long the tool ran.
    Done(usize, ToolOutcome, Duration),
}

/// Runs the tool calls of `assistant` and returns their results in call order.
pub(super) async fn execute_calls(
    assistant: &AssistantMessage,
    calls_with: Calls<'_>,
    emitter: &Emitter,
    release: RpcRelease,
) -> Result<Vec<ToolResultMessage>, SessionGone> {
    let Calls {
        offered,
        context,
        hooks,
    } = calls_with;
    let calls: Vec<&ToolCall> = assistant
        .content
        .iter()
        .filter_map(|block| match block {
            AssistantContent::ToolCall(call) => Some(call),
            _ => None,
        })
        .collect();
    if calls.is_empty() {
        return Ok(Vec::new());
    }
    if assistant.stop_reason == StopReason::Length {
        return fail_truncated_calls(&calls, emitter, release).await;
    }
    let mut outcomes: Vec<Option<(ToolOutcome, Option<Duration>)>> =
        Vec::with_capacity(calls.len());
    let (tx, mut rx) = mpsc::unbounded_channel::<ToolMessage>();
    for (index, call) in calls.iter().enumerate() {
        let args = Value::Object(call.arguments.clone());
        emitter
            .emit(Event::ToolExecutionStart(ToolExecutionStartEvent {
                tool_call_id: call.id.clone(),
                tool_name: call.name.clone(),
                args: args.clone(),
            }))
            .await?;
        let prepared = if context.cancel.is_cancelled() {
            Err(ToolOutcome::error("Operation aborted"))
        } else if let Some(error) = call
            .extra
            .get(super::arguments::ARGUMENTS_ERROR)
            .and_then(Value::as_str)
        {
            Err(ToolOutcome::error(format!(
                "Invalid arguments for tool \"{}\": {error}",
                call.name
            )))
        } else {
            offered.prepare(&call.name, &args, context.validation_wording())
        };
        match prepared {
            Err(outcome) => {
                emit_end(emitter, call, &outcome, None, release).await?;
                outcomes.push(Some((outcome, None)));
            }
            Ok(prepared) => {
                outcomes.push(None);
                let tx = tx.clone();
                let context = context.clone();
                let hooks = hooks.cloned();
                let call_id = call.id.clone();
                tokio::spawn(async move {
                    let updates = tx.clone();
                    let mut on_update = move |update: ToolUpdate| {
                        // The run may be gone (end of input); updates are then dropped.
                        let _ = updates.send(ToolMessage::Update(index, update));
                    };
                    let started = Instant::now();
                    let outcome = run_call(
                        prepared,
                        &call_id,
                        args,
                        &context,
                        hooks.as_deref(),
                        &mut on_update,
                    )
                    .await;
                    let _ = tx.send(ToolMessage::Done(index, outcome, started.elapsed()));
                });
            }
        }
        if context.cancel.is_cancelled() {
            break;
        }
    }
    drop(tx);
    while let Some(message) = rx.recv().await {
        match message {
            ToolMessage::Update(index, update) => {
                let call = calls[index];
                emitter
                    .emit(Event::ToolExecutionUpdate(ToolExecutionUpdateEvent {
                        tool_call_id: call.id.clone(),
                        tool_name: call.name.clone(),
                        args: Value::Object(call.arguments.clone()),
                        partial_result: serde_json::to_value(&update).unwrap_or(Value::Null),
                    }))
                    .await?;
            }
            ToolMessage::Done(index, outcome, took) => {
                emit_end(emitter, calls[index], &outcome, Some(took), release).await?;
                outcomes[index] = Some((outcome, Some(took)));
            }
        }
    }
    let mut results = Vec::with_capacity(outcomes.len());
    for (call, outcome) in calls.iter().zip(outcomes) {
        let (outcome, took) = match outcome {
            Some(outcome) => outcome,
            None => {
                // The tool's task died without an answer; end the call as a failure.
                let outcome = ToolOutcome::error("Tool execution failed unexpectedly");
                emit_end(emitter, call, &outcome, None, release).await?;
                (outcome, None)
            }
        };
        let result = result_message(call, outcome, took, release);
        emit_result_message(emitter, &result).await?;
        results.push(result);
    }
    Ok(results)
}

/// Runs a prepared call between the extensions' `tool_call` handlers (which may change its
/// arguments or block it) and their `tool_result` handlers (which may change its result).
/// `sent`: the arguments as the model sent them.
async fn run_call(
    prepared: PreparedCall,
    call_id: &str,
    sent: Value,
    context: &ToolContext,
    hooks: Option<&dyn RunHooks>,
    on_update: &mut (dyn FnMut(ToolUpdate) + Send),
) -> ToolOutcome {
    let Some(hooks) = hooks else {
        return prepared.run(call_id, context, on_update).await;
    };
    let (tool, prepared) = prepared.into_parts();
    let name = tool.name().to_owned();
    let args = match hooks.before_call(call_id, &name, &sent).await {
        BeforeCall::Fail(text) => return ToolOutcome::error(text),
        BeforeCall::Run(args) => args,
    };
    let prepared = if args == sent {
        prepared
    } else {
        // A handler changed the arguments: they are taken as they are, not re-checked beyond
        // what the built-in tools need to run.
        match tool.prepare(&args, context.validation_wording()) {
            Ok(prepared) => prepared,
            Err(error) => return ToolOutcome::error(error.to_string()),
        }
    };
    let outcome = tool.run(call_id, prepared, context, on_update).await;
    hooks.after_call(call_id, &name, &args, outcome).await
}

async fn fail_truncated_calls(
    calls: &[&ToolCall],
    emitter: &Emitter,
    release: RpcRelease,
) -> Result<Vec<ToolResultMessage>, SessionGone> {
    let mut results = Vec::with_capacity(calls.len());
    for call in calls {
        emitter
            .emit(Event::ToolExecutionStart(ToolExecutionStartEvent {
                tool_call_id: call.id.clone(),
                tool_name: call.name.clone(),
                args: Value::Object(call.arguments.clone()),
            }))
            .await?;
        let outcome = ToolOutcome::error(format!(
            "Tool call \"{}\" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.",
            call.name
        ));
        emit_end(emitter, call, &outcome, None, release).await?;
        let result = result_message(call, outcome, None, release);
        emit_result_message(emitter, &result).await?;
        results.push(result);
    }
    Ok(results)
}

async fn emit_end(
    emitter: &Emitter,
    call: &ToolCall,
    outcome: &ToolOutcome,
    took: Option<Duration>,
    release: RpcRelease,
) -> Result<(), SessionGone> {
    emitter
        .emit(Event::ToolExecutionEnd(ToolExecutionEndEvent {
            tool_call_id: call.id.clone(),
            tool_name: call.name.clone(),
            result: outcome.result_value(release),
            is_error: outcome.is_error,
            duration_ms: release.duration(took),
        }))
        .await
}

fn to_user_content(block: ToolContent) -> UserContent {
    match block {
        ToolContent::Text { text } => {
            UserContent::Text(pi_rpc_protocol::content::TextContent::new(text))
        }
        ToolContent::Image { data, mime_type } => {
            UserContent::Image(pi_rpc_protocol::content::ImageContent {
                data,
                mime_type,
                extra: Map::new(),
            })
        }
    }
}

fn result_message(
    call: &ToolCall,
    outcome: ToolOutcome,
    took: Option<Duration>,
    release: RpcRelease,
) -> ToolResultMessage {
    let details = outcome.result_details(release);
    ToolResultMessage {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        content: outcome.content.into_iter().map(to_user_content).collect(),
        details,
        usage: None,
        is_error: outcome.is_error,
        duration_ms: release.duration(took),
        timestamp: crate::js::now_ms(),
        extra: Map::new(),
    }
}

async fn emit_result_message(
    emitter: &Emitter,
    result: &ToolResultMessage,
) -> Result<(), SessionGone> {
    let message = AgentMessage::ToolResult(result.clone());
    emitter
        .emit(Event::MessageStart(MessageEvent {
            message: message.clone(),
        }))
        .await?;
    emitter
        .emit(Event::MessageEnd(MessageEvent { message }))
        .await
}
