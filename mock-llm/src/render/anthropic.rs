//! Anthropic Messages: `event: <type>` + `data: <json>` per event.

use serde_json::{Value, json};

use super::{Block, Ctx, Ev, Stop, json as js};

pub(super) fn headers(ctx: &Ctx<'_>) -> Vec<(String, String)> {
    vec![
        (
            "content-type".to_owned(),
            "text/event-stream; charset=utf-8".to_owned(),
        ),
        ("cache-control".to_owned(), "no-cache".to_owned()),
        ("request-id".to_owned(), request_id(ctx.request.index)),
    ]
}

pub(super) fn request_id(index: usize) -> String {
    format!("req_mock_{:04}", index + 1)
}

fn stop_reason(stop: &Stop) -> String {
    match stop {
        Stop::End => "end_turn".to_owned(),
        Stop::ToolUse => "tool_use".to_owned(),
        Stop::Length => "max_tokens".to_owned(),
        Stop::Raw(raw) => raw.clone(),
    }
}

fn usage_start(ctx: &Ctx<'_>) -> Value {
    json!({
        "input_tokens": ctx.usage.input,
        "cache_creation_input_tokens": ctx.usage.cache_write,
        "cache_read_input_tokens": ctx.usage.cache_read,
        "cache_creation": {
            "ephemeral_5m_input_tokens": ctx.usage.cache_write,
            "ephemeral_1h_input_tokens": 0
        },
        "output_tokens": ctx.usage.output.min(1),
        "service_tier": "standard"
    })
}

pub(super) fn render(ctx: &Ctx<'_>) -> Vec<Ev> {
    let mut out = Vec::with_capacity(8 + ctx.blocks.len() * 4);
    out.push(Ev::event(
        "message_start",
        js(&json!({
            "type": "message_start",
            "message": {
                "id": ctx.id,
                "type": "message",
                "role": "assistant",
                "model": ctx.model,
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": usage_start(ctx)
            }
        })),
    ));
    out.push(Ev::event("ping", r#"{"type": "ping"}"#.to_owned()));
    let mut index = 0;
    for block in &ctx.blocks {
        match block {
            Block::Gate(name) => out.push(Ev::Gate(name.clone())),
            Block::Pause(ms) => out.push(Ev::Pause(*ms)),
            Block::Text(pieces) => {
                out.push(start(index, json!({"type": "text", "text": ""})));
                for piece in pieces {
                    out.push(delta(index, json!({"type": "text_delta", "text": piece})));
                }
                out.push(stop(index));
                index += 1;
            }
            Block::Thinking { pieces, signature } => {
                out.push(start(
                    index,
                    json!({"type": "thinking", "thinking": "", "signature": ""}),
                ));
                for piece in pieces {
                    out.push(delta(
                        index,
                        json!({"type": "thinking_delta", "thinking": piece}),
                    ));
                }
                if let Some(signature) = signature {
                    out.push(delta(
                        index,
                        json!({"type": "signature_delta", "signature": signature}),
                    ));
                }
                out.push(stop(index));
                index += 1;
            }
            Block::Redacted(data) => {
                out.push(start(
                    index,
                    json!({"type": "redacted_thinking", "data": data}),
                ));
                out.push(stop(index));
                index += 1;
            }
            Block::Tool {
                id, name, pieces, ..
            } => {
                out.push(start(
                    index,
                    json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                ));
                out.push(delta(
                    index,
                    json!({"type": "input_json_delta", "partial_json": ""}),
                ));
                for piece in pieces {
                    out.push(delta(
                        index,
                        json!({"type": "input_json_delta", "partial_json": piece}),
                    ));
                }
                out.push(stop(index));
                index += 1;
            }
        }
    }
    out.push(Ev::event(
        "message_delta",
        js(&json!({
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason(&ctx.stop), "stop_sequence": null},
            "usage": {
                "input_tokens": ctx.usage.input,
                "cache_creation_input_tokens": ctx.usage.cache_write,
                "cache_read_input_tokens": ctx.usage.cache_read,
                "output_tokens": ctx.usage.output
            }
        })),
    ));
    out.push(Ev::event(
        "message_stop",
        r#"{"type":"message_stop"}"#.to_owned(),
    ));
    out
}

fn start(index: usize, block: Value) -> Ev {
    Ev::event(
        "content_block_start",
        js(&json!({"type": "content_block_start", "index": index, "content_block": block})),
    )
}

fn delta(index: usize, delta: Value) -> Ev {
    Ev::event(
        "content_block_delta",
        js(&json!({"type": "content_block_delta", "index": index, "delta": delta})),
    )
}

fn stop(index: usize) -> Ev {
    Ev::event(
        "content_block_stop",
        js(&json!({"type": "content_block_stop", "index": index})),
    )
}

/// The whole message for a request without `stream: true`.
pub(super) fn whole(ctx: &Ctx<'_>) -> String {
    let content: Vec<Value> = ctx
        .blocks
        .iter()
        .filter_map(|block| match block {
            Block::Text(pieces) => Some(json!({"type": "text", "text": pieces.concat()})),
            Block::Thinking { pieces, signature } => Some(json!({
                "type": "thinking",
                "thinking": pieces.concat(),
                "signature": signature.clone().unwrap_or_default()
            })),
            Block::Redacted(data) => Some(json!({"type": "redacted_thinking", "data": data})),
            Block::Tool { id, name, full, .. } => Some(json!({
                "type": "tool_use",
                "id": id,
                "name": name,
                "input": serde_json::from_str::<Value>(full).unwrap_or(json!({}))
            })),
            Block::Gate(_) | Block::Pause(_) => None,
        })
        .collect();
    js(&json!({
        "id": ctx.id,
        "type": "message",
        "role": "assistant",
        "model": ctx.model,
        "content": content,
        "stop_reason": stop_reason(&ctx.stop),
        "stop_sequence": null,
        "usage": {
            "input_tokens": ctx.usage.input,
            "cache_creation_input_tokens": ctx.usage.cache_write,
            "cache_read_input_tokens": ctx.usage.cache_read,
            "output_tokens": ctx.usage.output,
            "service_tier": "standard"
        }
    }))
}
