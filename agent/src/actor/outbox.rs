//! What the actor's handlers ask the outside world for, in order: records for the client,
//! answers streamed from the session, signals to a run waiting for its output, messages for
//! the extension host, tasks to spawn. A handler only pushes effects here; the loop performs
//! them once the input is handled ([`super::flush::Output::flush`]), awaiting nothing else.
//!
//! A record waits here as a value, not as text: it is encoded at the flush once the output has
//! room for it, so a record the output is not ready for costs no line. A record that may be long
//! (a message's `message_end`, `turn_end`, `agent_end`, a long delta) keeps sharing the message
//! it quotes with the conversation and is streamed to the writer in pieces at the flush.

use std::io::Write as _;
use std::sync::Arc;

use pi_rpc_protocol::event::Event;
use pi_rpc_protocol::message::{AgentMessage, TaggedToolResult};
use pi_rpc_protocol::{RequestId, Response};
use serde::{Serialize, Serializer};

use super::ops::ids::OpKey;
use super::tasks::Launch;
use crate::extensions::HostLine;
use crate::provider::WrittenSignal;

/// Appends `event`'s line to `lines`. A delta of 0.84.1's form (no `usage`) is written
/// directly: it is most of a stream's records, and a derived serialiser pays for its
/// generality on each (the text itself is escaped by the protocol's encoder, as in any record).
fn encode_event(lines: &mut Vec<u8>, event: &Event) -> serde_json::Result<()> {
    use pi_rpc_protocol::event::AssistantMessageEvent as Delta;
    let Event::MessageUpdate(update) = event else {
        return pi_rpc_protocol::framing::write_record(lines, event);
    };
    let (kind, delta) = match &update.assistant_message_event {
        Delta::TextDelta(delta) => ("text_delta", delta),
        Delta::ThinkingDelta(delta) => ("thinking_delta", delta),
        Delta::ToolcallDelta(delta) => ("toolcall_delta", delta),
        _ => return pi_rpc_protocol::framing::write_record(lines, event),
    };
    if update.usage.is_some() {
        return pi_rpc_protocol::framing::write_record(lines, event);
    }
    lines.extend_from_slice(br#"{"type":"message_update","assistantMessageEvent":{"type":""#);
    lines.extend_from_slice(kind.as_bytes());
    lines.extend_from_slice(br#"","contentIndex":"#);
    write!(lines, "{}", delta.content_index).map_err(serde_json::Error::io)?;
    lines.extend_from_slice(br#","delta":"#);
    pi_rpc_protocol::json::write_into(&mut *lines, delta.delta.as_str())?;
    lines.extend_from_slice(b"}}\n");
    Ok(())
}

/// One record for the client.
#[derive(Debug)]
pub(super) enum Record {
    /// A command's answer.
    Response(Response),
    /// An event.
    Event(Box<Event>),
    /// A record built as JSON (an extension's UI request, `entry_appended`, an answer whose
    /// `command` echoes the line's).
    Value(serde_json::Value),
    /// `message_end` sharing its message.
    MessageEnd(MessageEndRecord),
    /// `turn_end` sharing its message.
    TurnEnd(TurnEndRecord),
    /// `agent_end` sharing its messages.
    AgentEnd(AgentEndRecord),
}

impl Serialize for Record {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Response(response) => response.serialize(serializer),
            Self::Event(event) => event.serialize(serializer),
            Self::Value(value) => value.serialize(serializer),
            Self::MessageEnd(record) => record.serialize(serializer),
            Self::TurnEnd(record) => record.serialize(serializer),
            Self::AgentEnd(record) => record.serialize(serializer),
        }
    }
}

impl From<Response> for Record {
    fn from(response: Response) -> Self {
        Self::Response(response)
    }
}

impl From<Event> for Record {
    fn from(event: Event) -> Self {
        Self::Event(Box::new(event))
    }
}

impl From<serde_json::Value> for Record {
    fn from(value: serde_json::Value) -> Self {
        Self::Value(value)
    }
}

/// How a record goes to the writer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Framing {
    /// Encoded as one line (into the burst being written, if any).
    Line,
    /// Measured first: streamed in pieces when it is long, else one line.
    MaybeLong,
    /// Streamed in pieces as it is encoded (a long delta, a long block's end).
    Streamed,
}

