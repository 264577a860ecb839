//! Output-token limits and thinking budgets, as the reference derives them for every wire format.
//!
//! `max_tokens` is the model's limit, lowered when the context window minus the estimated
//! context (and a 4096-token safety margin) leaves less. With thinking on, the budget for the
//! level (minimal 1024, low 2048, medium 8192, high 16384; xhigh and max count as high) is
//! added on top, within the model's limit, and always leaves 1024 tokens for the answer.

use pi_rpc_protocol::content::{AssistantContent, MessageContent, UserContent};
use pi_rpc_protocol::message::{AgentMessage, StopReason};
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use pi_rpc_protocol::usage::Usage;
use serde_json::{Value, json};

use super::LlmRequest;
pub use crate::config::ThinkingBudgets;
use crate::js::utf16_len;
use crate::store::{Role, SharedMessage};

const CONTEXT_SAFETY_TOKENS: i64 = 4096;
const MIN_ANSWER_TOKENS: i64 = 1024;
const CHARS_PER_TOKEN: f64 = 4.0;
const IMAGE_CHARS: usize = 4800;

/// The thinking budget of a level (before it is fitted into the output limit).
pub fn default_thinking_budget(level: ThinkingLevel) -> i64 {
    match level {
        ThinkingLevel::Off | ThinkingLevel::Minimal => 1024,
        ThinkingLevel::Low => 2048,
        ThinkingLevel::Medium => 8192,
        ThinkingLevel::High | ThinkingLevel::Xhigh | ThinkingLevel::Max => 16384,
    }
}

/// Lowers `max_tokens` so that the estimated context plus the answer fits the context window.
pub fn clamp_to_context(model: &Model, context_tokens: i64, max_tokens: i64) -> i64 {
    let window = model.context_window as i64;
    if window <= 0 {
        return max_tokens.max(1);
    }
    let available = window - context_tokens - CONTEXT_SAFETY_TOKENS;
    max_tokens.min(available.max(1))
}

/// `max_tokens` and the thinking budget for a request with thinking at `level` (the custom
/// budget of `budgets` if it has one).
pub fn fit_thinking(
    base_max_tokens: i64,
    model_max_tokens: i64,
    level: ThinkingLevel,
    budgets: &ThinkingBudgets,
) -> (i64, i64) {
    let mut budget = budgets
        .get(level)
        .unwrap_or_else(|| default_thinking_budget(level));
    let max_tokens = (base_max_tokens + budget).min(model_max_tokens);
    if max_tokens <= budget {
        budget = (max_tokens - MIN_ANSWER_TOKENS).max(0);
    }
    (max_tokens, budget)
}

/// The reference's estimate of a request's context in tokens: the last successful assistant
/// message's reported usage plus about four characters per token for what follows it, or, with
/// no usable report, the whole history, system prompt and tool definitions at four characters
/// per token.
pub fn estimate_context_tokens(request: &LlmRequest) -> i64 {
    // The report is found from what each message says of itself (a message held as text is
    // read without its content); only the messages counted at four characters per token are
    // parsed, each while it is counted.
    let messages = &request.messages;
    let mut latest_timestamp = f64::NEG_INFINITY;
    let mut last_usage: Option<(usize, i64)> = None;
    for (index, message) in messages.iter().enumerate() {
        let Some(probe) = probe(message) else {
            continue;
        };
        if let Some(reported) = probe.usable_report
            && probe.timestamp as f64 >= latest_timestamp
            && reported > 0
        {
            last_usage = Some((index, reported));
        }
        latest_timestamp = latest_timestamp.max(probe.timestamp as f64);
    }
    let counted = |messages: &[std::sync::Arc<SharedMessage>]| -> i64 {
        messages
            .iter()
            .filter_map(|message| message.with_typed(message_tokens))
            .sum()
    };
    match last_usage {
        Some((index, reported)) => reported + counted(&messages[index + 1..]),
        None => {
            let system = if request.system_prompt.is_empty() {
                0
            } else {
                text_tokens(utf16_len(&request.system_prompt))
            };
            counted(messages) + system + tools_tokens(request)
        }
    }
}

/// What the estimate needs of a message: its timestamp, and the context an assistant message
/// that did not fail reports.
struct Probed {
    timestamp: u64,
    usable_report: Option<i64>,
}

/// The fields [`Probed`] comes from, read from a message's text (the rest is skipped).
#[derive(serde::Deserialize)]
struct ProbeFields {
    timestamp: u64,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(rename = "stopReason", default)]
    stop_reason: Option<StopReason>,
}

