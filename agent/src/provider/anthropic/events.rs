//! Anthropic stream events to assistant-message deltas.
//!
//! Only SSE events named `message_start`, `message_delta`, `message_stop`,
//! `content_block_start`, `content_block_delta` and `content_block_stop` are read (others, such
//! as `ping`, and events without an `event:` line are skipped); what they do is decided by the
//! JSON's own `type`. An event named `error` fails the message with its raw data as the error
//! text. A stream that started but ended without `message_stop` fails with `Anthropic stream
//! ended before message_stop`; one that never reported a stop reason with `Anthropic stream
//! ended without a stop reason`.

use pi_rpc_protocol::content::{AssistantContent, TextContent, ThinkingContent, ToolCall};
use pi_rpc_protocol::event::{AssistantMessageEvent, ContentIndex};
use pi_rpc_protocol::message::StopReason;
use pi_rpc_protocol::model::Model;
use serde_json::{Map, Value};

use super::super::cost::calculate_cost;
use super::super::driver::WireFormat;
use super::super::json::parse_with_repair;
use super::super::partial::{BlockState, PartialMessage};
use super::super::sse::SseEvent;
use super::names::from_claude_code_name;
mod deltas;

use crate::provider::StreamError;
use deltas::{BlockDelta, block_delta, block_stop, fast_block_delta};

const MESSAGE_EVENTS: [&str; 6] = [
    "message_start",
    "message_delta",
    "message_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
];

/// The Anthropic Messages side of a streamed exchange.
pub(crate) struct AnthropicEvents {
    model: Model,
    /// Tool names to map Claude Code names back to (OAuth requests only).
    oauth_tool_names: Option<Vec<String>>,
    saw_message_start: bool,
    saw_message_stop: bool,
}

impl AnthropicEvents {
    /// A reader of one response for `model`. With OAuth, tool names come back in Claude Code's
    /// casing and are mapped to the request's `tool_names`.
    pub(crate) fn new(model: Model, oauth_tool_names: Option<Vec<String>>) -> Self {
        Self {
            model,
            oauth_tool_names,
            saw_message_start: false,
            saw_message_stop: false,
        }
    }

    fn apply(&mut self, event: &Value, partial: &mut PartialMessage) -> Result<(), StreamError> {
        match event.get("type").and_then(Value::as_str).unwrap_or("") {
            "message_start" => {
                self.saw_message_start = true;
                self.message_start(event, partial);
            }
            "message_stop" => self.saw_message_stop = true,
            "content_block_start" => self.block_start(event, partial),
            "content_block_delta" => {
                if let Some(delta) = BlockDelta::from_value(event) {
                    block_delta(delta, partial);
                }
            }
            "content_block_stop" => block_stop(event, partial),
            "message_delta" => self.message_delta(event, partial)?,
            _ => {}
        }
        Ok(())
    }

