//! Gemini stream chunks to assistant-message deltas, read as the Google SDK reads the body.
//!
//! The SDK does not parse SSE: it appends each read to a buffer and cuts it at the earliest
//! `\n\n`, `\r\r` or `\r\n\r\n`; a piece that, trimmed, starts with `data:` is one JSON chunk
//! (others, comments included, are dropped with whatever they hold). A single read that is by
//! itself a JSON object with an `error` whose `code` is 400-599 fails the stream (`got status:
//! <status>. <json>`); text left in the buffer at the end fails it with `Incomplete JSON
//! segment at the end`.
//!
//! Chunks are read as the reference reads them: consecutive text parts of the same kind (thought
//! or not) grow one block, a switch ends it; each function call is a whole tool-call block
//! (start, one delta with its arguments as JSON, end); `finishReason` sets the stop reason
//! (toolUse when there are calls), `usageMetadata` the usage.

use std::sync::atomic::{AtomicU64, Ordering};

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
use super::super::json::{JsonError, js_key_order, js_trim, parse_strict};
use super::super::partial::{BlockState, PartialMessage};
use super::super::sse::SseEvent;
use crate::provider::StreamError;

/// Numbers the ids made up for function calls that came without one (process-wide, as the
/// reference's counter is).
static TOOL_CALL_COUNTER: AtomicU64 = AtomicU64::new(0);

const DELIMITERS: [&str; 3] = ["\n\n", "\r\r", "\r\n\r\n"];

/// The Gemini side of a streamed exchange.
pub(crate) struct GeminiEvents {
    model: Model,
    /// Bytes of an incomplete UTF-8 sequence at the end of the last read.
    utf8_tail: Vec<u8>,
    /// Whether any text was decoded yet (a leading byte order mark is dropped).
    seen_text: bool,
    /// Text not yet cut into events.
    buffer: String,
    /// The content index of the text or thinking block being streamed.
    current: Option<usize>,
}

impl GeminiEvents {
    pub(crate) fn new(model: Model) -> Self {
        Self {
            model,
            utf8_tail: Vec::new(),
            seen_text: false,
            buffer: String::new(),
            current: None,
        }
    }

