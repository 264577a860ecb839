//! Compaction: older history is replaced by a model-written summary so that the conversation
//! fits the context window again.
//!
//! [`prepare`] looks at the active branch and decides what to keep: walking back from the newest
//! entry it keeps about `keepRecentTokens` worth of messages (cutting only where a turn may
//! start or at an assistant message, never at a tool result), and collects what comes before
//! for summarisation. When the cut falls inside a turn, the start of that turn is summarised on
//! its own ("split turn"). [`summarize`] makes the model calls; the session records the result
//! as a `compaction` entry, and from then on the model sees the summary followed by the kept
//! messages.
//!
//! When compaction runs (the `compact` command, after a run whose context crossed
//! `contextWindow - reserveTokens`, or after the provider reported an overflow) is the
//! session's business; see `actor::compaction`.

pub mod branch;
pub mod estimate;
pub mod files;
pub mod summarize;

use pi_rpc_protocol::message::AgentMessage;
use serde_json::Value;

use crate::store::{Entry, context_message};
use files::FileOps;

/// `compaction.*` settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactionSettings {
    /// Tokens kept free for the answer: automatic compaction starts above
    /// `contextWindow - reserveTokens`.
    pub reserve_tokens: u64,
    /// About how many tokens of recent messages stay verbatim.
    pub keep_recent_tokens: u64,
}

impl Default for CompactionSettings {
    fn default() -> Self {
        Self {
            reserve_tokens: 16_384,
            keep_recent_tokens: 20_000,
        }
    }
}

/// What a compaction summarises and keeps, decided before any model call.
#[derive(Debug, Clone, PartialEq)]
pub struct Preparation {
    /// The first entry kept verbatim.
    pub first_kept_entry_id: String,
    /// Messages replaced by the summary (before the turn the cut splits, if any).
    pub messages_to_summarize: Vec<AgentMessage>,
    /// The start of the turn the cut splits (empty when the cut is at a turn start).
    pub turn_prefix_messages: Vec<AgentMessage>,
    /// Whether the cut falls inside a turn.
    pub is_split_turn: bool,
    /// The context size before compaction.
    pub tokens_before: u64,
    /// The summary of the previous compaction on the branch, to be updated.
    pub previous_summary: Option<String>,
    /// Files read and changed in the summarised stretch (and by earlier compactions).
    pub file_ops: FileOps,
}

/// Where to cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutPoint {
    /// Index of the first kept entry.
    pub first_kept_index: usize,
    /// Index of the entry that starts the split turn, when the cut is inside a turn.
    pub turn_start_index: Option<usize>,
}

fn is_compaction(entry: &Entry) -> bool {
    entry.kind() == "compaction"
}

/// Whether a message may be the first kept one: any but a tool result.
fn is_cut_point(message: &AgentMessage) -> bool {
    !matches!(message, AgentMessage::ToolResult(_))
}

/// Whether a message starts a turn: a user-side message.
fn is_turn_start(message: &AgentMessage) -> bool {
    !matches!(
        message,
        AgentMessage::Assistant(_) | AgentMessage::ToolResult(_)
    )
}

/// The message an entry contributes to the context, if any (compactions do not count here).
/// The message an entry contributes to what is summarized: none for a compaction, nor for a
/// `system` message (the prompt and tools a conversation declares are not summarized).
fn entry_message(entry: &Entry) -> Option<AgentMessage> {
    if is_compaction(entry) {
        return None;
    }
    context_message(entry).filter(|message| !matches!(message, AgentMessage::System(_)))
}

fn starts_turn(entry: &Entry) -> bool {
    entry_message(entry).is_some_and(|message| is_turn_start(&message))
}