    fn message_start(&self, event: &Value, partial: &mut PartialMessage) {
        let message = event.get("message").unwrap_or(&Value::Null);
        if let Some(id) = message.get("id").and_then(Value::as_str) {
            partial.message.response_id = Some(id.to_owned());
        }
        let usage = message.get("usage").unwrap_or(&Value::Null);
        let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        let out = &mut partial.message.usage;
        out.input = count("input_tokens");
        out.output = count("output_tokens");
        out.cache_read = count("cache_read_input_tokens");
        out.cache_write = count("cache_creation_input_tokens");
        out.cache_write_1h = Some(
            usage
                .pointer("/cache_creation/ephemeral_1h_input_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0),
        );
        out.total_tokens = out.input + out.output + out.cache_read + out.cache_write;
        calculate_cost(&self.model, out);
    }

    fn block_start(&self, event: &Value, partial: &mut PartialMessage) {
        let Some(block) = event.get("content_block") else {
            return;
        };
        let key = event.get("index").cloned();
        let text_field = |name: &str| {
            block
                .get(name)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let (content, state, start): (
            AssistantContent,
            BlockState,
            fn(ContentIndex) -> AssistantMessageEvent,
        ) = match block.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => (
                AssistantContent::Text(TextContent::new(text_field("text"))),
                BlockState {
                    key,
                    ..BlockState::default()
                },
                AssistantMessageEvent::TextStart,
            ),
            "thinking" => (
                AssistantContent::Thinking(ThinkingContent {
                    thinking: text_field("thinking"),
                    thinking_signature: Some(text_field("signature")),
                    redacted: None,
                    extra: Map::new(),
                }),
                BlockState {
                    key,
                    ..BlockState::default()
                },
                AssistantMessageEvent::ThinkingStart,
            ),
            "redacted_thinking" => (
                AssistantContent::Thinking(ThinkingContent {
                    thinking: "[Reasoning redacted]".to_owned(),
                    thinking_signature: Some(text_field("data")),
                    redacted: Some(true),
                    extra: Map::new(),
                }),
                BlockState {
                    key,
                    ..BlockState::default()
                },
                AssistantMessageEvent::ThinkingStart,
            ),
            "tool_use" => {
                let name = text_field("name");
                let name = match &self.oauth_tool_names {
                    Some(tools) => from_claude_code_name(&name, tools),
                    None => name,
                };
                let arguments = match block.get("input") {
                    Some(Value::Object(input)) => input.clone(),
                    _ => Map::new(),
                };
                (
                    AssistantContent::ToolCall(ToolCall {
                        id: text_field("id"),
                        name,
                        arguments,
                        thought_signature: None,
                        extra: Map::new(),
                    }),
                    BlockState {
                        key,
                        partial_json: Some(String::new()),
                        json_delta_seen: false,
                    },
                    |start| AssistantMessageEvent::ToolcallStart(start.into()),
                )
            }
            _ => return,
        };
        let content_index = partial.push_block(content, state);
        partial.emit(start(ContentIndex { content_index }));
    }

    fn message_delta(
        &self,
        event: &Value,
        partial: &mut PartialMessage,
    ) -> Result<(), StreamError> {
        let delta = event.get("delta").unwrap_or(&Value::Null);
        if let Some(reason) = delta
            .get("stop_reason")
            .and_then(Value::as_str)
            .filter(|r| !r.is_empty())
        {
            partial.message.raw_stop_reason = Some(reason.to_owned());
            let (stop_reason, error) = map_stop_reason(reason, delta.get("stop_details"))?;
            partial.message.stop_reason = stop_reason;
            if let Some(error) = error {
                partial.message.error_message = Some(error);
            }
        }
        let out = &mut partial.message.usage;
        if let Some(usage) = event.get("usage").filter(|usage| !usage.is_null()) {
            let count = |key: &str| usage.get(key).and_then(Value::as_u64);
            if let Some(n) = count("input_tokens") {
                out.input = n;
            }
            if let Some(n) = count("output_tokens") {
                out.output = n;
            }
            if let Some(n) = count("cache_read_input_tokens") {
                out.cache_read = n;
            }
            if let Some(n) = count("cache_creation_input_tokens") {
                out.cache_write = n;
            }
            if let Some(n) = usage
                .pointer("/output_tokens_details/thinking_tokens")
                .and_then(Value::as_u64)
            {
                out.reasoning = Some(n);
                out.reasoning_last = true;
            }
        }
        out.total_tokens = out.input + out.output + out.cache_read + out.cache_write;
        calculate_cost(&self.model, out);
        Ok(())
    }
}

impl WireFormat for AnthropicEvents {
    fn on_event(
        &mut self,
        mut event: SseEvent,
        partial: &mut PartialMessage,
    ) -> Result<(), StreamError> {
        let name = event.event.as_deref().unwrap_or("");
        if name == "error" {
            return Err(StreamError::Provider(event.data));
        }
        if !MESSAGE_EVENTS.contains(&name) {
            return Ok(());
        }
        if fast_block_delta(&mut event.data, partial) {
            return Ok(());
        }
        let parsed =
            parse_with_repair(&event.data).map_err(|error| StreamError::AnthropicEvent {
                name: name.to_owned(),
                error,
                data: event.data.clone(),
                raw: event.raw().trim_end_matches('\n').replace('\n', "\\n"),
            })?;
        self.apply(&parsed, partial)
    }

