//! `get_session_stats`: message counts and token/cost totals over every entry of the session
//! (compacted history included), and the context usage of the active conversation.

use pi_rpc_protocol::RequestId;
use pi_rpc_protocol::content::AssistantContent;
use pi_rpc_protocol::message::{AgentMessage, StopReason};
use pi_rpc_protocol::response::{ContextUsage, SessionStats, TokenTotals};
use pi_rpc_protocol::session::SessionEntry;
use pi_rpc_protocol::usage::Usage;

use crate::actor::State;
use crate::compaction::estimate::{context_tokens, estimate_context};

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

impl State {
    pub(super) fn get_session_stats_command(&mut self, id: Option<RequestId>) {
        let stats = self.session_stats();
        self.respond(id, "get_session_stats", &stats);
    }

    fn session_stats(&self) -> SessionStats {
        let (mut user, mut assistant, mut tool_results, mut total, mut tool_calls) =
            (0, 0, 0, 0, 0);
        let mut totals = Totals::default();
        for entry in self.store.entries() {
            if let Some(message) = entry.message() {
                // Counted without keeping the parse: a pass over a whole long session.
                let _ = message.with_typed(|message| {
                    total += 1;
                    match message {
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
                });
                continue;
            }
            if !matches!(entry.kind(), "compaction" | "branch_summary") {
                continue;
            }
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
    pub(in crate::actor) fn context_usage(&self) -> Option<ContextUsage> {
        let context_window = self.model.as_ref()?.context_window;
        if context_window == 0 {
            return None;
        }
        let branch = self.store.branch(None);
        let compaction = branch.iter().rposition(|entry| {
            entry.kind() == "compaction"
                && matches!(entry.parsed(), Some(SessionEntry::Compaction(_)))
        });
        if let Some(index) = compaction {
            let answered_since = branch[index + 1..].iter().any(|entry| {
                entry.is_assistant_message()
                    && entry.typed_message().is_some_and(|message| {
                        matches!(message, AgentMessage::Assistant(assistant)
                        if !matches!(assistant.stop_reason, StopReason::Aborted | StopReason::Error)
                            && context_tokens(&assistant.usage) > 0)
                    })
            });
            if !answered_since {
                return Some(ContextUsage {
                    tokens: None,
                    context_window,
                    percent: None,
                });
            }
        }
        let tokens = estimate_context(&self.messages).tokens;
        Some(ContextUsage {
            tokens: Some(tokens),
            context_window,
            percent: Some(tokens as f64 / context_window as f64 * 100.0),
        })
    }
}
