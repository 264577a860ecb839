//! The handlers without I/O: a state goes in with an input, the effects it asks for come out
//! (nothing is written; no task runs). And the flush, on the output channel alone.

use std::sync::Arc;

use pi_rpc_protocol::event::{
    AssistantMessageEvent, ContentDelta, Event, MessageUpdateEvent, QueueUpdateEvent,
};
use pi_rpc_protocol::message::{AgentMessage, AssistantMessage, StopReason};
use pi_rpc_protocol::usage::Usage;
use serde_json::{Value, json};
use tempfile::TempDir;

use super::outbox::{Effect, Framing, LongAnswer, Record};
use super::tasks::TaskReport;
use super::{ActorInit, State, TaskEvent, flush};
use crate::agent_loop::RunMessage;
use crate::extensions::{HostInput, HostMessage, OutgoingCustomMessage};
use crate::rpc::InputLine;

/// A session in a folder of its own, with an empty agent folder and an in-memory store.
fn session() -> (TempDir, State) {
    let dir = tempfile::tempdir().unwrap();
    let state = session_in(&dir, None);
    (dir, state)
}

/// A session in `dir` (its agent folder `agent/`, with whatever settings are there, and its
/// working folder `work/`), with an in-memory store and the extension host given.
pub(super) fn session_in(dir: &TempDir, extensions: Option<crate::extensions::Host>) -> State {
    let agent_dir = dir.path().join("agent");
    let cwd = dir.path().join("work");
    std::fs::create_dir_all(&agent_dir).unwrap();
    std::fs::create_dir_all(&cwd).unwrap();
    let config = crate::config::Config::load(agent_dir, cwd.clone(), false);
    State::new(ActorInit {
        config,
        name: None,
        scoped_models: Vec::new(),
        cli_model: None,
        cli_thinking_level: None,
        store: crate::store::SessionStore::in_memory(&cwd),
        resources: crate::resources::ResourceOptions::default(),
        extensions,
        rpc_release: crate::release::RpcRelease::DEFAULT,
        builtin_commands: Vec::new(),
        termination: None,
    })
}

pub(super) fn line(text: &str, more_in_read: bool) -> InputLine {
    InputLine {
        line: Ok(text.to_owned()),
        more_in_read,
    }
}

/// The effects asked for since the last call, each as what the client (or the loop) would
/// see: a record as its JSON, held answers as theirs, the rest named. The updates of the
/// host's mirror of the session (made, as the loop's flush makes them, at the end too) are
/// left out: `host_tests` checks them on their own.
pub(super) fn effects(state: &mut State) -> Vec<Value> {
    state.sync_session_mirror();
    state
        .outbox
        .take()
        .into_iter()
        .filter(|effect| !matches!(effect, Effect::HostEntries(_)))
        .flat_map(|effect| match effect {
            // Records encoded as they came are told one by one, as the client reads them.
            Effect::Encoded(lines) => String::from_utf8(lines)
                .unwrap()
                .lines()
                .map(|line| serde_json::from_str(line).unwrap())
                .collect(),
            effect => vec![describe(effect)],
        })
        .collect()
}

fn describe(effect: Effect) -> Value {
    match effect {
        Effect::Record(record, Framing::Line) => serde_json::to_value(&record).unwrap(),
        Effect::Record(record, framing) => {
            json!({"framing": format!("{framing:?}"), "record": serde_json::to_value(&record).unwrap()})
        }
        Effect::Lines(lines) => {
            let records: Vec<Value> = String::from_utf8(lines)
                .unwrap()
                .lines()
                .map(|line| serde_json::from_str(line).unwrap())
                .collect();
            json!({"held answers": records})
        }
        Effect::Encoded(_) => unreachable!("encoded lines are told one by one"),
        Effect::BurstStart => json!("burst start"),
        Effect::BurstEnd => json!("burst end"),
        Effect::Written(_) => json!("written"),
        Effect::Answer { id, answer } => json!({"long answer": format!("{answer:?}"), "id": id}),
        Effect::Host { .. } => json!("host"),
        Effect::HostEntries(update) => json!({"host entries": format!("{update:?}")}),
        Effect::Spawn(_) => json!("spawn"),
    }
}

fn run_report(message: RunMessage) -> TaskReport<TaskEvent> {
    TaskReport {
        generation: 0,
        event: TaskEvent::Run(message),
    }
}

pub(super) fn assistant(text: &str) -> AgentMessage {
    AgentMessage::Assistant(AssistantMessage {
        content: vec![pi_rpc_protocol::content::AssistantContent::Text(
            pi_rpc_protocol::content::TextContent::new(text.to_owned()),
        )],
        api: "anthropic-messages".into(),
        provider: "anthropic".into(),
        model: "claude".into(),
        response_model: None,
        usage: Usage::default(),
        stop_reason: StopReason::Stop,
        timestamp: 1,
        response_id: None,
        raw_stop_reason: None,
        error_message: None,
        extra: Default::default(),
    })
}

