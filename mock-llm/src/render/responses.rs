//! OpenAI Responses: `event: <type>` + `data: {"type":<type>,"sequence_number":n,...}`.

use serde_json::{Map, Value, json};

use super::{Block, Ctx, Ev, Stop, json as js};

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

fn usage(ctx: &Ctx<'_>) -> Value {
    let u = ctx.usage;
    let input = u.input + u.cache_read + u.cache_write;
    json!({
        "input_tokens": input,
        "input_tokens_details": {"cached_tokens": u.cache_read},
        "output_tokens": u.output,
        "output_tokens_details": {"reasoning_tokens": u.reasoning},
        "total_tokens": input + u.output
    })
}

/// The response object in a given state.
fn response(ctx: &Ctx<'_>, status: &str, output: Vec<Value>, done: bool) -> Value {
    let (incomplete, error) = match (&ctx.stop, done) {
        (Stop::Length, true) => (json!({"reason": "max_output_tokens"}), Value::Null),
        (Stop::Raw(raw), true) if raw == "failed" => (
            Value::Null,
            json!({"code": "server_error", "message": "The model failed to generate a response."}),
        ),
        (Stop::Raw(raw), true) => (json!({"reason": raw}), Value::Null),
        _ => (Value::Null, Value::Null),
    };
    json!({
        "id": ctx.id,
        "object": "response",
        "created_at": super::chat::CREATED,
        "status": status,
        "background": false,
        "error": error,
        "incomplete_details": incomplete,
        "instructions": null,
        "max_output_tokens": null,
        "max_tool_calls": null,
        "model": ctx.model,
        "output": output,
        "parallel_tool_calls": true,
        "previous_response_id": null,
        "prompt_cache_key": null,
        "reasoning": {"effort": null, "summary": null},
        "safety_identifier": null,
        "service_tier": "default",
        "store": false,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": [],
        "top_logprobs": 0,
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": if done { usage(ctx) } else { Value::Null },
        "user": null,
        "metadata": {}
    })
}

struct Seq {
    next: u64,
    out: Vec<Ev>,
}

impl Seq {
    fn push(&mut self, name: &'static str, fields: Value) {
        let mut map = Map::new();
        map.insert("type".to_owned(), json!(name));
        map.insert("sequence_number".to_owned(), json!(self.next));
        if let Value::Object(fields) = fields {
            map.extend(fields);
        }
        self.next += 1;
        self.out.push(Ev::event(name, js(&Value::Object(map))));
    }
}

/// The finished output items, in order (used by the terminal event and `whole`).
fn items(ctx: &Ctx<'_>) -> Vec<Value> {
    let n = ctx.request.index + 1;
    let mut out = Vec::new();
    for (k, block) in ctx.blocks.iter().enumerate() {
        match block {
            Block::Text(pieces) => out.push(json!({
                "id": format!("msg_mock_{n}_{k}"),
                "type": "message",
                "status": "completed",
                "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": pieces.concat()}],
                "role": "assistant"
            })),
            Block::Thinking { pieces, signature } => {
                let mut item = json!({
                    "id": format!("rs_mock_{n}_{k}"),
                    "type": "reasoning",
                    "summary": [{"type": "summary_text", "text": pieces.concat()}]
                });
                if let (Some(signature), Value::Object(map)) = (signature, &mut item) {
                    map.insert("encrypted_content".to_owned(), json!(signature));
                }
                out.push(item);
            }
            Block::Tool { id, name, full, .. } => out.push(json!({
                "id": format!("fc_mock_{n}_{k}"),
                "type": "function_call",
                "status": "completed",
                "arguments": full,
                "call_id": id,
                "name": name
            })),
            Block::Redacted(_) | Block::Gate(_) | Block::Pause(_) => {}
        }
    }
    out
}

