//! Conversation messages shared by the session store, the agent's conversation and its runs,
//! so that a long session holds each message once.
//!
//! A message read from a session file is kept as its JSON text (a span of its entry's line,
//! which the store keeps anyway) and parsed only when something needs the typed form (a run, an
//! estimate); answers that quote it (`get_messages`) copy the text. A message made by this
//! agent is kept typed and written as JSON when asked. Either way, clones are `Arc` clones.

use std::io::Write;
use std::sync::{Arc, OnceLock};

use pi_rpc_protocol::message::AgentMessage;

use super::scan::Span;

/// The role of a message, known without parsing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `user`
    User,
    /// `assistant`
    Assistant,
    /// `toolResult`
    ToolResult,
    /// `bashExecution`
    BashExecution,
    /// `custom`
    Custom,
    /// `compactionSummary`
    CompactionSummary,
    /// `branchSummary`
    BranchSummary,
    /// `system`: the system prompt and tools a turn starts with (from 0.86.1).
    System,
    /// Any other role (or none).
    Other,
}

impl Role {
    /// The role of a `role` field's text.
    pub fn from_name(name: &str) -> Self {
        match name {
            "user" => Self::User,
            "assistant" => Self::Assistant,
            "toolResult" => Self::ToolResult,
            "bashExecution" => Self::BashExecution,
            "custom" => Self::Custom,
            "compactionSummary" => Self::CompactionSummary,
            "branchSummary" => Self::BranchSummary,
            "system" => Self::System,
            _ => Self::Other,
        }
    }

    /// Whether a message of this role is recorded as a `message` entry when it ends (user,
    /// assistant, tool-result and system messages; the others are recorded by whoever made
    /// them).
    pub fn is_recorded(self) -> bool {
        matches!(
            self,
            Self::User | Self::Assistant | Self::ToolResult | Self::System
        )
    }

    /// The role of a typed message.
    pub fn of(message: &AgentMessage) -> Self {
        match message {
            AgentMessage::User(_) => Self::User,
            AgentMessage::Assistant(_) => Self::Assistant,
            AgentMessage::ToolResult(_) => Self::ToolResult,
            AgentMessage::BashExecution(_) => Self::BashExecution,
            AgentMessage::Custom(_) => Self::Custom,
            AgentMessage::CompactionSummary(_) => Self::CompactionSummary,
            AgentMessage::BranchSummary(_) => Self::BranchSummary,
            AgentMessage::System(_) => Self::System,
        }
    }
}

/// Text of a session file: a range of one of the blocks it was read in (a block holds many
/// lines, so a long session costs a few large allocations, not one per line), or of a string of
/// its own.
#[derive(Debug, Clone)]
pub(crate) struct Slice {
    block: Arc<String>,
    start: u32,
    end: u32,
}

impl Slice {
    /// `start..end` of `block` (which must lie on character boundaries).
    pub(crate) fn new(block: Arc<String>, start: usize, end: usize) -> Option<Self> {
        block.get(start..end)?;
        Some(Self {
            start: u32::try_from(start).ok()?,
            end: u32::try_from(end).ok()?,
            block,
        })
    }

    /// A whole string (beyond 4 GiB, which no line reaches, only its start).
    pub(crate) fn own(text: String) -> Self {
        let end = u32::try_from(text.len()).unwrap_or(u32::MAX);
        Self {
            block: Arc::new(text),
            start: 0,
            end,
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        self.block
            .get(self.start as usize..self.end as usize)
            .unwrap_or("")
    }

    /// The part `span` (relative to this slice) covers.
    pub(crate) fn sub(&self, span: Span) -> Self {
        Self {
            block: self.block.clone(),
            start: self.start + span.start,
            end: (self.start + span.end).min(self.end),
        }
    }
}

/// One message, as text, typed, or both (see the module docs).
#[derive(Debug)]
pub struct SharedMessage {
    text: Option<Slice>,
    typed: OnceLock<Option<Arc<AgentMessage>>>,
    role: Role,
}

impl SharedMessage {
    /// A message made here.
    pub fn new(message: AgentMessage) -> Arc<Self> {
        Self::from_shared(Arc::new(message))
    }

    /// A message made here that others hold too.
    pub fn from_shared(message: Arc<AgentMessage>) -> Arc<Self> {
        Arc::new(Self {
            text: None,
            role: Role::of(&message),
            typed: OnceLock::from(Some(message)),
        })
    }

    /// The message whose canonical JSON text is `text`; `role` is its `role` field.
    pub(crate) fn from_text(text: Slice, role: Role) -> Arc<Self> {
        Arc::new(Self {
            text: Some(text),
            typed: OnceLock::new(),
            role,
        })
    }

    /// The role, without parsing.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The typed message, parsed on first use; `None` when the text is not a message this agent
    /// models (a hand-edited file can hold anything: it is still quoted as it is).
    pub fn get(&self) -> Option<&AgentMessage> {
        self.shared().map(|message| &**message)
    }

    /// The typed message as an `Arc` (see [`Self::get`]).
    pub fn shared(&self) -> Option<&Arc<AgentMessage>> {
        self.typed
            .get_or_init(|| {
                let text = self.text.as_ref()?;
                pi_rpc_protocol::surrogates::from_str(text.as_str())
                    .ok()
                    .map(Arc::new)
            })
            .as_ref()
    }

    /// Runs `f` on the typed message without keeping a parse made for it (for a pass over a
    /// whole long session that should not leave every message parsed behind).
    pub fn with_typed<R>(&self, f: impl FnOnce(&AgentMessage) -> R) -> Option<R> {
        if let Some(message) = self.parsed() {
            return Some(f(message));
        }
        let text = self.text.as_ref()?;
        let message: AgentMessage = pi_rpc_protocol::surrogates::from_str(text.as_str()).ok()?;
        Some(f(&message))
    }

    /// A copy of the typed message to change, parsed afresh (and not kept) when only the text is
    /// held: what a model request transforms, one message at a time.
    pub fn typed_copy(&self) -> Option<AgentMessage> {
        match self.parsed() {
            Some(message) => Some(message.clone()),
            None => pi_rpc_protocol::surrogates::from_str(self.text.as_ref()?.as_str()).ok(),
        }
    }

    /// The typed message if it was parsed (or made) already.
    pub fn parsed(&self) -> Option<&AgentMessage> {
        self.typed.get().and_then(Option::as_deref)
    }

    /// The JSON text when the message came from a file.
    pub fn text(&self) -> Option<&str> {
        self.text.as_ref().map(Slice::as_str)
    }

    /// Appends the message as JSON, byte for byte as the reference writes it.
    pub fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        if let Some(text) = &self.text {
            out.extend_from_slice(text.as_str().as_bytes());
            return Ok(());
        }
        match self.parsed() {
            Some(message) => pi_rpc_protocol::json::write_to(out, message),
            // Not reachable: a message without text was made typed.
            None => out.write_all(b"null").map_err(serde_json::Error::io),
        }
    }

    /// Takes over the parse `other` (the same message) already made.
    pub(crate) fn adopt_parse(&self, other: &SharedMessage) {
        if let Some(parsed) = other.typed.get() {
            let _ = self.typed.set(parsed.clone());
        }
    }
}