    /// Decodes one read like a streaming `TextDecoder`.
    fn decode(&mut self, bytes: &[u8]) -> String {
        let mut data = std::mem::take(&mut self.utf8_tail);
        data.extend_from_slice(bytes);
        let mut text = String::new();
        let mut rest: &[u8] = &data;
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    text.push_str(valid);
                    break;
                }
                Err(error) => {
                    let (valid, after) = rest.split_at(error.valid_up_to());
                    text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match error.error_len() {
                        Some(len) => {
                            text.push('\u{FFFD}');
                            rest = &after[len..];
                        }
                        None => {
                            self.utf8_tail = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        if !self.seen_text && !text.is_empty() {
            self.seen_text = true;
            if let Some(stripped) = text.strip_prefix('\u{FEFF}') {
                text = stripped.to_owned();
            }
        }
        text
    }

    fn apply(&mut self, chunk: &Value, partial: &mut PartialMessage) -> Result<(), StreamError> {
        if partial
            .message
            .response_id
            .as_deref()
            .unwrap_or("")
            .is_empty()
            && let Some(id) = chunk.get("responseId").and_then(Value::as_str)
            && !id.is_empty()
        {
            partial.message.response_id = Some(id.to_owned());
        }
        let candidate = chunk
            .get("candidates")
            .and_then(Value::as_array)
            .and_then(|candidates| candidates.first());
        let parts = candidate
            .and_then(|candidate| candidate.pointer("/content/parts"))
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            if let Some(text) = part.get("text").filter(|text| !text.is_null()) {
                // A text that is no string (`42`) is appended as the reference's `+=` appends it.
                let text = crate::js::appended(Some(text));
                let thinking = part.get("thought") == Some(&Value::Bool(true));
                let signature = part
                    .get("thoughtSignature")
                    .and_then(Value::as_str)
                    .filter(|s| !s.is_empty());
                self.text_part(&text, thinking, signature, partial);
            }
            if let Some(call) = part.get("functionCall").filter(|call| is_truthy(call)) {
                self.end_current(partial);
                self.function_call(call, part.get("thoughtSignature"), partial);
            }
        }
        if let Some(reason) = candidate
            .and_then(|candidate| candidate.get("finishReason"))
            .filter(|reason| is_truthy(reason))
        {
            let reason = match reason {
                Value::String(reason) => reason.clone(),
                other => other.to_string(),
            };
            partial.message.stop_reason = map_finish_reason(&reason)?;
            partial.message.raw_stop_reason = Some(reason);
            if partial
                .message
                .content
                .iter()
                .any(|block| matches!(block, AssistantContent::ToolCall(_)))
            {
                partial.message.stop_reason = StopReason::ToolUse;
            }
        }
        if let Some(metadata) = chunk.get("usageMetadata").filter(|m| is_truthy(m)) {
            let count = |key: &str| metadata.get(key).and_then(Value::as_u64).unwrap_or(0);
            let cached = count("cachedContentTokenCount");
            let mut usage = Usage {
                input: count("promptTokenCount").saturating_sub(cached),
                output: count("candidatesTokenCount") + count("thoughtsTokenCount"),
                cache_read: cached,
                cache_write: 0,
                reasoning: Some(count("thoughtsTokenCount")),
                total_tokens: count("totalTokenCount"),
                ..Usage::default()
            };
            calculate_cost(&self.model, &mut usage);
            partial.message.usage = usage;
        }
        Ok(())
    }

    fn text_part(
        &mut self,
        text: &str,
        thinking: bool,
        signature: Option<&str>,
        partial: &mut PartialMessage,
    ) {
        let same_kind = self.current.is_some_and(|index| {
            matches!(
                (&partial.message.content[index], thinking),
                (AssistantContent::Thinking(_), true) | (AssistantContent::Text(_), false)
            )
        });
        if !same_kind {
            self.end_current(partial);
            let block = if thinking {
                AssistantContent::Thinking(ThinkingContent {
                    thinking: String::new(),
                    thinking_signature: None,
                    redacted: None,
                    extra: Map::new(),
                })
            } else {
                AssistantContent::Text(TextContent::new(String::new()))
            };
            let index = partial.push_block(block, BlockState::default());
            let start = ContentIndex {
                content_index: index,
            };
            partial.emit(if thinking {
                AssistantMessageEvent::ThinkingStart(start)
            } else {
                AssistantMessageEvent::TextStart(start)
            });
            self.current = Some(index);
        }
        let Some(index) = self.current else {
            return;
        };
        let delta = ContentDelta {
            content_index: index,
            delta: text.to_owned(),
        };
        let event = match &mut partial.message.content[index] {
            AssistantContent::Thinking(block) => {
                pi_rpc_protocol::surrogates::push_str(&mut block.thinking, text);
                if let Some(signature) = signature {
                    block.thinking_signature = Some(signature.to_owned());
                }
                AssistantMessageEvent::ThinkingDelta(delta)
            }
            AssistantContent::Text(block) => {
                pi_rpc_protocol::surrogates::push_str(&mut block.text, text);
                if let Some(signature) = signature {
                    block.text_signature = Some(signature.to_owned());
                }
                AssistantMessageEvent::TextDelta(delta)
            }
            AssistantContent::ToolCall(_) => return,
        };
        partial.emit(event);
    }

    /// Ends the text or thinking block being streamed, if any.
    fn end_current(&mut self, partial: &mut PartialMessage) {
        let Some(index) = self.current.take() else {
            return;
        };
        let event = match &partial.message.content[index] {
            AssistantContent::Thinking(block) => AssistantMessageEvent::ThinkingEnd(ContentEnd {
                content_index: index,
                content: block.thinking.clone(),
            }),
            AssistantContent::Text(block) => AssistantMessageEvent::TextEnd(ContentEnd {
                content_index: index,
                content: block.text.clone(),
            }),
            AssistantContent::ToolCall(_) => return,
        };
        partial.emit(event);
    }

    fn function_call(
        &mut self,
        call: &Value,
        signature: Option<&Value>,
        partial: &mut PartialMessage,
    ) {
        let name = call.get("name").and_then(Value::as_str).unwrap_or("");
        let provided = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty());
        let taken = provided.is_some_and(|id| {
            partial
                .message
                .content
                .iter()
                .any(|block| matches!(block, AssistantContent::ToolCall(call) if call.id == id))
        });
        let id = match provided {
            Some(id) if !taken => id.to_owned(),
            _ => {
                let n = TOOL_CALL_COUNTER.fetch_add(1, Ordering::Relaxed) + 1;
                let raw_name = call
                    .get("name")
                    .map(|name| match name {
                        Value::String(name) => name.clone(),
                        other => other.to_string(),
                    })
                    .unwrap_or_else(|| "undefined".to_owned());
                format!("{raw_name}_{}_{n}", crate::js::now_ms())
            }
        };
        let arguments = match call.get("args") {
            Some(Value::Object(args)) => args.clone(),
            _ => Map::new(),
        };
        let tool_call = ToolCall {
            id,
            name: name.to_owned(),
            arguments,
            thought_signature: signature
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
            extra: Map::new(),
        };
        let delta = pi_rpc_protocol::json::to_string(&tool_call.arguments).unwrap_or_default();
        let index = partial.push_block(
            AssistantContent::ToolCall(tool_call.clone()),
            BlockState::default(),
        );
        partial.emit(AssistantMessageEvent::ToolcallStart(
            ContentIndex {
                content_index: index,
            }
            .into(),
        ));
        partial.emit(AssistantMessageEvent::ToolcallDelta(ContentDelta {
            content_index: index,
            delta,
        }));
        partial.emit(AssistantMessageEvent::ToolcallEnd(ToolcallEnd {
            content_index: index,
            tool_call: TaggedToolCall::ToolCall(tool_call),
        }));
    }
}

