//! History preparation shared by every wire format, before it is converted to a request body.
//!
//! As the reference does: images become a placeholder text for models without image input;
//! blocks produced by another model are normalised (thinking becomes text, foreign signatures
//! are dropped, tool-call ids are normalised by the wire format's rule); assistant messages that
//! ended in `error` or `aborted` are left out; a tool call without a result gets a synthetic
//! error result `No result provided` so that every call is answered.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use pi_rpc_protocol::content::{
    AssistantContent, ImageContent, MessageContent, TextContent, UserContent,
};
use pi_rpc_protocol::message::{AgentMessage, AssistantMessage, StopReason, ToolResultMessage};
use pi_rpc_protocol::model::Model;
use serde_json::Map;

use super::json::js_trim;
use crate::store::SharedMessage;

pub(crate) const USER_IMAGE_PLACEHOLDER: &str = "(image omitted: model does not support images)";
const TOOL_IMAGE_PLACEHOLDER: &str = "(tool image omitted: model does not support images)";

/// A request's history handed out transformed, one message at a time, for a wire format whose
/// tool-call ids follow one fixed rule.
pub(crate) struct RequestHistory {
    request: Arc<super::LlmRequest>,
    state: TransformState,
    normalize_id: fn(&str) -> String,
}

impl RequestHistory {
    pub(crate) fn new(request: Arc<super::LlmRequest>, normalize_id: fn(&str) -> String) -> Self {
        Self {
            state: TransformState::new(&request.model),
            request,
            normalize_id,
        }
    }

    /// The next message to send, `None` after the last.
    pub(crate) fn next(&mut self) -> Option<AgentMessage> {
        let request = &self.request;
        self.state
            .next(&request.messages, &request.model, &self.normalize_id)
    }

    /// The next message if it is a tool result (how a run of results is gathered).
    pub(crate) fn next_tool_result(&mut self) -> Option<ToolResultMessage> {
        let request = &self.request;
        self.state
            .next_tool_result(&request.messages, &request.model, &self.normalize_id)
    }
}

/// The texts of a tool result's content, one per line.
pub(crate) fn joined_text(content: &[UserContent]) -> String {
    let texts: Vec<&str> = content
        .iter()
        .filter_map(|block| match block {
            UserContent::Text(text) => Some(text.text.as_str()),
            UserContent::Image(_) => None,
        })
        .collect();
    texts.join("\n")
}

/// A tool result's texts, one per line, and its images, in their order.
pub(crate) fn text_and_images(content: Vec<UserContent>) -> (String, Vec<ImageContent>) {
    let text = joined_text(&content);
    let images = content
        .into_iter()
        .filter_map(|block| match block {
            UserContent::Image(image) => Some(image),
            UserContent::Text(_) => None,
        })
        .collect();
    (text, images)
}

/// Prepares `messages` (user, assistant and tool-result messages; others are passed through)
/// for `model`, all at once. `normalize_id` rewrites tool-call ids of other models' calls.
pub fn transform_messages(
    messages: &[Arc<SharedMessage>],
    model: &Model,
    normalize_id: &dyn Fn(&str) -> String,
) -> Vec<AgentMessage> {
    let mut state = TransformState::new(model);
    std::iter::from_fn(|| state.next(messages, model, normalize_id)).collect()
}

/// [`transform_messages`] one message at a time: each source message is parsed (or copied)
/// when it is reached and handed out transformed, so that a long history is never held
/// transformed, nor parsed, as a whole. What crosses messages is kept here: the ids rewritten
/// so far, the calls still unanswered, the synthetic results due.
#[derive(Debug)]
pub struct TransformState {
    supports_images: bool,
    /// The next source message.
    index: usize,
    /// Tool-call ids rewritten so far (their results follow them).
    id_map: HashMap<String, String>,
    /// The calls (id, name) of the last assistant message with calls.
    pending: Vec<(String, String)>,
    /// The results seen since those calls.
    answered: HashSet<String>,
    /// Messages ready to hand out, in order.
    ready: VecDeque<AgentMessage>,
    /// Every source message was read and the last calls answered.
    finished: bool,
}

impl TransformState {
    /// The state before the first message, for `model`.
    pub fn new(model: &Model) -> Self {
        Self {
            supports_images: model.input.iter().any(|kind| kind == "image"),
            index: 0,
            id_map: HashMap::new(),
            pending: Vec::new(),
            answered: HashSet::new(),
            ready: VecDeque::new(),
            finished: false,
        }
    }

    /// The next message to send (`messages`, `model` and `normalize_id` the same on every
    /// call), `None` after the last.
    pub fn next(
        &mut self,
        messages: &[Arc<SharedMessage>],
        model: &Model,
        normalize_id: &dyn Fn(&str) -> String,
    ) -> Option<AgentMessage> {
        loop {
            if let Some(message) = self.ready.pop_front() {
                return Some(message);
            }
            if self.finished {
                return None;
            }
            let Some(source) = messages.get(self.index) else {
                self.finished = true;
                self.answer_pending();
                continue;
            };
            self.index += 1;
            // A message this agent cannot read is left out, as it was from the history.
            let Some(message) = source.typed_copy() else {
                continue;
            };
            let message = without_lone_surrogates(self.transform(message, model, normalize_id));
            self.order(message);
        }
    }