/// A long answer made from the session's state at the flush, in pieces (`actor/answer.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum LongAnswer {
    /// `get_messages`.
    Messages,
    /// `get_entries` (since an entry id).
    Entries { since: Option<String> },
    /// `get_tree`.
    Tree,
    /// `get_fork_messages`.
    ForkMessages,
}

/// One thing the loop does at the flush.
#[derive(Debug)]
pub(super) enum Effect {
    /// A record, encoded once the output has room for it.
    Record(Record, Framing),
    /// Lines already encoded (the answers held for the end of a read).
    Lines(Vec<u8>),
    /// Short records encoded as they came, one line each: a burst of deltas becomes one
    /// buffer, without a record kept (and moved, and boxed) per delta until the flush.
    Encoded(Vec<u8>),
    /// A burst of run events begins: its lines go to the writer as one write (long lines on
    /// their own) ...
    BurstStart,
    /// ... until here.
    BurstEnd,
    /// A run waits until everything before this is written.
    Written(WrittenSignal),
    /// A long answer, streamed from the session's state.
    Answer {
        id: Option<RequestId>,
        answer: LongAnswer,
    },
    /// A message for the extension host, and what follows should it not reach the host.
    Host { line: HostLine, if_lost: IfLost },
    /// The session's entries for the extension host's mirror, taken from the session at the
    /// flush.
    HostEntries(MirrorUpdate),
    /// A task's work starts (after what was asked before it).
    Spawn(Launch),
}

/// What the extension host's mirror of the session (`ctx.sessionManager`) is told: the
/// entries `from..to` of the session `session_id` (with `reset`, the mirror starts again from
/// that session) and its leaf. Should the session have changed by the flush, nothing is sent:
/// the update for the new one follows.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct MirrorUpdate {
    pub(super) session_id: String,
    pub(super) reset: bool,
    pub(super) from: usize,
    pub(super) to: usize,
    pub(super) leaf_id: Option<String>,
    /// The context usage, when it changed since the host was last told (`ctx.getContextUsage()`).
    pub(super) context_usage: Option<Option<pi_rpc_protocol::response::ContextUsage>>,
}

/// What follows when a message cannot be sent to the extension host (it is gone): the flush
/// hands these back to the actor, as inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum IfLost {
    /// Nothing: the host needed it only while it lived (logged with this text).
    Log(&'static str),
    /// The reply to the request with this id will not come: what waits for it goes on as it
    /// does when the host ends.
    Request(u64),
    /// The extensions are not loaded afresh: the restart with this key goes on without them.
    Restart(OpKey),
    /// The extensions of `ctx.reload()` (this key) are not loaded afresh: the call is answered
    /// `false`.
    Reload(OpKey),
}

/// The effects of the input being handled, in order.
#[derive(Debug, Default)]
pub(super) struct Outbox {
    effects: Vec<Effect>,
}

impl Outbox {
    /// Adds one effect after the others.
    pub(super) fn push(&mut self, effect: Effect) {
        self.effects.push(effect);
    }

    /// A short event encoded now, after the encoded lines the outbox ends with when it does.
    pub(super) fn record_encoded(&mut self, event: &Event) {
        if !matches!(self.effects.last(), Some(Effect::Encoded(_))) {
            self.push(Effect::Encoded(Vec::with_capacity(256)));
        }
        let Some(Effect::Encoded(lines)) = self.effects.last_mut() else {
            return;
        };
        let mark = lines.len();
        if let Err(error) = encode_event(lines, event) {
            lines.truncate(mark);
            tracing::error!(%error, "cannot serialise a record");
        }
    }

    /// A record written as one line.
    pub(super) fn record(&mut self, record: impl Into<Record>) {
        self.push(Effect::Record(record.into(), Framing::Line));
    }

    /// The success response of `kind` with `data` (an error response should `data` not
    /// encode).
    pub(super) fn respond<T: Serialize>(&mut self, id: Option<RequestId>, kind: &str, data: &T) {
        let response = match Response::with_data(id.clone(), kind, data) {
            Ok(response) => response,
            Err(error) => {
                Response::error(id, Some(kind), format!("cannot encode the result: {error}"))
            }
        };
        self.record(response);
    }

