//! `get_session_stats` (message counts and token/cost totals over every entry of the session
//! (compacted history included), and the context usage of the active conversation), and the
//! `get_commands` listing.

use pi_rpc_protocol::content::{AssistantContent, MessageContent, UserContent};
use pi_rpc_protocol::message::{AgentMessage, StopReason};
use pi_rpc_protocol::response::{ContextUsage, SessionStats, TokenTotals};
use pi_rpc_protocol::session::SessionEntry;
use pi_rpc_protocol::usage::Usage;

use super::Session;

/// Characters an image counts for in the estimate.
const IMAGE_CHARS: usize = 4800;

/// Running totals of usage.
#[derive(Default)]
struct Totals {
    tokens: TokenTotals,
    cost: f64,
}

impl Totals {
    fn add(&mut self, usage: &Usage) {
        self.tokens.input += usage.input;
        self.tokens.output += usage.output;
        self.tokens.cache_read += usage.cache_read;
        self.tokens.cache_write += usage.cache_write;
        self.cost += usage.cost.total;
    }
}

impl Session {
    pub(super) fn session_stats(&self) -> SessionStats {
        let (mut user, mut assistant, mut tool_results, mut total, mut tool_calls) =
            (0, 0, 0, 0, 0);
        let mut totals = Totals::default();
        for entry in self.store.entries() {
            match entry.parsed() {
                Some(SessionEntry::Compaction(compaction)) => {
                    if let Some(usage) = &compaction.usage {
                        totals.add(usage);
                    }
                }
                Some(SessionEntry::BranchSummary(summary)) => {
                    if let Some(usage) = &summary.usage {
                        totals.add(usage);
                    }
                }
                Some(SessionEntry::Message(message)) => {
                    total += 1;
                    match &message.message {
                        AgentMessage::User(_) => user += 1,
                        AgentMessage::ToolResult(result) => {
                            tool_results += 1;
                            if let Some(usage) = &result.usage {
                                totals.add(usage);
                            }
                        }
                        AgentMessage::Assistant(message) => {
                            assistant += 1;
                            tool_calls += message
                                .content
                                .iter()
                                .filter(|block| matches!(block, AssistantContent::ToolCall(_)))
                                .count() as u64;
                            totals.add(&message.usage);
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
        let tokens = &mut totals.tokens;
        tokens.total = tokens.input + tokens.output + tokens.cache_read + tokens.cache_write;
        SessionStats {
            session_file: self
                .store
                .session_file()
                .map(|path| path.to_string_lossy().into_owned()),
            session_id: self.store.session_id().to_owned(),
            user_messages: user,
            assistant_messages: assistant,
            tool_calls,
            tool_results,
            total_messages: total,
            tokens: totals.tokens,
            cost: totals.cost,
            context_usage: self.context_usage(),
        }
    }

    /// How full the context window is: the last trustworthy usage plus an estimate of what
    /// came after it. Unknown (`null`) after a compaction until an assistant answered again.
    fn context_usage(&self) -> Option<ContextUsage> {
        if self.model.provider == "unknown" || self.model.context_window == 0 {
            return None;
        }
        let context_window = self.model.context_window;
        let branch = self.store.branch(None);
        let compaction = branch
            .iter()
            .rposition(|entry| matches!(entry.parsed(), Some(SessionEntry::Compaction(_))));
        if let Some(index) = compaction {
            let answered_since = branch[index + 1..].iter().any(|entry| {
                matches!(entry.parsed(), Some(SessionEntry::Message(message))
                    if matches!(&message.message, AgentMessage::Assistant(assistant)
                        if !matches!(assistant.stop_reason, StopReason::Aborted | StopReason::Error)
                            && context_tokens(&assistant.usage) > 0))
            });
            if !answered_since {
                return Some(ContextUsage {
                    tokens: None,
                    context_window,
                    percent: None,
                });
            }
        }
        let tokens = estimate_context_tokens(&self.messages);
        Some(ContextUsage {
            tokens: Some(tokens),
            context_window,
            percent: Some(tokens as f64 / context_window as f64 * 100.0),
        })
    }
}

fn context_tokens(usage: &Usage) -> u64 {
    if usage.total_tokens > 0 {
        usage.total_tokens
    } else {
        usage.input + usage.output + usage.cache_read + usage.cache_write
    }
}

/// The usage of the last assistant message that answered normally with some tokens.
fn trusted_usage(message: &AgentMessage) -> Option<&Usage> {
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

/// The last trustworthy usage, plus the estimate of every message after it.
pub(crate) fn estimate_context_tokens(messages: &[AgentMessage]) -> u64 {
    let last = messages
        .iter()
        .enumerate()
        .rev()
        .find_map(|(index, message)| trusted_usage(message).map(|usage| (index, usage)));
    match last {
        Some((index, usage)) => {
            context_tokens(usage)
                + messages[index + 1..]
                    .iter()
                    .map(estimate_tokens)
                    .sum::<u64>()
        }
        None => messages.iter().map(estimate_tokens).sum(),
    }
}

/// Length in UTF-16 units, as JavaScript counts it.
fn js_len(text: &str) -> usize {
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
pub(crate) fn estimate_tokens(message: &AgentMessage) -> u64 {
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
    };
    chars.div_ceil(4) as u64
}

/// `get_commands` data: the built-in `llama` extension command the reference always lists,
/// then prompt templates, then skills as `skill:NAME`.
pub(super) fn commands_data(resources: &crate::resources::Resources) -> serde_json::Value {
    use serde_json::json;
    let mut commands = vec![json!({
        "name": "llama",
        "description": "Manage llama.cpp router models",
        "source": "extension",
        "sourceInfo": {"path": "<inline:llama.cpp>", "source": "inline", "scope": "temporary", "origin": "top-level"},
    })];
    for template in &resources.templates {
        commands.push(json!({
            "name": template.name,
            "description": template.description,
            "source": "prompt",
            "sourceInfo": template.source_info,
        }));
    }
    for skill in &resources.skills {
        commands.push(json!({
            "name": format!("skill:{}", skill.name),
            "description": skill.description,
            "source": "skill",
            "sourceInfo": skill.source_info,
        }));
    }
    json!({ "commands": commands })
}
