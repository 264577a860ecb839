//! OpenAI Chat Completions: `data: <chunk>` per event, ending `data: [DONE]`.

use serde_json::{Map, Value, json};

use super::{Block, Ctx, Ev, Stop, json as js};

/// The `created` timestamp of every chunk (fixed so that streams are reproducible).
pub(super) const CREATED: u64 = 1_767_225_600;

pub(super) fn headers(ctx: &Ctx<'_>) -> Vec<(String, String)> {
    vec![
        (
            "content-type".to_owned(),
            "text/event-stream; charset=utf-8".to_owned(),
        ),
        ("cache-control".to_owned(), "no-cache".to_owned()),
        (
            "x-request-id".to_owned(),
            format!("req_mock_{:04}", ctx.request.index + 1),
        ),
    ]
}

/// The Chat Completions finish reason (Mistral uses the same).
pub(super) fn finish_reason(stop: &Stop) -> String {
    match stop {
        Stop::End => "stop".to_owned(),
        Stop::ToolUse => "tool_calls".to_owned(),
        Stop::Length => "length".to_owned(),
        Stop::Raw(raw) => raw.clone(),
    }
}

fn usage(ctx: &Ctx<'_>) -> Value {
    let u = ctx.usage;
    let prompt = u.input + u.cache_read + u.cache_write;
    json!({
        "prompt_tokens": prompt,
        "completion_tokens": u.output,
        "total_tokens": prompt + u.output,
        "prompt_tokens_details": {"cached_tokens": u.cache_read, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": u.reasoning,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0
        }
    })
}

fn chunk(ctx: &Ctx<'_>, choices: Value, usage: Option<Value>) -> String {
    let mut map = Map::new();
    map.insert("id".to_owned(), json!(ctx.id));
    map.insert("object".to_owned(), json!("chat.completion.chunk"));
    map.insert("created".to_owned(), json!(CREATED));
    map.insert("model".to_owned(), json!(ctx.model));
    map.insert("service_tier".to_owned(), json!("default"));
    map.insert("system_fingerprint".to_owned(), json!("fp_mock"));
    map.insert("choices".to_owned(), choices);
    if ctx.request.include_usage {
        map.insert("usage".to_owned(), usage.unwrap_or(Value::Null));
    }
    js(&Value::Object(map))
}

fn delta(ctx: &Ctx<'_>, tag: &str, delta: Value) -> Ev {
    let choices = json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": null}]);
    Ev::data(tag, chunk(ctx, choices, None))
}

pub(super) fn render(ctx: &Ctx<'_>) -> Vec<Ev> {
    let mut out = Vec::with_capacity(8 + ctx.blocks.len() * 4);
    out.push(delta(
        ctx,
        "role",
        json!({"role": "assistant", "content": "", "refusal": null}),
    ));
    let mut tool_index = 0;
    for block in &ctx.blocks {
        match block {
            Block::Gate(name) => out.push(Ev::Gate(name.clone())),
            Block::Pause(ms) => out.push(Ev::Pause(*ms)),
            Block::Text(pieces) => {
                for piece in pieces {
                    out.push(delta(ctx, "content", json!({"content": piece})));
                }
            }
            Block::Thinking { pieces, .. } => {
                for piece in pieces {
                    out.push(delta(ctx, "reasoning", json!({"reasoning_content": piece})));
                }
            }
            Block::Redacted(_) => {}
            Block::Tool {
                id, name, pieces, ..
            } => {
                out.push(delta(
                    ctx,
                    "tool_call",
                    json!({"tool_calls": [{
                        "index": tool_index,
                        "id": id,
                        "type": "function",
                        "function": {"name": name, "arguments": ""}
                    }]}),
                ));
                for piece in pieces {
                    out.push(delta(
                        ctx,
                        "tool_call_delta",
                        json!({"tool_calls": [{"index": tool_index, "function": {"arguments": piece}}]}),
                    ));
                }
                tool_index += 1;
            }
        }
    }
    let finish = json!([{
        "index": 0,
        "delta": {},
        "logprobs": null,
        "finish_reason": finish_reason(&ctx.stop)
    }]);
    out.push(Ev::data("finish", chunk(ctx, finish, None)));
    if ctx.request.include_usage {
        out.push(Ev::data("usage", chunk(ctx, json!([]), Some(usage(ctx)))));
    }
    out.push(Ev::data("done", "[DONE]".to_owned()));
    out
}

/// The whole completion for a request without `stream: true`.
pub(super) fn whole(ctx: &Ctx<'_>) -> String {
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut calls = Vec::new();
    for block in &ctx.blocks {
        match block {
            Block::Text(pieces) => text.push_str(&pieces.concat()),
            Block::Thinking { pieces, .. } => reasoning.push_str(&pieces.concat()),
            Block::Tool { id, name, full, .. } => calls.push(json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": full}
            })),
            Block::Redacted(_) | Block::Gate(_) | Block::Pause(_) => {}
        }
    }
    let mut message = Map::new();
    message.insert("role".to_owned(), json!("assistant"));
    message.insert(
        "content".to_owned(),
        if text.is_empty() {
            Value::Null
        } else {
            json!(text)
        },
    );
    message.insert("refusal".to_owned(), Value::Null);
    if !reasoning.is_empty() {
        message.insert("reasoning_content".to_owned(), json!(reasoning));
    }
    if !calls.is_empty() {
        message.insert("tool_calls".to_owned(), Value::Array(calls));
    }
    js(&json!({
        "id": ctx.id,
        "object": "chat.completion",
        "created": CREATED,
        "model": ctx.model,
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": finish_reason(&ctx.stop)
        }],
        "usage": usage(ctx),
        "service_tier": "default",
        "system_fingerprint": "fp_mock"
    }))
}
