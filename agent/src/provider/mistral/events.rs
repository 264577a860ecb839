//! Mistral chat chunks to assistant-message deltas, read as the reference reads the Mistral
//! SDK's stream: any `content` (even `""`) opens or grows a text block, thinking parts a
//! thinking block (empty ones are skipped), switching kinds ends the open block; a tool call
//! (keyed by id and index; a missing id is derived from the index) ends the open block and
//! grows its own call, whose end is announced only when the stream ends. Usage comes from any
//! chunk that has it, cached prompt tokens apart. A chunk the SDK's schema refuses fails the
//! stream, and an item that does not fit its kind is skipped ([`schema`]).

use pi_rpc_protocol::content::{
    AssistantContent, TaggedToolCall, TextContent, ThinkingContent, ToolCall,
};
use pi_rpc_protocol::event::{
    AssistantMessageEvent, ContentDelta, ContentEnd, ContentIndex, ToolcallEnd,
};
use pi_rpc_protocol::message::StopReason;
use pi_rpc_protocol::model::Model;
use serde_json::{Map, Value};

use super::super::cost::calculate_cost;
use super::super::driver::WireFormat;
use super::super::json::{parse_streaming, parse_strict};
use super::super::partial::{BlockState, PartialMessage};
use super::super::sse::SseEvent;
use super::request::fallback_tool_call_id;
use super::schema;
use crate::provider::StreamError;

/// The open text or thinking block.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Open {
    Text(usize),
    Thinking(usize),
}

/// The Mistral side of a streamed exchange.
pub(crate) struct MistralEvents {
    model: Model,
    open: Option<Open>,
    done: bool,
    /// Tool-call blocks by `<id>:<index>`, in order of appearance, with their argument text.
    tools: Vec<(String, usize, String)>,
}

impl MistralEvents {
    pub(crate) fn new(model: Model) -> Self {
        Self {
            model,
            open: None,
            done: false,
            tools: Vec::new(),
        }
    }

    fn finish_open(&mut self, partial: &mut PartialMessage) {
        let event = match self.open.take() {
            Some(Open::Text(index)) => match partial.message.content.get(index) {
                Some(AssistantContent::Text(text)) => AssistantMessageEvent::TextEnd(ContentEnd {
                    content_index: index,
                    content: text.text.clone(),
                }),
                _ => return,
            },
            Some(Open::Thinking(index)) => match partial.message.content.get(index) {
                Some(AssistantContent::Thinking(thinking)) => {
                    AssistantMessageEvent::ThinkingEnd(ContentEnd {
                        content_index: index,
                        content: thinking.thinking.clone(),
                    })
                }
                _ => return,
            },
            None => return,
        };
        partial.emit(event);
    }

    fn text(&mut self, delta: &str, partial: &mut PartialMessage) {
        let index = match self.open {
            Some(Open::Text(index)) => index,
            _ => {
                self.finish_open(partial);
                let index = partial.push_block(
                    AssistantContent::Text(TextContent::new("")),
                    BlockState::default(),
                );
                partial.emit(AssistantMessageEvent::TextStart(ContentIndex {
                    content_index: index,
                }));
                self.open = Some(Open::Text(index));
                index
            }
        };
        if let Some(AssistantContent::Text(text)) = partial.message.content.get_mut(index) {
            text.text.push_str(delta);
        }
        partial.emit(AssistantMessageEvent::TextDelta(ContentDelta {
            content_index: index,
            delta: delta.to_owned(),
        }));
    }

    fn thinking(&mut self, delta: &str, partial: &mut PartialMessage) {
        let index = match self.open {
            Some(Open::Thinking(index)) => index,
            _ => {
                self.finish_open(partial);
                let block = ThinkingContent {
                    thinking: String::new(),
                    thinking_signature: None,
                    redacted: None,
                    extra: Map::new(),
                };
                let index =
                    partial.push_block(AssistantContent::Thinking(block), BlockState::default());
                partial.emit(AssistantMessageEvent::ThinkingStart(ContentIndex {
                    content_index: index,
                }));
                self.open = Some(Open::Thinking(index));
                index
            }
        };
        if let Some(AssistantContent::Thinking(thinking)) = partial.message.content.get_mut(index) {
            thinking.thinking.push_str(delta);
        }
        partial.emit(AssistantMessageEvent::ThinkingDelta(ContentDelta {
            content_index: index,
            delta: delta.to_owned(),
        }));
    }

