//! Converse stream events to assistant-message deltas, read as the reference reads the AWS SDK's
//! stream: `contentBlockDelta`s open text and thinking blocks by their `contentBlockIndex`,
//! `contentBlockStart` opens tool calls, `contentBlockStop` ends a block, `messageStop` sets the
//! stop reason and `metadata` the usage. An `exception` message fails the stream with the SDK's
//! wording (`Throttling error: ...`), an `error` message with its text. Failures carry the
//! reference's `diagnostics` entry (`bedrock_response_failure` with the status, error code and
//! request id it knows).

use std::time::Duration;

use pi_rpc_protocol::content::{
    AssistantContent, TaggedToolCall, TextContent, ThinkingContent, ToolCall,
};
use pi_rpc_protocol::event::{
    AssistantMessageEvent, ContentDelta, ContentEnd, ContentIndex, ToolcallEnd,
};
use pi_rpc_protocol::message::StopReason;
use pi_rpc_protocol::model::Model;
use reqwest::header::HeaderMap;
use serde_json::{Map, Value, json};

use super::super::cost::calculate_cost;
use super::super::driver::WireFormat;
use super::super::partial::{BlockState, PartialMessage};
use super::super::sse::SseEvent;
use super::eventstream::{Decoder, Message};
use crate::provider::StreamError;

/// The readable prefixes of Bedrock's modelled exceptions.
const PREFIXES: [(&str, &str); 5] = [
    ("InternalServerException", "Internal server error"),
    ("ModelStreamErrorException", "Model stream error"),
    ("ValidationException", "Validation error"),
    ("ThrottlingException", "Throttling error"),
    ("ServiceUnavailableException", "Service unavailable"),
];

/// Error codes the AWS SDK retries as throttling.
const THROTTLING: [&str; 6] = [
    "ThrottlingException",
    "Throttling",
    "TooManyRequestsException",
    "ProvisionedThroughputExceededException",
    "RequestLimitExceeded",
    "LimitExceededException",
];

/// How many times the AWS SDK sends a request in all.
const MAX_ATTEMPTS: u32 = 3;

/// A modelled error as the reference shows it: `<prefix>: <message>`.
pub(super) fn exception_text(name: &str, message: &str) -> String {
    let prefix = PREFIXES
        .iter()
        .find(|(known, _)| *known == name)
        .map_or(name, |(_, prefix)| prefix);
    format!("{prefix}: {message}")
}

/// The error code in `x-amzn-errortype` (before any `:`).
fn error_type(headers: &HeaderMap) -> Option<String> {
    let value = headers.get("x-amzn-errortype")?.to_str().ok()?;
    Some(value.split(':').next().unwrap_or(value).to_owned())
}

/// The Bedrock side of a streamed exchange.
pub(crate) struct BedrockEvents {
    model: Model,
    decoder: Decoder,
    request_id: Option<String>,
    /// Status and error code of the last error response.
    failed: Option<(u16, Option<String>)>,
}

impl BedrockEvents {
    pub(crate) fn new(model: Model) -> Self {
        Self {
            model,
            decoder: Decoder::default(),
            request_id: None,
            failed: None,
        }
    }

    /// Puts the reference's diagnostics entry on the message.
    fn diagnose(&self, partial: &mut PartialMessage, status: Option<u16>, code: Option<&str>) {
        let mut details = Map::new();
        if let Some(status) = status {
            details.insert("status".into(), json!(status));
        }
        if let Some(code) = code.filter(|code| code.ends_with("Exception")) {
            details.insert("errorCode".into(), json!(code));
        }
        if let Some(id) = &self.request_id {
            details.insert("requestId".into(), json!(id));
        }
        if details.is_empty() {
            partial.message.extra.remove("diagnostics");
            return;
        }
        let entry = json!({
            "type": "bedrock_response_failure",
            "timestamp": crate::js::now_ms(),
            "details": details,
        });
        partial
            .message
            .extra
            .insert("diagnostics".into(), json!([entry]));
    }