    fn on_end(&mut self, partial: &mut PartialMessage) -> Result<(), StreamError> {
        if self.saw_message_start && !self.saw_message_stop {
            return Err(StreamError::Incomplete(
                "Anthropic stream ended before message_stop",
            ));
        }
        match partial.message.stop_reason {
            StopReason::Pending => Err(StreamError::Incomplete(
                "Anthropic stream ended without a stop reason",
            )),
            StopReason::Error | StopReason::Aborted => Err(StreamError::stopped(&partial.message)),
            _ => Ok(()),
        }
    }
}

/// Anthropic's stop reasons as the reference maps them.
fn map_stop_reason(
    reason: &str,
    details: Option<&Value>,
) -> Result<(StopReason, Option<String>), StreamError> {
    Ok(match reason {
        "end_turn" | "pause_turn" | "stop_sequence" => (StopReason::Stop, None),
        "max_tokens" => (StopReason::Length, None),
        "tool_use" => (StopReason::ToolUse, None),
        "refusal" => {
            let explanation = details
                .and_then(|details| details.get("explanation"))
                .and_then(Value::as_str)
                .filter(|text| !text.is_empty())
                .unwrap_or("The model refused to complete the request");
            (StopReason::Error, Some(explanation.to_owned()))
        }
        "sensitive" => (
            StopReason::Error,
            Some("Provider stopped with: sensitive".to_owned()),
        ),
        other => return Err(StreamError::UnhandledStopReason(other.to_owned())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn model() -> Model {
        serde_json::from_value(json!({
            "id": "m", "name": "m", "api": "anthropic-messages", "provider": "p",
            "baseUrl": "http://127.0.0.1:9", "reasoning": true, "input": ["text"],
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
            "contextWindow": 1000, "maxTokens": 100
        }))
        .unwrap()
    }

    /// Feeds `(event name, data)` pairs; returns the deltas as JSON, the message, and the
    /// outcome (the first error, else `on_end`'s).
    fn feed(
        events: &[(Option<&str>, Value)],
    ) -> (Vec<Value>, PartialMessage, Result<(), StreamError>) {
        let mut wire = AnthropicEvents::new(model(), None);
        let mut partial = PartialMessage::new(&model());
        let mut outcome = Ok(());
        for (name, data) in events {
            let event = SseEvent::new(
                name.map(str::to_owned),
                match data {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                },
            );
            outcome = wire.on_event(event, &mut partial);
            if outcome.is_err() {
                break;
            }
        }
        if outcome.is_ok() {
            outcome = wire.on_end(&mut partial);
        }
        let deltas = partial
            .take_events()
            .map(|event| serde_json::to_value(event).unwrap())
            .collect();
        (deltas, partial, outcome)
    }

    fn start(usage: Value) -> (Option<&'static str>, Value) {
        (
            Some("message_start"),
            json!({"type": "message_start", "message": {"id": "msg", "usage": usage}}),
        )
    }

    fn named(name: &'static str, data: Value) -> (Option<&'static str>, Value) {
        (Some(name), data)
    }

    fn stop() -> Vec<(Option<&'static str>, Value)> {
        vec![
            named(
                "message_delta",
                json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
            ),
            named("message_stop", json!({"type": "message_stop"})),
        ]
    }

    #[test]
    fn usage_from_message_start_stays_when_message_delta_has_none() {
        let mut events = vec![start(json!({"input_tokens": 5, "output_tokens": 1,
            "cache_read_input_tokens": 2, "cache_creation_input_tokens": 3}))];
        events.push(named(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"},
                   "usage": {"input_tokens": null, "output_tokens": 9}}),
        ));
        events.push(named("message_stop", json!({"type": "message_stop"})));
        let (_, partial, outcome) = feed(&events);
        assert_eq!(outcome, Ok(()));
        let usage = serde_json::to_value(&partial.message.usage).unwrap();
        assert_eq!(
            usage,
            json!({"input": 5, "output": 9, "cacheRead": 2, "cacheWrite": 3, "totalTokens": 19,
                   "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0},
                   "cacheWrite1h": 0})
        );
    }

    #[test]
    fn unknown_blocks_and_mismatched_deltas_are_ignored() {
        let mut events = vec![
            start(json!({"input_tokens": 1, "output_tokens": 1})),
            named("ping", json!({"type": "ping"})),
            named(
                "content_block_start",
                json!({"type": "content_block_start", "index": 0,
                       "content_block": {"type": "server_tool_use", "id": "s", "name": "web"}}),
            ),
            named(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0,
                       "delta": {"type": "text_delta", "text": "lost"}}),
            ),
            named(
                "content_block_start",
                json!({"type": "content_block_start", "index": 1,
                       "content_block": {"type": "thinking", "thinking": ""}}),
            ),
            named(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 1,
                       "delta": {"type": "text_delta", "text": "wrong kind"}}),
            ),
            named(
                "content_block_start",
                json!({"type": "content_block_start", "index": 2,
                       "content_block": {"type": "text", "text": "pre"}}),
            ),
            (
                None,
                json!({"type": "content_block_delta", "index": 2,
                         "delta": {"type": "text_delta", "text": "unnamed"}}),
            ),
            named(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": 1}),
            ),
            named(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": 2}),
            ),
        ];
        events.extend(stop());
        let (deltas, partial, outcome) = feed(&events);
        assert_eq!(outcome, Ok(()));
        assert_eq!(
            deltas,
            vec![
                json!({"type": "thinking_start", "contentIndex": 0}),
                json!({"type": "text_start", "contentIndex": 1}),
                json!({"type": "thinking_end", "contentIndex": 0, "content": ""}),
                json!({"type": "text_end", "contentIndex": 1, "content": "pre"}),
            ]
        );
        assert_eq!(
            serde_json::to_value(&partial.message.content).unwrap(),
            json!([{"type": "thinking", "thinking": "", "thinkingSignature": ""},
                   {"type": "text", "text": "pre"}])
        );
    }

    #[test]
    fn an_error_event_fails_with_its_raw_data() {
        let events = vec![
            start(json!({"input_tokens": 1, "output_tokens": 1})),
            named(
                "error",
                Value::String("{\"type\":\"error\" , \"x\":1}".to_owned()),
            ),
        ];
        let (_, _, outcome) = feed(&events);
        assert_eq!(
            outcome,
            Err(StreamError::Provider(
                "{\"type\":\"error\" , \"x\":1}".to_owned()
            ))
        );
    }

    #[test]
    fn a_stream_cut_before_message_stop_fails() {
        let events = vec![
            start(json!({"input_tokens": 1, "output_tokens": 1})),
            named(
                "message_delta",
                json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
            ),
        ];
        let (_, partial, outcome) = feed(&events);
        assert_eq!(
            outcome,
            Err(StreamError::Incomplete(
                "Anthropic stream ended before message_stop"
            ))
        );
        assert_eq!(partial.message.raw_stop_reason.as_deref(), Some("end_turn"));
    }

    #[test]
    fn a_tool_call_without_deltas_keeps_its_input_until_its_stop() {
        let mut events = vec![
            start(json!({"input_tokens": 1, "output_tokens": 1})),
            named(
                "content_block_start",
                json!({"type": "content_block_start", "index": 0,
                       "content_block": {"type": "tool_use", "id": "t", "name": "read", "input": {"path": "x"}}}),
            ),
        ];
        let (_, partial, _) = feed(&events);
        assert_eq!(
            serde_json::to_value(partial.snapshot().content).unwrap(),
            json!([{"type": "toolCall", "id": "t", "name": "read", "arguments": {"path": "x"},
                    "partialJson": "", "index": 0}])
        );
        events.push(named(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ));
        events.extend(stop());
        let (_, partial, _) = feed(&events);
        // The reference re-parses the (empty) streamed text at the block's end.
        assert_eq!(
            serde_json::to_value(&partial.message.content).unwrap(),
            json!([{"type": "toolCall", "id": "t", "name": "read", "arguments": {}}])
        );
    }
}