    fn tool_call(&mut self, call: &Value, partial: &mut PartialMessage) {
        self.finish_open(partial);
        let position = call.get("index").and_then(Value::as_u64).unwrap_or(0);
        let id = match call.get("id").and_then(Value::as_str) {
            Some(id) if !id.is_empty() && id != "null" => id.to_owned(),
            _ => fallback_tool_call_id(position),
        };
        let key = format!("{id}:{position}");
        let function = call.get("function");
        let existing = self.tools.iter().position(|(known, _, _)| *known == key);
        let slot = match existing {
            Some(slot) => slot,
            None => {
                let name = function
                    .and_then(|f| f.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let block = ToolCall {
                    id,
                    name: name.to_owned(),
                    arguments: Map::new(),
                    thought_signature: None,
                    extra: Map::new(),
                };
                let index =
                    partial.push_block(AssistantContent::ToolCall(block), BlockState::default());
                partial.emit(AssistantMessageEvent::ToolcallStart(
                    ContentIndex {
                        content_index: index,
                    }
                    .into(),
                ));
                self.tools.push((key, index, String::new()));
                self.tools.len() - 1
            }
        };
        let delta = match function.and_then(|f| f.get("arguments")) {
            Some(Value::String(text)) => text.clone(),
            Some(Value::Null) | None => "{}".to_owned(),
            Some(other) => pi_rpc_protocol::json::to_string(other).unwrap_or_default(),
        };
        let (_, index, text) = &mut self.tools[slot];
        text.push_str(&delta);
        let arguments = parse_streaming(text);
        let index = *index;
        if let Some(AssistantContent::ToolCall(block)) = partial.message.content.get_mut(index) {
            block.arguments = arguments;
        }
        partial.emit(AssistantMessageEvent::ToolcallDelta(ContentDelta {
            content_index: index,
            delta,
        }));
    }

    fn usage(&self, usage: &Value, partial: &mut PartialMessage) {
        let number = |value: Option<&Value>| value.and_then(Value::as_f64).unwrap_or(0.0);
        let prompt = number(usage.get("prompt_tokens"));
        let cached = [
            "/prompt_tokens_details/cached_tokens",
            "/prompt_token_details/cached_tokens",
            "/num_cached_tokens",
        ]
        .iter()
        .find_map(|pointer| usage.pointer(pointer).and_then(Value::as_f64))
        .unwrap_or(0.0)
        .max(0.0)
        .min(prompt);
        let target = &mut partial.message.usage;
        target.input = (prompt - cached).max(0.0) as u64;
        target.output = number(usage.get("completion_tokens")) as u64;
        target.cache_read = cached as u64;
        target.cache_write = 0;
        let total = number(usage.get("total_tokens")) as u64;
        target.total_tokens = if total != 0 {
            total
        } else {
            target.input + target.output + target.cache_read
        };
        calculate_cost(&self.model, target);
    }

    fn apply(&mut self, chunk: &Value, partial: &mut PartialMessage) {
        if partial.message.response_id.is_none()
            && let Some(id) = chunk
                .get("id")
                .and_then(Value::as_str)
                .filter(|id| !id.is_empty())
        {
            partial.message.response_id = Some(id.to_owned());
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage(usage, partial);
        }
        let Some(choice) = chunk.pointer("/choices/0") else {
            return;
        };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            partial.message.raw_stop_reason = Some(reason.to_owned());
            let (stop, error) = match reason {
                "stop" => (StopReason::Stop, None),
                "length" | "model_length" => (StopReason::Length, None),
                "tool_calls" => (StopReason::ToolUse, None),
                other => (
                    StopReason::Error,
                    Some(format!("Provider stopped with: {other}")),
                ),
            };
            partial.message.stop_reason = stop;
            if error.is_some() {
                partial.message.error_message = error;
            }
        }
        let delta = choice.get("delta");
        match delta.and_then(|d| d.get("content")) {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) => self.text(text, partial),
            Some(Value::Array(items)) => {
                for item in items.iter().filter(|item| schema::item_fits(item)) {
                    match item {
                        Value::String(text) => self.text(text, partial),
                        _ => match item.get("type").and_then(Value::as_str) {
                            Some("thinking") => {
                                let text: String = item
                                    .get("thinking")
                                    .and_then(Value::as_array)
                                    .into_iter()
                                    .flatten()
                                    .filter_map(|part| part.get("text").and_then(Value::as_str))
                                    .collect();
                                if !text.is_empty() {
                                    self.thinking(&text, partial);
                                }
                            }
                            Some("text") => {
                                if let Some(text) = item.get("text").and_then(Value::as_str) {
                                    self.text(text, partial);
                                }
                            }
                            _ => {}
                        },
                    }
                }
            }
            Some(_) => {}
        }
        let calls = delta
            .and_then(|d| d.get("tool_calls"))
            .and_then(Value::as_array);
        for call in calls.into_iter().flatten() {
            self.tool_call(call, partial);
        }
    }
}

