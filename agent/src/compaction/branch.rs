//! The summary of a branch left by tree navigation (`ctx.navigateTree(.., {summarize: true})`):
//! the entries from the old leaf back to where the two branches meet, newest first until the
//! model's context budget is used up, written out as plain text as a compaction's are, with the
//! files the branch read and changed listed after the model's answer.

use pi_rpc_protocol::content::AssistantContent;
use pi_rpc_protocol::event::Event;
use pi_rpc_protocol::message::{AgentMessage, AssistantMessage, StopReason};
use pi_rpc_protocol::usage::Usage;

use super::estimate::estimate_tokens;
use super::files::{FileLists, FileOps};
use super::summarize::{
    CallShape, SummaryContext, SummaryError, answer_text, call, serialize_conversation,
};
use crate::convert::convert_to_llm;
use crate::release::{Feature, RpcRelease};
use crate::store::{Entry, context_message};

/// What the summary text starts with, so that the model reading it later knows where it comes
/// from (the reference's words: the text is part of the session, which its tools show).
const PREAMBLE: &str = "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n";

/// The summary when the branch holds nothing to summarise.
const NOTHING: &str = "No content to summarize";

/// What to write, in our words: the layout the summary follows.
const BRANCH_TASK: &str = "The conversation above is a branch the user has now left. Write a \
summary of it that can be read when the conversation comes back to this point later.

Use these headings, in this order:

## Goal
What the user wanted from this branch.

## Constraints & Preferences
- Rules and wishes the user stated, or \"(none)\".

## Progress
### Done
- [x] Each completed piece of work.
### In Progress
- [ ] Work begun and not finished.
### Blocked
- Whatever stood in the way, if anything.

## Key Decisions
- **What was chosen**: the reason.

## Next Steps
1. What should follow, first one first.

Keep each section short. Copy file paths, identifiers and error texts exactly.";

/// The longest answer a branch summary may have (before 0.85.0; then 4096, from 1.4.0 the
/// model's own limit).
const MAX_TOKENS: u64 = 2048;
const LONGER_MAX_TOKENS: u64 = 4096;

/// How big the answer may be and whether the model thinks, as the release asks.
fn shape(context: &SummaryContext) -> CallShape {
    let release = context.release;
    let model = context.model.max_tokens;
    let max_tokens = if release.has(Feature::BranchSummaryModelMaxTokens) {
        model
    } else if release.has(Feature::BranchSummaryLongerAnswer) {
        match model {
            0 => LONGER_MAX_TOKENS,
            model => model.min(LONGER_MAX_TOKENS),
        }
    } else {
        MAX_TOKENS
    };
    CallShape {
        max_tokens,
        thinking: release.has(Feature::BranchSummaryThinks),
    }
}

/// Why an answer is no summary (a failed call; from 0.84.3 one that calls a tool, from 0.84.4
/// one cut at the token cap), in the release's words.
fn failure(answer: &AssistantMessage, release: RpcRelease) -> Option<String> {
    let named = release.has(Feature::BranchSummaryFailureNamed);
    let error = answer.error_message.as_deref().filter(|e| !e.is_empty());
    match answer.stop_reason {
        StopReason::Error if named => {
            let error = error.unwrap_or("Unknown error");
            return Some(format!("Branch summarization failed: {error}"));
        }
        StopReason::Error => return Some(error.unwrap_or("Summarization failed").to_owned()),
        StopReason::Length if named => {
            return Some(
                "Branch summarization failed: generation hit the token cap and the summary is \
                 incomplete"
                    .to_owned(),
            );
        }
        _ => {}
    }
    let calls_tool = answer
        .content
        .iter()
        .any(|block| matches!(block, AssistantContent::ToolCall(_)));
    (calls_tool && release.has(Feature::BranchSummaryRefusesToolCalls))
        .then(|| "Branch summarization attempted to call a tool".to_owned())
}

/// A branch summary: its text, the model call's usage and the files it names.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchSummary {
    /// The summary text, preamble and file lists included.
    pub text: String,
    /// Usage of the model call (none when there was nothing to summarise).
    pub usage: Option<Usage>,
    /// The files the branch read and changed.
    pub files: FileLists,
}

/// The messages of `entries` (oldest first) to summarise: walking back from the newest, as many
/// as fit in `token_budget` (0: no limit; a summary that does not fit is still taken while less
/// than 90% of the budget is used), and the files of all of them (tool calls, and the lists of
/// earlier model-written branch summaries).
pub fn branch_messages(entries: &[&Entry], token_budget: u64) -> (Vec<AgentMessage>, FileOps) {
    let mut files = FileOps::default();
    for entry in entries {
        let from_model = entry.field("fromHook").and_then(|v| v.as_bool()) != Some(true);
        if entry.kind() == "branch_summary"
            && from_model
            && let Some(details) = entry.field("details")
        {
            files.add_details(&details);
        }
    }
    let mut messages = Vec::new();
    let mut total = 0;
    for entry in entries.iter().rev() {
        let Some(message) = context_message(entry) else {
            continue;
        };
        if matches!(message, AgentMessage::ToolResult(_)) {
            continue;
        }
        files.add_message(&message);
        let tokens = estimate_tokens(&message);
        if token_budget > 0 && total + tokens > token_budget {
            let summary = matches!(entry.kind(), "compaction" | "branch_summary");
            if summary && (total as f64) < token_budget as f64 * 0.9 {
                messages.push(message);
            }
            break;
        }
        messages.push(message);
        total += tokens;
    }
    messages.reverse();
    (messages, files)
}

