//! How the session's handlers write records: each pushed to the outbox as a value
//! (`actor/outbox.rs`), performed at the flush (`actor/flush.rs`). A run's `turn_end`,
//! `message_end` and `agent_end` are written from the session's own copy of their messages,
//! shared, never copied into the record.

use std::sync::Arc;

use pi_rpc_protocol::RequestId;
use pi_rpc_protocol::event::AssistantMessageEvent;
use pi_rpc_protocol::event::{AgentEndEvent, Event, MessageEvent, TurnEndEvent};
use pi_rpc_protocol::message::{AgentMessage, TaggedToolResult};
use serde::Serialize;

use super::flush::is_long;
use super::outbox::{AgentEndRecord, Effect, Framing, MessageEndRecord, Record, TurnEndRecord};
use super::{State, extensions};

impl State {
    /// Writes one record as one line.
    pub(super) fn write(&mut self, record: impl Into<Record>) {
        self.outbox.record(record);
    }

    /// Writes the success response of `kind` with `data` (an error response should `data` not
    /// encode).
    pub(super) fn respond<T: Serialize>(&mut self, id: Option<RequestId>, kind: &str, data: &T) {
        self.outbox.respond(id, kind, data);
    }

    /// Writes one event.
    pub(super) fn emit(&mut self, event: Event) {
        self.write(event);
    }

    /// Writes a record that may be long: measured at the flush, streamed when it is long.
    pub(super) fn write_long(&mut self, record: impl Into<Record>) {
        self.outbox
            .push(Effect::Record(record.into(), Framing::MaybeLong));
    }

    /// Writes a record in pieces as it is encoded (a long delta or block).
    pub(super) fn write_streamed(&mut self, record: impl Into<Record>) {
        self.outbox
            .push(Effect::Record(record.into(), Framing::Streamed));
    }

    /// `turn_end` of the turn whose assistant message the session recorded last. Extensions
    /// that handle `turn_end` get the whole event (a copy is made for them).
    pub(super) fn write_turn_end(&mut self, tool_results: Vec<TaggedToolResult>) {
        let assistant = self.messages.last_with_role(crate::store::Role::Assistant);
        let Some(message) = assistant.as_deref().and_then(|shared| shared.shared()) else {
            tracing::error!("turn_end without an assistant message");
            return;
        };
        let message = Arc::clone(message);
        if extensions::handles_event(&self.extensions, "turn_end") {
            let event = Event::TurnEnd(TurnEndEvent {
                message: (*message).clone(),
                tool_results,
            });
            if let Some(event) = self.hold_for_extensions(event) {
                self.on_run_event(event);
            }
            return;
        }
        self.write_long(Record::TurnEnd(TurnEndRecord {
            message,
            tool_results,
        }));
    }

    /// `message_end` of a message the run shares with the session: written from the shared
    /// copy, then recorded. Extensions that handle `message_end` get the whole event (a copy is
    /// made for them).
    pub(super) fn write_message_end(&mut self, message: Arc<AgentMessage>) {
        if extensions::handles_event(&self.extensions, "message_end") {
            let event = Event::MessageEnd(MessageEvent {
                message: (*message).clone(),
            });
            if let Some(event) = self.hold_for_extensions(event) {
                self.on_run_event(event);
            }
            return;
        }
        let record = MessageEndRecord {
            message: Arc::clone(&message),
        };
        self.write_long(Record::MessageEnd(record));
        self.record_ended_message(message);
    }

    /// `agent_end` with the run's messages, shared with the session (copied only for the
    /// extensions that handle it).
    pub(super) fn write_agent_end(&mut self, messages: Vec<Arc<AgentMessage>>) {
        if extensions::handles_event(&self.extensions, "agent_end") {
            let event = Event::AgentEnd(AgentEndEvent {
                messages: messages.iter().map(|message| (**message).clone()).collect(),
                will_retry: false,
            });
            if let Some(event) = self.hold_for_extensions(event) {
                self.on_run_event(event);
            }
            return;
        }
        let record = AgentEndRecord {
            will_retry: self.will_retry(messages.iter().map(|message| &**message)),
            messages,
        };
        self.write_long(Record::AgentEnd(record));
    }
}

/// Whether an event may make a long line: one carrying a whole message (a long delta or block
/// text is [streamed](carries_long_text)).
pub(super) fn may_be_long(event: &Event) -> bool {
    matches!(
        event,
        Event::MessageEnd(_) | Event::TurnEnd(_) | Event::AgentEnd(_)
    )
}

/// Whether an event is a long delta, or the end of a long block with its whole text: such an
/// event is written with [`State::write_streamed`].
pub(super) fn carries_long_text(event: &Event) -> bool {
    let Event::MessageUpdate(update) = event else {
        return false;
    };
    match &update.assistant_message_event {
        AssistantMessageEvent::TextDelta(delta)
        | AssistantMessageEvent::ThinkingDelta(delta)
        | AssistantMessageEvent::ToolcallDelta(delta) => is_long(delta.delta.len()),
        AssistantMessageEvent::TextEnd(end) | AssistantMessageEvent::ThinkingEnd(end) => {
            is_long(end.content.len())
        }
        _ => false,
    }
}
