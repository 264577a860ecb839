//! Token estimates: the characters/4 rule for single messages, and the context size as the last
//! trustworthy provider usage plus the estimate of every message after it.

use pi_rpc_protocol::content::{AssistantContent, MessageContent, UserContent};
use pi_rpc_protocol::message::{AgentMessage, StopReason};
use pi_rpc_protocol::usage::Usage;

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

/// The last trustworthy usage, plus the estimate of every message after it; the estimate of
/// every message when none has a usage.
pub fn estimate_context(messages: &[AgentMessage]) -> ContextEstimate {
    let last = messages
        .iter()
        .enumerate()
        .rev()
        .find_map(|(index, message)| trusted_usage(message).map(|usage| (index, usage)));
    match last {
        Some((index, usage)) => ContextEstimate {
            tokens: context_tokens(usage) + sum_tokens(&messages[index + 1..]),
            last_usage_index: Some(index),
        },
        None => ContextEstimate {
            tokens: sum_tokens(messages),
            last_usage_index: None,
        },
    }
}

/// The characters/4 estimate of every message, added up.
pub fn sum_tokens(messages: &[AgentMessage]) -> u64 {
    messages.iter().map(estimate_tokens).sum()
}

/// Length in UTF-16 units, as JavaScript counts it.
pub(crate) fn js_len(text: &str) -> usize {
    text.encode_utf16().count()
}

fn blocks_chars(blocks: &[UserContent]) -> usize {
    blocks
        .iter()
        .map(|block| match block {
            UserContent::Text(text) => js_len(&text.text),
            UserContent::Image(_) => IMAGE_CHARS,
        })
        .sum()
}

fn content_chars(content: &MessageContent) -> usize {
    match content {
        MessageContent::Text(text) => js_len(text),
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
                AssistantContent::Text(text) => js_len(&text.text),
                AssistantContent::Thinking(thinking) => js_len(&thinking.thinking),
                AssistantContent::ToolCall(call) => {
                    let arguments =
                        pi_rpc_protocol::json::to_string(&call.arguments).unwrap_or_default();
                    js_len(&call.name) + js_len(&arguments)
                }
            })
            .sum(),
        AgentMessage::Custom(custom) => content_chars(&custom.content),
        AgentMessage::ToolResult(result) => blocks_chars(&result.content),
        AgentMessage::BashExecution(bash) => js_len(&bash.command) + js_len(&bash.output),
        AgentMessage::BranchSummary(summary) => js_len(&summary.summary),
        AgentMessage::CompactionSummary(summary) => js_len(&summary.summary),
        AgentMessage::System(system) => {
            let declared = pi_rpc_protocol::json::to_string(system).unwrap_or_default();
            js_len(&declared)
        }
    };
    chars.div_ceil(4) as u64
}
