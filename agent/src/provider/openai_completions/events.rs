//! Chat Completions chunks to assistant-message deltas.
//!
//! As the reference reads them: every `data:` event up to `[DONE]` is a JSON chunk (one with a
//! truthy `error` fails the message with the error's `message`); the first chunk `id` is the
//! response id; `usage` (on the chunk, else on the first choice) replaces the usage so far; the
//! first choice's `finish_reason` sets the stop reason; `content` grows one text block,
//! `reasoning_content` / `reasoning` / `reasoning_text` (the first non-empty one) one thinking
//! block whose signature is that field's name (a `content` or reasoning that is no string is
//! skipped), `tool_calls` one block per call (matched by `index`, else by `id`; a truthy
//! arguments piece that is no string, such as `1`, is appended as its text). Blocks end only when the stream ends, all at once, in content order.
//! A stream without `finish_reason` fails with `Stream ended without finish_reason`; a mapped
//! error stop (`content_filter`, unknown reasons) with `Provider finish_reason: <reason>`.

use std::collections::HashMap;

use pi_rpc_protocol::content::{
    AssistantContent, TaggedToolCall, TextContent, ThinkingContent, ToolCall,
};
use pi_rpc_protocol::event::{
    AssistantMessageEvent, ContentDelta, ContentEnd, ContentIndex, ToolcallEnd,
};
use pi_rpc_protocol::message::StopReason;
use pi_rpc_protocol::model::Model;
use pi_rpc_protocol::usage::Usage;
use serde_json::{Map, Value};

use super::super::cost::calculate_cost;
use super::super::driver::WireFormat;
use super::super::json::{parse_streaming, parse_strict};
use super::super::partial::{BlockState, PartialMessage};
use super::super::sse::SseEvent;
use super::{append_metadata_raw, js_truthy, sdk_error_message, status_error};
use crate::provider::StreamError;

const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "reasoning", "reasoning_text"];

/// The Chat Completions side of a streamed exchange.
pub(crate) struct ChatEvents {
    model: Model,
    /// Whether the provider is expected to send `finish_reason` (compat `supportsFinishReason`).
    expects_finish_reason: bool,
    /// `[DONE]` arrived: later events are ignored.
    done: bool,
    has_finish_reason: bool,
    text_block: Option<usize>,
    thinking_block: Option<usize>,
    /// Tool-call blocks by the wire's `index`, and by call id.
    calls_by_index: HashMap<i64, usize>,
    calls_by_id: HashMap<String, usize>,
    /// The wire `index` each tool-call block streams under, when it has one.
    block_stream_index: HashMap<usize, i64>,
    /// Arguments text of each tool-call block (by content index).
    arguments: HashMap<usize, String>,
    /// Encrypted reasoning details waiting for the call they belong to.
    pending_details: HashMap<String, String>,
}

impl ChatEvents {
    pub(crate) fn new(model: Model, expects_finish_reason: bool) -> Self {
        Self {
            model,
            expects_finish_reason,
            done: false,
            has_finish_reason: false,
            text_block: None,
            thinking_block: None,
            calls_by_index: HashMap::new(),
            calls_by_id: HashMap::new(),
            block_stream_index: HashMap::new(),
            arguments: HashMap::new(),
            pending_details: HashMap::new(),
        }
    }

