//! Turning a scripted response into what goes on the wire: status, headers and body writes.

mod anthropic;
mod chat;
pub(crate) mod errors;
mod gemini;
mod responses;

use std::time::Duration;

use bytes::Bytes;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::request::RequestInfo;
use crate::script::{
    ContentItem, FaultKind, Framing, LineEnding, RawChunk, Response, Usage, decode_hex,
};

/// A provider wire format, named like the reference's `api` setting in models.json.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum Format {
    /// Anthropic Messages: `POST /v1/messages`.
    #[serde(rename = "anthropic-messages", alias = "anthropic")]
    Anthropic,
    /// OpenAI Chat Completions: `POST /v1/chat/completions`.
    #[serde(rename = "openai-completions", alias = "openai-chat", alias = "chat")]
    OpenAiChat,
    /// OpenAI Responses: `POST /v1/responses`.
    #[serde(rename = "openai-responses", alias = "responses")]
    OpenAiResponses,
    /// Google Gemini: `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`.
    #[serde(rename = "google-generative-ai", alias = "gemini")]
    Gemini,
}

impl Format {
    /// The format's name as in models.json (`anthropic-messages`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Format::Anthropic => "anthropic-messages",
            Format::OpenAiChat => "openai-completions",
            Format::OpenAiResponses => "openai-responses",
            Format::Gemini => "google-generative-ai",
        }
    }
}

/// One step of a body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    /// Write these bytes as one write, flushed on its own.
    Write(Bytes),
    /// Send nothing for this long.
    Sleep(Duration),
    /// Wait until the gate is released.
    Gate(String),
    /// Close the connection without finishing the body.
    Drop,
    /// Reset the connection.
    Reset,
    /// Send nothing until the client goes away.
    StallForever,
}

/// What to answer a request with.
#[derive(Debug)]
pub(crate) struct Plan {
    /// A gate to wait for before the headers.
    pub gate: Option<String>,
    /// A delay before the headers.
    pub delay: Option<Duration>,
    /// The answer.
    pub head: Head,
}

/// The answer after gate and delay.
#[derive(Debug)]
pub(crate) enum Head {
    /// A status line, headers and a body.
    Respond {
        /// HTTP status.
        status: u16,
        /// Headers in order.
        headers: Vec<(String, String)>,
        /// The body steps.
        body: Vec<Step>,
    },
    /// Close the connection before any byte.
    Drop,
    /// Reset the connection before any byte.
    Reset,
}

/// A neutral stop reason.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Stop {
    End,
    ToolUse,
    Length,
    Raw(String),
}

impl Stop {
    fn parse(text: &str) -> Stop {
        match text {
            "stop" | "end_turn" | "STOP" | "completed" => Stop::End,
            "tool_use" | "tool_calls" | "toolUse" => Stop::ToolUse,
            "length" | "max_tokens" | "MAX_TOKENS" | "max_output_tokens" => Stop::Length,
            other => Stop::Raw(other.to_owned()),
        }
    }
}

/// A logical piece of a rendered stream, before framing.
#[derive(Debug, Clone)]
pub(crate) enum Ev {
    /// An SSE event: optional `event:` name, a tag for `omit`, and the data text.
    Event {
        name: Option<&'static str>,
        tag: String,
        data: String,
    },
    /// A gate.
    Gate(String),
    /// A pause in milliseconds.
    Pause(u64),
}

impl Ev {
    fn event(name: &'static str, data: String) -> Ev {
        Ev::Event {
            name: Some(name),
            tag: name.to_owned(),
            data,
        }
    }

    fn data(tag: &str, data: String) -> Ev {
        Ev::Event {
            name: None,
            tag: tag.to_owned(),
            data,
        }
    }
}

/// A neutral content block, resolved from the script.
#[derive(Debug, Clone)]
pub(crate) enum Block {
    Text(Vec<String>),
    Thinking {
        pieces: Vec<String>,
        signature: Option<String>,
    },
    Redacted(String),
    Tool {
        id: String,
        explicit_id: bool,
        name: String,
        pieces: Vec<String>,
        full: String,
    },
    Gate(String),
    Pause(u64),
}

