//! Responses stream events to assistant-message deltas.
//!
//! Read as the reference reads them: each `output_item.added` opens a block for its
//! `output_index` (reasoning -> thinking, message -> text, function_call -> tool call with id
//! `call_id|id`); summary, reasoning-text, output-text and refusal deltas and argument deltas
//! grow it (a summary part ends with a blank line; a delta that is no string, such as `42`, is
//! appended as its text); `output_item.done` settles it from the
//! finished item (the thinking signature is the reasoning item as JSON, the text signature the
//! message id) and ends it. `response.completed` / `response.incomplete` set the response id,
//! usage and stop reason (`completed` -> stop, or toolUse with calls; `incomplete` for
//! `max_output_tokens` -> length, else an error). `error` events fail with `Error Code <code>:
//! <message>`, `response.failed` with `<code>: <message>`, and a stream without a terminal
//! event with `OpenAI Responses stream ended before a terminal response event`.

use std::collections::HashMap;

use pi_rpc_protocol::content::{
    AssistantContent, TaggedToolCall, TextContent, ThinkingContent, ToolCall,
};
use pi_rpc_protocol::event::{
    AssistantMessageEvent, ContentDelta, ContentEnd, ContentIndex, ToolcallEnd,
};
use pi_rpc_protocol::message::StopReason;
use pi_rpc_protocol::model::Model;
use serde_json::{Map, Value};

use super::super::driver::WireFormat;
use super::super::json::{parse_streaming, parse_strict};
use super::super::openai_completions::{js_truthy, sdk_error_message};
use super::super::partial::{BlockState, PartialMessage};
use super::super::sse::SseEvent;
use super::request::encode_text_signature;
use super::{Flavor, status_error};
use crate::js::{display, display_or};
use crate::provider::StreamError;

/// What kind of block an output slot streams into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SlotKind {
    Thinking,
    Text,
    ToolCall,
}

/// An open output item.
#[derive(Debug, Clone)]
struct Slot {
    kind: SlotKind,
    content_index: usize,
}

/// The Responses side of a streamed exchange.
pub(crate) struct ResponsesEvents {
    pub(super) model: Model,
    flavor: Flavor,
    /// `[DONE]` arrived: later events are ignored.
    pub(super) done: bool,
    pub(super) saw_terminal: bool,
    slots: HashMap<String, Slot>,
    /// Arguments text of tool-call blocks still streaming (by content index).
    partial_json: HashMap<usize, String>,
    /// Thinking blocks by reasoning item id, for signatures completed at the end.
    pub(super) reasoning_blocks: HashMap<String, usize>,
}

impl ResponsesEvents {
    pub(crate) fn new(model: Model) -> Self {
        Self::with_flavor(model, Flavor::OpenAi)
    }

    pub(crate) fn with_flavor(model: Model, flavor: Flavor) -> Self {
        Self {
            model,
            flavor,
            done: false,
            saw_terminal: false,
            slots: HashMap::new(),
            partial_json: HashMap::new(),
            reasoning_blocks: HashMap::new(),
        }
    }