/// The prompt of a branch summary: the conversation, then the task (ours, with the caller's
/// focus added, or the caller's instructions alone when they replace it).
pub fn branch_prompt(
    messages: &[AgentMessage],
    custom_instructions: Option<&str>,
    replace_instructions: bool,
) -> String {
    let instructions = match custom_instructions.filter(|text| !text.is_empty()) {
        Some(custom) if replace_instructions => custom.to_owned(),
        Some(custom) => format!("{BRANCH_TASK}\n\nAdditional focus: {custom}"),
        None => BRANCH_TASK.to_owned(),
    };
    format!(
        "<conversation>\n{}\n</conversation>\n\n{instructions}",
        serialize_conversation(&convert_to_llm(messages))
    )
}

/// Summarises the branch `entries` (oldest first) with one model call (its retries announced
/// through `on_event`). `reserve_tokens` (`branchSummary.reserveTokens`) is what the context
/// window keeps free of the conversation sent.
pub async fn summarize_branch(
    entries: &[&Entry],
    custom_instructions: Option<&str>,
    replace_instructions: bool,
    reserve_tokens: u64,
    context: &SummaryContext,
    on_event: &mut (dyn FnMut(Event) + Send),
) -> Result<BranchSummary, SummaryError> {
    let window = match context.model.context_window {
        0 => 128_000,
        window => window,
    };
    let (messages, files) = branch_messages(entries, window.saturating_sub(reserve_tokens));
    let files = files.lists();
    if messages.is_empty() {
        return Ok(BranchSummary {
            text: NOTHING.to_owned(),
            usage: None,
            files: FileLists::default(),
        });
    }
    let prompt = branch_prompt(&messages, custom_instructions, replace_instructions);
    let answer = call(prompt, shape(context), context, on_event).await?;
    if let Some(error) = failure(&answer, context.release) {
        return Err(SummaryError::Failed(error));
    }
    let text = answer_text(&answer, "Summarization failed")?;
    Ok(BranchSummary {
        text: format!("{PREAMBLE}{text}{}", files.summary_suffix()),
        usage: Some(answer.usage),
        files,
    })
}

#[cfg(test)]
mod tests {
    use pi_rpc_protocol::content::{TextContent, ToolCall};

    use super::*;

    fn entry(line: &str) -> Entry {
        Entry::from_line(line).unwrap()
    }

    fn answer(stop_reason: StopReason, content: Vec<AssistantContent>) -> AssistantMessage {
        let mut message: AssistantMessage = serde_json::from_str(
            r#"{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1}"#,
        )
        .unwrap();
        message.stop_reason = stop_reason;
        message.content = content;
        message
    }

    #[test]
    fn the_branch_is_written_out_without_tool_results_and_with_the_files_of_earlier_summaries() {
        let entries = [
            entry(
                r#"{"type":"branch_summary","id":"b1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","fromId":"x","summary":"Earlier","details":{"readFiles":["a.txt"],"modifiedFiles":[]}}"#,
            ),
            entry(
                r#"{"type":"message","id":"m1","parentId":"b1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"Hello"}],"timestamp":1}}"#,
            ),
            entry(
                r#"{"type":"message","id":"m2","parentId":"m1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"toolResult","toolCallId":"c","toolName":"read","content":[{"type":"text","text":"file"}],"isError":false,"timestamp":2}}"#,
            ),
        ];
        let refs: Vec<&Entry> = entries.iter().collect();
        let (messages, files) = branch_messages(&refs, 0);
        assert_eq!(messages.len(), 2, "the tool result is left out");
        assert_eq!(files.lists().read_files, ["a.txt"]);
        let prompt = branch_prompt(&messages[1..], Some("Only names"), false);
        assert!(prompt.starts_with("<conversation>\n[User]: Hello\n</conversation>\n\n"));
        assert!(prompt.ends_with("\n\nAdditional focus: Only names"));
        let replaced = branch_prompt(&messages[1..], Some("Only names"), true);
        assert!(replaced.ends_with("</conversation>\n\nOnly names"));
        // A budget that the newest message already exceeds keeps nothing.
        let (messages, _) = branch_messages(&refs[1..], 1);
        assert!(messages.is_empty());
    }

    #[test]
    fn failures_are_worded_as_the_release_words_them() {
        let old = RpcRelease::DEFAULT;
        let new = RpcRelease::NEWEST;
        let mut failed = answer(StopReason::Error, Vec::new());
        failed.error_message = Some("boom".into());
        assert_eq!(failure(&failed, old).as_deref(), Some("boom"));
        assert_eq!(
            failure(&failed, new).as_deref(),
            Some("Branch summarization failed: boom")
        );
        let cut = answer(StopReason::Length, Vec::new());
        assert_eq!(failure(&cut, old), None);
        assert!(failure(&cut, new).unwrap().contains("token cap"));
        let call = ToolCall {
            id: "c".into(),
            name: "read".into(),
            arguments: serde_json::Map::new(),
            thought_signature: None,
            extra: serde_json::Map::new(),
        };
        let calling = answer(StopReason::ToolUse, vec![AssistantContent::ToolCall(call)]);
        assert_eq!(failure(&calling, old), None);
        assert_eq!(
            failure(&calling, new).as_deref(),
            Some("Branch summarization attempted to call a tool")
        );
        let text = AssistantContent::Text(TextContent::new("fine"));
        assert_eq!(failure(&answer(StopReason::Stop, vec![text]), new), None);
    }
}
