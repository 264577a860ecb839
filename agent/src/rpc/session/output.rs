//! How the session writes records: each encoded once the output has room for it (after a long
//! line, once that line is written, so that two long records are never in memory as text at
//! once), gathered into one write during a burst of events, long lines on their own. A run's
//! `turn_end` is written from the session's own copy of the turn's message.

use std::sync::Arc;

use pi_rpc_protocol::event::AssistantMessageEvent;
use pi_rpc_protocol::event::{AgentEndEvent, Event, MessageEvent, TurnEndEvent};
use pi_rpc_protocol::framing::{encode_record, encode_record_exact};
use pi_rpc_protocol::message::{AgentMessage, TaggedToolResult};
use serde::Serialize;

use super::{Session, extensions};

/// `turn_end` as [`Event::TurnEnd`] writes it, borrowing its message.
#[derive(Serialize)]
#[serde(tag = "type", rename = "turn_end", rename_all = "camelCase")]
struct TurnEndRecord<'a> {
    message: &'a AgentMessage,
    tool_results: &'a [TaggedToolResult],
}

/// `message_end` as [`Event::MessageEnd`] writes it, borrowing its message.
#[derive(Serialize)]
#[serde(tag = "type", rename = "message_end")]
struct MessageEndRecord<'a> {
    message: &'a AgentMessage,
}

/// `agent_end` as [`Event::AgentEnd`] writes it, borrowing its messages.
#[derive(Serialize)]
#[serde(tag = "type", rename = "agent_end", rename_all = "camelCase")]
struct AgentEndRecord<'a> {
    messages: Vec<&'a AgentMessage>,
    will_retry: bool,
}

/// Lines longer than this are written on their own, not copied into a batch.
const LONG_LINE_BYTES: usize = 64 * 1024;

impl Session {
    /// Writes one record. Serialisation cannot fail for our types; if it does, it is logged.
    pub(super) async fn write<T: Serialize>(&mut self, record: &T) {
        if let Some(line) = self.encode(record).await {
            self.write_line(line).await;
        }
    }

    /// A record as its line, once the output has room for it.
    pub(super) async fn encode<T: Serialize>(&mut self, record: &T) -> Option<Vec<u8>> {
        self.encode_sized(record, false).await
    }

    /// [`Self::encode`]; a record that may be `long` is measured first and encoded into a
    /// buffer of its size (see [`encode_record_exact`]).
    pub(super) async fn encode_sized<T: Serialize>(
        &mut self,
        record: &T,
        long: bool,
    ) -> Option<Vec<u8>> {
        if self.out.ready().await.is_err() {
            self.output_closed = true;
        }
        let encoded = if long {
            encode_record_exact(record)
        } else {
            encode_record(record)
        };
        encoded
            .inspect_err(|error| tracing::error!(%error, "cannot serialise a record"))
            .ok()
    }

    /// Writes one already encoded line (with its LF).
    pub(super) async fn write_line(&mut self, line: Vec<u8>) {
        match &mut self.out_batch {
            // A long line is not copied into the batch: the batch so far goes first.
            Some(batch) if line.len() > LONG_LINE_BYTES => {
                let batch = std::mem::take(batch);
                if !batch.is_empty() {
                    self.send_output(batch).await;
                }
                self.send_output(line).await;
            }
            Some(batch) if batch.is_empty() => *batch = line,
            Some(batch) => batch.extend_from_slice(&line),
            None => self.send_output(line).await,
        }
    }

    pub(super) async fn send_output(&mut self, line: Vec<u8>) {
        if self.out.send(line).await.is_err() {
            self.output_closed = true;
        }
    }

    /// `turn_end` of the turn whose assistant message the session recorded last. Extensions
    /// that handle `turn_end` get the whole event (a copy is made for them).
    pub(super) async fn write_turn_end(&mut self, tool_results: Vec<TaggedToolResult>) {
        let assistant = self
            .messages
            .last_with_role(crate::session::Role::Assistant);
        let Some(message) = assistant.as_deref().and_then(|shared| shared.get()) else {
            tracing::error!("turn_end without an assistant message");
            return;
        };
        if extensions::handles_event(&self.extensions, "turn_end") {
            let event = Event::TurnEnd(TurnEndEvent {
                message: message.clone(),
                tool_results,
            });
            if let Some(event) = self.hold_for_extensions(event).await {
                self.on_run_event(event).await;
            }
            return;
        }
        if self.out.ready().await.is_err() {
            self.output_closed = true;
        }
        let record = TurnEndRecord {
            message,
            tool_results: &tool_results,
        };
        match encode_record_exact(&record) {
            Ok(line) => self.write_line(line).await,
            Err(error) => tracing::error!(%error, "cannot serialise a record"),
        }
    }

    /// `message_end` of a message the run shares with the session: written from the shared
    /// copy, then recorded. Extensions that handle `message_end` get the whole event (a copy is
    /// made for them).
    pub(super) async fn write_message_end(&mut self, message: Arc<AgentMessage>) {
        if extensions::handles_event(&self.extensions, "message_end") {
            let event = Event::MessageEnd(MessageEvent {
                message: (*message).clone(),
            });
            if let Some(event) = self.hold_for_extensions(event).await {
                self.on_run_event(event).await;
            }
            return;
        }
        let record = MessageEndRecord { message: &message };
        let line = self.encode_sized(&record, true).await;
        if let Some(line) = line {
            self.write_line(line).await;
        }
        self.record_ended_message(message).await;
    }

    /// `agent_end` with the run's messages, shared with the session (copied only for the
    /// extensions that handle it).
    pub(super) async fn write_agent_end(&mut self, messages: Vec<Arc<AgentMessage>>) {
        if extensions::handles_event(&self.extensions, "agent_end") {
            let event = Event::AgentEnd(AgentEndEvent {
                messages: messages.iter().map(|message| (**message).clone()).collect(),
                will_retry: false,
            });
            if let Some(event) = self.hold_for_extensions(event).await {
                self.on_run_event(event).await;
            }
            return;
        }
        let messages: Vec<&AgentMessage> = messages.iter().map(|message| &**message).collect();
        let record = AgentEndRecord {
            will_retry: self.will_retry(messages.iter().copied()),
            messages,
        };
        if let Some(line) = self.encode_sized(&record, true).await {
            self.write_line(line).await;
        }
    }
}

/// Whether an event may make a long line: one carrying a whole message, or a long delta.
pub(super) fn may_be_long(event: &Event) -> bool {
    match event {
        Event::MessageUpdate(update) => match &update.assistant_message_event {
            AssistantMessageEvent::TextDelta(delta)
            | AssistantMessageEvent::ThinkingDelta(delta)
            | AssistantMessageEvent::ToolcallDelta(delta) => delta.delta.len() > LONG_LINE_BYTES,
            AssistantMessageEvent::TextEnd(end) | AssistantMessageEvent::ThinkingEnd(end) => {
                end.content.len() > LONG_LINE_BYTES
            }
            _ => false,
        },
        Event::MessageEnd(_) | Event::TurnEnd(_) | Event::AgentEnd(_) => true,
        _ => false,
    }
}