/// Finds where to cut `entries[start..end]` so that about `keep_recent_tokens` stay: walking
/// back from the newest entry, the first cut point at or after the entry where the kept
/// estimate reaches the budget; the oldest cut point when it never does. Metadata entries just
/// before the cut (model or thinking changes) are kept with it.
pub fn find_cut_point(
    entries: &[&Entry],
    start: usize,
    end: usize,
    keep_recent_tokens: u64,
) -> CutPoint {
    let messages: Vec<Option<AgentMessage>> = entries.iter().map(|e| entry_message(e)).collect();
    let cut_points: Vec<usize> = (start..end)
        .filter(|&index| messages[index].as_ref().is_some_and(is_cut_point))
        .collect();
    let Some(&oldest) = cut_points.first() else {
        return CutPoint {
            first_kept_index: start,
            turn_start_index: None,
        };
    };
    let mut cut = oldest;
    let mut kept = 0;
    for index in (start..end).rev() {
        let tokens = messages[index]
            .as_ref()
            .map_or(0, estimate::estimate_tokens);
        if tokens == 0 {
            continue;
        }
        kept += tokens;
        if kept >= keep_recent_tokens {
            if let Some(&point) = cut_points.iter().find(|&&point| point >= index) {
                cut = point;
            }
            break;
        }
    }
    while cut > start {
        let previous = entries[cut - 1];
        if is_compaction(previous) || context_message(previous).is_some() {
            break;
        }
        cut -= 1;
    }
    let turn_start_index = if starts_turn(entries[cut]) {
        None
    } else {
        (start..=cut)
            .rev()
            .find(|&index| starts_turn(entries[index]))
    };
    CutPoint {
        first_kept_index: cut,
        turn_start_index,
    }
}

/// Decides what a compaction of `path` (the active branch, root first) summarises and keeps.
/// `context` is what the model sees of that branch now. `None` when there is nothing to
/// summarise, or when the branch already ends with a compaction.
pub fn prepare<L: estimate::Messages + ?Sized>(
    path: &[&Entry],
    context: &L,
    settings: CompactionSettings,
) -> Option<Preparation> {
    if path.last().is_some_and(|entry| is_compaction(entry)) {
        return None;
    }
    let previous_index = path.iter().rposition(|entry| is_compaction(entry));
    let mut previous_summary = None;
    let mut boundary_start = 0;
    let mut file_ops = FileOps::default();
    if let Some(index) = previous_index {
        let previous = path[index].raw();
        previous_summary = previous
            .get("summary")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let first_kept = previous.get("firstKeptEntryId").and_then(Value::as_str);
        boundary_start = path
            .iter()
            .position(|entry| Some(entry.id()) == first_kept)
            .unwrap_or(index + 1);
        let from_hook = previous.get("fromHook").and_then(Value::as_bool) == Some(true);
        if let (false, Some(details)) = (from_hook, previous.get("details")) {
            file_ops.add_details(details);
        }
    }
    let boundary_end = path.len();
    let tokens_before = estimate::estimate_context(context).tokens;
    let cut = find_cut_point(
        path,
        boundary_start,
        boundary_end,
        settings.keep_recent_tokens,
    );
    let first_kept = path.get(cut.first_kept_index)?;
    if first_kept.id().is_empty() {
        return None;
    }
    let history_end = cut.turn_start_index.unwrap_or(cut.first_kept_index);
    let collect = |range: std::ops::Range<usize>| -> Vec<AgentMessage> {
        path.get(range)
            .unwrap_or_default()
            .iter()
            .filter_map(|entry| entry_message(entry))
            .collect()
    };
    let messages_to_summarize = collect(boundary_start..history_end);
    let turn_prefix_messages = match cut.turn_start_index {
        Some(turn_start) => collect(turn_start..cut.first_kept_index),
        None => Vec::new(),
    };
    if messages_to_summarize.is_empty() && turn_prefix_messages.is_empty() {
        return None;
    }
    for message in messages_to_summarize.iter().chain(&turn_prefix_messages) {
        file_ops.add_message(message);
    }
    Some(Preparation {
        first_kept_entry_id: first_kept.id().to_owned(),
        messages_to_summarize,
        turn_prefix_messages,
        is_split_turn: cut.turn_start_index.is_some(),
        tokens_before,
        previous_summary,
        file_ops,
    })
}

#[cfg(test)]
mod tests;
