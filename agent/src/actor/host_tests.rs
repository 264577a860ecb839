//! The operations that wait for the extension host, without I/O: a state with a host goes in
//! with an input, the effects it asks for come out. The host is a stand-in process that says
//! which events its extensions handle and nothing more; its replies are handed to the state
//! as the loop would hand them. (A runtime only starts the stand-in; the handlers run
//! without one, and nothing is sent to it.)

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::{Value, json};
use tempfile::TempDir;

use super::State;
use super::tests::{effects, line, session_in};
use crate::extensions::{Host, HostInput, HostReply, UiMode};

/// Stands in for Node.js running the host: reads the agent's `init`, says the extensions are
/// loaded and handle `events`, then reads (and ignores) whatever comes.
fn stand_in_host(dir: &Path, events: &[&str]) -> std::path::PathBuf {
    let loaded = json!({"type": "loaded", "commands": [], "tools": [], "events": events});
    let script = format!("#!/bin/sh\nread init\nprintf '%s\\n' '{loaded}'\ncat >/dev/null\n");
    let path = dir.join("host.sh");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A session whose extensions handle `events`, with the agent folder's `files`; the runtime
/// that started the host goes with it (its tasks run only while it is driven: never here).
fn session_with_host(
    events: &[&str],
    files: &[(&str, &str)],
) -> (TempDir, tokio::runtime::Runtime, State) {
    let dir = tempfile::tempdir().unwrap();
    let agent_dir = dir.path().join("agent");
    std::fs::create_dir_all(&agent_dir).unwrap();
    for (name, text) in files {
        std::fs::write(agent_dir.join(name), text).unwrap();
    }
    let node = stand_in_host(dir.path(), events);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // A script just written may be busy for a moment (another test's fork holds it open).
    let host = (0..20)
        .find_map(|_| {
            let started = runtime.block_on(Host::start(
                &node,
                Vec::new(),
                dir.path(),
                &[],
                UiMode::Rpc,
                false,
            ));
            match started {
                Ok((host, _)) => Some(host),
                Err(_) => {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    None
                }
            }
        })
        .expect("the stand-in host starts");
    let state = session_in(&dir, Some(host));
    (dir, runtime, state)
}

/// The ids of the requests that wait for the host's reply.
fn waiting(state: &State) -> Vec<u64> {
    state.extensions.as_ref().unwrap().waiting_ids()
}

/// The host's reply to request `id`.
fn reply(state: &mut State, id: u64, reply: HostReply) {
    state.on_host_input(Some(HostInput::Reply(id, reply)));
}

/// A session of two turns, with little kept verbatim: a compaction has something to summarise.
fn two_turns(state: &mut State) {
    let words = "with some words to take up room in the context ".repeat(4);
    for turn in ["one", "two"] {
        let user: pi_rpc_protocol::message::AgentMessage = serde_json::from_value(json!({
            "role": "user", "content": format!("Turn {turn} {words}"), "timestamp": 1
        }))
        .unwrap();
        let answer = super::tests::assistant(&format!("Answer {turn} {words}"));
        for message in [user, answer] {
            state.store.append_message(message.clone()).unwrap();
            state.messages.push(message);
        }
    }
}

const KEEP_LITTLE: (&str, &str) = (
    "settings.json",
    r#"{"compaction": {"keepRecentTokens": 20}}"#,
);

fn compaction_start() -> Value {
    json!({"type": "compaction_start", "reason": "manual"})
}

/// A session whose extensions handle `session_before_compact`, after `compact` (its line): the
/// handlers are asked and no summary task starts; the id of the request.
fn compaction_asked(compact: &str) -> (TempDir, tokio::runtime::Runtime, State, u64) {
    let (dir, runtime, mut state) = session_with_host(&["session_before_compact"], &[KEEP_LITTLE]);
    two_turns(&mut state);
    state.on_read_line(line(compact, false));
    assert_eq!(effects(&mut state), [compaction_start(), json!("host")]);
    let asked = waiting(&state);
    assert_eq!(asked.len(), 1);
    assert!(state.ops.compaction.is_active(), "isCompacting while asked");
    (dir, runtime, state, asked[0])
}

#[test]
fn a_compaction_asks_its_extensions_first_and_summarises_only_once_they_let_it() {
    let (_dir, _runtime, mut state, asked) = compaction_asked(r#"{"id":"c1","type":"compact"}"#);
    // Nothing decided: the summary task starts.
    reply(
        &mut state,
        asked,
        HostReply::Intercepted { result: json!({}) },
    );
    assert_eq!(effects(&mut state), [json!("spawn")]);
    assert!(waiting(&state).is_empty());
    assert!(state.ops.compaction.is_active());
}

#[test]
fn a_compaction_an_extension_cancels_ends_aborted_without_a_summary() {
    let compact = r#"{"id":"c1","type":"compact","customInstructions":"cancel"}"#;
    let (_dir, _runtime, mut state, asked) = compaction_asked(compact);
    let cancel = json!({"cancel": true});
    reply(&mut state, asked, HostReply::Intercepted { result: cancel });
    assert_eq!(
        effects(&mut state),
        [
            json!({"type": "compaction_end", "reason": "manual", "aborted": true, "willRetry": false}),
            json!({"id": "c1", "type": "response", "command": "compact", "success": false, "error": "Compaction cancelled"}),
        ]
    );
    assert!(!state.ops.compaction.is_active());
}

#[test]
fn the_compaction_an_extension_gives_is_saved_without_a_model_call() {
    let (_dir, _runtime, mut state, asked) = compaction_asked(r#"{"id":"c1","type":"compact"}"#);
    let given = json!({"compaction": {"summary": "Summary by the extension.", "tokensBefore": 7}});
    reply(&mut state, asked, HostReply::Intercepted { result: given });
    let mut effects = effects(&mut state);
    assert_eq!(effects.len(), 2, "{effects:?}");
    let result = effects[0]["result"].as_object_mut().unwrap();
    assert!(result.remove("firstKeptEntryId").unwrap().is_string());
    assert!(result.remove("estimatedTokensAfter").unwrap().is_u64());
    assert_eq!(
        effects[0],
        json!({
            "type": "compaction_end", "reason": "manual",
            "result": {"summary": "Summary by the extension.", "tokensBefore": 7},
            "aborted": false, "willRetry": false,
        })
    );
    assert_eq!(effects[1]["success"], json!(true));
    let saved = state.store.branch(None).last().unwrap().raw().clone();
    assert_eq!(saved["type"], json!("compaction"));
    assert_eq!(saved["fromHook"], json!(true));
}

#[test]
fn a_compaction_whose_host_ends_during_the_ask_summarises() {
    let (_dir, _runtime, mut state, _) = compaction_asked(r#"{"id":"c1","type":"compact"}"#);
    state.on_host_input(None);
    assert!(effects(&mut state).contains(&json!("spawn")));
    assert!(state.ops.compaction.is_active());
}

#[test]
fn abort_during_the_ask_ends_the_compaction_and_its_late_decision_is_ignored() {
    let (_dir, _runtime, mut state, asked) = compaction_asked(r#"{"id":"c1","type":"compact"}"#);
    // From the release where `abort` cancels a manual compaction.
    state.release = crate::release::RpcRelease::NEWEST;
    state.on_read_line(line(r#"{"id":"a1","type":"abort"}"#, false));
    assert_eq!(
        effects(&mut state),
        [
            json!({"type": "compaction_end", "reason": "manual", "aborted": true, "willRetry": false}),
            json!({"id": "c1", "type": "response", "command": "compact", "success": false, "error": "Compaction cancelled"}),
            json!({"id": "a1", "type": "response", "command": "abort", "success": true}),
        ]
    );
    assert!(!state.ops.compaction.is_active());
    // The handlers' decision comes after all: nothing follows it.
    reply(
        &mut state,
        asked,
        HostReply::Intercepted { result: json!({}) },
    );
    assert!(state.outbox.is_empty());
}

#[test]
fn without_session_before_compact_handlers_a_compaction_summarises_at_once() {
    let (_dir, _runtime, mut state) = session_with_host(&["session_compact"], &[KEEP_LITTLE]);
    two_turns(&mut state);
    state.on_read_line(line(r#"{"id":"c1","type":"compact"}"#, false));
    assert_eq!(effects(&mut state), [compaction_start(), json!("spawn")]);
    assert!(waiting(&state).is_empty());
}

/// Two models with credentials, of a provider of the agent folder's `models.json`.
const TWO_MODELS: (&str, &str) = (
    "models.json",
    r#"{"providers": {"mock": {"baseUrl": "http://127.0.0.1:9", "api": "anthropic-messages",
        "apiKey": "mock-key", "models": [{"id": "mock-1"}, {"id": "mock-2"}]}}}"#,
);

/// The answers among `effects` (the other effects are messages for the host).
fn answers(effects: &[Value]) -> Vec<&Value> {
    effects.iter().filter(|e| e["type"] == "response").collect()
}

#[test]
fn set_model_with_model_select_handlers_answers_only_after_their_reply() {
    let (_dir, _runtime, mut state) = session_with_host(&["model_select"], &[TWO_MODELS]);
    let set = r#"{"id":"m1","type":"set_model","provider":"mock","modelId":"mock-2"}"#;
    state.on_read_line(line(set, false));
    let sent = effects(&mut state);
    assert!(answers(&sent).is_empty(), "not answered yet: {sent:?}");
    assert!(sent.contains(&json!("host")));
    let asked = waiting(&state);
    assert_eq!(asked.len(), 1);

    let done = HostReply::Done { result: None };
    reply(&mut state, asked[0], done);
    let after = effects(&mut state);
    let answered = answers(&after);
    assert_eq!(answered.len(), 1, "{after:?}");
    assert_eq!(answered[0]["id"], json!("m1"));
    assert_eq!(answered[0]["data"]["id"], json!("mock-2"));
    assert!(state.ops.model_selects.is_empty());

    // The same model again: nothing changes, nothing to wait for.
    state.on_read_line(line(set, false));
    assert_eq!(answers(&effects(&mut state)).len(), 1);
    assert!(waiting(&state).is_empty());
}

#[test]
fn pi_set_model_resolves_after_the_model_select_handlers() {
    let (_dir, _runtime, mut state) = session_with_host(&["model_select"], &[TWO_MODELS]);
    let set_model = crate::extensions::HostMessage::SetModel {
        id: "r1".into(),
        provider: "mock".into(),
        model_id: "mock-2".into(),
    };
    state.on_host_input(Some(HostInput::Message(set_model)));
    effects(&mut state);
    let asked = waiting(&state);
    assert_eq!(asked.len(), 1);
    assert!(matches!(
        state.ops.model_selects.values().next(),
        Some(super::ops::model_select::AfterModelSelect::ResolveSetModel(reply)) if reply == "r1"
    ));
    state.on_host_input(None);
    assert!(
        state.ops.model_selects.is_empty(),
        "the host ended: resolved"
    );
}

#[test]
fn start_up_and_settle_handlers_hold_lines_until_their_reply() {
    let (_dir, _runtime, mut state) = session_with_host(&["session_start", "agent_settled"], &[]);
    state.start_extensions();
    effects(&mut state);
    let asked = waiting(&state);
    assert_eq!(asked.len(), 1, "session_start");
    assert!(!state.gates().lines, "lines wait for the start-up handlers");
    reply(&mut state, asked[0], HostReply::Done { result: None });
    assert!(state.gates().lines);

    state.settle_or_hold();
    assert_eq!(effects(&mut state), [json!("host")], "not settled yet");
    assert!(
        !state.gates().lines,
        "lines wait for the agent_settled handlers"
    );
    let asked = waiting(&state);
    reply(&mut state, asked[0], HostReply::Done { result: None });
    let settled = effects(&mut state);
    assert_eq!(settled.len(), 1, "{settled:?}");
    assert_eq!(settled[0]["type"], json!("agent_settled"));
    assert!(state.gates().lines);
}

/// Hands the state a message from the host, as the host writes it.
fn from_host(state: &mut State, message: Value) {
    let message = serde_json::from_value(message).unwrap();
    state.on_host_input(Some(HostInput::Message(message)));
}

/// `pi.registerProvider(name, config)` from the command `/add`, after loading.
fn register_from_command(state: &mut State, name: &str, config: Value) {
    let origin = json!({"extensionPath": "command:add", "event": "command"});
    from_host(
        state,
        json!({"type": "register_provider", "name": name, "config": config,
            "extensionPath": "/x/late.ts", "origin": origin}),
    );
}

/// The ids of the models `get_available_models` lists.
fn listed(state: &mut State) -> Vec<Value> {
    state.on_read_line(line(r#"{"id":"l","type":"get_available_models"}"#, false));
    let answer = effects(state).remove(0);
    let models = answer["data"]["models"].as_array().unwrap().clone();
    models.iter().map(|m| m["id"].clone()).collect()
}

#[test]
fn providers_registered_after_loading_change_the_registry_at_once() {
    let (_dir, _runtime, mut state) = session_with_host(&[], &[TWO_MODELS]);
    let late = json!({
        "baseUrl": "http://127.0.0.1:9/late", "apiKey": "k", "api": "anthropic-messages",
        "models": [{"id": "late-1"}]
    });
    register_from_command(&mut state, "late", late);
    assert_eq!(
        effects(&mut state),
        [json!("host")],
        "the model state, again"
    );
    assert_eq!(listed(&mut state), ["mock-1", "mock-2", "late-1"]);
    let set = r#"{"id":"s","type":"set_model","provider":"late","modelId":"late-1"}"#;
    state.on_read_line(line(set, false));
    assert_eq!(answers(&effects(&mut state))[0]["success"], json!(true));

    // Refused: nothing changes; the error is the handler's the call came from.
    let broken = json!({"api": "anthropic-messages", "apiKey": "k", "models": [{"id": "z"}]});
    register_from_command(&mut state, "broken", broken);
    let refused = json!({"type": "extension_error", "extensionPath": "command:add",
        "event": "command",
        "error": "Provider broken: \"baseUrl\" is required when defining custom models."});
    assert_eq!(effects(&mut state), [refused]);

    // Taken back: gone from the registry, the session keeps the model it has.
    from_host(
        &mut state,
        json!({"type": "unregister_provider", "name": "late"}),
    );
    assert_eq!(effects(&mut state), [json!("host")]);
    assert_eq!(listed(&mut state), ["mock-1", "mock-2"]);
    assert_eq!(state.model.as_ref().map(|m| m.id.as_str()), Some("late-1"));
}

/// The updates of the host's mirror of the session the outbox holds, taken.
fn mirror_updates(state: &mut State) -> Vec<super::outbox::MirrorUpdate> {
    use super::outbox::Effect;
    let effects = state.outbox.take();
    effects
        .into_iter()
        .filter_map(|effect| match effect {
            Effect::HostEntries(update) => Some(update),
            _ => None,
        })
        .collect()
}

#[test]
fn the_host_mirror_gets_a_session_once_then_only_what_changed() {
    use super::outbox::MirrorUpdate;
    let (_dir, _runtime, mut state) = session_with_host(&[], &[]);
    let mut model = crate::model_resolver::unknown_model();
    model.context_window = 100_000;
    state.model = Some(model);
    state.sync_session_mirror();
    let start = state.store.entries().len();
    let session = state.store.session_id().to_owned();
    let leaf = state.store.leaf_id().map(str::to_owned);
    let usage = state.context_usage();
    let update = |reset, from, to, leaf_id: Option<&str>| MirrorUpdate {
        session_id: session.clone(),
        reset,
        from,
        to,
        leaf_id: leaf_id.map(str::to_owned),
        context_usage: None,
    };
    // The whole session, once, with the context usage; nothing while nothing changes.
    let first = MirrorUpdate {
        context_usage: Some(usage.clone()),
        ..update(true, 0, start, leaf.as_deref())
    };
    assert_eq!(mirror_updates(&mut state), [first]);
    state.sync_session_mirror();
    assert_eq!(mirror_updates(&mut state), []);
    // An entry appended: only it.
    let id = state.store.append_custom_entry("mark", None).unwrap();
    state.sync_session_mirror();
    assert_eq!(
        mirror_updates(&mut state),
        [update(false, start, start + 1, Some(&id))]
    );
    // The leaf moved back: no entry, the leaf.
    let back = state.store.entries()[0].id().to_owned();
    state.store.branch_to(&back).unwrap();
    state.sync_session_mirror();
    assert_eq!(
        mirror_updates(&mut state),
        [update(false, start + 1, start + 1, Some(&back))]
    );
    // Another session: the whole of it again.
    state.store.new_session(None);
    state.sync_session_mirror();
    let updates = mirror_updates(&mut state);
    assert_eq!(updates.len(), 1);
    assert!(updates[0].reset && updates[0].from == 0 && updates[0].to == 0);
    assert_ne!(updates[0].session_id, session);
    // An answer changes the usage: it comes with the entry.
    let answer = super::tests::assistant("Answer with some words");
    state.store.append_message(answer.clone()).unwrap();
    state.messages.push(answer);
    state.sync_session_mirror();
    let updates = mirror_updates(&mut state);
    assert_eq!(updates.len(), 1);
    assert_eq!(updates[0].context_usage, Some(state.context_usage()));
    assert_ne!(updates[0].context_usage, Some(usage));
}

#[test]
fn a_message_for_the_host_follows_what_changed_in_the_session() {
    use super::outbox::Effect;
    let (_dir, _runtime, mut state) = session_with_host(&[], &[]);
    state.sync_session_mirror();
    state.outbox.take();
    state.store.append_custom_entry("mark", None).unwrap();
    state.streaming_changed(true);
    let effects = state.outbox.take();
    assert!(matches!(
        effects.as_slice(),
        [Effect::HostEntries(update), Effect::Host { .. }] if update.to == update.from + 1
    ));
}