/// Everything a renderer needs.
pub(crate) struct Ctx<'a> {
    pub request: &'a RequestInfo,
    pub id: String,
    pub model: String,
    pub usage: Usage,
    pub stop: Stop,
    pub blocks: Vec<Block>,
}

/// The default usage when a response gives none.
const DEFAULT_USAGE: Usage = Usage {
    input: 10,
    output: 5,
    cache_read: 0,
    cache_write: 0,
    reasoning: 0,
};

/// Builds the plan for answering `request` with `response`.
pub(crate) fn plan(request: &RequestInfo, response: &Response) -> Plan {
    let gate = response.gate.clone();
    let delay = response.delay_ms.map(Duration::from_millis);
    let before_headers = response
        .fault
        .as_ref()
        .filter(|f| f.after_chunks.is_none())
        .map(|f| f.kind);
    let head = if let Some(error) = &response.error {
        errors::http_error(request.format, request.index, error)
    } else if before_headers == Some(FaultKind::Drop) {
        Head::Drop
    } else if before_headers == Some(FaultKind::Reset) {
        Head::Reset
    } else if let Some(raw) = &response.raw {
        match raw_head(raw) {
            Head::Respond {
                status,
                headers,
                body,
            } => {
                let body = with_fault_and_pace(request, response, &Framing::default(), body);
                Head::Respond {
                    status,
                    headers,
                    body,
                }
            }
            other => other,
        }
    } else {
        content_head(request, response)
    };
    let head = with_extra_headers(head, response);
    Plan { gate, delay, head }
}

fn with_extra_headers(mut head: Head, response: &Response) -> Head {
    if let Head::Respond { headers, .. } = &mut head {
        for (name, value) in &response.headers {
            headers.retain(|(existing, _)| !existing.eq_ignore_ascii_case(name));
            headers.push((name.clone(), value.clone()));
        }
    }
    head
}

fn raw_head(raw: &crate::script::RawResponse) -> Head {
    let headers = match &raw.headers {
        Some(map) => map.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        None => vec![("content-type".to_owned(), "text/event-stream".to_owned())],
    };
    let eol = match raw.line_ending {
        Some(LineEnding::Crlf) => "\r\n",
        Some(LineEnding::Cr) => "\r",
        Some(LineEnding::Lf) | None => "\n",
    };
    let body = raw
        .chunks
        .iter()
        .map(|chunk| match chunk {
            RawChunk::Text(text) => Step::Write(Bytes::from(text.clone())),
            RawChunk::Item(item) => {
                if let Some(data) = &item.data {
                    let data = match data {
                        serde_json::Value::String(text) => text.clone(),
                        other => json(other),
                    };
                    let event = match &item.event {
                        Some(name) => format!("event: {name}{eol}"),
                        None => String::new(),
                    };
                    Step::Write(Bytes::from(format!("{event}data: {data}{eol}{eol}")))
                } else if let Some(text) = &item.text {
                    Step::Write(Bytes::from(text.clone()))
                } else if let Some(hex) = &item.hex {
                    Step::Write(Bytes::from(decode_hex(hex).unwrap_or_default()))
                } else if let Some(gate) = &item.gate {
                    Step::Gate(gate.clone())
                } else {
                    Step::Sleep(Duration::from_millis(item.pause_ms.unwrap_or(0)))
                }
            }
        })
        .collect();
    Head::Respond {
        status: raw.status.unwrap_or(200),
        headers,
        body,
    }
}