    fn apply(&mut self, chunk: &Value, partial: &mut PartialMessage) {
        if !chunk.is_object() && !chunk.is_array() {
            return;
        }
        let message = &mut partial.message;
        if message.response_id.as_deref().unwrap_or("").is_empty()
            && let Some(id) = chunk.get("id").and_then(Value::as_str)
        {
            message.response_id = Some(id.to_owned());
        }
        if let Some(model) = chunk.get("model").and_then(Value::as_str)
            && !model.is_empty()
            && model != self.model.id
            && message.response_model.as_deref().unwrap_or("").is_empty()
        {
            message.response_model = Some(model.to_owned());
        }
        let chunk_usage = chunk.get("usage").filter(|usage| js_truthy(usage));
        if let Some(usage) = chunk_usage {
            message.usage = parse_usage(usage, &self.model);
        }
        let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|choices| choices.first())
            .filter(|choice| js_truthy(choice))
        else {
            return;
        };
        if chunk_usage.is_none()
            && let Some(usage) = choice.get("usage").filter(|usage| js_truthy(usage))
        {
            message.usage = parse_usage(usage, &self.model);
        }
        if let Some(reason) = choice.get("finish_reason").filter(|r| js_truthy(r)) {
            let reason = match reason {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let (stop_reason, error) = map_finish_reason(&reason);
            message.raw_stop_reason = Some(reason);
            message.stop_reason = stop_reason;
            if let Some(error) = error {
                message.error_message = Some(error);
            }
            self.has_finish_reason = true;
        }
        let Some(delta) = choice.get("delta").filter(|delta| js_truthy(delta)) else {
            return;
        };
        if let Some(text) = delta.get("content").and_then(Value::as_str)
            && !text.is_empty()
        {
            let index = self.text_block(partial);
            if let AssistantContent::Text(block) = &mut partial.message.content[index] {
                pi_rpc_protocol::surrogates::push_str(&mut block.text, text);
            }
            partial.emit(AssistantMessageEvent::TextDelta(ContentDelta {
                content_index: index,
                delta: text.to_owned(),
            }));
        }
        let reasoning = REASONING_FIELDS.iter().find_map(|field| {
            delta
                .get(*field)
                .and_then(Value::as_str)
                .filter(|text| !text.is_empty())
                .map(|text| (*field, text))
        });
        if let Some((field, text)) = reasoning {
            let signature = if self.model.provider == "opencode-go" && field == "reasoning" {
                "reasoning_content"
            } else {
                field
            };
            let index = self.thinking_block(partial, signature);
            if let AssistantContent::Thinking(block) = &mut partial.message.content[index] {
                pi_rpc_protocol::surrogates::push_str(&mut block.thinking, text);
            }
            partial.emit(AssistantMessageEvent::ThinkingDelta(ContentDelta {
                content_index: index,
                delta: text.to_owned(),
            }));
        }
        if let Some(calls) = delta.get("tool_calls").filter(|calls| js_truthy(calls)) {
            for call in calls.as_array().into_iter().flatten() {
                self.tool_call_delta(call, partial);
            }
        }
        if let Some(details) = delta.get("reasoning_details").and_then(Value::as_array) {
            for detail in details {
                self.reasoning_detail(detail, partial);
            }
        }
    }

    fn text_block(&mut self, partial: &mut PartialMessage) -> usize {
        if let Some(index) = self.text_block {
            return index;
        }
        let index = partial.push_block(
            AssistantContent::Text(TextContent::new(String::new())),
            BlockState::default(),
        );
        partial.emit(AssistantMessageEvent::TextStart(ContentIndex {
            content_index: index,
        }));
        self.text_block = Some(index);
        index
    }

    fn thinking_block(&mut self, partial: &mut PartialMessage, signature: &str) -> usize {
        if let Some(index) = self.thinking_block {
            return index;
        }
        let index = partial.push_block(
            AssistantContent::Thinking(ThinkingContent {
                thinking: String::new(),
                thinking_signature: Some(signature.to_owned()),
                redacted: None,
                extra: Map::new(),
            }),
            BlockState::default(),
        );
        partial.emit(AssistantMessageEvent::ThinkingStart(ContentIndex {
            content_index: index,
        }));
        self.thinking_block = Some(index);
        index
    }

