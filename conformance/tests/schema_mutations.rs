//! Records as the corpus sees them follow the schema; each mutated copy (a
//! required field removed, a wrong `type`, a value outside an enum) is rejected with the path
//! of what was changed.

#![allow(clippy::unwrap_used)] // helpers of tests, outside #[test] functions

use pi_conformance::release::Version;
use pi_conformance::schema::{LineKind, Validators};
use serde_json::{Value, json};

fn validators(release: Version) -> std::sync::Arc<Validators> {
    let registry = pi_conformance::release::registry().unwrap();
    Validators::of(release, registry).unwrap()
}

/// Records shaped as pi 0.84.1 writes them in the corpus (a reply's `message_end`, a text
/// delta, a `get_state` answer, a `select` dialog), and commands as clients send them.
fn originals() -> Vec<(LineKind, Value)> {
    let usage = json!({"input": 10, "output": 5, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}});
    let assistant = json!({"role": "assistant", "content": [{"type": "text", "text": "Hi there"}],
        "api": "openai-completions", "provider": "mock", "model": "mock-model-1", "usage": usage,
        "stopReason": "stop", "timestamp": 1_765_000_000_000u64});
    vec![
        (
            LineKind::Record,
            json!({"type": "message_end", "message": assistant}),
        ),
        (
            LineKind::Record,
            json!({"type": "message_update", "assistantMessageEvent":
            {"type": "text_delta", "contentIndex": 0, "delta": "Hi"}}),
        ),
        (
            LineKind::Record,
            json!({"id": "s", "type": "response", "command": "get_state", "success": true,
            "data": {"thinkingLevel": "medium", "isStreaming": false, "isCompacting": false,
                "steeringMode": "one-at-a-time", "followUpMode": "one-at-a-time",
                "sessionId": "01a24d76-41d8-7587-813a-9d0334d08ef7", "autoCompactionEnabled": true,
                "messageCount": 0, "pendingMessageCount": 0}}),
        ),
        (
            LineKind::Record,
            json!({"type": "extension_ui_request", "id": "4f1c", "method": "select",
            "title": "Pick", "options": ["a", "b"]}),
        ),
        (
            LineKind::Command,
            json!({"id": "1", "type": "set_steering_mode", "mode": "all"}),
        ),
        (
            LineKind::Command,
            json!({"type": "prompt", "message": "hi", "streamingBehavior": "steer"}),
        ),
    ]
}

#[test]
fn real_records_follow_the_schema() {
    let validators = validators(Version(0, 84, 1));
    for (kind, value) in originals() {
        assert_eq!(validators.check(kind, &value), vec![], "{value}");
    }
}

/// Checks that `mutated` fails with a violation at `path`.
fn rejected(validators: &Validators, kind: LineKind, mutated: &Value, path: &str) {
    let violations = validators.check(kind, mutated);
    assert!(
        violations.iter().any(|v| v.path == path),
        "{mutated} should fail at {path:?}, got {violations:?}"
    );
}

#[test]
fn a_required_field_removed_is_rejected_with_its_path() {
    let validators = validators(Version(0, 84, 1));
    let cases = [
        (0, "/message/usage", "/message"),
        (1, "/assistantMessageEvent/delta", "/assistantMessageEvent"),
        (2, "/data/sessionId", "/data"),
        (3, "/options", ""),
        (4, "/mode", ""),
        (5, "/message", ""),
    ];
    let originals = originals();
    for (index, removed, path) in cases {
        let (kind, mut value) = originals[index].clone();
        let (parent, key) = removed.rsplit_once('/').unwrap();
        let object = if parent.is_empty() {
            Some(&mut value)
        } else {
            value.pointer_mut(parent)
        };
        object
            .and_then(Value::as_object_mut)
            .unwrap()
            .remove(key)
            .unwrap();
        rejected(&validators, kind, &value, path);
    }
}

