//! Parsing and validating scripts.

#![allow(clippy::expect_used)] // helpers outside #[test] functions

use mock_llm::{Script, quirk, quirk_names};
use serde_json::json;

fn error_of(yaml: &str) -> String {
    Script::from_yaml_str(yaml, "scenario.yaml")
        .expect_err("invalid")
        .to_string()
}

#[test]
fn unknown_keys_are_rejected_naming_origin_and_key() {
    let text = error_of("responses:\n  - text: hi\n    colour: red\n");
    assert!(text.starts_with("scenario.yaml: at responses[0]"), "{text}");
    assert!(text.contains("unknown field `colour`"), "{text}");
    let text = error_of("responses:\n  - content:\n      - tool_call: { name: f, argz: {} }\n");
    assert!(
        text.contains("responses[0].content[0].tool_call") && text.contains("`argz`"),
        "{text}"
    );
    let text = error_of("response: []\n");
    assert!(text.contains("unknown field `response`"), "{text}");
}

#[test]
fn each_response_needs_exactly_one_body() {
    let text = error_of("responses:\n  - stop: length\n");
    assert!(
        text.contains(
            "responses[0]: needs exactly one of text, content, error, raw or quirk (found none)"
        ),
        "{text}"
    );
    let text = error_of("responses:\n  - error: { status: 500 }\n    fault: { kind: drop }\n");
    assert!(text.contains("apply to streamed bodies"), "{text}");
    let text = error_of("responses:\n  - raw: { chunks: [a] }\n    framing: { coalesce: true }\n");
    assert!(
        text.contains("`framing` applies to rendered content"),
        "{text}"
    );
    let text = error_of("responses:\n  - gate: g\n");
    assert!(
        text.contains("a gate inside a stream is a `content` item"),
        "{text}"
    );
    let text = error_of("responses:\n  - text: a\n    error: { status: 500 }\n");
    assert!(text.contains("(found text, error)"), "{text}");
    let text = error_of("responses:\n  - content: [{ text: a, tool_call: { name: f } }]\n");
    assert!(text.contains("content[0]: needs exactly one of"), "{text}");
    let text = error_of("responses:\n  - text: a\n    match: { last_message_pattern: \"(\" }\n");
    assert!(text.contains("last_message_pattern"), "{text}");
    let text = error_of("responses:\n  - raw: { chunks: [{ hex: \"zz\" }] }\n");
    assert!(text.contains("raw.chunks[0].hex"), "{text}");
    let text = error_of("responses:\n  - quirk: no-such-quirk\n");
    assert!(text.contains("unknown quirk `no-such-quirk`"), "{text}");
}

#[test]
fn json_values_and_files_load_like_yaml() {
    let value =
        json!({"responses": [{"text": "hi", "match": {"last_message_role": "toolResult"}}]});
    let script = Script::from_json_value(value, "inline").expect("valid");
    assert_eq!(script.responses.len(), 1);
    assert_eq!(script.origin, "inline");
    let dir = tempfile::tempdir().expect("tempdir");
    let json_path = dir.path().join("s.json");
    std::fs::write(&json_path, r#"{"responses":[{"text":"a"}]}"#).expect("write");
    assert_eq!(
        Script::from_file(&json_path)
            .expect("json file")
            .responses
            .len(),
        1
    );
    let yaml_path = dir.path().join("s.yml");
    std::fs::write(&yaml_path, "responses:\n  - text: a\n  - text: b\n").expect("write");
    assert_eq!(
        Script::from_file(&yaml_path)
            .expect("yaml file")
            .responses
            .len(),
        2
    );
    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "responses:\n  - nope: 1\n").expect("write");
    let text = Script::from_file(&bad).expect_err("bad").to_string();
    assert!(text.starts_with(&bad.display().to_string()), "{text}");
}

#[test]
fn a_script_round_trips_through_json() {
    let script = Script::from_yaml_str(
        "responses:\n  - content: [{ thinking: t, signature: s }, { tool_call: { id: a, name: f, arguments: { x: 1 }, chunks: 2 } }]\n    stop: tool_use\n    usage: { input: 1, output: 2 }\n",
        "x",
    )
    .expect("valid");
    let value = serde_json::to_value(&script).expect("serializes");
    let again = Script::from_json_value(value.clone(), "again").expect("valid again");
    assert_eq!(serde_json::to_value(&again).expect("serializes"), value);
}

#[test]
fn reply_answers_every_request() {
    let script = Script::reply("Hello");
    assert!(script.responses[0].repeat);
}

#[test]
fn every_quirk_loads_by_name_and_inside_a_script() {
    let names = quirk_names();
    assert!(names.len() >= 20, "{} quirks", names.len());
    for name in names {
        let script = quirk(name).unwrap_or_else(|| panic!("quirk {name} loads"));
        assert!(!script.responses.is_empty(), "{name}");
        let used = Script::from_json_value(json!({"responses": [{"quirk": name}]}), "s")
            .expect("usable by name");
        assert_eq!(used.responses.len(), script.responses.len());
    }
    assert!(quirk("no-such-quirk").is_none());
}

#[test]
fn the_schema_describes_the_script() {
    let schema = schemars::schema_for!(Script);
    let text = serde_json::to_string(&schema).expect("schema serializes");
    for key in [
        "responses",
        "tool_call",
        "fault",
        "framing",
        "last_message_role",
    ] {
        assert!(text.contains(key), "{key}");
    }
}
