//! History preparation shared by every wire format, before it is converted to a request body.
//!
//! As the reference does: images become a placeholder text for models without image input;
//! blocks produced by another model are normalised (thinking becomes text, foreign signatures
//! are dropped, tool-call ids are normalised by the wire format's rule); assistant messages that
//! ended in `error` or `aborted` are left out; a tool call without a result gets a synthetic
//! error result `No result provided` so that every call is answered.

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};

use pi_rpc_protocol::content::{AssistantContent, MessageContent, TextContent, UserContent};
use pi_rpc_protocol::message::{AgentMessage, AssistantMessage, StopReason, ToolResultMessage};
use pi_rpc_protocol::model::Model;
use serde_json::Map;

use super::json::js_trim;

const USER_IMAGE_PLACEHOLDER: &str = "(image omitted: model does not support images)";
const TOOL_IMAGE_PLACEHOLDER: &str = "(tool image omitted: model does not support images)";

/// Prepares `messages` (user, assistant and tool-result messages; others are passed through)
/// for `model`. `normalize_id` rewrites tool-call ids of other models' calls.
pub fn transform_messages<M: Borrow<AgentMessage>>(
    messages: &[M],
    model: &Model,
    normalize_id: &dyn Fn(&str) -> String,
) -> Vec<AgentMessage> {
    let supports_images = model.input.iter().any(|kind| kind == "image");
    let mut id_map: HashMap<String, String> = HashMap::new();
    let mut transformed = Vec::with_capacity(messages.len());
    for message in messages {
        let message = match message.borrow() {
            AgentMessage::User(user) => {
                let mut user = user.clone();
                if !supports_images && let MessageContent::Blocks(blocks) = &mut user.content {
                    *blocks = replace_images(blocks, USER_IMAGE_PLACEHOLDER);
                }
                AgentMessage::User(user)
            }
            AgentMessage::ToolResult(result) => {
                let mut result = result.clone();
                if !supports_images {
                    result.content = replace_images(&result.content, TOOL_IMAGE_PLACEHOLDER);
                }
                if let Some(id) = id_map.get(&result.tool_call_id) {
                    result.tool_call_id = id.clone();
                }
                AgentMessage::ToolResult(result)
            }
            AgentMessage::Assistant(assistant) => {
                let same_model = assistant.provider == model.provider
                    && assistant.api == model.api
                    && assistant.model == model.id;
                // Every field but the content, which is rebuilt below (not cloned twice).
                let mut out = AssistantMessage {
                    content: Vec::with_capacity(assistant.content.len()),
                    api: assistant.api.clone(),
                    provider: assistant.provider.clone(),
                    model: assistant.model.clone(),
                    response_model: assistant.response_model.clone(),
                    usage: assistant.usage.clone(),
                    stop_reason: assistant.stop_reason,
                    timestamp: assistant.timestamp,
                    response_id: assistant.response_id.clone(),
                    raw_stop_reason: assistant.raw_stop_reason.clone(),
                    error_message: assistant.error_message.clone(),
                    extra: assistant.extra.clone(),
                };
                for block in &assistant.content {
                    match block {
                        AssistantContent::Thinking(thinking) => {
                            if thinking.redacted == Some(true) {
                                if same_model {
                                    out.content.push(block.clone());
                                }
                                continue;
                            }
                            let signed = thinking
                                .thinking_signature
                                .as_deref()
                                .is_some_and(|signature| !signature.is_empty());
                            if same_model && signed {
                                out.content.push(block.clone());
                            } else if js_trim(&thinking.thinking).is_empty() {
                                continue;
                            } else if same_model {
                                out.content.push(block.clone());
                            } else {
                                out.content.push(AssistantContent::Text(TextContent::new(
                                    thinking.thinking.clone(),
                                )));
                            }
                        }
                        AssistantContent::Text(text) => {
                            if same_model {
                                out.content.push(block.clone());
                            } else {
                                out.content.push(AssistantContent::Text(TextContent::new(
                                    text.text.clone(),
                                )));
                            }
                        }
                        AssistantContent::ToolCall(call) => {
                            let mut call = call.clone();
                            if !same_model {
                                call.thought_signature = None;
                                let id = normalize_id(&call.id);
                                if id != call.id {
                                    id_map.insert(call.id.clone(), id.clone());
                                    call.id = id;
                                }
                            }
                            out.content.push(AssistantContent::ToolCall(call));
                        }
                    }
                }
                AgentMessage::Assistant(out)
            }
            other => other.clone(),
        };
        transformed.push(without_lone_surrogates(message));
    }
    answer_orphaned_calls(transformed)
}

