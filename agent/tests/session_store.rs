//! The session store's behaviour on real files in temporary folders: lazy writing, ids and
//! parents, names, `get_entries` since, labels and the tree, branching, compaction-aware context.
//! Fork, clone and opening files: `session_files.rs`.
#![allow(clippy::unwrap_used)] // helpers of tests, outside #[test] functions

mod session_store_support;

use std::path::{Path, PathBuf};

use pi_agent::store::{NewCompaction, SessionStore};
use serde_json::json;
use session_store_support::{assistant, file_lines, files_in, started, texts, user};

#[test]
fn nothing_is_written_before_the_first_assistant_message_then_every_entry_is() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let mut store = SessionStore::new(Path::new("/project"), &sessions, true).unwrap();
    // The folder is made at once, the file only later.
    assert!(sessions.is_dir());
    let file = store.session_file().unwrap();
    assert_eq!(file.parent(), Some(sessions.as_path()));
    store.append_model_change("mock", "mock-model-1").unwrap();
    store.append_thinking_level_change("medium").unwrap();
    store.append_session_info("named").unwrap();
    store.append_message(user("hello")).unwrap();
    assert_eq!(files_in(&sessions), Vec::<PathBuf>::new());

    store.append_message(assistant("hi")).unwrap();
    assert_eq!(files_in(&sessions), vec![file.clone()]);
    assert_eq!(file_lines(&file).len(), 6);
    store.append_thinking_level_change("high").unwrap();
    let lines = file_lines(&file);
    assert_eq!(lines.len(), 7);
    assert_eq!(lines[6]["thinkingLevel"], "high");
    assert_eq!(lines[0]["cwd"], "/project");
    assert_eq!(lines[0]["version"], 3);
    assert_eq!(lines[0].get("parentSession"), None);
}

#[test]
fn an_in_memory_session_never_touches_the_disk() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SessionStore::new(Path::new("/project"), &dir.path().join("s"), false).unwrap();
    store.append_message(user("hello")).unwrap();
    store.append_message(assistant("hi")).unwrap();
    assert_eq!(store.session_file(), None);
    assert!(!dir.path().join("s").exists());
    let mut memory = SessionStore::in_memory(Path::new("/project"));
    memory.append_message(user("a")).unwrap();
    memory.append_message(assistant("b")).unwrap();
    memory.clone_at_leaf().unwrap();
    assert_eq!(memory.session_file(), None);
    assert_eq!(memory.parent_session(), None);
    assert_eq!(texts(&memory.branch_messages()), ["a", "b"]);
}

#[test]
fn entry_ids_are_unique_hex_and_each_entry_is_the_child_of_the_leaf() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = started(dir.path());
    for n in 0..200 {
        store.append_message(user(&n.to_string())).unwrap();
    }
    let mut seen = std::collections::HashSet::new();
    let mut parent: Option<String> = None;
    for entry in store.entries() {
        assert_eq!(entry.id().len(), 8);
        assert!(
            entry
                .id()
                .chars()
                .all(|c| matches!(c, '0'..='9' | 'a'..='f'))
        );
        assert!(
            seen.insert(entry.id().to_owned()),
            "duplicate id {}",
            entry.id()
        );
        assert_eq!(entry.parent_id(), parent.as_deref());
        parent = Some(entry.id().to_owned());
    }
    assert_eq!(store.leaf_id(), parent.as_deref());
}

#[test]
fn session_names_are_sanitised_and_the_latest_one_wins() {
    let mut store = SessionStore::in_memory(Path::new("/project"));
    assert_eq!(store.session_name(), None);
    store
        .append_session_info("\u{a0} first\r\n\nname\n ")
        .unwrap();
    assert_eq!(store.session_name().as_deref(), Some("first name"));
    assert_eq!(store.entries()[0].raw()["name"], "first name");
    store.append_session_info("second").unwrap();
    assert_eq!(store.session_name().as_deref(), Some("second"));
    store.append_session_info(" \n ").unwrap();
    assert_eq!(store.session_name(), None);
}