    /// Whether nothing is asked for.
    pub(super) fn is_empty(&self) -> bool {
        self.effects.is_empty()
    }

    /// The effects, in order, leaving the outbox empty.
    pub(super) fn take(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    /// The effects asked for so far (for tests).
    #[cfg(test)]
    pub(super) fn effects(&self) -> &[Effect] {
        &self.effects
    }
}

/// `turn_end` as [`Event::TurnEnd`] writes it, sharing its message.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename = "turn_end", rename_all = "camelCase")]
pub(super) struct TurnEndRecord {
    #[serde(serialize_with = "shared")]
    pub(super) message: Arc<AgentMessage>,
    pub(super) tool_results: Vec<TaggedToolResult>,
}

/// `message_end` as [`Event::MessageEnd`] writes it, sharing its message.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename = "message_end")]
pub(super) struct MessageEndRecord {
    #[serde(serialize_with = "shared")]
    pub(super) message: Arc<AgentMessage>,
}

/// `agent_end` as [`Event::AgentEnd`] writes it, sharing its messages.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename = "agent_end", rename_all = "camelCase")]
pub(super) struct AgentEndRecord {
    #[serde(serialize_with = "all_shared")]
    pub(super) messages: Vec<Arc<AgentMessage>>,
    pub(super) will_retry: bool,
}

fn shared<S: Serializer>(message: &Arc<AgentMessage>, serializer: S) -> Result<S::Ok, S::Error> {
    message.as_ref().serialize(serializer)
}

fn all_shared<S: Serializer>(
    messages: &[Arc<AgentMessage>],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(messages.iter().map(|message| &**message))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn lines(outbox: &Outbox) -> Vec<String> {
        outbox
            .effects()
            .iter()
            .map(|effect| match effect {
                Effect::Record(record, Framing::Line) => serde_json::to_string(record).unwrap(),
                other => panic!("not a one-line record: {other:?}"),
            })
            .collect()
    }

    #[test]
    fn deltas_written_directly_read_as_the_serialiser_writes_them() {
        use pi_rpc_protocol::event::{AssistantMessageEvent, ContentDelta, MessageUpdateEvent};
        let lone = pi_rpc_protocol::surrogates::lone(0xd83d);
        let texts = ["ab", "", "é \u{2028} \"q\" \\ \n\t\u{1}", lone.as_str()];
        let kinds: [fn(ContentDelta) -> AssistantMessageEvent; 3] = [
            AssistantMessageEvent::TextDelta,
            AssistantMessageEvent::ThinkingDelta,
            AssistantMessageEvent::ToolcallDelta,
        ];
        for (index, text) in texts.iter().enumerate() {
            for kind in kinds {
                for usage in [None, Some(Default::default())] {
                    let event = Event::MessageUpdate(MessageUpdateEvent {
                        usage,
                        assistant_message_event: kind(ContentDelta {
                            content_index: index * 7,
                            delta: (*text).to_owned(),
                        }),
                    });
                    let mut direct = Vec::new();
                    encode_event(&mut direct, &event).unwrap();
                    let derived = pi_rpc_protocol::framing::encode_record(&event).unwrap();
                    assert_eq!(String::from_utf8(direct), String::from_utf8(derived));
                }
            }
        }
    }

    #[test]
    fn records_wait_in_order_as_values_until_taken() {
        let mut outbox = Outbox::default();
        outbox.respond(Some(RequestId::from("a".to_owned())), "get_state", &1);
        outbox.record(Response::ok(None, "abort"));
        assert_eq!(
            lines(&outbox),
            [
                r#"{"id":"a","type":"response","command":"get_state","success":true,"data":1}"#,
                r#"{"type":"response","command":"abort","success":true}"#,
            ]
        );
        assert_eq!(outbox.take().len(), 2);
        assert!(outbox.is_empty());
    }

    #[test]
    fn data_that_cannot_be_encoded_is_answered_with_an_error() {
        let mut outbox = Outbox::default();
        let data = BTreeMap::from([((1, 2), "not a JSON key")]);
        outbox.respond(None, "get_state", &data);
        assert_eq!(
            lines(&outbox),
            [
                r#"{"type":"response","command":"get_state","success":false,"error":"cannot encode the result: key must be a string"}"#
            ]
        );
    }
}
