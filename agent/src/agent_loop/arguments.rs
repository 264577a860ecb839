//! A tool call's streamed arguments, checked when the call ends (from 1.3.0): arguments that
//! are not valid JSON fail the call instead of being completed from the truncated text.

use std::collections::HashMap;

use pi_rpc_protocol::content::{TaggedToolCall, ToolCall};
use pi_rpc_protocol::event::AssistantMessageEvent;

use crate::release::{Feature, RpcRelease};

/// The key of a tool call whose arguments are not valid JSON (from 1.3.0).
pub(super) const ARGUMENTS_ERROR: &str = "argumentsError";

/// Keeps each tool call's arguments text as it streams (by content index), and checks it when
/// the call ends (see [`check_tool_arguments`]).
pub(super) fn check_arguments(
    delta: &mut AssistantMessageEvent,
    raw_arguments: &mut HashMap<usize, String>,
    release: RpcRelease,
) {
    match delta {
        AssistantMessageEvent::ToolcallDelta(part) => raw_arguments
            .entry(part.content_index)
            .or_default()
            .push_str(&part.delta),
        AssistantMessageEvent::ToolcallEnd(end) => {
            let TaggedToolCall::ToolCall(call) = &mut end.tool_call;
            let raw = raw_arguments.get(&end.content_index).map(String::as_str);
            check_tool_arguments(call, raw, release);
        }
        _ => {}
    }
}

/// From 1.3.0 a tool call whose streamed arguments (`raw`) are not valid JSON (once raw control
/// characters and bad escapes in strings are repaired, as before) keeps them unparsed: empty
/// `arguments`, and `argumentsError` saying why, with the text received. Before, the arguments
/// completed from the truncated text stand.
pub(super) fn check_tool_arguments(call: &mut ToolCall, raw: Option<&str>, release: RpcRelease) {
    let Some(raw) = raw.filter(|_| release.has(Feature::ArgumentsError)) else {
        return;
    };
    if raw.trim().is_empty() {
        return;
    }
    if let Err(error) = crate::provider::json::parse_with_repair(raw) {
        call.arguments = serde_json::Map::new();
        call.extra.insert(
            ARGUMENTS_ERROR.into(),
            format!("{error}\n\nReceived arguments:\n{raw}").into(),
        );
    }
}
