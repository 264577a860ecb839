//! The parts of compaction no scenario pins: cut points, estimates, file lists, the text the
//! summariser reads, and what a second compaction builds on.

use serde_json::{Value, json};

use super::estimate::{estimate_context, estimate_tokens};
use super::summarize::{history_prompt, serialize_conversation, turn_prefix_prompt};
use super::*;

fn entry(id: &str, parent: Option<&str>, kind: &str, extra: Value) -> Entry {
    let mut raw = serde_json::Map::new();
    raw.insert("type".into(), kind.into());
    raw.insert("id".into(), id.into());
    raw.insert("parentId".into(), parent.map_or(Value::Null, Value::from));
    raw.insert("timestamp".into(), "2026-11-30T10:00:00.000Z".into());
    if let Value::Object(fields) = extra {
        raw.extend(fields);
    }
    Entry::from_raw(raw)
}

fn user(text: &str) -> Value {
    json!({"message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}})
}

fn assistant(content: Value, total_tokens: u64) -> Value {
    json!({"message": {
        "role": "assistant", "content": content, "api": "anthropic-messages",
        "provider": "mock", "model": "m",
        "usage": {"input": total_tokens, "output": 0, "cacheRead": 0, "cacheWrite": 0,
                  "totalTokens": total_tokens,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "stop", "timestamp": 2
    }})
}

fn text(text: &str) -> Value {
    json!([{"type": "text", "text": text}])
}

fn tool_call(id: &str, name: &str, path: &str) -> Value {
    json!([{"type": "toolCall", "id": id, "name": name, "arguments": {"path": path}}])
}

fn tool_result(id: &str, text: &str) -> Value {
    json!({"message": {"role": "toolResult", "toolCallId": id, "toolName": "read",
        "content": [{"type": "text", "text": text}], "isError": false, "timestamp": 3}})
}

/// A chain of entries, each the parent of the next; ids are `e0`, `e1`, ...
fn chain(specs: Vec<(&str, Value)>) -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut parent: Option<String> = None;
    for (index, (kind, extra)) in specs.into_iter().enumerate() {
        let id = format!("e{index}");
        entries.push(entry(&id, parent.as_deref(), kind, extra));
        parent = Some(id);
    }
    entries
}

fn messages(entries: &[&Entry]) -> Vec<AgentMessage> {
    entries.iter().filter_map(|e| context_message(e)).collect()
}

/// 40 characters: 10 tokens.
const TEN: &str = "0123456789012345678901234567890123456789";

#[test]
fn the_cut_never_separates_tool_results_from_their_call() {
    let entries = chain(vec![
        ("message", user(TEN)),
        ("message", assistant(tool_call("t1", "read", "a.txt"), 5)),
        ("message", tool_result("t1", TEN)),
        ("message", assistant(text(TEN), 5)),
    ]);
    let path: Vec<&Entry> = entries.iter().collect();
    // The budget is reached at the tool result (10 + 10 tokens): the cut moves on to the next
    // cut point, the assistant answer after it, inside the turn.
    let cut = find_cut_point(&path, 0, path.len(), 20);
    assert_eq!(
        cut,
        CutPoint {
            first_kept_index: 3,
            turn_start_index: Some(0),
        }
    );
    // A budget reached at the call keeps the call and its result together.
    let cut = find_cut_point(&path, 0, path.len(), 22);
    assert_eq!(cut.first_kept_index, 1);
}

#[test]
fn metadata_just_before_the_cut_is_kept_with_it() {
    let entries = chain(vec![
        ("message", user(TEN)),
        ("message", assistant(text(TEN), 5)),
        ("thinking_level_change", json!({"thinkingLevel": "high"})),
        ("model_change", json!({"provider": "mock", "modelId": "m"})),
        ("message", user(TEN)),
        ("message", assistant(text(TEN), 5)),
    ]);
    let path: Vec<&Entry> = entries.iter().collect();
    // As in the reference, the first kept entry is then the metadata, which does not start a
    // turn: the turn before it counts as split, its start summarised apart.
    let cut = find_cut_point(&path, 0, path.len(), 20);
    assert_eq!(
        cut,
        CutPoint {
            first_kept_index: 2,
            turn_start_index: Some(0),
        }
    );
    let context = messages(&path);
    let settings = CompactionSettings {
        reserve_tokens: 100,
        keep_recent_tokens: 20,
    };
    let preparation = prepare(&path, &context, settings).expect("something to compact");
    assert_eq!(preparation.first_kept_entry_id, "e2");
    assert!(preparation.messages_to_summarize.is_empty());
    assert_eq!(preparation.turn_prefix_messages.len(), 2);
    assert!(preparation.is_split_turn);
    // The last assistant's usage (5) plus nothing after it.
    assert_eq!(preparation.tokens_before, 5);
}

#[test]
fn a_cut_at_a_user_message_is_no_split() {
    let entries = chain(vec![
        ("message", user(TEN)),
        ("message", assistant(text(TEN), 5)),
        ("message", user(TEN)),
        ("message", assistant(text(TEN), 5)),
    ]);
    let path: Vec<&Entry> = entries.iter().collect();
    let settings = CompactionSettings {
        reserve_tokens: 100,
        keep_recent_tokens: 20,
    };
    let preparation = prepare(&path, &messages(&path), settings).expect("compactable");
    assert_eq!(preparation.first_kept_entry_id, "e2");
    assert_eq!(preparation.messages_to_summarize.len(), 2);
    assert!(preparation.turn_prefix_messages.is_empty());
    assert!(!preparation.is_split_turn);
}

#[test]
fn a_budget_never_reached_leaves_nothing_to_compact() {
    let entries = chain(vec![
        ("model_change", json!({"provider": "mock", "modelId": "m"})),
        ("message", user(TEN)),
        ("message", assistant(text(TEN), 5)),
    ]);
    let path: Vec<&Entry> = entries.iter().collect();
    let context = messages(&path);
    assert_eq!(
        prepare(&path, &context, CompactionSettings::default()),
        None
    );
    assert_eq!(prepare(&[], &[], CompactionSettings::default()), None);
}

#[test]
fn a_second_compaction_starts_at_the_first_kept_entry_and_updates_the_summary() {
    let entries = chain(vec![
        ("message", user("old question")),
        ("message", assistant(tool_call("t1", "edit", "old.rs"), 5)),
        ("message", tool_result("t1", "done")),
        ("message", user(TEN)),
        ("message", assistant(tool_call("t2", "read", "kept.rs"), 5)),
        ("message", tool_result("t2", TEN)),
        (
            "compaction",
            json!({"summary": "Earlier work", "firstKeptEntryId": "e3", "tokensBefore": 50,
                   "details": {"readFiles": ["notes.md"], "modifiedFiles": ["old.rs"]}}),
        ),
        ("message", user(TEN)),
        ("message", assistant(text(TEN), 7)),
    ]);
    let path: Vec<&Entry> = entries.iter().collect();
    assert_eq!(
        prepare(&path[..7], &[], CompactionSettings::default()),
        None,
        "a branch that ends with a compaction is already compacted"
    );
    let settings = CompactionSettings {
        reserve_tokens: 100,
        keep_recent_tokens: 20,
    };
    let preparation = prepare(&path, &messages(&path), settings).expect("compactable");
    assert_eq!(
        preparation.previous_summary.as_deref(),
        Some("Earlier work")
    );
    // Summarised: from the previous first kept entry (e3) up to the new cut (e7).
    assert_eq!(preparation.first_kept_entry_id, "e7");
    assert_eq!(preparation.messages_to_summarize.len(), 3);
    let lists = preparation.file_ops.lists();
    assert_eq!(lists.read_files, ["kept.rs", "notes.md"]);
    assert_eq!(lists.modified_files, ["old.rs"]);
    let prompt = history_prompt(
        &preparation.messages_to_summarize,
        preparation.previous_summary.as_deref(),
        Some("Mind the tests"),
    );
    assert!(
        prompt.starts_with("<conversation>\n[User]: 0123"),
        "{prompt}"
    );
    assert!(prompt.contains(
        "\n</conversation>\n\n<previous-summary>\nEarlier work\n</previous-summary>\n\n"
    ));
    assert!(prompt.ends_with("\n\nAdditional focus: Mind the tests"));
    assert!(!prompt.contains("old question"));
}

#[test]
fn a_split_turns_start_is_summarized_under_headings_from_0_87_1() {
    let messages: [AgentMessage; 1] =
        [serde_json::from_value(user("Fix the build")["message"].clone()).unwrap()];
    let release = |text: &str| text.parse::<crate::release::RpcRelease>().unwrap();
    let older = turn_prefix_prompt(&messages, release("0.87.0"));
    assert!(
        older.starts_with(
            "<conversation>\n[User]: Fix the build\n</conversation>\n\nThis is the PREFIX"
        ),
        "{older}"
    );
    let newer = turn_prefix_prompt(&messages, release("0.87.1"));
    assert!(
        newer.starts_with("# Conversation\n[User]: Fix the build\n\n# Instructions\n"),
        "{newer}"
    );
    assert!(!newer.contains("<conversation>"));
}

#[test]
fn file_lists_count_a_read_and_written_file_as_modified_and_are_sorted() {
    let mut ops = files::FileOps::default();
    for (name, path) in [
        ("read", "z.txt"),
        ("read", "b.txt"),
        ("write", "b.txt"),
        ("edit", "a.txt"),
        ("bash", "ignored.txt"),
        ("read", ""),
    ] {
        let message: AgentMessage =
            serde_json::from_value(assistant(tool_call("t", name, path), 1)["message"].clone())
                .expect("assistant message");
        ops.add_message(&message);
    }
    let lists = ops.lists();
    assert_eq!(lists.read_files, ["z.txt"]);
    assert_eq!(lists.modified_files, ["a.txt", "b.txt"]);
    assert_eq!(
        lists.summary_suffix(),
        "\n\n<read-files>\nz.txt\n</read-files>\n\n<modified-files>\na.txt\nb.txt\n</modified-files>"
    );
    assert_eq!(files::FileLists::default().summary_suffix(), "");
    assert_eq!(
        lists.to_details(),
        json!({"readFiles": ["z.txt"], "modifiedFiles": ["a.txt", "b.txt"]})
    );
}

#[test]
fn estimates_count_utf16_units_images_and_tool_arguments() {
    let message = |value: Value| -> AgentMessage {
        serde_json::from_value(value["message"].clone()).expect("message")
    };
    // Five astral characters are ten UTF-16 units: 3 tokens.
    assert_eq!(estimate_tokens(&message(user("😀😀😀😀😀"))), 3);
    let image = json!({"message": {"role": "user", "content": [
        {"type": "image", "data": "AAAA", "mimeType": "image/png"}], "timestamp": 1}});
    assert_eq!(estimate_tokens(&message(image)), 1200);
    // `read` (4) + `{"path":"a.txt"}` (16): 5 tokens.
    let call = message(assistant(tool_call("t", "read", "a.txt"), 1));
    assert_eq!(estimate_tokens(&call), 5);
    // The context: the last usage (7) plus what follows it (10).
    let context = vec![
        message(user(TEN)),
        message(assistant(text("x"), 7)),
        message(user(TEN)),
    ];
    let estimate = estimate_context(&context);
    assert_eq!(estimate.tokens, 17);
    assert_eq!(estimate.last_usage_index, Some(1));
    assert_eq!(estimate_context(&context[..1]).tokens, 10);
}

#[test]
fn the_conversation_text_labels_each_part_and_cuts_long_tool_results() {
    let thinking = json!({"message": {
        "role": "assistant", "api": "a", "provider": "p", "model": "m",
        "content": [
            {"type": "thinking", "thinking": "hmm"},
            {"type": "text", "text": "Let me look."},
            {"type": "toolCall", "id": "t", "name": "read", "arguments": {"path": "a.txt", "limit": 5}}
        ],
        "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "toolUse", "timestamp": 2
    }});
    let long = "x".repeat(2005);
    let messages: Vec<AgentMessage> = [user("Look at a.txt"), thinking, tool_result("t", &long)]
        .into_iter()
        .map(|value| serde_json::from_value(value["message"].clone()).expect("message"))
        .collect();
    let text = serialize_conversation(&messages);
    let expected = format!(
        "[User]: Look at a.txt\n\n[Assistant thinking]: hmm\n\n[Assistant]: Let me look.\n\n\
         [Assistant tool calls]: read(path=\"a.txt\", limit=5)\n\n[Tool result]: {}\n\n\
         [... 5 more characters truncated]",
        "x".repeat(2000)
    );
    assert_eq!(text, expected);
}

#[test]
fn an_added_up_usage_is_recorded_with_cache_write_1h_before_the_total() {
    let usage: pi_rpc_protocol::usage::Usage = serde_json::from_value(json!({
        "input": 20, "output": 10, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 30,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        "cacheWrite1h": 0
    }))
    .expect("usage");
    let keys = |combined: bool| -> Vec<String> {
        let summary = summarize::Summary {
            text: String::new(),
            usage: usage.clone(),
            combined,
        };
        match summary.usage_json() {
            Value::Object(map) => map.keys().cloned().collect(),
            _ => Vec::new(),
        }
    };
    assert_eq!(
        keys(true),
        [
            "input",
            "output",
            "cacheRead",
            "cacheWrite",
            "cacheWrite1h",
            "totalTokens",
            "cost"
        ]
    );
    assert_eq!(
        keys(false),
        [
            "input",
            "output",
            "cacheRead",
            "cacheWrite",
            "totalTokens",
            "cost",
            "cacheWrite1h"
        ]
    );
}