    pub(super) fn apply(
        &mut self,
        event: &Value,
        partial: &mut PartialMessage,
    ) -> Result<(), StreamError> {
        let kind = event.get("type").and_then(Value::as_str).unwrap_or("");
        let output_index = slot_key(event.get("output_index"));
        let text = |key: &str| event.get(key).and_then(Value::as_str).unwrap_or("");
        // A delta is appended as the reference's `+=` appends it: a number (`42`) as its text.
        let delta = || crate::js::appended(event.get("delta"));
        match kind {
            "response.created" => {
                if let Some(id) = event.pointer("/response/id").and_then(Value::as_str) {
                    partial.message.response_id = Some(id.to_owned());
                }
            }
            "response.output_item.added" => {
                if let Some(item) = event.get("item") {
                    self.create_slot(output_index, item, partial);
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                self.append(&output_index, SlotKind::Thinking, &delta(), partial);
            }
            "response.reasoning_summary_part.done" => {
                self.append(&output_index, SlotKind::Thinking, "\n\n", partial);
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                self.append(&output_index, SlotKind::Text, &delta(), partial);
            }
            "response.function_call_arguments.delta" => {
                let Some(index) = self.slot_index(&output_index, SlotKind::ToolCall) else {
                    return Ok(());
                };
                let Some(json) = self.partial_json.get_mut(&index) else {
                    return Ok(());
                };
                let delta = delta();
                json.push_str(&delta);
                let arguments = parse_streaming(json);
                set_arguments(partial, index, arguments);
                partial.emit(AssistantMessageEvent::ToolcallDelta(ContentDelta {
                    content_index: index,
                    delta: delta.into_owned(),
                }));
            }
            "response.function_call_arguments.done" => {
                let Some(index) = self.slot_index(&output_index, SlotKind::ToolCall) else {
                    return Ok(());
                };
                let Some(json) = self.partial_json.get_mut(&index) else {
                    return Ok(());
                };
                let full = text("arguments");
                let previous = std::mem::replace(json, full.to_owned());
                set_arguments(partial, index, parse_streaming(full));
                if let Some(rest) = full.strip_prefix(previous.as_str())
                    && !rest.is_empty()
                {
                    partial.emit(AssistantMessageEvent::ToolcallDelta(ContentDelta {
                        content_index: index,
                        delta: rest.to_owned(),
                    }));
                }
            }
            "response.output_item.done" => {
                if let Some(item) = event.get("item") {
                    self.item_done(output_index, item, partial);
                }
            }
            "response.completed" | "response.incomplete" => {
                self.finalize(event.get("response").unwrap_or(&Value::Null), partial)?;
            }
            "error" => {
                return Err(StreamError::Provider(format!(
                    "Error Code {}: {}",
                    display(event.get("code")),
                    display(event.get("message"))
                )));
            }
            "response.failed" => {
                self.saw_terminal = true;
                let response = event.get("response").unwrap_or(&Value::Null);
                if let Some(status) = response.get("status").and_then(Value::as_str) {
                    partial.message.raw_stop_reason = Some(status.to_owned());
                }
                let error = response.get("error").filter(|error| js_truthy(error));
                let reason = response
                    .pointer("/incomplete_details/reason")
                    .filter(|reason| js_truthy(reason));
                let message = match (error, reason) {
                    (Some(error), _) => format!(
                        "{}: {}",
                        display_or(error.get("code"), "unknown"),
                        display_or(error.get("message"), "no message")
                    ),
                    (None, Some(reason)) => format!("incomplete: {}", display(Some(reason))),
                    (None, None) => "Unknown error (no error details in response)".to_owned(),
                };
                return Err(StreamError::Provider(message));
            }
            _ => {}
        }
        Ok(())
    }

    fn slot_index(&self, output_index: &str, kind: SlotKind) -> Option<usize> {
        self.slots
            .get(output_index)
            .filter(|slot| slot.kind == kind)
            .map(|slot| slot.content_index)
    }

    fn append(
        &self,
        output_index: &str,
        kind: SlotKind,
        delta: &str,
        partial: &mut PartialMessage,
    ) {
        let Some(index) = self.slot_index(output_index, kind) else {
            return;
        };
        let event = match &mut partial.message.content[index] {
            AssistantContent::Thinking(block) => {
                pi_rpc_protocol::surrogates::push_str(&mut block.thinking, delta);
                AssistantMessageEvent::ThinkingDelta(ContentDelta {
                    content_index: index,
                    delta: delta.to_owned(),
                })
            }
            AssistantContent::Text(block) => {
                pi_rpc_protocol::surrogates::push_str(&mut block.text, delta);
                AssistantMessageEvent::TextDelta(ContentDelta {
                    content_index: index,
                    delta: delta.to_owned(),
                })
            }
            AssistantContent::ToolCall(_) => return,
        };
        partial.emit(event);
    }

    fn create_slot(
        &mut self,
        output_index: String,
        item: &Value,
        partial: &mut PartialMessage,
    ) -> Option<Slot> {
        let text = |key: &str| item.get(key).map(|value| display(Some(value)));
        let (kind, block) = match item.get("type").and_then(Value::as_str) {
            Some("reasoning") => (
                SlotKind::Thinking,
                AssistantContent::Thinking(ThinkingContent {
                    thinking: String::new(),
                    thinking_signature: None,
                    redacted: None,
                    extra: Map::new(),
                }),
            ),
            Some("message") => {
                if item.get("phase").and_then(Value::as_str) == Some("final_answer") {
                    partial.message.stop_reason = StopReason::Stop;
                }
                (
                    SlotKind::Text,
                    AssistantContent::Text(TextContent::new(String::new())),
                )
            }
            Some("function_call") => (
                SlotKind::ToolCall,
                AssistantContent::ToolCall(ToolCall {
                    id: format!(
                        "{}|{}",
                        text("call_id").unwrap_or_else(|| "undefined".into()),
                        text("id").unwrap_or_else(|| "undefined".into())
                    ),
                    name: item
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    arguments: Map::new(),
                    thought_signature: None,
                    extra: Map::new(),
                }),
            ),
            _ => return None,
        };
        let index = partial.push_block(block, BlockState::default());
        if kind == SlotKind::ToolCall {
            let initial = item
                .get("arguments")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            self.partial_json.insert(index, initial);
        }
        let start = ContentIndex {
            content_index: index,
        };
        partial.emit(match kind {
            SlotKind::Thinking => AssistantMessageEvent::ThinkingStart(start),
            SlotKind::Text => AssistantMessageEvent::TextStart(start),
            SlotKind::ToolCall => AssistantMessageEvent::ToolcallStart(start.into()),
        });
        let slot = Slot {
            kind,
            content_index: index,
        };
        self.slots.insert(output_index, slot.clone());
        Some(slot)
    }

    fn item_done(&mut self, output_index: String, item: &Value, partial: &mut PartialMessage) {
        let item_type = item.get("type").and_then(Value::as_str);
        if item_type == Some("message")
            && item.get("phase").and_then(Value::as_str) == Some("final_answer")
        {
            partial.message.stop_reason = StopReason::Stop;
        }
        let slot = match self.slots.get(&output_index) {
            Some(slot) => Some(slot.clone()),
            None => self.create_slot(output_index.clone(), item, partial),
        };
        let Some(slot) = slot else {
            return;
        };
        let index = slot.content_index;
        let event = match (item_type, slot.kind, &mut partial.message.content[index]) {
            (Some("reasoning"), SlotKind::Thinking, AssistantContent::Thinking(block)) => {
                let join = |key: &str| {
                    item.get(key)
                        .and_then(Value::as_array)
                        .map(|parts| {
                            parts
                                .iter()
                                .map(|part| display(part.get("text")))
                                .collect::<Vec<_>>()
                                .join("\n\n")
                        })
                        .unwrap_or_default()
                };
                let summary = join("summary");
                let content = join("content");
                if !summary.is_empty() {
                    block.thinking = summary;
                } else if !content.is_empty() {
                    block.thinking = content;
                }
                block.thinking_signature =
                    Some(pi_rpc_protocol::json::to_string(item).unwrap_or_default());
                if let Some(id) = item.get("id") {
                    self.reasoning_blocks.insert(display(Some(id)), index);
                }
                AssistantMessageEvent::ThinkingEnd(ContentEnd {
                    content_index: index,
                    content: block.thinking.clone(),
                })
            }
            (Some("message"), SlotKind::Text, AssistantContent::Text(block)) => {
                block.text = item
                    .get("content")
                    .and_then(Value::as_array)
                    .map(|parts| {
                        parts
                            .iter()
                            .map(|part| {
                                let key = if part.get("type").and_then(Value::as_str)
                                    == Some("output_text")
                                {
                                    "text"
                                } else {
                                    "refusal"
                                };
                                display(part.get(key))
                            })
                            .collect::<String>()
                    })
                    .unwrap_or_default();
                let id = item
                    .get("id")
                    .map(|id| display(Some(id)))
                    .unwrap_or_default();
                block.text_signature = Some(encode_text_signature(
                    &id,
                    item.get("phase").and_then(Value::as_str),
                ));
                AssistantMessageEvent::TextEnd(ContentEnd {
                    content_index: index,
                    content: block.text.clone(),
                })
            }
            (Some("function_call"), SlotKind::ToolCall, AssistantContent::ToolCall(call)) => {
                let Some(json) = self.partial_json.remove(&index) else {
                    return;
                };
                let arguments = item
                    .get("arguments")
                    .and_then(Value::as_str)
                    .filter(|text| !text.is_empty())
                    .map(str::to_owned)
                    .or(Some(json).filter(|text| !text.is_empty()))
                    .unwrap_or_else(|| "{}".to_owned());
                call.arguments = parse_streaming(&arguments);
                AssistantMessageEvent::ToolcallEnd(ToolcallEnd {
                    content_index: index,
                    tool_call: TaggedToolCall::ToolCall(call.clone()),
                })
            }
            _ => return,
        };
        partial.emit(event);
        self.slots.remove(&output_index);
    }
}

impl WireFormat for ResponsesEvents {
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
        if self.flavor == Flavor::Codex {
            return self.on_codex_event(&event.data, partial);
        }
        let data = parse_strict(&event.data)?;
        if let Some(error) = data.get("error").filter(|error| js_truthy(error)) {
            return Err(StreamError::Provider(sdk_error_message(
                None,
                Some(error),
                None,
            )));
        }
        self.apply(&data, partial)
    }

