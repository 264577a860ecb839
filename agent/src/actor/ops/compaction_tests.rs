//! The compaction operation's bookkeeping: which compactions refuse prompts, which one `abort`
//! cancels, and the end event's error.

use super::*;

fn op(then: Then) -> Compaction {
    Compaction {
        stage: Stage::AwaitingSettle { instructions: None },
        reason: CompactionReason::Threshold,
        will_retry: false,
        then,
    }
}

fn prompt() -> AgentMessage {
    serde_json::from_value(serde_json::json!({
        "role": "user", "content": "hi", "timestamp": 1
    }))
    .unwrap()
}

fn result() -> CompactionResult {
    serde_json::from_value(serde_json::json!({
        "summary": "s", "firstKeptEntryId": "e", "tokensBefore": 1
    }))
    .unwrap()
}

#[test]
fn a_manual_compaction_refuses_prompts_only_while_it_summarises() {
    let mut compactions = Compactions::default();
    compactions
        .ops
        .insert(OpKey(1), op(Then::Answer(Answer::Client(None, "compact"))));
    assert!(!compactions.is_active(), "waiting for the settle");
    assert!(!compactions.blocks_prompts());
    compactions.ops.remove(&OpKey(1));
    let manual = CompactionReason::Manual;
    compactions.begin(
        OpKey(1),
        (manual, false),
        Then::Answer(Answer::Client(None, "compact")),
        Stage::Summarizing,
    );
    assert!(compactions.is_active());
    assert!(compactions.blocks_prompts());
    assert_eq!(compactions.compacting(), Some(OpKey(1)));
    assert!(!compactions.none_since_run_start());
}

#[test]
fn an_automatic_compaction_takes_the_prompt_that_waits_and_refuses_prompts_until_it_ends() {
    let mut compactions = Compactions::default();
    compactions.mark_run_start();
    compactions.set_next_prompt(Some((None, prompt())));
    assert!(compactions.blocks_prompts());
    let overflow = (CompactionReason::Overflow, true);
    compactions.begin(OpKey(2), overflow, Then::Run, Stage::Summarizing);
    assert!(matches!(compactions.ops[&OpKey(2)].then, Then::Prompt(..)));
    assert_eq!(
        compactions.compacting(),
        Some(OpKey(2)),
        "abort cancels it too"
    );
    let saved = compactions.ops.get_mut(&OpKey(2)).unwrap();
    saved.stage = Stage::CompactHandlers(Box::new(result()));
    assert!(!compactions.is_active(), "saved: no longer compacting");
    assert!(compactions.blocks_prompts(), "the prompt still waits");
    compactions.ops.clear();
    assert!(!compactions.blocks_prompts());
}

#[test]
fn an_automatic_compaction_after_a_run_leaves_prompts_alone() {
    let mut compactions = Compactions::default();
    let threshold = (CompactionReason::Threshold, false);
    compactions.begin(OpKey(3), threshold, Then::Run, Stage::Summarizing);
    assert!(compactions.is_active());
    assert!(!compactions.blocks_prompts());
}

#[test]
fn the_end_error_names_the_compaction() {
    let cancelled = SummaryError::Cancelled;
    assert_eq!(op(Then::Run).error_message(&cancelled), None);
    let manual = op(Then::Answer(Answer::Client(None, "compact")));
    let failed = manual.error_message(&SummaryError::Failed("boom".into()));
    assert_eq!(failed.as_deref(), Some("Compaction failed: boom"));
}