/// Resolves neutral content into blocks with ids.
fn blocks(request: &RequestInfo, response: &Response) -> Vec<Block> {
    let items: Vec<ContentItem> = match (&response.text, &response.content) {
        (Some(text), _) => vec![ContentItem {
            text: Some(text.clone()),
            ..ContentItem::default()
        }],
        (None, Some(items)) => items.clone(),
        (None, None) => Vec::new(),
    };
    let mut calls = 0;
    items
        .iter()
        .map(|item| {
            if let Some(text) = &item.text {
                Block::Text(text.pieces(item.chunks))
            } else if let Some(thinking) = &item.thinking {
                Block::Thinking {
                    pieces: thinking.pieces(item.chunks),
                    signature: item.signature.clone(),
                }
            } else if let Some(data) = &item.redacted_thinking {
                Block::Redacted(data.clone())
            } else if let Some(call) = &item.tool_call {
                calls += 1;
                let prefix = match request.format {
                    Format::Anthropic => "toolu",
                    _ => "call",
                };
                let id = call
                    .id
                    .clone()
                    .unwrap_or_else(|| format!("{prefix}_mock_{}_{calls}", request.index + 1));
                Block::Tool {
                    id,
                    explicit_id: call.id.is_some(),
                    name: call.name.clone(),
                    pieces: call.argument_pieces(),
                    full: call.arguments_text(),
                }
            } else if let Some(gate) = &item.gate {
                Block::Gate(gate.clone())
            } else {
                Block::Pause(item.pause_ms.unwrap_or(0))
            }
        })
        .collect()
}

fn content_head(request: &RequestInfo, response: &Response) -> Head {
    let blocks = blocks(request, response);
    let has_tools = blocks.iter().any(|b| matches!(b, Block::Tool { .. }));
    let stop = match &response.stop {
        Some(text) => Stop::parse(text),
        None if has_tools => Stop::ToolUse,
        None => Stop::End,
    };
    let n = request.index + 1;
    let id = response.id.clone().unwrap_or_else(|| match request.format {
        Format::Anthropic => format!("msg_mock_{n:04}"),
        Format::OpenAiChat => format!("chatcmpl-mock-{n:04}"),
        Format::OpenAiResponses => format!("resp_mock_{n:04}"),
        Format::Gemini => format!("mock-{n:04}"),
    });
    let model = response
        .model
        .clone()
        .unwrap_or_else(|| request.model.clone());
    let ctx = Ctx {
        request,
        id,
        model,
        usage: response.usage.unwrap_or(DEFAULT_USAGE),
        stop,
        blocks,
    };
    if !request.stream {
        return whole_head(&ctx);
    }
    let (events, headers) = match request.format {
        Format::Anthropic => (anthropic::render(&ctx), anthropic::headers(&ctx)),
        Format::OpenAiChat => (chat::render(&ctx), chat::headers(&ctx)),
        Format::OpenAiResponses => (responses::render(&ctx), responses::headers(&ctx)),
        Format::Gemini => (gemini::render(&ctx), gemini::headers(&ctx)),
    };
    let framing = response.framing.clone().unwrap_or_default();
    let body = frame(request.format, &events, &framing);
    let body = with_fault_and_pace(request, response, &framing, body);
    Head::Respond {
        status: 200,
        headers,
        body,
    }
}

/// Inserts the response's fault and pacing into a streamed body.
fn with_fault_and_pace(
    request: &RequestInfo,
    response: &Response,
    framing: &Framing,
    mut body: Vec<Step>,
) -> Vec<Step> {
    if let Some(fault) = &response.fault {
        let writes = body.iter().filter(|s| matches!(s, Step::Write(_))).count();
        let fault_steps = match fault.kind {
            FaultKind::Error => {
                let sequence = fault
                    .after_chunks
                    .unwrap_or(writes.saturating_sub(1))
                    .min(writes);
                let event = errors::in_band(request.format, request.index, sequence, fault);
                frame(request.format, &[event], framing)
            }
            FaultKind::Drop => vec![Step::Drop],
            FaultKind::Reset => vec![Step::Reset],
            FaultKind::Stall => match fault.stall_ms {
                Some(ms) => vec![Step::Sleep(Duration::from_millis(ms))],
                None => vec![Step::StallForever],
            },
        };
        body = insert_fault(body, fault.after_chunks, fault.kind, fault_steps);
    }
    let pace = response
        .tokens_per_second
        .map(|tps| Duration::from_secs_f64(1.0 / tps))
        .or(response.chunk_delay_ms.map(Duration::from_millis));
    if let Some(pace) = pace {
        body = paced(body, pace);
    }
    body
}