    fn on_end(&mut self, partial: &mut PartialMessage) -> Result<(), StreamError> {
        if !self.saw_terminal {
            return Err(StreamError::Incomplete(
                "OpenAI Responses stream ended before a terminal response event",
            ));
        }
        let message = &partial.message;
        match message.stop_reason {
            StopReason::Pending => Err(StreamError::Incomplete(match self.flavor {
                Flavor::OpenAi => "OpenAI Responses stream ended without a stop reason",
                Flavor::Azure => "Azure OpenAI Responses stream ended without a stop reason",
                Flavor::Codex => "Codex stream ended without a stop reason",
            })),
            StopReason::Error | StopReason::Aborted => Err(StreamError::Provider(
                message
                    .error_message
                    .clone()
                    .filter(|text| !text.is_empty())
                    .unwrap_or_else(|| "An unknown error occurred".to_owned()),
            )),
            _ => Ok(()),
        }
    }

    fn on_abort(&mut self, _partial: &mut PartialMessage) -> String {
        // The SDK ends the stream quietly, so the end-of-stream check speaks first.
        if self.saw_terminal {
            "Request was aborted".to_owned()
        } else {
            "OpenAI Responses stream ended before a terminal response event".to_owned()
        }
    }

    fn status_error(&self, status: u16, _content_type: Option<&str>, body: &str) -> String {
        match self.flavor {
            Flavor::OpenAi => status_error(status, body),
            Flavor::Azure => super::status_error_with("Azure OpenAI API error", status, body),
            Flavor::Codex => super::codex_status::status_error(status, body),
        }
    }