/// The message with lone surrogates removed from its texts, as the reference's providers send
/// them (`sanitizeSurrogates`).
fn without_lone_surrogates(mut message: AgentMessage) -> AgentMessage {
    let clean = |text: &mut String| {
        if let std::borrow::Cow::Owned(cleaned) = pi_rpc_protocol::surrogates::remove_lone(text) {
            *text = cleaned;
        }
    };
    let clean_blocks = |blocks: &mut Vec<UserContent>| {
        for block in blocks {
            if let UserContent::Text(text) = block {
                clean(&mut text.text);
            }
        }
    };
    match &mut message {
        AgentMessage::User(user) => match &mut user.content {
            MessageContent::Text(text) => clean(text),
            MessageContent::Blocks(blocks) => clean_blocks(blocks),
        },
        AgentMessage::ToolResult(result) => clean_blocks(&mut result.content),
        AgentMessage::Assistant(assistant) => {
            for block in &mut assistant.content {
                match block {
                    AssistantContent::Text(text) => clean(&mut text.text),
                    AssistantContent::Thinking(thinking) => clean(&mut thinking.thinking),
                    AssistantContent::ToolCall(_) => {}
                }
            }
        }
        _ => {}
    }
    message
}

/// Drops failed assistant messages and inserts `No result provided` results for calls that
/// were never answered (before the next assistant or user message, or at the end).
fn answer_orphaned_calls(messages: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let mut result = Vec::with_capacity(messages.len());
    let mut pending: Vec<(String, String)> = Vec::new();
    let mut answered: HashSet<String> = HashSet::new();
    let flush = |result: &mut Vec<AgentMessage>,
                 pending: &mut Vec<(String, String)>,
                 answered: &mut HashSet<String>| {
        for (id, name) in pending.drain(..) {
            if !answered.contains(&id) {
                result.push(AgentMessage::ToolResult(ToolResultMessage {
                    tool_call_id: id,
                    tool_name: name,
                    content: vec![UserContent::Text(TextContent::new("No result provided"))],
                    details: None,
                    usage: None,
                    is_error: true,
                    duration_ms: None,
                    timestamp: crate::js::now_ms(),
                    extra: Map::new(),
                }));
            }
        }
        answered.clear();
    };
    for message in messages {
        match &message {
            AgentMessage::Assistant(assistant) => {
                flush(&mut result, &mut pending, &mut answered);
                if matches!(
                    assistant.stop_reason,
                    StopReason::Error | StopReason::Aborted
                ) {
                    continue;
                }
                let calls: Vec<(String, String)> = assistant
                    .content
                    .iter()
                    .filter_map(|block| match block {
                        AssistantContent::ToolCall(call) => {
                            Some((call.id.clone(), call.name.clone()))
                        }
                        _ => None,
                    })
                    .collect();
                if !calls.is_empty() {
                    pending = calls;
                    answered.clear();
                }
                result.push(message);
            }
            AgentMessage::ToolResult(tool_result) => {
                answered.insert(tool_result.tool_call_id.clone());
                result.push(message);
            }
            AgentMessage::User(_) => {
                flush(&mut result, &mut pending, &mut answered);
                result.push(message);
            }
            _ => result.push(message),
        }
    }
    flush(&mut result, &mut pending, &mut answered);
    result
}