    /// The next message if it is a tool result (how a run of results is gathered); another
    /// message stays the next one.
    pub fn next_tool_result(
        &mut self,
        messages: &[Arc<SharedMessage>],
        model: &Model,
        normalize_id: &dyn Fn(&str) -> String,
    ) -> Option<ToolResultMessage> {
        match self.next(messages, model, normalize_id)? {
            AgentMessage::ToolResult(result) => Some(result),
            other => {
                self.ready.push_front(other);
                None
            }
        }
    }

    /// One message as `model` gets it, with tool-call ids of other models' calls rewritten.
    fn transform(
        &mut self,
        message: AgentMessage,
        model: &Model,
        normalize_id: &dyn Fn(&str) -> String,
    ) -> AgentMessage {
        match message {
            AgentMessage::User(mut user) => {
                if !self.supports_images
                    && let MessageContent::Blocks(blocks) = &mut user.content
                {
                    *blocks = replace_images(blocks, USER_IMAGE_PLACEHOLDER);
                }
                AgentMessage::User(user)
            }
            AgentMessage::ToolResult(mut result) => {
                if !self.supports_images {
                    result.content = replace_images(&result.content, TOOL_IMAGE_PLACEHOLDER);
                }
                if let Some(id) = self.id_map.get(&result.tool_call_id) {
                    result.tool_call_id = id.clone();
                }
                AgentMessage::ToolResult(result)
            }
            AgentMessage::Assistant(assistant) => {
                AgentMessage::Assistant(self.transform_assistant(assistant, model, normalize_id))
            }
            other => other,
        }
    }

    fn transform_assistant(
        &mut self,
        mut assistant: AssistantMessage,
        model: &Model,
        normalize_id: &dyn Fn(&str) -> String,
    ) -> AssistantMessage {
        let same_model = assistant.provider == model.provider
            && assistant.api == model.api
            && assistant.model == model.id;
        let blocks = std::mem::take(&mut assistant.content);
        for block in blocks {
            match block {
                AssistantContent::Thinking(thinking) => {
                    if thinking.redacted == Some(true) {
                        if same_model {
                            assistant.content.push(AssistantContent::Thinking(thinking));
                        }
                        continue;
                    }
                    let signed = thinking
                        .thinking_signature
                        .as_deref()
                        .is_some_and(|signature| !signature.is_empty());
                    if same_model && signed {
                        assistant.content.push(AssistantContent::Thinking(thinking));
                    } else if js_trim(&thinking.thinking).is_empty() {
                        continue;
                    } else if same_model {
                        assistant.content.push(AssistantContent::Thinking(thinking));
                    } else {
                        assistant
                            .content
                            .push(AssistantContent::Text(TextContent::new(thinking.thinking)));
                    }
                }
                AssistantContent::Text(text) => {
                    let text = if same_model {
                        text
                    } else {
                        TextContent::new(text.text)
                    };
                    assistant.content.push(AssistantContent::Text(text));
                }
                AssistantContent::ToolCall(mut call) => {
                    if !same_model {
                        call.thought_signature = None;
                        let id = normalize_id(&call.id);
                        if id != call.id {
                            self.id_map.insert(std::mem::take(&mut call.id), id.clone());
                            call.id = id;
                        }
                    }
                    assistant.content.push(AssistantContent::ToolCall(call));
                }
            }
        }
        assistant
    }

    /// Queues a transformed message: a failed assistant message is dropped, and calls that were
    /// never answered get `No result provided` results before the next assistant or user
    /// message (or at the end).
    fn order(&mut self, message: AgentMessage) {
        match &message {
            AgentMessage::Assistant(assistant) => {
                self.answer_pending();
                if matches!(
                    assistant.stop_reason,
                    StopReason::Error | StopReason::Aborted
                ) {
                    return;
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
                    self.pending = calls;
                    self.answered.clear();
                }
            }
            AgentMessage::ToolResult(tool_result) => {
                self.answered.insert(tool_result.tool_call_id.clone());
            }
            AgentMessage::User(_) => self.answer_pending(),
            _ => {}
        }
        self.ready.push_back(message);
    }

    /// Queues the synthetic results of the pending calls that got none.
    fn answer_pending(&mut self) {
        for (id, name) in self.pending.drain(..) {
            if !self.answered.contains(&id) {
                self.ready
                    .push_back(AgentMessage::ToolResult(ToolResultMessage {
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
        self.answered.clear();
    }
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

    fn shared(messages: &[AgentMessage]) -> Vec<Arc<SharedMessage>> {
        messages.iter().cloned().map(SharedMessage::new).collect()
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
        let out = transform_messages(&shared(&history), &model(&["text"]), &underscore);
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
        let out = transform_messages(&shared(&history), &model(&["text", "image"]), &underscore);
        assert_eq!(out, history);
    }
}