/// A non-streaming answer: the whole message as one JSON body.
fn whole_head(ctx: &Ctx<'_>) -> Head {
    let body = match ctx.request.format {
        Format::Anthropic => anthropic::whole(ctx),
        Format::OpenAiChat => chat::whole(ctx),
        Format::OpenAiResponses => responses::whole(ctx),
        Format::Gemini => gemini::whole(ctx),
    };
    Head::Respond {
        status: 200,
        headers: vec![("content-type".to_owned(), "application/json".to_owned())],
        body: vec![Step::Write(Bytes::from(body))],
    }
}

/// Puts the fault after `after` writes; without `after`, an error or stall goes just before the
/// stream's last write (its terminator) and a drop or reset at the very end.
fn insert_fault(
    body: Vec<Step>,
    after: Option<usize>,
    kind: FaultKind,
    fault: Vec<Step>,
) -> Vec<Step> {
    let writes = body.iter().filter(|s| matches!(s, Step::Write(_))).count();
    let after = after.unwrap_or(match kind {
        FaultKind::Error | FaultKind::Stall => writes.saturating_sub(1),
        FaultKind::Drop | FaultKind::Reset => writes,
    });
    let ends = !matches!(kind, FaultKind::Stall);
    let mut out = Vec::with_capacity(body.len() + fault.len());
    let mut written = 0;
    let mut inserted = false;
    for step in body {
        if !inserted && written == after {
            out.extend(fault.iter().cloned());
            inserted = true;
            if ends {
                return out;
            }
        }
        if matches!(step, Step::Write(_)) {
            written += 1;
        }
        out.push(step);
    }
    if !inserted {
        out.extend(fault);
    }
    out
}

/// Inserts a pause between consecutive writes.
fn paced(body: Vec<Step>, pace: Duration) -> Vec<Step> {
    let mut out = Vec::with_capacity(body.len() * 2);
    let mut seen_write = false;
    for step in body {
        if matches!(step, Step::Write(_)) {
            if seen_write {
                out.push(Step::Sleep(pace));
            }
            seen_write = true;
        }
        out.push(step);
    }
    out
}

/// Frames logical events into body writes.
pub(crate) fn frame(format: Format, events: &[Ev], framing: &Framing) -> Vec<Step> {
    let eol = match framing.line_ending {
        Some(LineEnding::Lf) => "\n",
        Some(LineEnding::Crlf) => "\r\n",
        Some(LineEnding::Cr) => "\r",
        None if format == Format::Gemini => "\r\n",
        None => "\n",
    };
    let mut out = Vec::with_capacity(events.len());
    for ev in events {
        match ev {
            Ev::Gate(name) => out.push(Step::Gate(name.clone())),
            Ev::Pause(ms) => out.push(Step::Sleep(Duration::from_millis(*ms))),
            Ev::Event { name, tag, data } => {
                if framing.omit.iter().any(|o| o == tag) {
                    continue;
                }
                let mut text = String::with_capacity(data.len() + 32);
                if let Some(comment) = &framing.comment {
                    text.push_str(comment);
                    text.push_str(eol);
                }
                if let Some(name) = name
                    && !framing.no_event_lines
                {
                    text.push_str("event: ");
                    text.push_str(name);
                    text.push_str(eol);
                }
                if framing.multiline_data {
                    for line in multiline(data) {
                        text.push_str("data: ");
                        text.push_str(&line);
                        text.push_str(eol);
                    }
                } else {
                    text.push_str("data: ");
                    text.push_str(data);
                    text.push_str(eol);
                }
                text.push_str(eol);
                match framing.split_bytes {
                    Some(size) if size > 0 => {
                        let bytes = Bytes::from(text);
                        let mut start = 0;
                        while start < bytes.len() {
                            let end = (start + size).min(bytes.len());
                            out.push(Step::Write(bytes.slice(start..end)));
                            start = end;
                        }
                    }
                    _ => out.push(Step::Write(Bytes::from(text))),
                }
            }
        }
    }
    if framing.coalesce {
        out = coalesce(out);
    }
    out
}