impl WireFormat for GeminiEvents {
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
        let text = self.decode(bytes);
        if let Some(error) = in_band_error(&text) {
            return Err(StreamError::Provider(error));
        }
        self.buffer.push_str(&text);
        while let Some((at, length)) = DELIMITERS
            .iter()
            .filter_map(|delimiter| self.buffer.find(delimiter).map(|at| (at, delimiter.len())))
            .min_by_key(|(at, _)| *at)
        {
            let event: String = self.buffer[..at].to_owned();
            self.buffer.drain(..at + length);
            let event = js_trim(&event);
            let Some(payload) = event.strip_prefix("data:") else {
                continue;
            };
            let chunk = parse_js(js_trim(payload))?;
            self.apply(&chunk, partial)?;
        }
        Ok(())
    }

    fn on_end(&mut self, partial: &mut PartialMessage) -> Result<(), StreamError> {
        if !js_trim(&self.buffer).is_empty() {
            return Err(StreamError::Incomplete(
                "Incomplete JSON segment at the end",
            ));
        }
        self.end_current(partial);
        let message = &partial.message;
        match message.stop_reason {
            StopReason::Pending => Err(StreamError::Incomplete(
                if self.model.api == super::VERTEX_API {
                    "Google Vertex stream ended without a finish reason"
                } else {
                    "Google stream ended without a finish reason"
                },
            )),
            StopReason::Error | StopReason::Aborted => {
                Err(StreamError::Provider(match &message.raw_stop_reason {
                    Some(raw) if !raw.is_empty() => format!("Provider stopped with: {raw}"),
                    _ => "An unknown error occurred".to_owned(),
                }))
            }
            _ => Ok(()),
        }
    }

    fn connection_error(&self, _timed_out: bool) -> String {
        "fetch failed".to_owned()
    }

    fn errors_keep_headers(&self) -> bool {
        false
    }

    fn exposes_response(&self) -> bool {
        false
    }

    fn status_error(&self, status: u16, content_type: Option<&str>, body: &str) -> String {
        status_error(status, content_type, body)
    }
}

/// The Google SDK's error for an HTTP error status: the JSON body as JSON; a body of another
/// content type wrapped as `{"error":{"message","code","status"}}`; a JSON body that does not
/// parse fails with the parse error.
pub(crate) fn status_error(status: u16, content_type: Option<&str>, body: &str) -> String {
    if content_type.is_some_and(|kind| kind.contains("application/json")) {
        return match parse_js(body) {
            Ok(json) => pi_rpc_protocol::json::to_string(&json).unwrap_or_default(),
            Err(error) => error.to_string(),
        };
    }
    let reason = reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|code| code.canonical_reason())
        .unwrap_or("");
    let wrapped = serde_json::json!({"error": {"message": body, "code": status, "status": reason}});
    pi_rpc_protocol::json::to_string(&wrapped).unwrap_or_default()
}

/// A read that is by itself a JSON object with an HTTP-like `error.code`.
fn in_band_error(text: &str) -> Option<String> {
    let Ok(Value::Object(chunk)) = serde_json::from_str::<Value>(text) else {
        return None;
    };
    let error = chunk.get("error")?;
    let code = error.get("code").and_then(Value::as_f64)?;
    if !(400.0..600.0).contains(&code) {
        return None;
    }
    let status = match error.get("status") {
        None => "undefined".to_owned(),
        Some(Value::String(status)) => status.clone(),
        Some(other) => other.to_string(),
    };
    let mut chunk = Value::Object(chunk);
    js_key_order(&mut chunk);
    let json = pi_rpc_protocol::json::to_string(&chunk).unwrap_or_default();
    Some(format!("got status: {status}. {json}"))
}