    fn connection_error(&self, timed_out: bool) -> String {
        match (self.flavor, timed_out) {
            // The Codex client uses `fetch` directly.
            (Flavor::Codex, false) => "fetch failed".to_owned(),
            (_, true) => "Request timed out.".to_owned(),
            _ => "Connection error.".to_owned(),
        }
    }

    fn sdk_status_message(&self, status: u16, body: &str) -> String {
        crate::provider::openai_completions::sdk_status_message(status, body)
    }
}

/// The map key of an `output_index` as JavaScript's `Map` compares it.
fn slot_key(value: Option<&Value>) -> String {
    match value {
        None => "undefined".to_owned(),
        Some(Value::Number(number)) => number
            .as_f64()
            .map(|n| n.to_string())
            .unwrap_or_else(|| number.to_string()),
        Some(other) => format!("#{other}"),
    }
}

fn set_arguments(partial: &mut PartialMessage, index: usize, arguments: Map<String, Value>) {
    if let Some(AssistantContent::ToolCall(call)) = partial.message.content.get_mut(index) {
        call.arguments = arguments;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::provider::testing::{feed, model, pieces};

    #[test]
    fn number_deltas_are_appended_as_text() {
        // The reference appends every delta with `+=`: "Answer: " + 42, '{"limit":' + 1.
        let model = model("openai-responses");
        let at = |index: u64, kind: &str, delta: Value| json!({"type": kind, "output_index": index, "delta": delta});
        let added = |index: u64, item: Value| json!({"type": "response.output_item.added", "output_index": index, "item": item});
        let events = [
            added(0, json!({"id": "rs", "type": "reasoning", "summary": []})),
            at(0, "response.reasoning_summary_text.delta", json!(7)),
            added(1, json!({"id": "msg", "type": "message", "content": []})),
            at(1, "response.output_text.delta", json!("Answer: ")),
            at(1, "response.output_text.delta", json!(42)),
            added(
                2,
                json!({"id": "fc", "type": "function_call", "call_id": "c", "name": "read", "arguments": ""}),
            ),
            at(
                2,
                "response.function_call_arguments.delta",
                json!("{\"limit\":"),
            ),
            at(2, "response.function_call_arguments.delta", json!(1)),
            at(2, "response.function_call_arguments.delta", json!("}")),
        ];
        let mut wire = ResponsesEvents::new(model.clone());
        let (deltas, partial, _) = feed(&mut wire, &model, true, &events);
        let expected = ["7", "Answer: ", "42", "{\"limit\":", "1", "}"];
        assert_eq!(pieces(&deltas), expected);
        assert_eq!(
            serde_json::to_value(&partial.message.content).unwrap(),
            json!([{"type": "thinking", "thinking": "7"}, {"type": "text", "text": "Answer: 42"},
                   {"type": "toolCall", "id": "c|fc", "name": "read", "arguments": {"limit": 1}}])
        );
    }
}