    fn tool_call_delta(&mut self, call: &Value, partial: &mut PartialMessage) {
        let stream_index = call.get("index").and_then(json_integer);
        let id = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty());
        let function = call.get("function").filter(|f| !f.is_null());
        let name = function
            .and_then(|function| function.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let mut found = stream_index.and_then(|key| self.calls_by_index.get(&key).copied());
        if found.is_none()
            && let Some(id) = id
        {
            found = self.calls_by_id.get(id).copied();
        }
        let index = match found {
            Some(index) => index,
            None => {
                let index = partial.push_block(
                    AssistantContent::ToolCall(ToolCall {
                        id: id.unwrap_or("").to_owned(),
                        name: name.to_owned(),
                        arguments: Map::new(),
                        thought_signature: None,
                        extra: Map::new(),
                    }),
                    BlockState::default(),
                );
                self.arguments.insert(index, String::new());
                if let Some(key) = stream_index {
                    self.calls_by_index.insert(key, index);
                    self.block_stream_index.insert(index, key);
                }
                partial.emit(AssistantMessageEvent::ToolcallStart(
                    ContentIndex {
                        content_index: index,
                    }
                    .into(),
                ));
                index
            }
        };
        if let Some(key) = stream_index
            && !self.block_stream_index.contains_key(&index)
        {
            // A block found by id gets the index it lacked.
            self.block_stream_index.insert(index, key);
            self.calls_by_index.insert(key, index);
        }
        if let Some(id) = id {
            self.calls_by_id.insert(id.to_owned(), index);
        }
        let mut piece = String::new();
        if let Some(AssistantContent::ToolCall(block)) = partial.message.content.get_mut(index) {
            if block.name.is_empty() && !name.is_empty() {
                block.name = name.to_owned();
            }
            if !block.id.is_empty()
                && let Some(signature) = self.pending_details.remove(&block.id)
            {
                block.thought_signature = Some(signature);
            }
            if block.id.is_empty()
                && let Some(id) = id
            {
                block.id = id.to_owned();
            }
            // Any truthy piece is appended as the reference's `+=` appends it: a number (`1`)
            // as its text.
            if let Some(arguments) = function
                .and_then(|function| function.get("arguments"))
                .filter(|arguments| js_truthy(arguments))
            {
                let arguments = crate::js::appended(Some(arguments));
                let text = self.arguments.entry(index).or_default();
                text.push_str(&arguments);
                block.arguments = parse_streaming(text);
                piece = arguments.into_owned();
            }
        }
        partial.emit(AssistantMessageEvent::ToolcallDelta(ContentDelta {
            content_index: index,
            delta: piece,
        }));
    }

    fn reasoning_detail(&mut self, detail: &Value, partial: &mut PartialMessage) {
        let text = |key: &str| {
            detail
                .get(key)
                .and_then(Value::as_str)
                .filter(|text| !text.is_empty())
        };
        if detail.get("type").and_then(Value::as_str) != Some("reasoning.encrypted") {
            return;
        }
        let (Some(id), Some(_)) = (text("id"), text("data")) else {
            return;
        };
        let serialized = pi_rpc_protocol::json::to_string(detail).unwrap_or_default();
        match self.calls_by_id.get(id).copied() {
            Some(index) => {
                if let Some(AssistantContent::ToolCall(call)) =
                    partial.message.content.get_mut(index)
                {
                    call.thought_signature = Some(serialized);
                }
            }
            None => {
                self.pending_details.insert(id.to_owned(), serialized);
            }
        }
    }

    /// Ends every block, in content order, as the reference does once the stream is over.
    fn finish_blocks(&mut self, partial: &mut PartialMessage) {
        for index in 0..partial.message.content.len() {
            let event = match &mut partial.message.content[index] {
                AssistantContent::Text(block) => AssistantMessageEvent::TextEnd(ContentEnd {
                    content_index: index,
                    content: block.text.clone(),
                }),
                AssistantContent::Thinking(block) => {
                    AssistantMessageEvent::ThinkingEnd(ContentEnd {
                        content_index: index,
                        content: block.thinking.clone(),
                    })
                }
                AssistantContent::ToolCall(call) => {
                    let text = self.arguments.get(&index).map(String::as_str).unwrap_or("");
                    call.arguments = parse_streaming(text);
                    AssistantMessageEvent::ToolcallEnd(ToolcallEnd {
                        content_index: index,
                        tool_call: TaggedToolCall::ToolCall(call.clone()),
                    })
                }
            };
            partial.emit(event);
        }
    }
}

impl WireFormat for ChatEvents {
    fn on_event(
        &mut self,
        event: SseEvent,
        partial: &mut PartialMessage,
    ) -> Result<(), StreamError> {
        if self.done {
            return Ok(());
        }
        if event.data.starts_with("[DONE]") {
            self.done = true;
            return Ok(());
        }
        let chunk = parse_strict(&event.data)?;
        if let Some(error) = chunk.get("error").filter(|error| js_truthy(error)) {
            let mut text = sdk_error_message(None, Some(error), None);
            append_metadata_raw(&mut text, Some(error));
            return Err(StreamError::Provider(text));
        }
        self.apply(&chunk, partial);
        Ok(())
    }