    fn block(&self, partial: &PartialMessage, index: &Value) -> Option<usize> {
        partial.find(index)
    }

    fn on_message(
        &mut self,
        message: &Message,
        partial: &mut PartialMessage,
    ) -> Result<(), StreamError> {
        match message.header(":message-type") {
            Some("error") => {
                let text = message
                    .header(":error-message")
                    .filter(|text| !text.is_empty())
                    .unwrap_or("UnknownError")
                    .to_owned();
                let code = message.header(":error-code").map(str::to_owned);
                self.diagnose(partial, None, code.as_deref());
                Err(StreamError::Provider(text))
            }
            Some("exception") => {
                let kind = message.header(":exception-type").unwrap_or_default();
                let payload: Value =
                    serde_json::from_slice(&message.payload).unwrap_or(Value::Null);
                let mut name: String = kind.chars().take(1).flat_map(char::to_uppercase).collect();
                name.push_str(kind.get(1..).unwrap_or_default());
                let modelled = PREFIXES.iter().any(|(known, _)| *known == name);
                let text = if modelled {
                    let text = payload
                        .get("message")
                        .or_else(|| payload.get("Message"))
                        .and_then(Value::as_str)
                        .unwrap_or("UnknownError");
                    exception_text(&name, text)
                } else {
                    String::from_utf8_lossy(&message.payload).into_owned()
                };
                let code = if modelled { name } else { kind.to_owned() };
                self.diagnose(partial, None, Some(&code));
                Err(StreamError::Provider(text))
            }
            Some("event") => {
                let kind = message.header(":event-type").unwrap_or_default().to_owned();
                let payload: Value =
                    serde_json::from_slice(&message.payload).unwrap_or(Value::Null);
                self.on_event_payload(&kind, &payload, partial)
            }
            other => Err(StreamError::Unexpected(format!(
                "Unrecognizable event type: {}",
                message
                    .header(":event-type")
                    .or(other)
                    .unwrap_or("undefined")
            ))),
        }
    }

