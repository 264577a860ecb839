//! Amazon Bedrock Converse: binary event-stream messages (`messageStart`, `contentBlockStart`
//! for tool calls, `contentBlockDelta`s, `contentBlockStop`, `messageStop`, `metadata`), each a
//! JSON payload padded with Bedrock's `p` member.

use serde_json::{Map, Value, json};

use super::{Block, Ctx, Ev, Stop, json as js};

/// The padding member Bedrock adds to every event payload (clients ignore it).
const PADDING: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123";

pub(super) fn headers(ctx: &Ctx<'_>) -> Vec<(String, String)> {
    vec![
        (
            "content-type".to_owned(),
            "application/vnd.amazon.eventstream".to_owned(),
        ),
        ("x-amzn-requestid".to_owned(), request_id(ctx.request.index)),
    ]
}

/// The `x-amzn-requestid` of the request with this index.
pub(crate) fn request_id(index: usize) -> String {
    format!("00000000-0000-4000-8000-{:012}", index + 1)
}

fn stop_reason(stop: &Stop) -> String {
    match stop {
        Stop::End => "end_turn".to_owned(),
        Stop::ToolUse => "tool_use".to_owned(),
        Stop::Length => "max_tokens".to_owned(),
        Stop::Raw(raw) => raw.clone(),
    }
}

fn usage(ctx: &Ctx<'_>) -> Value {
    let u = ctx.usage;
    let mut map = Map::new();
    map.insert("inputTokens".to_owned(), json!(u.input));
    map.insert("outputTokens".to_owned(), json!(u.output));
    map.insert(
        "totalTokens".to_owned(),
        json!(u.input + u.output + u.cache_read + u.cache_write),
    );
    if u.cache_read > 0 || u.cache_write > 0 {
        map.insert("cacheReadInputTokens".to_owned(), json!(u.cache_read));
        map.insert("cacheWriteInputTokens".to_owned(), json!(u.cache_write));
    }
    Value::Object(map)
}

/// An event frame whose payload is `fields` plus the padding.
fn frame(event_type: &str, fields: Value) -> Ev {
    let mut map = match fields {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    map.insert("p".to_owned(), json!(PADDING));
    Ev::Frame {
        tag: event_type.to_owned(),
        kind: FrameKind::Event(event_type.to_owned()),
        payload: js(&Value::Object(map)),
    }
}

/// What a binary frame is.
#[derive(Debug, Clone)]
pub(crate) enum FrameKind {
    /// An event of this type.
    Event(String),
    /// A modelled exception of this type.
    Exception(String),
}

pub(super) fn render(ctx: &Ctx<'_>) -> Vec<Ev> {
    let mut out = vec![frame("messageStart", json!({"role": "assistant"}))];
    let mut index = 0;
    for block in &ctx.blocks {
        let delta = |delta: Value| {
            frame(
                "contentBlockDelta",
                json!({"contentBlockIndex": index, "delta": delta}),
            )
        };
        match block {
            Block::Gate(name) => {
                out.push(Ev::Gate(name.clone()));
                continue;
            }
            Block::Pause(ms) => {
                out.push(Ev::Pause(*ms));
                continue;
            }
            Block::Text(pieces) => {
                out.extend(pieces.iter().map(|text| delta(json!({"text": text}))));
            }
            Block::Thinking { pieces, signature } => {
                out.extend(
                    pieces
                        .iter()
                        .map(|text| delta(json!({"reasoningContent": {"text": text}}))),
                );
                if let Some(signature) = signature {
                    out.push(delta(json!({"reasoningContent": {"signature": signature}})));
                }
            }
            Block::Redacted(data) => {
                out.push(delta(
                    json!({"reasoningContent": {"redactedContent": data}}),
                ));
            }
            Block::Tool {
                id, name, pieces, ..
            } => {
                out.push(frame(
                    "contentBlockStart",
                    json!({"contentBlockIndex": index, "start": {"toolUse": {"toolUseId": id, "name": name}}}),
                ));
                out.extend(
                    pieces
                        .iter()
                        .map(|input| delta(json!({"toolUse": {"input": input}}))),
                );
            }
        }
        out.push(frame(
            "contentBlockStop",
            json!({"contentBlockIndex": index}),
        ));
        index += 1;
    }
    out.push(frame(
        "messageStop",
        json!({"stopReason": stop_reason(&ctx.stop)}),
    ));
    out.push(frame(
        "metadata",
        json!({"usage": usage(ctx), "metrics": {"latencyMs": 100}}),
    ));
    out
}

/// The whole answer of `/converse`.
pub(super) fn whole(ctx: &Ctx<'_>) -> String {
    let mut content = Vec::new();
    for block in &ctx.blocks {
        match block {
            Block::Text(pieces) => content.push(json!({"text": pieces.concat()})),
            Block::Thinking { pieces, signature } => {
                let mut text = Map::new();
                text.insert("text".to_owned(), json!(pieces.concat()));
                if let Some(signature) = signature {
                    text.insert("signature".to_owned(), json!(signature));
                }
                content.push(json!({"reasoningContent": {"reasoningText": text}}));
            }
            Block::Redacted(data) => {
                content.push(json!({"reasoningContent": {"redactedContent": data}}));
            }
            Block::Tool { id, name, full, .. } => {
                let input = serde_json::from_str::<Value>(full).unwrap_or_else(|_| json!(full));
                content.push(json!({"toolUse": {"toolUseId": id, "name": name, "input": input}}));
            }
            Block::Gate(_) | Block::Pause(_) => {}
        }
    }
    js(&json!({
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop_reason(&ctx.stop),
        "usage": usage(ctx),
        "metrics": {"latencyMs": 100}
    }))
}