impl WireFormat for MistralEvents {
    fn on_event(
        &mut self,
        event: SseEvent,
        partial: &mut PartialMessage,
    ) -> Result<(), StreamError> {
        if self.done {
            return Ok(());
        }
        if event.data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk = parse_strict(&event.data)?;
        if let Some(refused) = schema::refusal(&chunk) {
            return Err(StreamError::Unexpected(refused));
        }
        self.apply(&chunk, partial);
        Ok(())
    }

    fn on_end(&mut self, partial: &mut PartialMessage) -> Result<(), StreamError> {
        self.finish_open(partial);
        for (_, index, text) in std::mem::take(&mut self.tools) {
            let arguments = parse_streaming(&text);
            let Some(AssistantContent::ToolCall(call)) = partial.message.content.get_mut(index)
            else {
                continue;
            };
            call.arguments = arguments;
            let call = call.clone();
            partial.emit(AssistantMessageEvent::ToolcallEnd(ToolcallEnd {
                content_index: index,
                tool_call: TaggedToolCall::ToolCall(call),
            }));
        }
        let message = &partial.message;
        match message.stop_reason {
            StopReason::Pending => Err(StreamError::Incomplete(
                "Mistral stream ended without a finish reason",
            )),
            StopReason::Error | StopReason::Aborted => Err(StreamError::stopped(message)),
            _ => Ok(()),
        }
    }

    fn status_error(&self, status: u16, _content_type: Option<&str>, body: &str) -> String {
        let body = body.trim();
        let shown: String = body.chars().take(4000).collect();
        let cut = body.chars().count().saturating_sub(4000);
        let shown = if cut > 0 {
            format!("{shown}... [truncated {cut} chars]")
        } else {
            shown
        };
        format!("Mistral API error ({status}): {shown}")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::provider::testing::{feed, model};

    fn chunk(delta: Value) -> Value {
        json!({"id": "m1", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
    }

    #[test]
    fn a_chunk_the_schema_refuses_fails_the_stream_unread() {
        let model = model("mistral-conversations");
        let events = [
            chunk(json!({"content": "Answer: "})),
            chunk(json!({"content": 42})),
        ];
        let mut wire = MistralEvents::new(model.clone());
        let (deltas, partial, outcome) = feed(&mut wire, &model, false, &events);
        assert!(
            matches!(&outcome, Err(StreamError::Unexpected(text)) if text.contains("\"invalid_union\"")),
            "{outcome:?}"
        );
        assert_eq!(deltas.last().unwrap()["delta"], "Answer: ");
        assert_eq!(
            serde_json::to_value(&partial.message.content).unwrap(),
            json!([{"type": "text", "text": "Answer: "}])
        );
    }

    #[test]
    fn items_that_do_not_fit_their_kind_are_skipped() {
        let model = model("mistral-conversations");
        let items = json!([
            {"type": "thinking", "thinking": [{"type": "text", "text": 7}]},
            {"type": "text", "text": 42},
            {"type": "text", "text": "ok"},
        ]);
        let events = [
            chunk(json!({"content": items})),
            json!({"id": "m1", "model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        ];
        let mut wire = MistralEvents::new(model.clone());
        let (_, partial, outcome) = feed(&mut wire, &model, false, &events);
        assert_eq!(outcome, Ok(()));
        assert_eq!(
            serde_json::to_value(&partial.message.content).unwrap(),
            json!([{"type": "text", "text": "ok"}])
        );
    }
}