    fn on_event_payload(
        &mut self,
        kind: &str,
        payload: &Value,
        partial: &mut PartialMessage,
    ) -> Result<(), StreamError> {
        let index = payload
            .get("contentBlockIndex")
            .cloned()
            .unwrap_or(Value::Null);
        match kind {
            "messageStart" if payload.get("role").and_then(Value::as_str) != Some("assistant") => {
                return Err(StreamError::Unexpected(
                    "Unexpected assistant message start but got user message start instead"
                        .to_owned(),
                ));
            }
            "contentBlockStart" => {
                if let Some(tool) = payload.pointer("/start/toolUse") {
                    let text =
                        |key: &str| tool.get(key).and_then(Value::as_str).unwrap_or_default();
                    let call = ToolCall {
                        id: text("toolUseId").to_owned(),
                        name: text("name").to_owned(),
                        arguments: Map::new(),
                        thought_signature: None,
                        extra: Map::new(),
                    };
                    let state = BlockState {
                        key: Some(index),
                        partial_json: Some(String::new()),
                        json_delta_seen: false,
                    };
                    let at = partial.push_block(AssistantContent::ToolCall(call), state);
                    partial.emit(AssistantMessageEvent::ToolcallStart(
                        ContentIndex { content_index: at }.into(),
                    ));
                }
            }
            "contentBlockDelta" => self.delta(&index, payload.get("delta"), partial),
            "contentBlockStop" => self.stop(&index, partial),
            "messageStop" => {
                let reason = payload.get("stopReason").and_then(Value::as_str);
                partial.message.raw_stop_reason = reason.map(str::to_owned);
                let (stop, error) = match reason {
                    Some("end_turn" | "stop_sequence") => (StopReason::Stop, None),
                    Some("max_tokens" | "model_context_window_exceeded") => {
                        (StopReason::Length, None)
                    }
                    Some("tool_use") => (StopReason::ToolUse, None),
                    Some(other) => (
                        StopReason::Error,
                        Some(format!("Provider stopped with: {other}")),
                    ),
                    None => (StopReason::Error, None),
                };
                partial.message.stop_reason = stop;
                if error.is_some() {
                    partial.message.error_message = error;
                }
            }
            "metadata" => {
                if let Some(usage) = payload.get("usage") {
                    let number = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
                    let target = &mut partial.message.usage;
                    target.input = number("inputTokens");
                    target.output = number("outputTokens");
                    target.cache_read = number("cacheReadInputTokens");
                    target.cache_write = number("cacheWriteInputTokens");
                    let total = number("totalTokens");
                    target.total_tokens = if total != 0 {
                        total
                    } else {
                        target.input + target.output
                    };
                    calculate_cost(&self.model, target);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn delta(&mut self, index: &Value, delta: Option<&Value>, partial: &mut PartialMessage) {
        let Some(delta) = delta else { return };
        let found = self.block(partial, index);
        // A text, reasoning, signature or input that is no string (`42`) is appended as the
        // reference's `+=` appends it, as its text.
        if let Some(text) = delta.get("text") {
            let text = &*crate::js::appended(Some(text));
            let at = match found {
                Some(at) => at,
                None => {
                    let state = BlockState {
                        key: Some(index.clone()),
                        ..BlockState::default()
                    };
                    let at =
                        partial.push_block(AssistantContent::Text(TextContent::new("")), state);
                    partial.emit(AssistantMessageEvent::TextStart(ContentIndex {
                        content_index: at,
                    }));
                    at
                }
            };
            if let Some(AssistantContent::Text(block)) = partial.message.content.get_mut(at) {
                block.text.push_str(text);
                partial.emit(AssistantMessageEvent::TextDelta(ContentDelta {
                    content_index: at,
                    delta: text.to_owned(),
                }));
            }
        } else if let (Some(tool), Some(at)) = (delta.get("toolUse"), found) {
            let input =
                crate::js::appended(tool.get("input").filter(|input| crate::js::truthy(input)));
            let Some(AssistantContent::ToolCall(_)) = partial.message.content.get(at) else {
                return;
            };
            if let Some(state) = partial.blocks.get_mut(at) {
                state
                    .partial_json
                    .get_or_insert_with(String::new)
                    .push_str(&input);
                state.json_delta_seen = true;
            }
            partial.settle_arguments(at);
            partial.emit(AssistantMessageEvent::ToolcallDelta(ContentDelta {
                content_index: at,
                delta: input.into_owned(),
            }));
        } else if let Some(reasoning) = delta.get("reasoningContent") {
            let at = match found {
                Some(at) => at,
                None => {
                    let block = ThinkingContent {
                        thinking: String::new(),
                        thinking_signature: Some(String::new()),
                        redacted: None,
                        extra: Map::new(),
                    };
                    let state = BlockState {
                        key: Some(index.clone()),
                        ..BlockState::default()
                    };
                    let at = partial.push_block(AssistantContent::Thinking(block), state);
                    partial.emit(AssistantMessageEvent::ThinkingStart(ContentIndex {
                        content_index: at,
                    }));
                    at
                }
            };
            let Some(AssistantContent::Thinking(block)) = partial.message.content.get_mut(at)
            else {
                return;
            };
            let truthy = |key: &str| {
                reasoning
                    .get(key)
                    .filter(|value| crate::js::truthy(value))
                    .map(|value| crate::js::appended(Some(value)))
            };
            let text = truthy("text");
            if let Some(text) = &text {
                block.thinking.push_str(text);
            }
            if let Some(signature) = truthy("signature") {
                block
                    .thinking_signature
                    .get_or_insert_with(String::new)
                    .push_str(&signature);
            }
            if let Some(text) = text {
                partial.emit(AssistantMessageEvent::ThinkingDelta(ContentDelta {
                    content_index: at,
                    delta: text.into_owned(),
                }));
            }
        }
    }

    fn stop(&mut self, index: &Value, partial: &mut PartialMessage) {
        let Some(at) = self.block(partial, index) else {
            return;
        };
        let event = match partial.message.content.get(at) {
            Some(AssistantContent::Text(text)) => AssistantMessageEvent::TextEnd(ContentEnd {
                content_index: at,
                content: text.text.clone(),
            }),
            Some(AssistantContent::Thinking(thinking)) => {
                AssistantMessageEvent::ThinkingEnd(ContentEnd {
                    content_index: at,
                    content: thinking.thinking.clone(),
                })
            }
            Some(AssistantContent::ToolCall(_)) => {
                partial.close_block(at);
                let Some(AssistantContent::ToolCall(call)) = partial.message.content.get(at) else {
                    return;
                };
                AssistantMessageEvent::ToolcallEnd(ToolcallEnd {
                    content_index: at,
                    tool_call: TaggedToolCall::ToolCall(call.clone()),
                })
            }
            None => return,
        };
        partial.close_block(at);
        partial.emit(event);
    }
}

impl WireFormat for BedrockEvents {
    fn on_event(
        &mut self,
        _event: SseEvent,
        _partial: &mut PartialMessage,
    ) -> Result<(), StreamError> {
        Ok(())
    }

    fn reads_raw_body(&self) -> bool {
        true
    }

    fn on_bytes(&mut self, bytes: &[u8], partial: &mut PartialMessage) -> Result<(), StreamError> {
        let messages = match self.decoder.feed(bytes) {
            Ok(messages) => messages,
            Err(error) => {
                self.diagnose(partial, None, None);
                return Err(error.into());
            }
        };
        for message in &messages {
            self.on_message(message, partial)?;
        }
        Ok(())
    }

    fn on_end(&mut self, partial: &mut PartialMessage) -> Result<(), StreamError> {
        if let Err(error) = self.decoder.finish() {
            self.diagnose(partial, None, None);
            return Err(error.into());
        }
        let message = &partial.message;
        let outcome = match message.stop_reason {
            StopReason::Pending => Err(StreamError::Incomplete(
                "Bedrock stream ended without a stop reason",
            )),
            StopReason::Error | StopReason::Aborted => Err(StreamError::stopped(message)),
            _ => Ok(()),
        };
        if outcome.is_err() {
            self.diagnose(partial, None, None);
        }
        outcome
    }

    fn on_abort(&mut self, _partial: &mut PartialMessage) -> String {
        "Request was aborted".to_owned()
    }

    fn on_response(&mut self, status: u16, headers: &HeaderMap, partial: &mut PartialMessage) {
        self.request_id = headers
            .get("x-amzn-requestid")
            .and_then(|value| value.to_str().ok())
            .map(str::trim)
            .filter(|id| !id.is_empty() && id.len() <= 200)
            .map(str::to_owned);
        if status >= 400 {
            let code = error_type(headers);
            self.failed = Some((status, code.clone()));
            self.diagnose(partial, Some(status), code.as_deref());
        } else {
            // An attempt the SDK sent again succeeded: the earlier failure leaves no trace.
            self.failed = None;
            partial.message.extra.remove("diagnostics");
        }
    }

    fn sdk_retry_delay(
        &self,
        retries: u32,
        status: Option<u16>,
        _headers: Option<&HeaderMap>,
    ) -> Option<Duration> {
        if retries + 1 >= MAX_ATTEMPTS {
            return None;
        }
        let code = self.failed.as_ref().and_then(|(_, code)| code.clone());
        let throttled =
            status == Some(429) || code.as_deref().is_some_and(|c| THROTTLING.contains(&c));
        let transient = matches!(status, None | Some(500 | 502 | 503 | 504));
        if !(throttled || transient) {
            return None;
        }
        let base = if throttled { 500.0 } else { 100.0 };
        let delay = (random_unit() * 2f64.powi(retries as i32) * base).min(20_000.0);
        Some(Duration::from_millis(delay as u64))
    }

    fn body_broken(&mut self, partial: &mut PartialMessage) -> String {
        self.diagnose(partial, None, None);
        "aborted".to_owned()
    }

    fn connection_error(&self, timed_out: bool) -> String {
        if timed_out {
            "Request timed out.".to_owned()
        } else {
            "Connection error.".to_owned()
        }
    }

    fn status_error(&self, status: u16, _content_type: Option<&str>, body: &str) -> String {
        let parsed: Value = serde_json::from_str(body).unwrap_or(Value::Null);
        let message = parsed
            .get("message")
            .or_else(|| parsed.get("Message"))
            .and_then(Value::as_str)
            .unwrap_or("UnknownError");
        let name = self
            .failed
            .as_ref()
            .filter(|(failed, _)| *failed == status)
            .and_then(|(_, code)| code.clone())
            .or_else(|| {
                ["code", "__type"].iter().find_map(|key| {
                    let text = parsed.get(*key)?.as_str()?;
                    Some(text.rsplit('#').next().unwrap_or(text).to_owned())
                })
            })
            .unwrap_or_else(|| "Unknown".to_owned());
        exception_text(&name, message)
    }
}

/// A uniform random number in [0, 1), for the SDK's jittered back-off.
fn random_unit() -> f64 {
    let mut bytes = [0u8; 4];
    let _ = ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes);
    f64::from(u32::from_be_bytes(bytes)) / (f64::from(u32::MAX) + 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::testing::{deltas, model, pieces};

    #[test]
    fn number_deltas_are_appended_as_text() {
        // The reference appends with `+=`: "" + 7, "" + 12345, "" + 42, '{"limit":' + 1; a
        // falsy reasoning text or input (0) appends nothing.
        let model = model("bedrock-converse-stream");
        let mut wire = BedrockEvents::new(model.clone());
        let mut partial = PartialMessage::new(&model);
        let start = json!({"contentBlockIndex": 2, "start": {"toolUse": {"toolUseId": "t", "name": "read"}}});
        let events = [
            (
                "contentBlockDelta",
                json!({"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": 7}}}),
            ),
            (
                "contentBlockDelta",
                json!({"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": 0}}}),
            ),
            (
                "contentBlockDelta",
                json!({"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": 12345}}}),
            ),
            (
                "contentBlockDelta",
                json!({"contentBlockIndex": 1, "delta": {"text": 42}}),
            ),
            ("contentBlockStart", start),
            (
                "contentBlockDelta",
                json!({"contentBlockIndex": 2, "delta": {"toolUse": {"input": "{\"limit\":"}}}),
            ),
            (
                "contentBlockDelta",
                json!({"contentBlockIndex": 2, "delta": {"toolUse": {"input": 1}}}),
            ),
            (
                "contentBlockDelta",
                json!({"contentBlockIndex": 2, "delta": {"toolUse": {"input": 0}}}),
            ),
            (
                "contentBlockDelta",
                json!({"contentBlockIndex": 2, "delta": {"toolUse": {"input": "}"}}}),
            ),
        ];
        for (kind, payload) in events {
            wire.on_event_payload(kind, &payload, &mut partial).unwrap();
        }
        assert_eq!(
            pieces(&deltas(&mut partial)),
            ["7", "42", "{\"limit\":", "1", "", "}"]
        );
        assert_eq!(
            serde_json::to_value(&partial.message.content).unwrap(),
            json!([{"type": "thinking", "thinking": "7", "thinkingSignature": "12345"},
                   {"type": "text", "text": "42"},
                   {"type": "toolCall", "id": "t", "name": "read", "arguments": {"limit": 1}}])
        );
    }
}