    fn on_end(&mut self, partial: &mut PartialMessage) -> Result<(), StreamError> {
        self.finish_blocks(partial);
        let message = &mut partial.message;
        if !self.has_finish_reason && !self.expects_finish_reason {
            let has_calls = message
                .content
                .iter()
                .any(|block| matches!(block, AssistantContent::ToolCall(_)));
            message.stop_reason = if has_calls {
                StopReason::ToolUse
            } else {
                StopReason::Stop
            };
        }
        if message.stop_reason == StopReason::Error {
            return Err(StreamError::Provider(
                message
                    .error_message
                    .clone()
                    .filter(|text| !text.is_empty())
                    .unwrap_or_else(|| "Provider returned an error stop reason".to_owned()),
            ));
        }
        if (self.expects_finish_reason && !self.has_finish_reason)
            || message.stop_reason == StopReason::Pending
        {
            return Err(StreamError::Incomplete(
                "Stream ended without finish_reason",
            ));
        }
        Ok(())
    }

    fn on_abort(&mut self, partial: &mut PartialMessage) -> String {
        // The SDK ends the stream quietly; the blocks end as at a normal end.
        self.finish_blocks(partial);
        "Request was aborted".to_owned()
    }

    fn status_error(&self, status: u16, _content_type: Option<&str>, body: &str) -> String {
        status_error(status, body)
    }

    fn sdk_status_message(&self, status: u16, body: &str) -> String {
        crate::provider::openai_completions::sdk_status_message(status, body)
    }
}

/// A JSON number that is an integer (the wire's tool-call `index`).
fn json_integer(value: &Value) -> Option<i64> {
    value.as_i64().or_else(|| {
        value
            .as_f64()
            .filter(|n| n.fract() == 0.0)
            .map(|n| n as i64)
    })
}

/// The usage of a chunk as the reference reads it.
fn parse_usage(raw: &Value, model: &Model) -> Usage {
    let count = |pointer: &str| raw.pointer(pointer).and_then(Value::as_u64);
    let prompt = count("/prompt_tokens").unwrap_or(0);
    let cache_read = raw
        .pointer("/prompt_tokens_details/cached_tokens")
        .filter(|value| !value.is_null())
        .or_else(|| raw.get("prompt_cache_hit_tokens").filter(|v| !v.is_null()))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let cache_write = count("/prompt_tokens_details/cache_write_tokens").unwrap_or(0);
    let input = prompt.saturating_sub(cache_read + cache_write);
    let output = count("/completion_tokens").unwrap_or(0);
    let mut usage = Usage {
        input,
        output,
        cache_read,
        cache_write,
        total_tokens: input + output + cache_read + cache_write,
        reasoning: Some(count("/completion_tokens_details/reasoning_tokens").unwrap_or(0)),
        ..Usage::default()
    };
    calculate_cost(model, &mut usage);
    usage
}

/// `finish_reason` as the reference maps it.
fn map_finish_reason(reason: &str) -> (StopReason, Option<String>) {
    match reason {
        "stop" | "end" => (StopReason::Stop, None),
        "length" => (StopReason::Length, None),
        "function_call" | "tool_calls" => (StopReason::ToolUse, None),
        other => (
            StopReason::Error,
            Some(format!("Provider finish_reason: {other}")),
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::provider::testing::{feed, model, pieces};

    #[test]
    fn a_number_arguments_piece_is_appended_as_text_and_number_texts_are_skipped() {
        // The reference: `content.length > 0` and `typeof reasoning === "string"` skip 42 and 7;
        // a truthy arguments piece is appended with `+=` (0 is falsy: an empty delta).
        let model = model("openai-completions");
        let chunk = |delta: Value| json!({"id": "c", "choices": [{"index": 0, "delta": delta}]});
        let call = |arguments: Value| {
            chunk(json!({"tool_calls": [{"index": 0, "id": "c1",
                                         "function": {"name": "read", "arguments": arguments}}]}))
        };
        let events = [
            chunk(json!({"content": 42, "reasoning_content": 7})),
            call(json!("{\"limit\":")),
            call(json!(1)),
            call(json!(0)),
            call(json!("}")),
            json!({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        ];
        let mut wire = ChatEvents::new(model.clone(), true);
        let (deltas, partial, outcome) = feed(&mut wire, &model, false, &events);
        assert_eq!(outcome, Ok(()));
        assert_eq!(pieces(&deltas), ["{\"limit\":", "1", "", "}"]);
        assert_eq!(
            serde_json::to_value(&partial.message.content).unwrap(),
            json!([{"type": "toolCall", "id": "c1", "name": "read", "arguments": {"limit": 1}}])
        );
    }
}
