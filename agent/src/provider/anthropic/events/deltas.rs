//! The content-block events of an Anthropic stream: `content_block_delta` (read without a
//! JSON tree in its common shape, the agent's hottest path) and `content_block_stop`.

use std::borrow::Cow;
use std::ops::Range;

use pi_rpc_protocol::content::{AssistantContent, TaggedToolCall};
use pi_rpc_protocol::event::{AssistantMessageEvent, ContentDelta, ContentEnd, ToolcallEnd};
use serde_json::Value;

use super::super::super::partial::PartialMessage;

/// A text or thinking delta this long, read in place, takes the event's data as its own text
/// instead of a copy of it (a long delta is then in memory twice, in the message and in its
/// event, not three times).
const IN_PLACE_BYTES: usize = 64 * 1024;

/// What a `content_block_delta` says: the block's wire key and the delta's fields. A missing
/// field reads as empty; one that is no string (`42`) as the text the reference's `+=` makes of
/// it (`"42"`), so a number in a text, a thinking, a signature or a piece of a tool call's
/// arguments is appended as text.
pub(super) struct BlockDelta<'a> {
    key: &'a Value,
    kind: Option<&'a str>,
    text: Cow<'a, str>,
    thinking: Cow<'a, str>,
    partial_json: Cow<'a, str>,
    signature: Cow<'a, str>,
}

impl<'a> BlockDelta<'a> {
    pub(super) fn from_value(event: &'a Value) -> Option<Self> {
        let (key, delta) = (event.get("index")?, event.get("delta")?);
        let appended = |name: &str| crate::js::appended(delta.get(name));
        Some(Self {
            key,
            kind: delta.get("type").and_then(Value::as_str),
            text: appended("text"),
            thinking: appended("thinking"),
            partial_json: appended("partial_json"),
            signature: appended("signature"),
        })
    }
}

/// The common shape of a `content_block_delta`, read without building a [`Value`] tree: the
/// stream is mostly these, and this is the agent's hottest path. Anything unusual (another
/// type, a key of another kind, a duplicate key, a field of another type) fails to match and
/// takes the general path, which gives the reference's reading of it.
#[derive(serde::Deserialize)]
struct FastBlockDelta<'a> {
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
    index: u64,
    #[serde(borrow)]
    delta: FastDeltaFields<'a>,
}

#[derive(serde::Deserialize)]
struct FastDeltaFields<'a> {
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
    #[serde(borrow, default)]
    text: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    thinking: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    partial_json: Option<Borrowed<'a>>,
    #[serde(borrow, default)]
    signature: Option<Borrowed<'a>>,
}

/// A string read in place when it has no escapes. (An `Option<Cow<str>>` field would always be
/// copied: serde borrows only a `Cow` that is the field itself.)
#[derive(serde::Deserialize)]
#[serde(transparent)]
struct Borrowed<'a>(#[serde(borrow)] std::borrow::Cow<'a, str>);

/// Applies `data` when it is a plain `content_block_delta`; false (`data` untouched) when the
/// general path must read it. A long text read in place takes `data` for its own.
pub(super) fn fast_block_delta(data: &mut String, partial: &mut PartialMessage) -> bool {
    if let Some(exact) = exact_text_delta(data) {
        let key = Value::from(exact.index);
        let (text, thinking) = match exact.kind {
            "text_delta" => (exact.text, ""),
            _ => ("", exact.text),
        };
        block_delta(
            BlockDelta {
                key: &key,
                kind: Some(exact.kind),
                text: Cow::Borrowed(text),
                thinking: Cow::Borrowed(thinking),
                partial_json: Cow::Borrowed(""),
                signature: Cow::Borrowed(""),
            },
            partial,
        );
        return true;
    }
    let Ok(event) = serde_json::from_str::<FastBlockDelta>(data) else {
        return false;
    };
    if event.kind != "content_block_delta" {
        return false;
    }
    let key = Value::from(event.index);
    let delta = &event.delta;
    if let Some((kind, range)) = long_text_in_place(data, delta) {
        drop(event);
        data.truncate(range.end);
        data.drain(..range.start);
        let text = Cow::Owned(std::mem::take(data));
        let (text, thinking) = match kind {
            "text_delta" => (text, Cow::Borrowed("")),
            _ => (Cow::Borrowed(""), text),
        };
        block_delta(
            BlockDelta {
                key: &key,
                kind: Some(kind),
                text,
                thinking,
                partial_json: Cow::Borrowed(""),
                signature: Cow::Borrowed(""),
            },
            partial,
        );
        return true;
    }
    block_delta(
        BlockDelta {
            key: &key,
            kind: Some(&delta.kind),
            text: Cow::Borrowed(field(&delta.text)),
            thinking: Cow::Borrowed(field(&delta.thinking)),
            partial_json: Cow::Borrowed(field(&delta.partial_json)),
            signature: Cow::Borrowed(field(&delta.signature)),
        },
        partial,
    );
    true
}

