//! What the client reads of the session: `get_state`, `get_messages`,
//! `get_last_assistant_text`, and the session tree's `get_entries`, `get_tree` and
//! `get_fork_messages` (the long answers streamed in pieces, `actor/answer.rs`).

use pi_rpc_protocol::RequestId;
use pi_rpc_protocol::command::GetEntriesCommand;
use pi_rpc_protocol::content::AssistantContent;
use pi_rpc_protocol::message::{AgentMessage, StopReason};
use pi_rpc_protocol::response::{LastAssistantText, SessionState};

use crate::actor::State;
use crate::actor::outbox::{Effect, LongAnswer};

impl State {
    pub(super) fn get_state_command(&mut self, id: Option<RequestId>) {
        let state = self.state();
        self.respond(id, "get_state", &state);
    }

    pub(super) fn get_messages_command(&mut self, id: Option<RequestId>) {
        self.answer_long(id, LongAnswer::Messages);
    }

    pub(super) fn get_last_assistant_text_command(&mut self, id: Option<RequestId>) {
        let text = LastAssistantText {
            text: self.last_assistant_text(),
        };
        self.respond(id, "get_last_assistant_text", &text);
    }

    pub(super) fn get_entries_command(&mut self, id: Option<RequestId>, get: GetEntriesCommand) {
        let since = get.since;
        self.answer_long(id, LongAnswer::Entries { since });
    }

    pub(super) fn get_tree_command(&mut self, id: Option<RequestId>) {
        self.answer_long(id, LongAnswer::Tree);
    }

    pub(super) fn get_fork_messages_command(&mut self, id: Option<RequestId>) {
        self.answer_long(id, LongAnswer::ForkMessages);
    }

    /// A long answer, made in pieces from the session as it is at the flush (which follows
    /// this command before any other input is handled).
    fn answer_long(&mut self, id: Option<RequestId>, answer: LongAnswer) {
        self.outbox.push(Effect::Answer { id, answer });
    }

    fn state(&self) -> SessionState {
        SessionState {
            model: Some(self.shown_model().into_owned()),
            thinking_level: self.thinking_level,
            is_streaming: self.streaming,
            // As in pi, a tree navigation counts from its `session_before_tree` to its end.
            is_compacting: self.ops.compaction.is_active() || !self.ops.tree.is_empty(),
            steering_mode: self.steering_mode,
            follow_up_mode: self.follow_up_mode,
            session_file: self
                .store
                .session_file()
                .map(|path| path.to_string_lossy().into_owned()),
            session_id: self.store.session_id().to_owned(),
            session_name: self.session_name.clone(),
            auto_compaction_enabled: self.auto_compaction,
            message_count: self.messages.len() as u64,
            pending_message_count: (self.steering_texts.len() + self.follow_up_texts.len()) as u64,
        }
    }

    fn last_assistant_text(&self) -> Option<String> {
        let last = self
            .messages
            .iter()
            .rev()
            .find_map(|message| match message {
                AgentMessage::Assistant(assistant)
                    if !(assistant.stop_reason == StopReason::Aborted
                        && assistant.content.is_empty()) =>
                {
                    Some(assistant)
                }
                _ => None,
            })?;
        let text: String = last
            .content
            .iter()
            .filter_map(|block| match block {
                AssistantContent::Text(text) => Some(text.text.as_str()),
                _ => None,
            })
            .collect();
        let trimmed = text.trim();
        (!trimmed.is_empty()).then(|| trimmed.to_owned())
    }
}