pub(super) fn render(ctx: &Ctx<'_>) -> Vec<Ev> {
    let n = ctx.request.index + 1;
    let mut seq = Seq {
        next: 0,
        out: Vec::new(),
    };
    seq.push(
        "response.created",
        json!({"response": response(ctx, "in_progress", vec![], false)}),
    );
    seq.push(
        "response.in_progress",
        json!({"response": response(ctx, "in_progress", vec![], false)}),
    );
    let done_items = items(ctx);
    let mut output_index = 0;
    for (k, block) in ctx.blocks.iter().enumerate() {
        match block {
            Block::Gate(name) => seq.out.push(Ev::Gate(name.clone())),
            Block::Pause(ms) => seq.out.push(Ev::Pause(*ms)),
            Block::Redacted(_) => {}
            Block::Text(pieces) => {
                let item_id = format!("msg_mock_{n}_{k}");
                let text = pieces.concat();
                seq.push("response.output_item.added", json!({
                    "output_index": output_index,
                    "item": {"id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
                }));
                seq.push("response.content_part.added", json!({
                    "item_id": item_id, "output_index": output_index, "content_index": 0,
                    "part": {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
                }));
                for piece in pieces {
                    seq.push(
                        "response.output_text.delta",
                        json!({
                            "item_id": item_id, "output_index": output_index, "content_index": 0,
                            "delta": piece, "logprobs": []
                        }),
                    );
                }
                seq.push(
                    "response.output_text.done",
                    json!({
                        "item_id": item_id, "output_index": output_index, "content_index": 0,
                        "text": text, "logprobs": []
                    }),
                );
                seq.push("response.content_part.done", json!({
                    "item_id": item_id, "output_index": output_index, "content_index": 0,
                    "part": {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
                }));
                let item = done_items.get(output_index).cloned().unwrap_or(Value::Null);
                seq.push(
                    "response.output_item.done",
                    json!({"output_index": output_index, "item": item}),
                );
                output_index += 1;
            }
            Block::Thinking { pieces, .. } => {
                let item_id = format!("rs_mock_{n}_{k}");
                let text = pieces.concat();
                seq.push(
                    "response.output_item.added",
                    json!({
                        "output_index": output_index,
                        "item": {"id": item_id, "type": "reasoning", "summary": []}
                    }),
                );
                seq.push(
                    "response.reasoning_summary_part.added",
                    json!({
                        "item_id": item_id, "output_index": output_index, "summary_index": 0,
                        "part": {"type": "summary_text", "text": ""}
                    }),
                );
                for piece in pieces {
                    seq.push("response.reasoning_summary_text.delta", json!({
                        "item_id": item_id, "output_index": output_index, "summary_index": 0, "delta": piece
                    }));
                }
                seq.push("response.reasoning_summary_text.done", json!({
                    "item_id": item_id, "output_index": output_index, "summary_index": 0, "text": text
                }));
                seq.push(
                    "response.reasoning_summary_part.done",
                    json!({
                        "item_id": item_id, "output_index": output_index, "summary_index": 0,
                        "part": {"type": "summary_text", "text": text}
                    }),
                );
                let item = done_items.get(output_index).cloned().unwrap_or(Value::Null);
                seq.push(
                    "response.output_item.done",
                    json!({"output_index": output_index, "item": item}),
                );
                output_index += 1;
            }
            Block::Tool {
                id,
                name,
                pieces,
                full,
                ..
            } => {
                let item_id = format!("fc_mock_{n}_{k}");
                seq.push(
                    "response.output_item.added",
                    json!({
                        "output_index": output_index,
                        "item": {"id": item_id, "type": "function_call", "status": "in_progress",
                                 "arguments": "", "call_id": id, "name": name}
                    }),
                );
                for piece in pieces {
                    seq.push(
                        "response.function_call_arguments.delta",
                        json!({
                            "item_id": item_id, "output_index": output_index, "delta": piece
                        }),
                    );
                }
                seq.push(
                    "response.function_call_arguments.done",
                    json!({
                        "item_id": item_id, "output_index": output_index, "arguments": full
                    }),
                );
                let item = done_items.get(output_index).cloned().unwrap_or(Value::Null);
                seq.push(
                    "response.output_item.done",
                    json!({"output_index": output_index, "item": item}),
                );
                output_index += 1;
            }
        }
    }
    match &ctx.stop {
        Stop::End | Stop::ToolUse => {
            seq.push(
                "response.completed",
                json!({"response": response(ctx, "completed", done_items, true)}),
            );
        }
        Stop::Raw(raw) if raw == "failed" => {
            seq.push(
                "response.failed",
                json!({"response": response(ctx, "failed", done_items, true)}),
            );
        }
        Stop::Length | Stop::Raw(_) => {
            seq.push(
                "response.incomplete",
                json!({"response": response(ctx, "incomplete", done_items, true)}),
            );
        }
    }
    seq.out
}

/// The whole response for a request without `stream: true`.
pub(super) fn whole(ctx: &Ctx<'_>) -> String {
    let status = match &ctx.stop {
        Stop::End | Stop::ToolUse => "completed",
        Stop::Raw(raw) if raw == "failed" => "failed",
        Stop::Length | Stop::Raw(_) => "incomplete",
    };
    js(&response(ctx, status, items(ctx), true))
}
