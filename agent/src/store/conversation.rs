//! The agent's conversation: the messages `get_messages` answers with and a run starts from,
//! shared with the session store (see [`SharedMessage`]).

use std::sync::Arc;

use pi_rpc_protocol::message::AgentMessage;

use super::message::{Role, SharedMessage};

/// The messages of the conversation, in order.
#[derive(Debug, Clone, Default)]
pub struct Conversation {
    messages: Vec<Arc<SharedMessage>>,
}

impl Conversation {
    /// An empty conversation.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many messages it holds (those this agent cannot parse included).
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether it holds no message.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// Adds a message made here.
    pub fn push(&mut self, message: AgentMessage) {
        self.messages.push(SharedMessage::new(message));
    }

    /// Adds a shared message.
    pub fn push_shared(&mut self, message: Arc<SharedMessage>) {
        self.messages.push(message);
    }

    /// Puts a message made here first.
    pub fn push_front(&mut self, message: AgentMessage) {
        self.messages.insert(0, SharedMessage::new(message));
    }

    /// The conversation without its `system` messages.
    pub fn without_system(&self) -> Self {
        self.messages
            .iter()
            .filter(|message| message.role() != Role::System)
            .cloned()
            .collect()
    }

    /// Removes the last message.
    pub fn pop(&mut self) -> Option<Arc<SharedMessage>> {
        self.messages.pop()
    }

    /// Removes every message.
    pub fn clear(&mut self) {
        self.messages.clear();
    }

    /// The last message, typed (`None` also when it cannot be parsed).
    pub fn last(&self) -> Option<&AgentMessage> {
        self.messages.last().and_then(|message| message.get())
    }

    /// The message at `index`, typed (`None` also when it cannot be parsed).
    pub fn get(&self, index: usize) -> Option<&AgentMessage> {
        self.messages.get(index).and_then(|message| message.get())
    }

    /// The last message with `role`, shared.
    pub fn last_with_role(&self, role: Role) -> Option<Arc<SharedMessage>> {
        self.messages
            .iter()
            .rev()
            .find(|message| message.role() == role)
            .cloned()
    }

    /// The role of the last message.
    pub fn last_role(&self) -> Option<Role> {
        self.messages.last().map(|message| message.role())
    }

    /// The typed messages, parsed as they are reached; messages this agent cannot parse are
    /// left out.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &AgentMessage> {
        self.messages.iter().filter_map(|message| message.get())
    }

    /// The typed messages of `role` (only those are parsed).
    pub fn with_role(&self, role: Role) -> impl Iterator<Item = &AgentMessage> {
        self.messages
            .iter()
            .filter(move |message| message.role() == role)
            .filter_map(|message| message.get())
    }

    /// Every typed message (see [`Self::iter`]).
    pub fn typed(&self) -> Vec<&AgentMessage> {
        self.iter().collect()
    }

    /// Every message as a shared handle, for a run's history: no message is copied, nor
    /// parsed.
    pub fn shared(&self) -> Vec<Arc<SharedMessage>> {
        self.messages.clone()
    }

    /// Appends the messages as a JSON array to `out`, from message `from` on, until `out` holds
    /// at least `limit` bytes; returns where to go on (`len()` when done).
    pub fn write_json_from(
        &self,
        from: usize,
        out: &mut Vec<u8>,
        limit: usize,
    ) -> serde_json::Result<usize> {
        let mut index = from;
        while let Some(message) = self.messages.get(index) {
            if index > 0 {
                out.push(b',');
            }
            message.write_json(out)?;
            index += 1;
            if out.len() >= limit {
                break;
            }
        }
        Ok(index)
    }
}

/// The typed messages as a JSON array (the answer to `get_messages` is written from the messages'
/// own text instead, see [`Conversation::write_json_from`]).
impl serde::Serialize for Conversation {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl FromIterator<Arc<SharedMessage>> for Conversation {
    fn from_iter<I: IntoIterator<Item = Arc<SharedMessage>>>(iter: I) -> Self {
        Self {
            messages: iter.into_iter().collect(),
        }
    }
}