fn probe(message: &SharedMessage) -> Option<Probed> {
    let assistant = message.role() == Role::Assistant;
    if let Some(typed) = message.parsed() {
        let usable_report = match typed {
            AgentMessage::Assistant(assistant) if !failed(assistant.stop_reason) => {
                Some(context_tokens(&assistant.usage))
            }
            _ => None,
        };
        return Some(Probed {
            timestamp: timestamp(typed),
            usable_report,
        });
    }
    if message.role() == Role::Other {
        return None;
    }
    let text = message.text()?;
    let fields: ProbeFields = serde_json::from_str(text)
        .or_else(|_| pi_rpc_protocol::surrogates::from_str(text))
        .ok()?;
    let usable_report = match (assistant, fields.usage, fields.stop_reason) {
        (true, Some(usage), Some(stop_reason)) if !failed(stop_reason) => {
            Some(context_tokens(&usage))
        }
        _ => None,
    };
    Some(Probed {
        timestamp: fields.timestamp,
        usable_report,
    })
}

fn failed(stop_reason: StopReason) -> bool {
    matches!(stop_reason, StopReason::Aborted | StopReason::Error)
}

fn context_tokens(usage: &Usage) -> i64 {
    let total = usage.total_tokens as i64;
    if total != 0 {
        return total;
    }
    (usage.input + usage.output + usage.cache_read + usage.cache_write) as i64
}

fn timestamp(message: &AgentMessage) -> u64 {
    match message {
        AgentMessage::User(m) => m.timestamp,
        AgentMessage::Assistant(m) => m.timestamp,
        AgentMessage::ToolResult(m) => m.timestamp,
        AgentMessage::BashExecution(m) => m.timestamp,
        AgentMessage::Custom(m) => m.timestamp,
        AgentMessage::CompactionSummary(m) => m.timestamp,
        AgentMessage::BranchSummary(m) => m.timestamp,
        AgentMessage::System(m) => m.timestamp,
    }
}

fn text_tokens(chars: usize) -> i64 {
    (chars as f64 / CHARS_PER_TOKEN).ceil() as i64
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

fn message_tokens(message: &AgentMessage) -> i64 {
    let chars = match message {
        AgentMessage::User(user) => match &user.content {
            MessageContent::Text(text) => utf16_len(text),
            MessageContent::Blocks(blocks) => blocks_chars(blocks),
        },
        AgentMessage::ToolResult(result) => blocks_chars(&result.content),
        AgentMessage::Assistant(assistant) => assistant
            .content
            .iter()
            .map(|block| match block {
                AssistantContent::Text(text) => utf16_len(&text.text),
                AssistantContent::Thinking(thinking) => utf16_len(&thinking.thinking),
                AssistantContent::ToolCall(call) => {
                    utf16_len(&call.name)
                        + pi_rpc_protocol::json::to_string(&call.arguments)
                            .map(|text| utf16_len(&text))
                            .unwrap_or(0)
                }
            })
            .sum(),
        _ => 0,
    };
    text_tokens(chars)
}

/// The tools as the reference's agent holds them (`name`, `label`, `description`,
/// `parameters`), serialised, at four characters per token.
fn tools_tokens(request: &LlmRequest) -> i64 {
    if request.tools.is_empty() {
        return 0;
    }
    let tools: Vec<Value> = request
        .tools
        .iter()
        .map(|tool| {
            json!({
                "name": tool.name,
                "label": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            })
        })
        .collect();
    let text = pi_rpc_protocol::json::to_string(&tools).unwrap_or_default();
    text_tokens(utf16_len(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_fits_inside_the_model_limit() {
        let none = ThinkingBudgets::default();
        assert_eq!(
            fit_thinking(8192, 8192, ThinkingLevel::Medium, &none),
            (8192, 7168)
        );
        assert_eq!(
            fit_thinking(8192, 64000, ThinkingLevel::Medium, &none),
            (16384, 8192)
        );
        assert_eq!(
            fit_thinking(100_000, 200_000, ThinkingLevel::Xhigh, &none),
            (116_384, 16384)
        );
        assert_eq!(
            fit_thinking(500, 500, ThinkingLevel::Minimal, &none),
            (500, 0)
        );
    }

    #[test]
    fn a_custom_budget_replaces_the_level_s_default_and_still_fits() {
        let budgets = ThinkingBudgets {
            levels: [None, Some(3000), None, Some(50_000)],
        };
        assert_eq!(
            fit_thinking(8192, 64000, ThinkingLevel::Low, &budgets),
            (11_192, 3000)
        );
        // xhigh and max take the high budget; one beyond the limit leaves 1024 for the answer.
        assert_eq!(
            fit_thinking(8192, 32000, ThinkingLevel::Max, &budgets),
            (32000, 30_976)
        );
        assert_eq!(budgets.get(ThinkingLevel::Off), None);
        assert_eq!(budgets.get(ThinkingLevel::Medium), None);
    }
}
