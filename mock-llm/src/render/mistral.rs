//! Mistral chat completions: `data: <chunk>` per event, ending `data: [DONE]`. Thinking comes
//! as `content` parts `{type: "thinking", thinking: [{type: "text", text}]}`, a tool call whole
//! in one `tool_calls` entry (with its index), usage on the last chunk.

use serde_json::{Map, Value, json};

use super::chat::finish_reason;
use super::{Block, Ctx, Ev, json as js};

pub(super) fn headers(ctx: &Ctx<'_>) -> Vec<(String, String)> {
    vec![
        (
            "content-type".to_owned(),
            "text/event-stream; charset=utf-8".to_owned(),
        ),
        (
            "mistral-correlation-id".to_owned(),
            format!("mock-correlation-{:04}", ctx.request.index + 1),
        ),
    ]
}

/// The default tool call id: Mistral's are nine letters and digits.
pub(crate) fn tool_id(request_index: usize, call: usize) -> String {
    format!("mock{:02}c{:03}", (request_index + 1) % 100, call % 1000)
}

fn usage(ctx: &Ctx<'_>) -> Value {
    let u = ctx.usage;
    let prompt = u.input + u.cache_read;
    let mut map = Map::new();
    map.insert("prompt_tokens".to_owned(), json!(prompt));
    map.insert("total_tokens".to_owned(), json!(prompt + u.output));
    map.insert("completion_tokens".to_owned(), json!(u.output));
    if u.cache_read > 0 {
        map.insert(
            "prompt_tokens_details".to_owned(),
            json!({"cached_tokens": u.cache_read}),
        );
    }
    Value::Object(map)
}

fn chunk(ctx: &Ctx<'_>, delta: Value, finish: Option<String>, usage: Option<Value>) -> String {
    let mut map = Map::new();
    map.insert("id".to_owned(), json!(ctx.id));
    map.insert("object".to_owned(), json!("chat.completion.chunk"));
    map.insert("created".to_owned(), json!(super::chat::CREATED));
    map.insert("model".to_owned(), json!(ctx.model));
    map.insert(
        "choices".to_owned(),
        json!([{"index": 0, "delta": delta, "finish_reason": finish}]),
    );
    if let Some(usage) = usage {
        map.insert("usage".to_owned(), usage);
    }
    js(&Value::Object(map))
}

pub(super) fn render(ctx: &Ctx<'_>) -> Vec<Ev> {
    let mut out = vec![Ev::data(
        "role",
        chunk(ctx, json!({"role": "assistant", "content": ""}), None, None),
    )];
    let mut tool_index = 0;
    for block in &ctx.blocks {
        match block {
            Block::Gate(name) => out.push(Ev::Gate(name.clone())),
            Block::Pause(ms) => out.push(Ev::Pause(*ms)),
            Block::Redacted(_) => {}
            Block::Text(pieces) => {
                for text in pieces {
                    out.push(Ev::data(
                        "content",
                        chunk(ctx, json!({"content": text}), None, None),
                    ));
                }
            }
            Block::Thinking { pieces, .. } => {
                for text in pieces {
                    let part =
                        json!([{"type": "thinking", "thinking": [{"type": "text", "text": text}]}]);
                    out.push(Ev::data(
                        "thinking",
                        chunk(ctx, json!({"content": part}), None, None),
                    ));
                }
            }
            Block::Tool {
                id, name, pieces, ..
            } => {
                for piece in pieces {
                    let call = json!({"id": id, "function": {"name": name, "arguments": piece}, "index": tool_index});
                    out.push(Ev::data(
                        "tool_call",
                        chunk(ctx, json!({"tool_calls": [call]}), None, None),
                    ));
                }
                tool_index += 1;
            }
        }
    }
    out.push(Ev::data(
        "finish",
        chunk(
            ctx,
            json!({"content": ""}),
            Some(finish_reason(&ctx.stop)),
            Some(usage(ctx)),
        ),
    ));
    out.push(Ev::data("done", "[DONE]".to_owned()));
    out
}

/// The whole answer for a request without `stream: true`.
pub(super) fn whole(ctx: &Ctx<'_>) -> String {
    let mut text = String::new();
    let mut calls = Vec::new();
    for block in &ctx.blocks {
        match block {
            Block::Text(pieces) => text.push_str(&pieces.concat()),
            Block::Tool { id, name, full, .. } => calls.push(json!({
                "id": id, "function": {"name": name, "arguments": full}, "index": calls.len()
            })),
            _ => {}
        }
    }
    let mut message = Map::new();
    message.insert("role".to_owned(), json!("assistant"));
    message.insert("content".to_owned(), json!(text));
    if !calls.is_empty() {
        message.insert("tool_calls".to_owned(), Value::Array(calls));
    }
    js(&json!({
        "id": ctx.id,
        "object": "chat.completion",
        "created": super::chat::CREATED,
        "model": ctx.model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(&ctx.stop)}],
        "usage": usage(ctx)
    }))
}