fn text_delta(delta: &str) -> Event {
    Event::MessageUpdate(MessageUpdateEvent {
        usage: None,
        assistant_message_event: AssistantMessageEvent::TextDelta(ContentDelta {
            content_index: 0,
            delta: delta.to_owned(),
        }),
    })
}

#[test]
fn a_get_state_line_asks_for_one_answer_with_the_session_s_state() {
    let (_dir, mut state) = session();
    state.on_read_line(line(r#"{"id":"s1","type":"get_state"}"#, false));
    let mut effects = effects(&mut state);
    assert_eq!(effects.len(), 1, "{effects:?}");
    let data = effects[0]["data"].as_object_mut().unwrap();
    // Redacted: chosen by the machine's credentials, and random.
    assert!(data.remove("model").is_some());
    assert!(data.remove("sessionId").unwrap().is_string());
    assert_eq!(
        effects[0],
        json!({
            "id": "s1", "type": "response", "command": "get_state", "success": true,
            "data": {
                "thinkingLevel": "off", "isStreaming": false, "isCompacting": false,
                "steeringMode": "one-at-a-time", "followUpMode": "one-at-a-time",
                "autoCompactionEnabled": true, "messageCount": 0, "pendingMessageCount": 0,
            },
        })
    );
}

#[test]
fn steers_of_one_read_announce_their_queue_at_once_and_answer_after_the_read() {
    let (_dir, mut state) = session();
    state.streaming = true;
    state.on_read_line(line(r#"{"id":"a","type":"steer","message":"one"}"#, true));
    assert_eq!(
        effects(&mut state),
        [json!({"type": "queue_update", "steering": ["one"], "followUp": []})]
    );
    state.on_read_line(line(r#"{"id":"b","type":"steer","message":"two"}"#, false));
    assert_eq!(
        effects(&mut state),
        [json!({"type": "queue_update", "steering": ["one", "two"], "followUp": []})]
    );
    state.end_of_read();
    let answer = |id| json!({"id": id, "type": "response", "command": "steer", "success": true});
    assert_eq!(
        effects(&mut state),
        [json!({"held answers": [answer("a"), answer("b")]})]
    );
    assert_eq!(state.steering_queue.len(), 2);

    // A steer alone in its read is answered at once, after its queue_update.
    state.on_read_line(line(
        r#"{"id":"c","type":"steer","message":"three"}"#,
        false,
    ));
    let effects = effects(&mut state);
    assert_eq!(effects.len(), 2, "{effects:?}");
    assert_eq!(effects[1], answer("c"));
    state.end_of_read();
    assert!(state.outbox.is_empty());
}

#[test]
fn a_run_s_message_end_records_the_message_and_writes_it_from_the_same_copy() {
    let (_dir, mut state) = session();
    let message = Arc::new(assistant("Hello"));
    state.on_task_report(run_report(RunMessage::MessageEnd(Arc::clone(&message))));

    assert_eq!(state.messages.len(), 1);
    let kept = state
        .messages
        .last_with_role(crate::store::Role::Assistant)
        .unwrap();
    let kept = kept.shared().unwrap();
    assert!(
        Arc::ptr_eq(kept, &message),
        "the session keeps the run's copy"
    );
    let mut taken = state.outbox.take();
    assert_eq!(taken.len(), 1);
    match taken.remove(0) {
        Effect::Record(Record::MessageEnd(record), Framing::MaybeLong) => {
            assert!(
                Arc::ptr_eq(&record.message, &message),
                "the record shares it too"
            );
            assert_eq!(
                serde_json::to_value(&record).unwrap(),
                json!({"type": "message_end", "message": serde_json::to_value(&*message).unwrap()})
            );
        }
        other => panic!("not a message_end record: {other:?}"),
    }
    assert_eq!(
        state.last_assistant.as_ref().unwrap().stop_reason,
        StopReason::Stop
    );
}

#[test]
fn a_burst_of_run_events_is_one_write_and_a_paced_stream_waits_behind_it() {
    let (_dir, mut state) = session();
    let long = "x".repeat(70 * 1024);
    let events = vec![text_delta("Hel"), text_delta(&long), text_delta("lo")];
    state.on_task_report(run_report(RunMessage::Events(events)));
    state.on_task_report(run_report(RunMessage::Written(Default::default())));
    let delta = |text: &str| serde_json::to_value(text_delta(text)).unwrap();
    assert_eq!(
        effects(&mut state),
        [
            json!("burst start"),
            delta("Hel"),
            json!({"framing": "Streamed", "record": delta(&long)}),
            delta("lo"),
            json!("burst end"),
            json!("written"),
        ]
    );
}

#[test]
fn the_long_answers_are_made_from_the_session_at_the_flush() {
    let (_dir, mut state) = session();
    state.on_read_line(line(r#"{"id":1,"type":"get_messages"}"#, false));
    state.on_read_line(line(r#"{"type":"get_entries","since":"e1"}"#, false));
    assert_eq!(
        effects(&mut state),
        [
            json!({"long answer": "Messages", "id": 1}),
            json!({"long answer": format!("{:?}", LongAnswer::Entries { since: Some("e1".into()) }), "id": null}),
        ]
    );
}

#[test]
fn an_extension_s_dialog_request_is_written_as_its_record() {
    let (_dir, mut state) = session();
    let request = json!({"id": "ui-1", "method": "confirm", "title": "Sure?"});
    let Value::Object(request) = request else {
        unreachable!()
    };
    state.on_host_input(Some(HostInput::Message(HostMessage::Ui { request })));
    assert_eq!(
        effects(&mut state),
        [
            json!({"type": "extension_ui_request", "id": "ui-1", "method": "confirm", "title": "Sure?"})
        ]
    );
}

/// `pi.sendMessage` of a custom message with `text`.
fn send_message(state: &mut State, text: &str, trigger_turn: bool) {
    let message = OutgoingCustomMessage {
        custom_type: "note".into(),
        content: json!(text),
        display: Some(true),
        details: None,
    };
    state.on_host_input(Some(HostInput::Message(HostMessage::SendMessage {
        message,
        deliver_as: None,
        trigger_turn,
    })));
}

#[test]
fn an_extension_message_that_triggers_a_turn_starts_a_run_spawned_at_the_flush() {
    let (_dir, mut state) = session();
    send_message(&mut state, "remember this", true);
    assert_eq!(effects(&mut state), [json!("spawn")]);
    assert!(state.streaming);

    // Without a turn, the message joins the conversation, announced by its start and end.
    state.streaming = false;
    send_message(&mut state, "and this", false);
    let kinds: Vec<Value> = effects(&mut state)
        .into_iter()
        .map(|record| record["type"].clone())
        .collect();
    assert_eq!(kinds, [json!("message_start"), json!("message_end")]);
    assert_eq!(state.messages.len(), 1);
}

#[tokio::test]
async fn the_flush_writes_a_burst_as_one_piece_and_a_long_line_on_its_own() {
    let (out, mut writer) = crate::rpc::output_channel();
    let mut output = flush::Output::new(out);
    let queue = |text: &str| {
        Effect::Record(
            Record::from(Event::QueueUpdate(QueueUpdateEvent {
                steering: vec![text.to_owned()],
                follow_up: Vec::new(),
            })),
            Framing::Line,
        )
    };
    let long = "y".repeat(70 * 1024);
    let effects = vec![
        Effect::BurstStart,
        queue("a"),
        queue("b"),
        queue(&long),
        queue("c"),
        Effect::BurstEnd,
        queue("d"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let store = crate::store::SessionStore::in_memory(dir.path());
    let messages = crate::store::Conversation::new();
    let sources = flush::Sources {
        messages: &messages,
        store: &store,
        host: None,
    };
    assert!(output.flush(effects, sources).await.is_empty());
    assert!(!output.is_closed());
    drop(output);
    let mut writes = Vec::new();
    while let Some((bytes, _permit)) = writer.recv().await {
        writes.push(String::from_utf8(bytes).unwrap());
    }
    let record = |text: &str| {
        format!("{{\"type\":\"queue_update\",\"steering\":[\"{text}\"],\"followUp\":[]}}\n")
    };
    assert_eq!(
        writes,
        [
            record("a") + &record("b"),
            record(&long),
            record("c"),
            record("d"),
        ]
    );
}

#[test]
fn a_reload_that_never_reaches_the_host_lets_what_waits_for_it_go_on() {
    use super::ops::ids::Answer;
    use super::ops::reload::Restart;
    use super::outbox::IfLost;

    let (_dir, mut state) = session();
    // A client's new_session whose extensions were to be loaded afresh: it goes on without
    // them and is answered.
    let key = state.ops.key();
    let data = json!({"cancelled": false});
    let answer = Answer::Client(Some("n1".to_owned().into()), "new_session");
    let restart = Restart::reloading(answer, data.clone(), "new", None);
    state.ops.restarts.insert(key, restart);
    assert!(!state.gates().lines, "lines wait for the reload");
    state.on_host_message_lost(IfLost::Restart(key));
    assert_eq!(
        effects(&mut state),
        [
            json!({"id": "n1", "type": "response", "command": "new_session", "success": true, "data": data})
        ]
    );
    assert!(state.ops.restarts.is_empty());
    assert!(state.gates().lines);

    // A ctx.reload() whose reload was lost ends (its answer, `false`, has no host to go to).
    let key = state.ops.key();
    let restart = Restart::reloading(Answer::Host("r1".into()), Value::Null, "reload", None);
    state.ops.restarts.insert(key, restart);
    state.on_host_message_lost(IfLost::Reload(key));
    assert!(state.ops.restarts.is_empty());
    assert!(state.gates().lines);
    assert!(state.outbox.is_empty());
}
