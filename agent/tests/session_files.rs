//! The session store's files: fork and clone, opening missing, empty, invalid and damaged files,
//! long sessions, the session folder, `--continue`, chosen ids and version 2 files.
#![allow(clippy::unwrap_used)] // helpers of tests, outside #[test] functions

mod session_store_support;

use std::path::{Path, PathBuf};

use pi_agent::store::{Error, SavedAt, SessionStore, paths};
use pi_rpc_protocol::message::AgentMessage;
use serde_json::json;
use session_store_support::{assistant, file_lines, files_in, started, texts, user};

#[test]
fn fork_messages_list_user_texts_of_the_whole_session() {
    let mut store = SessionStore::in_memory(Path::new("/project"));
    let first = store.append_message(user("first")).unwrap();
    store.append_message(assistant("x")).unwrap();
    store.branch_to(&first).unwrap();
    let image_only: AgentMessage = serde_json::from_value(json!({
        "role": "user",
        "content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}],
        "timestamp": 1
    }))
    .unwrap();
    store.append_message(image_only).unwrap();
    let second = store.append_message(user("second")).unwrap();
    let listed: Vec<(String, String)> = store
        .fork_messages()
        .into_iter()
        .map(|message| (message.entry_id, message.text))
        .collect();
    assert_eq!(
        listed,
        [(first, "first".to_owned()), (second, "second".to_owned())]
    );
}

#[test]
fn fork_and_clone_refuse_what_the_reference_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SessionStore::new(Path::new("/project"), &dir.path().join("s"), true).unwrap();
    assert_eq!(
        store.clone_at_leaf().unwrap_err().to_string(),
        "Cannot clone session: no current entry selected"
    );
    store.append_model_change("mock", "mock-model-1").unwrap();
    let prompt = store.append_message(user("hello")).unwrap();
    // Not written yet: nothing to fork from.
    assert!(matches!(store.fork(&prompt), Err(Error::NotSavedYet(_))));
    assert_eq!(
        store.clone_at_leaf().unwrap_err().to_string(),
        "This session has not been saved yet. Wait for the first assistant response before cloning or forking it."
    );
    let answer = store.append_message(assistant("hi")).unwrap();
    let before = store.session_file();
    assert_eq!(
        store.fork(&answer).unwrap_err().to_string(),
        "Invalid entry ID for forking"
    );
    assert_eq!(
        store.fork("feedbeef").unwrap_err().to_string(),
        "Invalid entry ID for forking"
    );
    assert_eq!(store.session_file(), before);
}

#[test]
fn from_0_99_1_a_new_session_is_written_at_its_first_user_message() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = SessionStore::new(Path::new("/project"), &dir.path().join("s"), true).unwrap();
    store.set_saved_at(SavedAt::FirstMessage);
    store.append_model_change("mock", "mock-model-1").unwrap();
    let file = store.session_file().unwrap();
    assert!(!file.exists(), "setup entries alone stay in memory");
    assert_eq!(
        store.clone_at_leaf().unwrap_err().to_string(),
        "This session has not been saved yet. Send a message before cloning or forking it."
    );
    store.append_message(user("hello")).unwrap();
    let lines = std::fs::read_to_string(&file).unwrap().lines().count();
    assert_eq!(lines, 3, "header, model change and the user message");
    // A clone keeps the rule: it is written at once, as it holds a user message.
    store.clone_at_leaf().unwrap();
    assert!(store.session_file().unwrap().exists());
}

#[test]
fn forking_at_the_first_message_starts_an_empty_session_with_a_parent() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("s");
    let mut store = SessionStore::new(Path::new("/project"), &sessions, true).unwrap();
    let first = store.append_message(user("very first")).unwrap();
    store.append_message(assistant("hi")).unwrap();
    let source = store.session_file().unwrap();
    assert_eq!(store.fork(&first).unwrap().as_deref(), Some("very first"));
    assert!(store.entries().is_empty());
    assert_eq!(store.parent_session(), Some(source.to_str().unwrap()));
    assert_ne!(store.session_file().unwrap(), source);
    // Lazy as any new session.
    assert_eq!(files_in(&sessions), vec![source]);
}

#[test]
fn clone_copies_the_active_branch_into_a_new_file_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = started(dir.path());
    let source = store.session_file().unwrap();
    let entries_before = pi_rpc_protocol::json::to_string(store.entries()).unwrap();
    let leaf = store.leaf_id().map(str::to_owned);
    store.clone_at_leaf().unwrap();
    let file = store.session_file().unwrap();
    assert_ne!(file, source);
    assert_eq!(
        pi_rpc_protocol::json::to_string(store.entries()).unwrap(),
        entries_before
    );
    assert_eq!(store.leaf_id().map(str::to_owned), leaf);
    let lines = file_lines(&file);
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0]["parentSession"], source.to_str().unwrap());
    assert_eq!(lines[0]["id"], store.session_id());
}