/// Replaces each run of images with one placeholder text.
fn replace_images(content: &[UserContent], placeholder: &str) -> Vec<UserContent> {
    let mut out = Vec::with_capacity(content.len());
    let mut previous_was_placeholder = false;
    for block in content {
        match block {
            UserContent::Image(_) => {
                if !previous_was_placeholder {
                    out.push(UserContent::Text(TextContent::new(placeholder)));
                }
                previous_was_placeholder = true;
            }
            UserContent::Text(text) => {
                previous_was_placeholder = text.text == placeholder;
                out.push(block.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn model(input: &[&str]) -> Model {
        serde_json::from_value(json!({
            "id": "m1", "name": "m1", "api": "anthropic-messages", "provider": "mock",
            "baseUrl": "http://127.0.0.1:1", "reasoning": true, "input": input,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
            "contextWindow": 1000, "maxTokens": 100
        }))
        .unwrap()
    }

    fn messages(value: serde_json::Value) -> Vec<AgentMessage> {
        serde_json::from_value(value).unwrap()
    }

    fn usage() -> serde_json::Value {
        json!({"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,
               "cost":{"input":0.0,"output":0.0,"cacheRead":0.0,"cacheWrite":0.0,"total":0.0}})
    }

    fn underscore(id: &str) -> String {
        id.replace('|', "_")
    }

    #[test]
    fn foreign_blocks_are_normalised_and_orphans_answered() {
        let history = messages(json!([
            {"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"x","mimeType":"image/png"},{"type":"image","data":"y","mimeType":"image/png"}],"timestamp":1},
            {"role":"assistant","content":[
                {"type":"thinking","thinking":"plan","thinkingSignature":"sig"},
                {"type":"thinking","thinking":"  ","thinkingSignature":""},
                {"type":"text","text":"t","textSignature":"s"},
                {"type":"toolCall","id":"call|1","name":"read","arguments":{},"thoughtSignature":"g"}],
             "api":"openai-responses","provider":"openai","model":"gpt","usage":usage(),"stopReason":"toolUse","timestamp":2},
            {"role":"toolResult","toolCallId":"call|1","toolName":"read","content":[{"type":"text","text":"r"}],"isError":false,"timestamp":3},
            {"role":"assistant","content":[{"type":"toolCall","id":"t2","name":"bash","arguments":{}}],
             "api":"anthropic-messages","provider":"mock","model":"m1","usage":usage(),"stopReason":"toolUse","timestamp":4},
            {"role":"assistant","content":[{"type":"text","text":"partial"}],
             "api":"anthropic-messages","provider":"mock","model":"m1","usage":usage(),"stopReason":"aborted","timestamp":5},
        ]));
        let out = transform_messages(&history, &model(&["text"]), &underscore);
        let mut value = serde_json::to_value(&out).unwrap();
        // The synthetic result's timestamp is the current time.
        value[4]["timestamp"] = json!(0);
        assert_eq!(
            value,
            json!([
                {"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":USER_IMAGE_PLACEHOLDER}],"timestamp":1},
                {"role":"assistant","content":[
                    {"type":"text","text":"plan"},
                    {"type":"text","text":"t"},
                    {"type":"toolCall","id":"call_1","name":"read","arguments":{}}],
                 "api":"openai-responses","provider":"openai","model":"gpt","usage":usage(),"stopReason":"toolUse","timestamp":2},
                {"role":"toolResult","toolCallId":"call_1","toolName":"read","content":[{"type":"text","text":"r"}],"isError":false,"timestamp":3},
                {"role":"assistant","content":[{"type":"toolCall","id":"t2","name":"bash","arguments":{}}],
                 "api":"anthropic-messages","provider":"mock","model":"m1","usage":usage(),"stopReason":"toolUse","timestamp":4},
                {"role":"toolResult","toolCallId":"t2","toolName":"bash","content":[{"type":"text","text":"No result provided"}],"isError":true,"timestamp":0},
            ])
        );
    }

    #[test]
    fn same_model_keeps_signed_and_redacted_thinking() {
        let history = messages(json!([
            {"role":"assistant","content":[
                {"type":"thinking","thinking":"","thinkingSignature":"sig"},
                {"type":"thinking","thinking":"[Reasoning redacted]","thinkingSignature":"opaque","redacted":true}],
             "api":"anthropic-messages","provider":"mock","model":"m1","usage":usage(),"stopReason":"stop","timestamp":1},
        ]));
        let out = transform_messages(&history, &model(&["text", "image"]), &underscore);
        assert_eq!(out, history);
    }
}