/// A text or thinking delta in exactly the bytes Anthropic sends, its text without escapes.
struct ExactTextDelta<'a> {
    index: u64,
    kind: &'static str,
    text: &'a str,
}

/// Reads `data` when it is byte for byte
/// `{"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"..."}}` (or
/// the same with `thinking_delta` and `thinking`) and the text holds no escape, no control
/// character and is shorter than [`IN_PLACE_BYTES`]: then the text is the bytes between its
/// quotes, and nothing needs parsing. Anything else is left to the serde path.
fn exact_text_delta(data: &str) -> Option<ExactTextDelta<'_>> {
    let rest = data.strip_prefix(r#"{"type":"content_block_delta","index":"#)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || (digits > 1 && rest.starts_with('0')) || digits > 15 {
        return None;
    }
    let index = rest[..digits].parse().ok()?;
    let rest = rest[digits..].strip_prefix(r#","delta":{"type":""#)?;
    let (kind, rest) = if let Some(rest) = rest.strip_prefix(r#"text_delta","text":""#) {
        ("text_delta", rest)
    } else {
        let rest = rest.strip_prefix(r#"thinking_delta","thinking":""#)?;
        ("thinking_delta", rest)
    };
    let text = rest.strip_suffix(r#""}}"#)?;
    let plain = text.len() < IN_PLACE_BYTES
        && text
            .bytes()
            .all(|byte| byte != b'"' && byte != b'\\' && byte >= 0x20);
    plain.then_some(ExactTextDelta { index, kind, text })
}

/// A long text or thinking delta read in place: its kind, and where its text lies in `data`.
fn long_text_in_place(
    data: &str,
    delta: &FastDeltaFields<'_>,
) -> Option<(&'static str, Range<usize>)> {
    let (kind, field) = match &*delta.kind {
        "text_delta" => ("text_delta", &delta.text),
        "thinking_delta" => ("thinking_delta", &delta.thinking),
        _ => return None,
    };
    let Some(Borrowed(Cow::Borrowed(text))) = field else {
        return None;
    };
    if text.len() < IN_PLACE_BYTES {
        return None;
    }
    let start = text.as_ptr().addr() - data.as_ptr().addr();
    Some((kind, start..start + text.len()))
}

fn field<'a>(value: &'a Option<Borrowed<'_>>) -> &'a str {
    value.as_ref().map_or("", |text| &text.0)
}

pub(super) fn block_delta(delta: BlockDelta<'_>, partial: &mut PartialMessage) {
    let Some(content_index) = partial.find(delta.key) else {
        return;
    };
    let block = &mut partial.message.content[content_index];
    let event = match (delta.kind, block) {
        (Some("text_delta"), AssistantContent::Text(block)) => {
            pi_rpc_protocol::surrogates::push_str(&mut block.text, &delta.text);
            AssistantMessageEvent::TextDelta(ContentDelta {
                content_index,
                delta: delta.text.into_owned(),
            })
        }
        (Some("thinking_delta"), AssistantContent::Thinking(block)) => {
            pi_rpc_protocol::surrogates::push_str(&mut block.thinking, &delta.thinking);
            AssistantMessageEvent::ThinkingDelta(ContentDelta {
                content_index,
                delta: delta.thinking.into_owned(),
            })
        }
        (Some("input_json_delta"), AssistantContent::ToolCall(_)) => {
            let state = &mut partial.blocks[content_index];
            state
                .partial_json
                .get_or_insert_with(String::new)
                .push_str(&delta.partial_json);
            state.json_delta_seen = true;
            AssistantMessageEvent::ToolcallDelta(ContentDelta {
                content_index,
                delta: delta.partial_json.into_owned(),
            })
        }
        (Some("signature_delta"), AssistantContent::Thinking(block)) => {
            block
                .thinking_signature
                .get_or_insert_with(String::new)
                .push_str(&delta.signature);
            return;
        }
        _ => return,
    };
    partial.emit(event);
}

pub(super) fn block_stop(event: &Value, partial: &mut PartialMessage) {
    let Some(content_index) = event.get("index").and_then(|key| partial.find(key)) else {
        return;
    };
    partial.close_block(content_index);
    let event = match &partial.message.content[content_index] {
        AssistantContent::Text(block) => AssistantMessageEvent::TextEnd(ContentEnd {
            content_index,
            content: block.text.clone(),
        }),
        AssistantContent::Thinking(block) => AssistantMessageEvent::ThinkingEnd(ContentEnd {
            content_index,
            content: block.thinking.clone(),
        }),
        AssistantContent::ToolCall(call) => AssistantMessageEvent::ToolcallEnd(ToolcallEnd {
            content_index,
            tool_call: TaggedToolCall::ToolCall(call.clone()),
        }),
    };
    partial.emit(event);
}

#[cfg(test)]
mod tests {
    use pi_rpc_protocol::content::{TextContent, ThinkingContent};
    use pi_rpc_protocol::model::Model;
    use serde_json::json;

    use super::super::super::super::partial::BlockState;
    use super::*;

    fn partial() -> PartialMessage {
        let model: Model = serde_json::from_value(json!({
            "id": "m", "name": "m", "api": "anthropic-messages", "provider": "p",
            "baseUrl": "http://127.0.0.1:9", "reasoning": true, "input": ["text"],
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
            "contextWindow": 1000, "maxTokens": 100
        }))
        .unwrap();
        let mut partial = PartialMessage::new(&model);
        let thinking = ThinkingContent {
            thinking: String::new(),
            thinking_signature: None,
            redacted: None,
            extra: serde_json::Map::new(),
        };
        for (index, block) in [
            AssistantContent::Thinking(thinking),
            AssistantContent::Text(TextContent::new("")),
        ]
        .into_iter()
        .enumerate()
        {
            let key = Some(json!(index));
            partial.push_block(
                block,
                BlockState {
                    key,
                    ..BlockState::default()
                },
            );
        }
        partial
    }

    #[test]
    fn long_deltas_give_their_text_whether_read_in_place_or_unescaped() {
        let long = "lorem ipsum ".repeat(6_000);
        let escaped = format!("{long}\n\"é\"");
        let mut partial = partial();
        for (index, kind, field, text) in [
            (0, "thinking_delta", "thinking", &long),
            (1, "text_delta", "text", &long),
            (1, "text_delta", "text", &escaped),
        ] {
            let event = json!({"type": "content_block_delta", "index": index,
                               "delta": {"type": kind, field: text}});
            let mut data = event.to_string();
            assert!(fast_block_delta(&mut data, &mut partial));
        }
        let deltas: Vec<Value> = partial
            .take_events()
            .map(|event| serde_json::to_value(event).unwrap())
            .collect();
        assert_eq!(
            deltas,
            vec![
                json!({"type": "thinking_delta", "contentIndex": 0, "delta": long}),
                json!({"type": "text_delta", "contentIndex": 1, "delta": long}),
                json!({"type": "text_delta", "contentIndex": 1, "delta": escaped}),
            ]
        );
        assert_eq!(
            serde_json::to_value(&partial.message.content).unwrap(),
            json!([{"type": "thinking", "thinking": long},
                   {"type": "text", "text": format!("{long}{escaped}")}])
        );
    }

    #[test]
    fn data_the_fast_path_does_not_read_is_left_whole() {
        let mut partial = partial();
        let long = "x".repeat(IN_PLACE_BYTES * 2);
        let event = json!({"type": "content_block_delta", "index": "0",
                           "delta": {"type": "text_delta", "text": long}});
        let mut data = event.to_string();
        assert!(!fast_block_delta(&mut data, &mut partial));
        assert_eq!(data, event.to_string());
    }

    /// The deltas `data` gives, read by `fast_block_delta`, and the content they make.
    fn read(data: &str) -> Vec<Value> {
        let mut partial = partial();
        let mut data = data.to_owned();
        assert!(fast_block_delta(&mut data, &mut partial), "{data}");
        let events: Vec<Value> = partial
            .take_events()
            .map(|event| serde_json::to_value(event).unwrap())
            .collect();
        let content = serde_json::to_value(&partial.message.content).unwrap();
        [events, vec![content]].concat()
    }

    #[test]
    fn the_exact_shape_reads_as_the_parsed_one() {
        for (exact, other) in [
            (
                "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"h\u{e9}llo, \u{2028} ok\"}}",
                "{\"type\": \"content_block_delta\", \"index\": 1, \"delta\": {\"type\": \"text_delta\", \"text\": \"h\\u00e9llo, \u{2028} ok\"}}",
            ),
            (
                r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"so"}}"#,
                r#"{"index":0,"type":"content_block_delta","delta":{"thinking":"so","type":"thinking_delta"}}"#,
            ),
        ] {
            assert!(exact_text_delta(exact).is_some(), "{exact}");
            assert!(exact_text_delta(other).is_none(), "{other}");
            assert_eq!(read(exact), read(other));
        }
    }

    #[test]
    fn escapes_quotes_controls_and_odd_numbers_leave_the_exact_shape() {
        let escaped = r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"a\nb"}}"#;
        for data in [
            escaped,
            r#"{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"a"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"a"b"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","text":"a"}}"#,
            "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\tb\"}}",
        ] {
            assert!(exact_text_delta(data).is_none(), "{data}");
        }
        assert_eq!(read(escaped)[0]["delta"], "a\nb");
    }

    #[test]
    fn numbers_where_text_belongs_are_appended_as_text() {
        // The reference's `+=`: "" + 7, "" + 12345, "" + 42, '{"limit":' + 1 + "}".
        let mut partial = partial();
        let call = pi_rpc_protocol::content::ToolCall {
            id: "t".into(),
            name: "read".into(),
            arguments: serde_json::Map::new(),
            thought_signature: None,
            extra: serde_json::Map::new(),
        };
        let state = BlockState {
            key: Some(json!(2)),
            ..BlockState::default()
        };
        partial.push_block(AssistantContent::ToolCall(call), state);
        for (index, delta) in [
            (0, json!({"type": "thinking_delta", "thinking": 7})),
            (0, json!({"type": "signature_delta", "signature": 12345})),
            (1, json!({"type": "text_delta", "text": 42})),
            (
                2,
                json!({"type": "input_json_delta", "partial_json": "{\"limit\":"}),
            ),
            (2, json!({"type": "input_json_delta", "partial_json": 1})),
            (2, json!({"type": "input_json_delta", "partial_json": "}"})),
        ] {
            let event = json!({"type": "content_block_delta", "index": index, "delta": delta});
            let mut data = event.to_string();
            if !fast_block_delta(&mut data, &mut partial) {
                block_delta(BlockDelta::from_value(&event).unwrap(), &mut partial);
            }
        }
        partial.close_block(2);
        let deltas: Vec<Value> = partial
            .take_events()
            .map(|event| serde_json::to_value(event).unwrap()["delta"].clone())
            .collect();
        assert_eq!(
            deltas,
            [
                json!("7"),
                json!("42"),
                json!("{\"limit\":"),
                json!("1"),
                json!("}")
            ]
        );
        assert_eq!(
            serde_json::to_value(&partial.message.content).unwrap(),
            json!([{"type": "thinking", "thinking": "7", "thinkingSignature": "12345"},
                   {"type": "text", "text": "42"},
                   {"type": "toolCall", "id": "t", "name": "read", "arguments": {"limit": 1}}])
        );
    }
}