#[test]
fn a_wrong_type_is_rejected_with_its_path() {
    let validators = validators(Version(0, 84, 1));
    let cases = [
        (0, "/type", json!("message_ended")),
        (1, "/assistantMessageEvent/type", json!("text_middle")),
        (0, "/message/role", json!("robot")),
        (0, "/message/content/0/type", json!("picture")),
        (4, "/type", json!("set_steering")),
        (3, "/method", json!("choose")),
    ];
    let originals = originals();
    for (index, pointer, wrong) in cases {
        let (kind, mut value) = originals[index].clone();
        *value.pointer_mut(pointer).unwrap() = wrong;
        rejected(&validators, kind, &value, pointer);
    }
}

#[test]
fn a_value_outside_an_enum_is_rejected_with_its_path() {
    let validators = validators(Version(0, 84, 1));
    let cases = [
        (0, "/message/stopReason", json!("finished")),
        (2, "/data/thinkingLevel", json!("extreme")),
        (2, "/data/steeringMode", json!("some")),
        (4, "/mode", json!("everything")),
        (5, "/streamingBehavior", json!("later")),
        (2, "/data/messageCount", json!("none")),
    ];
    let originals = originals();
    for (index, pointer, wrong) in cases {
        let (kind, mut value) = originals[index].clone();
        *value.pointer_mut(pointer).unwrap() = wrong;
        rejected(&validators, kind, &value, pointer);
    }
}

#[test]
fn what_a_release_added_is_unknown_before_it() {
    let command = json!({"type": "clear_queue"});
    assert_eq!(
        validators(Version(0, 84, 4)).check(LineKind::Command, &command),
        vec![]
    );
    rejected(
        &validators(Version(0, 84, 3)),
        LineKind::Command,
        &command,
        "/type",
    );
    let accepted = json!({"type": "response", "command": "prompt", "success": true,
        "data": {"disposition": "started"}});
    assert_eq!(
        validators(Version(0, 99, 1)).check(LineKind::Record, &accepted),
        vec![]
    );
    rejected(
        &validators(Version(0, 87, 1)),
        LineKind::Record,
        &accepted,
        "/data",
    );
}

#[test]
fn fields_later_releases_add_to_messages_are_typed_from_their_release() {
    let (_, end) = originals()[0].clone();
    let mut stamped = end.clone();
    stamped["message"]["thinkingLevel"] = json!("medium");
    stamped["message"]["durationMs"] = json!(1200);
    assert_eq!(
        validators(Version(1, 3, 0)).check(LineKind::Record, &stamped),
        vec![]
    );
    let mut wrong_level = stamped.clone();
    wrong_level["message"]["thinkingLevel"] = json!("extreme");
    rejected(
        &validators(Version(0, 99, 1)),
        LineKind::Record,
        &wrong_level,
        "/message/thinkingLevel",
    );
    let mut wrong_duration = stamped.clone();
    wrong_duration["message"]["durationMs"] = json!(-1);
    rejected(
        &validators(Version(1, 3, 0)),
        LineKind::Record,
        &wrong_duration,
        "/message/durationMs",
    );
    // Before 1.3.0 an assistant message's `durationMs` is one of its open fields.
    assert_eq!(
        validators(Version(0, 99, 1)).check(LineKind::Record, &wrong_duration),
        vec![]
    );
}

#[test]
fn what_a_release_always_writes_is_required_from_it() {
    let settled = json!({"type": "agent_settled"});
    assert_eq!(
        validators(Version(1, 0, 3)).check(LineKind::Record, &settled),
        vec![]
    );
    rejected(
        &validators(Version(1, 3, 0)),
        LineKind::Record,
        &settled,
        "",
    );
    let accepted = json!({"type": "response", "command": "prompt", "success": true});
    assert_eq!(
        validators(Version(0, 87, 1)).check(LineKind::Record, &accepted),
        vec![]
    );
    rejected(
        &validators(Version(0, 99, 1)),
        LineKind::Record,
        &accepted,
        "",
    );
}
