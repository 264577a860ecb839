//! The assistant message being streamed, shared by every wire format.
//!
//! While a block streams the reference keeps scratch fields on it: the wire's block `index`, and
//! `partialJson` (the arguments text so far) on tool calls, whose `arguments` are re-parsed from
//! it after every delta. They show in the `message_start` snapshot and are removed when the block
//! ends or the message fails. Here they live beside the content ([`BlockState`]) and are put into
//! a copy only for a snapshot; arguments are parsed when they are needed, which gives the same
//! values as parsing after every delta.

use pi_rpc_protocol::content::AssistantContent;
use pi_rpc_protocol::event::AssistantMessageEvent;
use pi_rpc_protocol::message::{AssistantMessage, StopReason};
use pi_rpc_protocol::model::Model;
use pi_rpc_protocol::usage::Usage;
use serde_json::{Map, Value};

use super::json::parse_streaming;

/// Streaming state of one content block.
#[derive(Debug, Clone, Default)]
pub(crate) struct BlockState {
    /// The wire's identifier of the block while it streams (`index` on the reference's block).
    pub key: Option<Value>,
    /// Arguments text of a tool call while it streams (`partialJson`).
    pub partial_json: Option<String>,
    /// Whether an arguments delta arrived (then `arguments` is parsed from `partial_json`).
    pub json_delta_seen: bool,
}

/// The message under construction and the deltas not yet sent.
#[derive(Debug)]
pub(crate) struct PartialMessage {
    /// The message as it stands, without scratch fields.
    pub message: AssistantMessage,
    /// One entry per content block.
    pub blocks: Vec<BlockState>,
    /// Deltas produced since the last [`PartialMessage::take_events`].
    events: Vec<AssistantMessageEvent>,
    /// The text bytes `events` carry (see [`PartialMessage::queued_text_bytes`]), counted as
    /// they are queued: the sum is asked after every wire event.
    queued_text: usize,
}

impl PartialMessage {
    /// An empty message for `model`, stamped now.
    pub fn new(model: &Model) -> Self {
        Self {
            message: AssistantMessage {
                content: Vec::new(),
                api: model.api.clone(),
                provider: model.provider.clone(),
                model: model.id.clone(),
                response_model: None,
                usage: Usage::default(),
                stop_reason: StopReason::Pending,
                timestamp: crate::js::now_ms(),
                response_id: None,
                raw_stop_reason: None,
                error_message: None,
                extra: Map::new(),
            },
            blocks: Vec::new(),
            events: Vec::new(),
            queued_text: 0,
        }
    }

    /// Appends a block that streams under `key`; returns its content index.
    pub fn push_block(&mut self, block: AssistantContent, state: BlockState) -> usize {
        self.message.content.push(block);
        self.blocks.push(state);
        self.message.content.len() - 1
    }

    /// The content index of the first still-streaming block with `key`.
    pub fn find(&self, key: &Value) -> Option<usize> {
        self.blocks
            .iter()
            .position(|state| state.key.as_ref().is_some_and(|own| same_key(own, key)))
    }

    /// Parses a tool call's streamed arguments into the block (a no-op without deltas).
    pub fn settle_arguments(&mut self, index: usize) {
        let (Some(state), Some(AssistantContent::ToolCall(call))) =
            (self.blocks.get(index), self.message.content.get_mut(index))
        else {
            return;
        };
        if state.json_delta_seen {
            call.arguments = parse_streaming(state.partial_json.as_deref().unwrap_or(""));
        }
    }

    /// Ends a block's streaming: its scratch fields go. A tool call's arguments are parsed from
    /// the streamed text even when none came (then they are `{}`), as the reference does.
    pub fn close_block(&mut self, index: usize) {
        let Some(state) = self.blocks.get_mut(index) else {
            return;
        };
        let state = std::mem::take(state);
        if let (Some(json), Some(AssistantContent::ToolCall(call))) =
            (state.partial_json, self.message.content.get_mut(index))
        {
            call.arguments = parse_streaming(&json);
        }
    }

    /// Queues a delta for the consumer.
    pub fn emit(&mut self, mut event: AssistantMessageEvent) {
        // A tool call's start names the call and its tool (shown from pi 0.84.3 on).
        if let AssistantMessageEvent::ToolcallStart(start) = &mut event
            && let Some(AssistantContent::ToolCall(call)) =
                self.message.content.get(start.content_index)
        {
            start.id = Some(call.id.clone());
            start.tool_name = Some(call.name.clone());
        }
        self.queued_text += text_bytes(&event);
        self.events.push(event);
    }

    /// Bytes of text the queued deltas carry (a tool call's arguments deltas included, its end
    /// not).
    pub fn queued_text_bytes(&self) -> usize {
        self.queued_text
    }

    /// Whether no delta is queued.
    pub fn nothing_queued(&self) -> bool {
        self.events.is_empty()
    }

    /// Drops the queued deltas.
    pub fn drop_queued(&mut self) {
        self.take_events();
    }

    /// The deltas queued since the last call.
    pub fn take_events(&mut self) -> std::vec::Drain<'_, AssistantMessageEvent> {
        self.queued_text = 0;
        self.events.drain(..)
    }

    /// A copy of the message as the reference shows it mid-stream: streaming blocks carry
    /// `index` (and tool calls `partialJson`, arguments parsed so far).
    pub fn snapshot(&self) -> AssistantMessage {
        let mut message = self.message.clone();
        for (index, state) in self.blocks.iter().enumerate() {
            let Some(block) = message.content.get_mut(index) else {
                continue;
            };
            let extra = match block {
                AssistantContent::Text(text) => &mut text.extra,
                AssistantContent::Thinking(thinking) => &mut thinking.extra,
                AssistantContent::ToolCall(call) => {
                    if let Some(json) = &state.partial_json {
                        if state.json_delta_seen {
                            call.arguments = parse_streaming(json);
                        }
                        call.extra
                            .insert("partialJson".to_owned(), Value::String(json.clone()));
                    }
                    &mut call.extra
                }
            };
            if let Some(key) = &state.key {
                extra.insert("index".to_owned(), key.clone());
            }
        }
        message
    }

    /// Ends the message as failed: scratch fields go, unfinished tool calls keep the arguments
    /// parsed so far.
    pub fn fail(mut self, stop_reason: StopReason, error_message: String) -> AssistantMessage {
        for index in 0..self.blocks.len() {
            self.settle_arguments(index);
        }
        self.message.stop_reason = stop_reason;
        self.message.error_message = Some(error_message);
        self.message
    }
}

/// The text bytes one queued event carries.
fn text_bytes(event: &AssistantMessageEvent) -> usize {
    match event {
        AssistantMessageEvent::TextDelta(delta)
        | AssistantMessageEvent::ThinkingDelta(delta)
        | AssistantMessageEvent::ToolcallDelta(delta) => delta.delta.len(),
        AssistantMessageEvent::TextEnd(end) | AssistantMessageEvent::ThinkingEnd(end) => {
            end.content.len()
        }
        _ => 0,
    }
}

/// JavaScript's `===` on JSON values as wire keys (numbers compare by value).
fn same_key(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}
