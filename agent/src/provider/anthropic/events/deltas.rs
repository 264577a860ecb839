//! The content-block events of an Anthropic stream: `content_block_delta` (read without a
//! JSON tree in its common shape, the agent's hottest path) and `content_block_stop`.

use pi_rpc_protocol::content::{AssistantContent, TaggedToolCall};
use pi_rpc_protocol::event::{AssistantMessageEvent, ContentDelta, ContentEnd, ToolcallEnd};
use serde_json::Value;

use super::super::super::partial::PartialMessage;

/// What a `content_block_delta` says: the block's wire key and the delta's fields (missing or
/// non-string fields read as empty, as the reference reads them).
pub(super) struct BlockDelta<'a> {
    key: &'a Value,
    kind: Option<&'a str>,
    text: &'a str,
    thinking: &'a str,
    partial_json: &'a str,
    signature: &'a str,
}

impl<'a> BlockDelta<'a> {
    pub(super) fn from_value(event: &'a Value) -> Option<Self> {
        let (key, delta) = (event.get("index")?, event.get("delta")?);
        let text = |name: &str| delta.get(name).and_then(Value::as_str).unwrap_or("");
        Some(Self {
            key,
            kind: delta.get("type").and_then(Value::as_str),
            text: text("text"),
            thinking: text("thinking"),
            partial_json: text("partial_json"),
            signature: text("signature"),
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

/// Applies `data` when it is a plain `content_block_delta`; false when the general path must
/// read it.
pub(super) fn fast_block_delta(data: &str, partial: &mut PartialMessage) -> bool {
    let Ok(event) = serde_json::from_str::<FastBlockDelta>(data) else {
        return false;
    };
    if event.kind != "content_block_delta" {
        return false;
    }
    let key = Value::from(event.index);
    let delta = &event.delta;
    block_delta(
        BlockDelta {
            key: &key,
            kind: Some(&delta.kind),
            text: field(&delta.text),
            thinking: field(&delta.thinking),
            partial_json: field(&delta.partial_json),
            signature: field(&delta.signature),
        },
        partial,
    );
    true
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
            pi_rpc_protocol::surrogates::push_str(&mut block.text, delta.text);
            AssistantMessageEvent::TextDelta(ContentDelta {
                content_index,
                delta: delta.text.to_owned(),
            })
        }
        (Some("thinking_delta"), AssistantContent::Thinking(block)) => {
            pi_rpc_protocol::surrogates::push_str(&mut block.thinking, delta.thinking);
            AssistantMessageEvent::ThinkingDelta(ContentDelta {
                content_index,
                delta: delta.thinking.to_owned(),
            })
        }
        (Some("input_json_delta"), AssistantContent::ToolCall(_)) => {
            let state = &mut partial.blocks[content_index];
            state
                .partial_json
                .get_or_insert_with(String::new)
                .push_str(delta.partial_json);
            state.json_delta_seen = true;
            AssistantMessageEvent::ToolcallDelta(ContentDelta {
                content_index,
                delta: delta.partial_json.to_owned(),
            })
        }
        (Some("signature_delta"), AssistantContent::Thinking(block)) => {
            block
                .thinking_signature
                .get_or_insert_with(String::new)
                .push_str(delta.signature);
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