/// Re-serialises JSON text pretty-printed, one line per `data:` field.
fn multiline(data: &str) -> Vec<String> {
    match serde_json::from_str::<serde_json::Value>(data) {
        Ok(value) => serde_json::to_string_pretty(&value)
            .unwrap_or_else(|_| data.to_owned())
            .lines()
            .map(str::to_owned)
            .collect(),
        Err(_) => vec![data.to_owned()],
    }
}

/// Merges consecutive writes into one.
fn coalesce(steps: Vec<Step>) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    let mut pending: Vec<u8> = Vec::new();
    for step in steps {
        match step {
            Step::Write(bytes) => pending.extend_from_slice(&bytes),
            other => {
                if !pending.is_empty() {
                    out.push(Step::Write(Bytes::from(std::mem::take(&mut pending))));
                }
                out.push(other);
            }
        }
    }
    if !pending.is_empty() {
        out.push(Step::Write(Bytes::from(pending)));
    }
    out
}

/// Serialises a JSON value compactly.
pub(crate) fn json(value: &serde_json::Value) -> String {
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &str) -> Step {
        Step::Write(Bytes::from(text.to_owned()))
    }

    #[test]
    fn a_fault_goes_after_the_given_number_of_writes() {
        let body = vec![write("a"), Step::Gate("g".into()), write("b"), write("c")];
        let out = insert_fault(body.clone(), Some(2), FaultKind::Drop, vec![Step::Drop]);
        assert_eq!(
            out,
            vec![write("a"), Step::Gate("g".into()), write("b"), Step::Drop]
        );
        let out = insert_fault(body.clone(), None, FaultKind::Error, vec![write("E")]);
        assert_eq!(
            out,
            vec![write("a"), Step::Gate("g".into()), write("b"), write("E")]
        );
        let pause = Step::Sleep(Duration::from_millis(5));
        let out = insert_fault(body.clone(), Some(1), FaultKind::Stall, vec![pause.clone()]);
        assert_eq!(
            out,
            vec![
                write("a"),
                pause,
                Step::Gate("g".into()),
                write("b"),
                write("c")
            ]
        );
        let out = insert_fault(body, Some(9), FaultKind::Reset, vec![Step::Reset]);
        assert_eq!(out.last(), Some(&Step::Reset));
    }

    #[test]
    fn pacing_puts_a_pause_between_writes_only() {
        let pace = Duration::from_millis(3);
        let out = paced(vec![write("a"), write("b")], pace);
        assert_eq!(out, vec![write("a"), Step::Sleep(pace), write("b")]);
    }

    #[test]
    fn framing_omits_comments_and_coalesces() {
        let events = vec![
            Ev::event("one", "{}".into()),
            Ev::event("two", "[]".into()),
            Ev::data("done", "[DONE]".into()),
        ];
        let framing = Framing {
            comment: Some(": hi".into()),
            omit: vec!["two".into()],
            coalesce: true,
            ..Framing::default()
        };
        let out = frame(Format::Anthropic, &events, &framing);
        assert_eq!(
            out,
            vec![write(
                ": hi\nevent: one\ndata: {}\n\n: hi\ndata: [DONE]\n\n"
            )]
        );
        let out = frame(Format::Gemini, &events[2..], &Framing::default());
        assert_eq!(out, vec![write("data: [DONE]\r\n\r\n")]);
    }
}