#[test]
fn entries_since_gives_what_follows_or_the_reference_error() {
    let dir = tempfile::tempdir().unwrap();
    let store = started(dir.path());
    let ids: Vec<&str> = store.entries().iter().map(|entry| entry.id()).collect();
    let after: Vec<&str> = store
        .entries_since(Some(ids[1]))
        .unwrap()
        .iter()
        .map(|entry| entry.id())
        .collect();
    assert_eq!(after, &ids[2..]);
    assert!(store.entries_since(Some(ids[3])).unwrap().is_empty());
    assert_eq!(store.entries_since(None).unwrap().len(), 4);
    let error = store.entries_since(Some("nope")).unwrap_err();
    assert_eq!(error.to_string(), "Entry not found: nope");
    let empty = SessionStore::in_memory(Path::new("/p"));
    assert_eq!(
        empty.entries_data(None).unwrap(),
        json!({"entries": [], "leafId": null})
    );
    assert_eq!(
        empty.tree_data().unwrap(),
        json!({"tree": [], "leafId": null})
    );
}

#[test]
fn branching_makes_siblings_and_the_tree_shows_them_with_labels() {
    let mut store = SessionStore::in_memory(Path::new("/project"));
    let first = store.append_message(user("first")).unwrap();
    let answer = store.append_message(assistant("answer")).unwrap();
    store.branch_to(&first).unwrap();
    let other = store.append_message(assistant("other answer")).unwrap();
    store.append_label_change(&answer, Some("keep")).unwrap();
    assert_eq!(store.label(&answer), Some("keep"));
    assert_eq!(texts(&store.branch_messages()), ["first", "other answer"]);

    let tree = serde_json::to_value(store.tree_data().unwrap()).unwrap();
    let root = &tree["tree"][0];
    assert_eq!(tree["tree"].as_array().unwrap().len(), 1);
    assert_eq!(root["entry"]["id"], first.as_str());
    let children: Vec<&str> = root["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|child| child["entry"]["id"].as_str().unwrap())
        .collect();
    assert_eq!(children, [answer.as_str(), other.as_str()]);
    let labelled = &root["children"][0];
    assert_eq!(labelled["label"], "keep");
    let label_entry = store.entries().last().unwrap();
    assert_eq!(labelled["labelTimestamp"], label_entry.timestamp());
    assert_eq!(
        labelled.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["entry", "children", "label", "labelTimestamp"]
    );
    // The label entry is the child of the leaf (`other`) and the new leaf.
    assert_eq!(label_entry.parent_id(), Some(other.as_str()));
    assert_eq!(store.leaf_id(), Some(label_entry.id()));
    // Clearing removes it from the tree.
    store.append_label_change(&answer, None).unwrap();
    assert_eq!(store.label(&answer), None);
    let tree = serde_json::to_value(store.tree_data().unwrap()).unwrap();
    assert_eq!(tree["tree"][0]["children"][0].get("label"), None);

    let error = store.branch_to("missing").unwrap_err();
    assert_eq!(error.to_string(), "Entry missing not found");
    let error = store.append_label_change("missing", Some("x")).unwrap_err();
    assert_eq!(error.to_string(), "Entry missing not found");
    store.reset_leaf();
    let root_two = store.append_message(user("again")).unwrap();
    assert_eq!(store.entry(&root_two).unwrap().parent_id(), None);
    let tree = store.tree_data().unwrap();
    assert_eq!(tree["tree"].as_array().unwrap().len(), 2);
}

#[test]
fn a_branched_session_keeps_the_path_without_label_entries_and_relabels_at_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = started(dir.path());
    let source = store.session_file().unwrap();
    let hello = store.entries()[2].id().to_owned();
    store.append_label_change(&hello, Some("start")).unwrap();
    let after_label = store.append_message(user("after label")).unwrap();
    let path_ids: Vec<String> = store
        .branch(None)
        .iter()
        .filter(|entry| entry.kind() != "label")
        .map(|entry| entry.id().to_owned())
        .collect();

    let new_file = store
        .create_branched_session(&after_label)
        .unwrap()
        .unwrap();
    assert_ne!(new_file, source);
    let lines = file_lines(&new_file);
    assert_eq!(lines[0]["parentSession"], source.to_str().unwrap());
    let ids: Vec<&str> = lines[1..lines.len() - 1]
        .iter()
        .map(|line| line["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, path_ids);
    // Parents are re-chained over the dropped label entry.
    let after = &lines[lines.len() - 2];
    assert_eq!(after["parentId"], lines[lines.len() - 3]["id"]);
    let label = &lines[lines.len() - 1];
    assert_eq!(label["type"], "label");
    assert_eq!(label["targetId"], hello.as_str());
    assert_eq!(label["label"], "start");
    assert_eq!(label["parentId"], after["id"]);
    assert_eq!(store.label(&hello), Some("start"));
    let error = store.create_branched_session("missing").unwrap_err();
    assert_eq!(error.to_string(), "Entry missing not found");
}

#[test]
fn the_context_starts_at_the_latest_compaction_and_keeps_summaries_and_custom_messages() {
    let mut store = SessionStore::in_memory(Path::new("/project"));
    store.append_model_change("p", "m1").unwrap();
    store.append_thinking_level_change("high").unwrap();
    store.append_message(user("one")).unwrap();
    store.append_message(assistant("two")).unwrap();
    let kept = store.append_message(user("three")).unwrap();
    store.append_message(assistant("four")).unwrap();
    store
        .append_compaction(NewCompaction {
            summary: "S".into(),
            first_kept_entry_id: kept,
            tokens_before: 50,
            ..NewCompaction::default()
        })
        .unwrap();
    store
        .append_custom_message_entry("note", json!("from an extension"), Some(true), None)
        .unwrap();
    store
        .append_custom_entry("state", Some(json!({"n": 1})))
        .unwrap();
    store.append_message(user("five")).unwrap();
    let context = store.build_context();
    assert_eq!(
        texts(&context.messages.iter().cloned().collect::<Vec<_>>()),
        ["compactionSummary:S", "three", "four", "custom:", "five"]
    );
    assert_eq!(context.thinking_level, "high");
    // The last assistant message's model wins over the earlier model_change.
    let model = context.model.unwrap();
    assert_eq!(
        (model.provider.as_str(), model.model_id.as_str()),
        ("mock", "mock-model-1")
    );

    let custom = serde_json::to_value(context.messages.get(3).unwrap()).unwrap();
    let compaction = store
        .entries()
        .iter()
        .find(|entry| entry.kind() == "compaction")
        .unwrap();
    let millis = compaction_millis(compaction.timestamp());
    assert_eq!(
        serde_json::to_value(context.messages.get(0).unwrap()).unwrap()["timestamp"],
        millis
    );
    assert_eq!(custom["customType"], "note");
    assert_eq!(custom["content"], "from an extension");
    // Entries keep the reference's key order.
    let custom_entry = store
        .entries()
        .iter()
        .find(|e| e.kind() == "custom")
        .unwrap();
    assert_eq!(
        custom_entry.raw().keys().collect::<Vec<_>>(),
        ["type", "customType", "data", "id", "parentId", "timestamp"]
    );
    let compaction_raw = compaction.raw();
    let compaction_keys: Vec<&String> = compaction_raw.keys().collect();
    assert_eq!(
        compaction_keys,
        [
            "type",
            "id",
            "parentId",
            "timestamp",
            "summary",
            "firstKeptEntryId",
            "tokensBefore"
        ]
    );

    // A branch summary replaces the abandoned branch in the context.
    let first = store.entries()[2].id().to_owned();
    store
        .branch_with_summary(
            Some(&first),
            Some(&first),
            "went elsewhere",
            None,
            None,
            None,
        )
        .unwrap();
    assert_eq!(
        texts(&store.branch_messages()),
        ["one", "branchSummary:went elsewhere"]
    );
    let summary = store.entries().last().unwrap();
    assert_eq!(summary.raw()["fromId"], first.as_str());
    assert_eq!(summary.parent_id(), Some(first.as_str()));
}

fn compaction_millis(timestamp: &str) -> i64 {
    pi_agent::store::time::parse_iso(timestamp).unwrap()
}