#[test]
fn opening_a_missing_file_starts_a_session_that_is_written_to_that_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chosen.jsonl");
    let mut store = SessionStore::open(&path, None, Some(Path::new("/elsewhere"))).unwrap();
    assert_eq!(store.session_file(), Some(path.clone()));
    assert_eq!(store.cwd(), PathBuf::from("/elsewhere"));
    store.append_message(user("hello")).unwrap();
    assert!(!path.exists());
    store.append_message(assistant("hi")).unwrap();
    let lines = file_lines(&path);
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["id"], store.session_id());
}

#[test]
fn opening_an_empty_file_writes_a_header_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.jsonl");
    std::fs::write(&path, "").unwrap();
    let mut store = SessionStore::open(&path, None, None).unwrap();
    let lines = file_lines(&path);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["type"], "session");
    // Already flushed: the next entry is appended even before any assistant message.
    store.append_message(user("hello")).unwrap();
    assert_eq!(file_lines(&path).len(), 2);
}

#[test]
fn opening_a_file_that_is_not_a_session_fails_without_touching_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.jsonl");
    std::fs::write(&path, "{\"type\":\"message\",\"id\":\"x\"}\n").unwrap();
    let error = SessionStore::open(&path, None, None).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("Session file is not a valid pi session: {}", path.display())
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\"type\":\"message\",\"id\":\"x\"}\n"
    );
}

#[test]
fn damaged_lines_are_skipped_and_the_last_entry_is_the_leaf() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("damaged.jsonl");
    let text = concat!(
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2024-01-01T00:00:00.000Z\",\"cwd\":\"/p\",\"extra\":1}\r\n",
        "{\"type\":\"message\",\"id\":\"aaaaaaaa\",\"parentId\":null,\"timestamp\":\"2024-01-01T00:00:01.000Z\",\"message\":{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":1}}\n",
        "{\"type\":\"message\",\"id\":\"bbbbbbbb\",\"parentId\":\"aaaaaaaa\",\n",
        "\n",
        "{\"type\":\"future_kind\",\"id\":\"cccccccc\",\"parentId\":\"aaaaaaaa\",\"timestamp\":\"2024-01-01T00:00:02.000Z\",\"whatever\":[1]}\n",
        "{\"type\":\"message\",\"id\":\"dddddddd\",\"parentId\":\"cccccccc\",\"timestamp\":\"2024-01-01T00:00:03.000Z\",\"message\":{\"role\":\"assistant\",\"content\":null,\"api\":\"a\",\"provider\":\"p\",\"model\":\"m\",\"usage\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":0,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}},\"stopReason\":\"stop\",\"timestamp\":2}}",
    );
    std::fs::write(&path, text).unwrap();
    let store = SessionStore::open(&path, None, None).unwrap();
    let ids: Vec<&str> = store.entries().iter().map(|entry| entry.id()).collect();
    assert_eq!(ids, ["aaaaaaaa", "cccccccc", "dddddddd"]);
    assert_eq!(store.leaf_id(), Some("dddddddd"));
    // An unknown entry kind is kept as it is, unknown fields and all.
    let unknown = serde_json::to_string(store.entry("cccccccc").unwrap()).unwrap();
    assert!(unknown.ends_with("\"whatever\":[1]}"));
    assert!(store.entry("cccccccc").unwrap().parsed().is_none());
    assert_eq!(store.header()["extra"], 1);
    // A message without content reaches the model with an empty one.
    let messages = store.branch_messages();
    assert_eq!(messages.len(), 2);
    assert_eq!(
        serde_json::to_value(&messages[1]).unwrap()["content"],
        json!([])
    );
    // Nothing was rewritten.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn a_long_session_builds_its_tree_without_exhausting_the_stack() {
    let mut store = SessionStore::in_memory(Path::new("/project"));
    for n in 0..20_000 {
        store.append_message(user(&n.to_string())).unwrap();
    }
    let text = store.tree_json().unwrap();
    assert_eq!(text.matches("\"children\":[]").count(), 1);
    assert_eq!(text.matches("{\"entry\":").count(), 20_000);
    // One node inside the other, as deep as the session.
    assert!(text.starts_with("{\"tree\":[{\"entry\":"));
    assert_eq!(text.matches("]}").count(), 20_000);
}

#[test]
fn the_default_session_folder_is_derived_from_the_cwd() {
    assert_eq!(
        paths::default_session_dir(Path::new("/home/u/my proj"), Path::new("/home/u/.pi/agent")),
        PathBuf::from("/home/u/.pi/agent/sessions/--home-u-my proj--")
    );
}

