//! Google Gemini: `data: <chunk>` with CRLF line endings, no `event:` lines, ends at close.

use serde_json::{Map, Value, json};

use super::{Block, Ctx, Ev, Stop, json as js};

/// Stands in for tool arguments that are not valid JSON until the chunk is serialised.
const RAW_ARGS: &str = "__mock_llm_raw_arguments__";

pub(super) fn headers(_ctx: &Ctx<'_>) -> Vec<(String, String)> {
    vec![
        ("content-type".to_owned(), "text/event-stream".to_owned()),
        ("x-content-type-options".to_owned(), "nosniff".to_owned()),
    ]
}

fn finish_reason(stop: &Stop) -> String {
    match stop {
        Stop::End | Stop::ToolUse => "STOP".to_owned(),
        Stop::Length => "MAX_TOKENS".to_owned(),
        Stop::Raw(raw) => raw.clone(),
    }
}

fn usage(ctx: &Ctx<'_>, last: bool) -> Value {
    let u = ctx.usage;
    let prompt = u.input + u.cache_read;
    let mut map = Map::new();
    map.insert("promptTokenCount".to_owned(), json!(prompt));
    if last {
        map.insert(
            "candidatesTokenCount".to_owned(),
            json!(u.output.saturating_sub(u.reasoning)),
        );
        map.insert("totalTokenCount".to_owned(), json!(prompt + u.output));
        if u.cache_read > 0 {
            map.insert("cachedContentTokenCount".to_owned(), json!(u.cache_read));
        }
        if u.reasoning > 0 {
            map.insert("thoughtsTokenCount".to_owned(), json!(u.reasoning));
        }
    } else {
        map.insert("totalTokenCount".to_owned(), json!(prompt));
    }
    map.insert(
        "promptTokensDetails".to_owned(),
        json!([{"modality": "TEXT", "tokenCount": prompt}]),
    );
    Value::Object(map)
}

/// Parts of each chunk, with the raw argument texts that replace placeholders.
enum Piece {
    Parts(Vec<Value>, Vec<String>),
    Gate(String),
    Pause(u64),
}

fn tool_part(id: &str, explicit_id: bool, name: &str, full: &str, raws: &mut Vec<String>) -> Value {
    let args = match serde_json::from_str::<Value>(full) {
        Ok(value) => value,
        Err(_) => {
            raws.push(full.to_owned());
            json!(RAW_ARGS)
        }
    };
    let mut call = Map::new();
    call.insert("name".to_owned(), json!(name));
    call.insert("args".to_owned(), args);
    if explicit_id {
        call.insert("id".to_owned(), json!(id));
    }
    json!({"functionCall": call})
}

fn pieces(ctx: &Ctx<'_>) -> Vec<Piece> {
    let mut out = Vec::new();
    for block in &ctx.blocks {
        match block {
            Block::Gate(name) => out.push(Piece::Gate(name.clone())),
            Block::Pause(ms) => out.push(Piece::Pause(*ms)),
            Block::Redacted(_) => {}
            Block::Text(texts) => {
                for text in texts {
                    out.push(Piece::Parts(vec![json!({"text": text})], Vec::new()));
                }
            }
            Block::Thinking { pieces, signature } => {
                let count = pieces.len();
                for (i, text) in pieces.iter().enumerate() {
                    let mut part = json!({"text": text, "thought": true});
                    if let (Some(signature), true, Value::Object(map)) =
                        (signature, i + 1 == count, &mut part)
                    {
                        map.insert("thoughtSignature".to_owned(), json!(signature));
                    }
                    out.push(Piece::Parts(vec![part], Vec::new()));
                }
            }
            Block::Tool {
                id,
                explicit_id,
                name,
                full,
                ..
            } => {
                let mut raws = Vec::new();
                let part = tool_part(id, *explicit_id, name, full, &mut raws);
                out.push(Piece::Parts(vec![part], raws));
            }
        }
    }
    if !out.iter().any(|p| matches!(p, Piece::Parts(..))) {
        out.push(Piece::Parts(vec![json!({"text": ""})], Vec::new()));
    }
    out
}

fn chunk(ctx: &Ctx<'_>, parts: Vec<Value>, raws: &[String], last: bool) -> String {
    let mut candidate = Map::new();
    candidate.insert(
        "content".to_owned(),
        json!({"parts": parts, "role": "model"}),
    );
    if last {
        candidate.insert("finishReason".to_owned(), json!(finish_reason(&ctx.stop)));
    }
    candidate.insert("index".to_owned(), json!(0));
    let value = json!({
        "candidates": [candidate],
        "usageMetadata": usage(ctx, last),
        "modelVersion": ctx.model,
        "responseId": ctx.id
    });
    let mut text = js(&value);
    for raw in raws {
        text = text.replacen(&format!("\"{RAW_ARGS}\""), raw, 1);
    }
    text
}

pub(super) fn render(ctx: &Ctx<'_>) -> Vec<Ev> {
    let pieces = pieces(ctx);
    let last = pieces.iter().rposition(|p| matches!(p, Piece::Parts(..)));
    pieces
        .into_iter()
        .enumerate()
        .map(|(i, piece)| match piece {
            Piece::Gate(name) => Ev::Gate(name),
            Piece::Pause(ms) => Ev::Pause(ms),
            Piece::Parts(parts, raws) => {
                let is_last = Some(i) == last;
                let tag = if is_last { "finish" } else { "chunk" };
                Ev::data(tag, chunk(ctx, parts, &raws, is_last))
            }
        })
        .collect()
}

/// The whole answer for `:generateContent`.
pub(super) fn whole(ctx: &Ctx<'_>) -> String {
    let mut parts = Vec::new();
    let mut raws = Vec::new();
    for piece in pieces(ctx) {
        if let Piece::Parts(p, r) = piece {
            parts.extend(p);
            raws.extend(r);
        }
    }
    chunk(ctx, parts, &raws, true)
}