/// `JSON.parse` with V8's wording for the errors Gemini streams run into.
fn parse_js(text: &str) -> Result<Value, JsonError> {
    match serde_json::from_str::<Value>(text) {
        Ok(mut value) => {
            js_key_order(&mut value);
            Ok(value)
        }
        Err(error) => {
            let message = error.to_string();
            let located = |what: &str| {
                let position = position_of(text, error.line(), error.column());
                format!(
                    "{what} in JSON at position {position} (line {} column {})",
                    error.line(),
                    error.column()
                )
            };
            if message.starts_with("control character") {
                Err(JsonError::new(located(
                    "Bad control character in string literal",
                )))
            } else if message.starts_with("key must be a string") {
                Err(JsonError::new(located("Expected property name or '}'")))
            } else {
                parse_strict(text)
            }
        }
    }
}

/// The UTF-16 offset of a 1-based line and column (serde counts columns in bytes).
fn position_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (number, piece) in text.split_inclusive('\n').enumerate() {
        if number + 1 == line {
            let byte = column.saturating_sub(1).min(piece.len());
            let prefix = piece.get(..byte).unwrap_or(piece);
            return offset + crate::js::utf16_len(prefix);
        }
        offset += crate::js::utf16_len(piece);
    }
    offset
}

fn is_truthy(value: &Value) -> bool {
    super::super::openai_completions::js_truthy(value)
}

/// Gemini's finish reasons as the reference maps them.
fn map_finish_reason(reason: &str) -> Result<StopReason, StreamError> {
    Ok(match reason {
        "STOP" => StopReason::Stop,
        "MAX_TOKENS" => StopReason::Length,
        "BLOCKLIST"
        | "PROHIBITED_CONTENT"
        | "SPII"
        | "SAFETY"
        | "IMAGE_SAFETY"
        | "IMAGE_PROHIBITED_CONTENT"
        | "IMAGE_RECITATION"
        | "IMAGE_OTHER"
        | "RECITATION"
        | "FINISH_REASON_UNSPECIFIED"
        | "OTHER"
        | "LANGUAGE"
        | "MALFORMED_FUNCTION_CALL"
        | "UNEXPECTED_TOOL_CALL"
        | "NO_IMAGE" => StopReason::Error,
        other => return Err(StreamError::UnhandledStopReason(other.to_owned())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::testing::{deltas, model, pieces};

    #[test]
    fn number_texts_are_appended_as_text() {
        // The reference appends a part's text with `+=`: "" + 7, "Answer: " + 42.
        let model = model("google-generative-ai");
        let mut wire = GeminiEvents::new(model.clone());
        let mut partial = PartialMessage::new(&model);
        for parts in [
            r#"{"text":7,"thought":true}"#,
            r#"{"text":"Answer: "}"#,
            r#"{"text":42}"#,
        ] {
            let chunk = format!(
                "data: {{\"candidates\":[{{\"content\":{{\"parts\":[{parts}]}}}}]}}\r\n\r\n"
            );
            wire.on_bytes(chunk.as_bytes(), &mut partial).unwrap();
        }
        assert_eq!(pieces(&deltas(&mut partial)), ["7", "Answer: ", "42"]);
    }

    #[test]
    fn parse_errors_are_worded_like_v8() {
        assert_eq!(
            parse_js("{\r\ndata: 1}").unwrap_err().to_string(),
            "Expected property name or '}' in JSON at position 3 (line 2 column 1)"
        );
        assert_eq!(
            parse_js("{\"a\":\"x\ty\"}").unwrap_err().to_string(),
            "Bad control character in string literal in JSON at position 7 (line 1 column 8)"
        );
    }

    #[test]
    fn error_statuses_are_worded_like_the_google_sdk() {
        assert_eq!(
            status_error(500, None, ""),
            r#"{"error":{"message":"","code":500,"status":"Internal Server Error"}}"#
        );
        assert_eq!(
            status_error(502, Some("application/json"), "Bad gateway"),
            r#"Unexpected token 'B', "Bad gateway" is not valid JSON"#
        );
        assert_eq!(
            status_error(
                429,
                Some("application/json; charset=utf-8"),
                r#"{"error":{"code":429}}"#
            ),
            r#"{"error":{"code":429}}"#
        );
    }
}