#[test]
fn continue_opens_the_most_recently_modified_session_of_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    let older = started(dir.path());
    let mut newer = SessionStore::new(Path::new("/other"), &sessions, true).unwrap();
    newer.append_message(user("newer")).unwrap();
    newer.append_message(assistant("hi")).unwrap();
    std::fs::write(sessions.join("notes.jsonl"), "not a session\n").unwrap();
    let set_age = |path: PathBuf, seconds_ago: u64| {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        let when = std::time::SystemTime::now() - std::time::Duration::from_secs(seconds_ago);
        file.set_modified(when).unwrap();
    };
    set_age(older.session_file().unwrap(), 100);
    set_age(newer.session_file().unwrap(), 50);
    set_age(sessions.join("notes.jsonl"), 0);

    let store = SessionStore::continue_recent(Path::new("/project"), &sessions, false).unwrap();
    assert_eq!(store.session_id(), newer.session_id());
    assert_eq!(store.cwd(), PathBuf::from("/project"));
    // Only sessions of this cwd when asked.
    let store = SessionStore::continue_recent(Path::new("/project"), &sessions, true).unwrap();
    assert_eq!(store.session_id(), older.session_id());
    // None of this cwd: a new session in that folder.
    let store = SessionStore::continue_recent(Path::new("/none"), &sessions, true).unwrap();
    assert!(store.entries().is_empty());
    assert_eq!(
        store.session_file().unwrap().parent(),
        Some(sessions.as_path())
    );
}

#[test]
fn the_start_records_model_and_thinking_level_only_where_the_reference_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut fresh = SessionStore::new(Path::new("/project"), &dir.path().join("s"), true).unwrap();
    fresh
        .record_start(Some(("mock", "mock-model-1")), "medium")
        .unwrap();
    let kinds: Vec<&str> = fresh.entries().iter().map(|entry| entry.kind()).collect();
    assert_eq!(kinds, ["model_change", "thinking_level_change"]);
    assert_eq!(fresh.entries()[1].raw()["thinkingLevel"], "medium");
    let mut no_model = SessionStore::in_memory(Path::new("/project"));
    no_model.record_start(None, "off").unwrap();
    let kinds: Vec<&str> = no_model
        .entries()
        .iter()
        .map(|entry| entry.kind())
        .collect();
    assert_eq!(kinds, ["thinking_level_change"]);

    // Resumed with messages: nothing when the branch has a thinking level, else only that.
    let mut resumed = started(dir.path());
    let count = resumed.entries().len();
    resumed
        .record_start(Some(("mock", "other")), "high")
        .unwrap();
    assert_eq!(resumed.entries().len(), count);
    let mut bare = SessionStore::in_memory(Path::new("/project"));
    bare.append_message(user("hello")).unwrap();
    bare.record_start(Some(("mock", "other")), "high").unwrap();
    let kinds: Vec<&str> = bare.entries().iter().map(|entry| entry.kind()).collect();
    assert_eq!(kinds, ["message", "thinking_level_change"]);
}

#[test]
fn a_chosen_session_id_names_the_file_and_bad_ids_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("s");
    let mut store = SessionStore::new(Path::new("/project"), &sessions, true).unwrap();
    let file = store.new_session_with_id("my-id.1", None).unwrap().unwrap();
    assert_eq!(store.session_id(), "my-id.1");
    assert!(file.to_str().unwrap().ends_with("_my-id.1.jsonl"));
    let error = store.new_session_with_id("-bad", None).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("Session id must be non-empty")
    );
    assert_eq!(store.session_id(), "my-id.1");
}

#[test]
fn a_version_2_file_gets_version_3_and_custom_roles_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v2.jsonl");
    let text = concat!(
        "{\"type\":\"session\",\"version\":2,\"id\":\"v2\",\"timestamp\":\"2024-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n",
        "{\"type\":\"message\",\"id\":\"aaaaaaaa\",\"parentId\":null,\"timestamp\":\"2024-01-01T00:00:01.000Z\",\"message\":{\"role\":\"hookMessage\",\"customType\":\"x\",\"content\":\"c\",\"display\":false,\"timestamp\":1}}\n",
    );
    std::fs::write(&path, text).unwrap();
    let store = SessionStore::open(&path, None, None).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        text.replace("\"version\":2", "\"version\":3")
            .replace("hookMessage", "custom")
    );
    assert_eq!(texts(&store.branch_messages()), ["custom:"]);
    assert_eq!(store.leaf_id(), Some("aaaaaaaa"));
}
