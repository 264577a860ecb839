//! Turning a scripted response into what goes on the wire: status, headers and body writes.

mod anthropic;
pub(crate) mod bedrock;
mod chat;
pub(crate) mod errors;
pub(crate) mod eventstream;
mod framing;
mod gemini;
mod mistral;
mod responses;

use std::time::Duration;

use bytes::Bytes;

use crate::format::Family;
pub use crate::format::Format;
use crate::request::RequestInfo;
use crate::script::{ContentItem, FaultKind, LineEnding, RawChunk, Response, Usage, decode_hex};
use bedrock::FrameKind;
pub(crate) use framing::frame;
use framing::with_fault_and_pace;

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
    /// A binary event-stream message (Bedrock): a tag for `omit`, what it is, its JSON
    /// payload.
    Frame {
        tag: String,
        kind: FrameKind,
        payload: String,
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

    /// The tag `framing.omit` and `bad_crc_event` name it by (empty for gates and pauses).
    fn tag(&self) -> &str {
        match self {
            Ev::Event { tag, .. } | Ev::Frame { tag, .. } => tag,
            Ev::Gate(_) | Ev::Pause(_) => "",
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
                let body = with_fault_and_pace(request, response, &Default::default(), body);
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
                } else if let Some(frame) = &item.frame {
                    Step::Write(Bytes::from(eventstream::raw_frame(frame)))
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
                let n = request.index + 1;
                let id = call
                    .id
                    .clone()
                    .unwrap_or_else(|| match request.format.family() {
                        Family::Anthropic => format!("toolu_mock_{n}_{calls}"),
                        Family::Bedrock => format!("tooluse_mock_{n}_{calls}"),
                        Family::Mistral => mistral::tool_id(request.index, calls),
                        _ => format!("call_mock_{n}_{calls}"),
                    });
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
    let id = response
        .id
        .clone()
        .unwrap_or_else(|| match request.format.family() {
            Family::Anthropic => format!("msg_mock_{n:04}"),
            Family::Chat => format!("chatcmpl-mock-{n:04}"),
            Family::Responses => format!("resp_mock_{n:04}"),
            Family::Gemini => format!("mock-{n:04}"),
            Family::Bedrock => bedrock::request_id(request.index),
            Family::Mistral => format!("mistral-mock-{n:04}"),
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
    let (events, headers) = match request.format.family() {
        Family::Anthropic => (anthropic::render(&ctx), anthropic::headers(&ctx)),
        Family::Chat => (chat::render(&ctx), chat::headers(&ctx)),
        Family::Responses => (responses::render(&ctx), responses::headers(&ctx)),
        Family::Gemini => (gemini::render(&ctx), gemini::headers(&ctx)),
        Family::Bedrock => (bedrock::render(&ctx), bedrock::headers(&ctx)),
        Family::Mistral => (mistral::render(&ctx), mistral::headers(&ctx)),
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

/// A non-streaming answer: the whole message as one JSON body.
fn whole_head(ctx: &Ctx<'_>) -> Head {
    let body = match ctx.request.format.family() {
        Family::Anthropic => anthropic::whole(ctx),
        Family::Chat => chat::whole(ctx),
        Family::Responses => responses::whole(ctx),
        Family::Gemini => gemini::whole(ctx),
        Family::Bedrock => bedrock::whole(ctx),
        Family::Mistral => mistral::whole(ctx),
    };
    Head::Respond {
        status: 200,
        headers: vec![("content-type".to_owned(), "application/json".to_owned())],
        body: vec![Step::Write(Bytes::from(body))],
    }
}

/// Serialises a JSON value compactly.
pub(crate) fn json(value: &serde_json::Value) -> String {
    value.to_string()
}
