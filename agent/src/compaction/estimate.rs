//! Token estimates: the characters/4 rule for single messages, and the context size as the last
//! trustworthy provider usage plus the estimate of every message after it.

use pi_rpc_protocol::content::{AssistantContent, MessageContent, UserContent};
use pi_rpc_protocol::message::{AgentMessage, StopReason};
use pi_rpc_protocol::usage::Usage;

use crate::js::utf16_len;
use crate::store::Conversation;

/// Characters an image counts for.
const IMAGE_CHARS: usize = 4800;

/// The context size a usage reports: `totalTokens`, or the sum of its parts when that is 0.
pub fn context_tokens(usage: &Usage) -> u64 {
    if usage.total_tokens > 0 {
        usage.total_tokens
    } else {
        usage.input + usage.output + usage.cache_read + usage.cache_write
    }
}

/// The usage of an assistant message that answered (not aborted, not failed) with some tokens.
pub fn trusted_usage(message: &AgentMessage) -> Option<&Usage> {
    match message {
        AgentMessage::Assistant(assistant)
            if !matches!(
                assistant.stop_reason,
                StopReason::Aborted | StopReason::Error
            ) && context_tokens(&assistant.usage) > 0 =>
        {
            Some(&assistant.usage)
        }
        _ => None,
    }
}

/// A context size estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextEstimate {
    /// Estimated tokens of the whole context.
    pub tokens: u64,
    /// Index of the message whose usage the estimate starts from, if any had one.
    pub last_usage_index: Option<usize>,
}

/// Messages by position: a slice, or the session's conversation (parsed as it is reached, so
/// that an estimate of a long loaded session parses only the messages after the last usage).
pub trait Messages {
    /// How many messages there are.
    fn count(&self) -> usize;
    /// The message at `index` (`None` for one that cannot be parsed).
    fn message(&self, index: usize) -> Option<&AgentMessage>;
}

impl Messages for [AgentMessage] {
    fn count(&self) -> usize {
        self.len()
    }

    fn message(&self, index: usize) -> Option<&AgentMessage> {
        self.get(index)
    }
}

impl<const N: usize> Messages for [AgentMessage; N] {
    fn count(&self) -> usize {
        N
    }

    fn message(&self, index: usize) -> Option<&AgentMessage> {
        self.get(index)
    }
}

impl Messages for Vec<AgentMessage> {
    fn count(&self) -> usize {
        self.len()
    }

    fn message(&self, index: usize) -> Option<&AgentMessage> {
        self.get(index)
    }
}

impl Messages for Conversation {
    fn count(&self) -> usize {
        self.len()
    }

    fn message(&self, index: usize) -> Option<&AgentMessage> {
        self.get(index)
    }
}

/// The last trustworthy usage, plus the estimate of every message after it; the estimate of
/// every message when none has a usage.
pub fn estimate_context<L: Messages + ?Sized>(messages: &L) -> ContextEstimate {
    let count = messages.count();
    let last = (0..count).rev().find_map(|index| {
        let usage = messages.message(index).and_then(trusted_usage)?;
        Some((index, usage))
    });
    let tokens_from = |start: usize| -> u64 {
        (start..count)
            .filter_map(|index| messages.message(index))
            .map(estimate_tokens)
            .sum()
    };
    match last {
        Some((index, usage)) => ContextEstimate {
            tokens: context_tokens(usage) + tokens_from(index + 1),
            last_usage_index: Some(index),
        },
        None => ContextEstimate {
            tokens: tokens_from(0),
            last_usage_index: None,
        },
    }
}

/// The characters/4 estimate of every message, added up.
pub fn sum_tokens<L: Messages + ?Sized>(messages: &L) -> u64 {
    (0..messages.count())
        .filter_map(|index| messages.message(index))
        .map(estimate_tokens)
        .sum()
}

fn blocks_chars(blocks: &[UserContent]) -> usize {
    blocks
        .iter()
        .map(|block| match block {
            UserContent::Text(text) => utf16_len(&text.text),
            UserContent::Image(_) => IMAGE_CHARS,
        })
        .sum()
}

fn content_chars(content: &MessageContent) -> usize {
    match content {
        MessageContent::Text(text) => utf16_len(text),
        MessageContent::Blocks(blocks) => blocks_chars(blocks),
    }
}

/// Tokens of a message by the characters/4 rule, rounded up.
pub fn estimate_tokens(message: &AgentMessage) -> u64 {
    let chars = match message {
        AgentMessage::User(user) => content_chars(&user.content),
        AgentMessage::Assistant(assistant) => assistant
            .content
            .iter()
            .map(|block| match block {
                AssistantContent::Text(text) => utf16_len(&text.text),
                AssistantContent::Thinking(thinking) => utf16_len(&thinking.thinking),
                AssistantContent::ToolCall(call) => {
                    let arguments =
                        pi_rpc_protocol::json::to_string(&call.arguments).unwrap_or_default();
                    utf16_len(&call.name) + utf16_len(&arguments)
                }
            })
            .sum(),
        AgentMessage::Custom(custom) => content_chars(&custom.content),
        AgentMessage::ToolResult(result) => blocks_chars(&result.content),
        AgentMessage::BashExecution(bash) => utf16_len(&bash.command) + utf16_len(&bash.output),
        AgentMessage::BranchSummary(summary) => utf16_len(&summary.summary),
        AgentMessage::CompactionSummary(summary) => utf16_len(&summary.summary),
        AgentMessage::System(system) => {
            let declared = pi_rpc_protocol::json::to_string(system).unwrap_or_default();
            utf16_len(&declared)
        }
    };
    chars.div_ceil(4) as u64
}
