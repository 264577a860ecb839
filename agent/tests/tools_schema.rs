//! Tool definitions and argument validation, against the reference pi 0.84.1.
#![allow(clippy::unwrap_used)] // helpers of tests, outside #[test] functions

use pi_agent::tools::{
    PreparedCall, ToolContext, ToolOutcome, ToolSelection, ToolSet, prepare, repair_call_arguments,
};
use serde_json::{Value, json};

/// A call of a run whose tools and release are `ctx`'s, prepared.
fn prepare_call(ctx: &ToolContext, name: &str, args: &Value) -> Result<PreparedCall, ToolOutcome> {
    ToolSet::for_run(&ctx.selection, &[]).prepare(name, args, ctx.validation_wording())
}

/// The schema without its descriptions (ours are worded differently from the reference's).
fn without_descriptions(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| key.as_str() != "description")
                .map(|(key, value)| (key.clone(), without_descriptions(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_descriptions).collect()),
        other => other.clone(),
    }
}

#[test]
fn the_builtin_tools_come_in_the_reference_order_with_its_schemas() {
    let tools = ToolSet::builtin().definitions();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name).collect();
    assert_eq!(
        names,
        ["read", "bash", "edit", "write", "grep", "find", "ls"]
    );
    let schemas: Vec<String> = tools
        .iter()
        .map(|tool| without_descriptions(&tool.parameters).to_string())
        .collect();
    assert_eq!(
        schemas,
        [
            r#"{"type":"object","required":["path"],"properties":{"path":{"type":"string"},"offset":{"type":"number"},"limit":{"type":"number"}}}"#,
            r#"{"type":"object","required":["command"],"properties":{"command":{"type":"string"},"timeout":{"type":"number"}}}"#,
            r#"{"type":"object","required":["path","edits"],"properties":{"path":{"type":"string"},"edits":{"type":"array","items":{"type":"object","required":["oldText","newText"],"properties":{"oldText":{"type":"string"},"newText":{"type":"string"}}}}}}"#,
            r#"{"type":"object","required":["path","content"],"properties":{"path":{"type":"string"},"content":{"type":"string"}}}"#,
            r#"{"type":"object","required":["pattern"],"properties":{"pattern":{"type":"string"},"path":{"type":"string"},"glob":{"type":"string"},"ignoreCase":{"type":"boolean"},"literal":{"type":"boolean"},"context":{"type":"number"},"limit":{"type":"number"}}}"#,
            r#"{"type":"object","required":["pattern"],"properties":{"pattern":{"type":"string"},"path":{"type":"string"},"limit":{"type":"number"}}}"#,
            r#"{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"number"}}}"#,
        ]
    );
    for tool in &tools {
        assert!(!tool.description.is_empty());
        for property in tool.parameters["properties"].as_object().unwrap().values() {
            assert!(
                property["description"].is_string(),
                "{}: {property}",
                tool.name
            );
        }
    }
}

fn failure(name: &str, args: Value) -> String {
    match prepare(name, &args) {
        Ok(prepared) => panic!("{name} {args} passed validation as {prepared:?}"),
        Err(outcome) => {
            assert!(outcome.is_error);
            assert_eq!(outcome.details, Some(json!({})));
            outcome.text()
        }
    }
}

#[test]
fn an_unknown_tool_is_not_found() {
    assert_eq!(
        prepare("nosuch", &json!({})).unwrap_err(),
        ToolOutcome::error("Tool nosuch not found")
    );
}

#[test]
fn grep_find_and_ls_are_found_only_when_the_tools_flag_names_them() {
    let mut ctx = ToolContext::new(".");
    let args = json!({ "pattern": "x" });
    assert_eq!(
        prepare_call(&ctx, "grep", &args).unwrap_err(),
        ToolOutcome::error("Tool grep not found")
    );
    ctx.selection = ToolSelection {
        tools: Some(vec![
            "read".into(),
            "grep".into(),
            "find".into(),
            "ls".into(),
        ]),
        ..ToolSelection::default()
    };
    for name in ["grep", "find", "ls"] {
        let prepared = prepare_call(&ctx, name, &args).unwrap();
        assert_eq!(prepared.name(), name);
    }
    assert_eq!(
        prepare_call(&ctx, "bash", &json!({ "command": "true" })).unwrap_err(),
        ToolOutcome::error("Tool bash not found")
    );
}

#[test]
fn missing_arguments_are_listed_with_the_arguments_received() {
    assert_eq!(
        failure("read", json!({})),
        "Validation failed for tool \"read\":\n  - path: must have required properties path\n\nReceived arguments:\n{}"
    );
    assert_eq!(
        failure("write", json!({})),
        "Validation failed for tool \"write\":\n  - path: must have required properties path, content\n\nReceived arguments:\n{}"
    );
}

#[test]
fn from_1_5_0_failures_are_worded_as_schema_checks() {
    let mut ctx = ToolContext::new("/tmp");
    ctx.release = "1.5.0".parse().unwrap();
    let failure = |name: &str, args: Value| match prepare_call(&ctx, name, &args) {
        Ok(prepared) => panic!("{name} {args} passed validation as {prepared:?}"),
        Err(outcome) => outcome.text(),
    };
    // Checked against the reference 1.5.0's validator on the same schemas.
    assert_eq!(
        failure("write", json!({})),
        "Validation failed for tool \"write\":\n  - path: missing\n  - content: missing\n\nReceived arguments:\n{}"
    );
    assert_eq!(
        failure("edit", json!({ "edits": [{}] })),
        "Validation failed for tool \"edit\":\n  - path: missing\n  - edits.0.oldText: missing\n  - edits.0.newText: missing\n\nReceived arguments:\n{\n  \"edits\": [\n    {}\n  ]\n}"
    );
    assert_eq!(
        failure(
            "edit",
            json!({ "path": {}, "edits": [{ "newText": [], "oldText": "a" }] })
        ),
        "Validation failed for tool \"edit\":\n  - path: expected string, got object\n  - edits.0.newText: expected string, got array\n\nReceived arguments:\n{\n  \"path\": {},\n  \"edits\": [\n    {\n      \"newText\": [],\n      \"oldText\": \"a\"\n    }\n  ]\n}"
    );
    assert_eq!(
        failure("read", json!({ "path": "a", "offset": "abc" })),
        "Validation failed for tool \"read\":\n  - offset: expected number, got string\n\nReceived arguments:\n{\n  \"path\": \"a\",\n  \"offset\": \"abc\"\n}"
    );
}

#[test]
fn mistyped_arguments_are_listed_in_schema_order() {
    assert_eq!(
        failure(
            "edit",
            json!({ "path": {}, "edits": [{ "newText": [], "oldText": {} }] })
        ),
        "Validation failed for tool \"edit\":\n  - path: must be string\n  - edits.0.oldText: must be string\n  - edits.0.newText: must be string\n\nReceived arguments:\n{\n  \"path\": {},\n  \"edits\": [\n    {\n      \"newText\": [],\n      \"oldText\": {}\n    }\n  ]\n}"
    );
    assert_eq!(
        failure("read", json!({ "path": "a", "offset": "abc" })),
        "Validation failed for tool \"read\":\n  - offset: must be number\n\nReceived arguments:\n{\n  \"path\": \"a\",\n  \"offset\": \"abc\"\n}"
    );
    assert_eq!(
        failure("edit", json!({ "edits": [{}, { "oldText": 1 }] })),
        "Validation failed for tool \"edit\":\n  - path: must have required properties path\n  - edits.0.oldText: must have required properties oldText, newText\n  - edits.1.newText: must have required properties newText\n\nReceived arguments:\n{\n  \"edits\": [\n    {},\n    {\n      \"oldText\": 1\n    }\n  ]\n}"
    );
}

#[test]
fn arguments_that_are_not_an_object_fail_at_the_root() {
    assert_eq!(
        failure("bash", json!(null)),
        "Validation failed for tool \"bash\":\n  - root: must be object\n\nReceived arguments:\nnull"
    );
}

#[test]
fn edit_arguments_are_repaired_before_validation() {
    // A JSON text that is not a list is wrapped into one and then fails as an item.
    assert_eq!(
        failure("edit", json!({ "path": "a", "edits": "[1,2]" })),
        "Validation failed for tool \"edit\":\n  - edits.0: must be object\n  - edits.1: must be object\n\nReceived arguments:\n{\n  \"path\": \"a\",\n  \"edits\": [\n    1,\n    2\n  ]\n}"
    );
    assert!(
        prepare(
            "edit",
            &json!({ "path": "a", "oldText": "x", "newText": "y" })
        )
        .is_ok()
    );
    assert!(
        prepare(
            "edit",
            &json!({ "path": "a", "edits": { "oldText": "x", "newText": "y" } })
        )
        .is_ok()
    );
}

#[test]
fn near_miss_values_are_coerced() {
    for (name, args) in [
        ("read", json!({ "path": 5 })),
        (
            "read",
            json!({ "path": "a", "offset": " 7 ", "limit": "12n" }),
        ),
        (
            "read",
            json!({ "path": "a", "offset": null, "limit": true }),
        ),
        ("bash", json!({ "command": "ls", "timeout": "0x10" })),
        ("write", json!({ "path": "a", "content": false })),
    ] {
        let prepared = prepare(name, &args);
        assert!(prepared.is_ok(), "{name} {args}: {prepared:?}");
    }
    assert!(prepare("read", &json!({ "path": "a", "offset": "Infinity" })).is_err());
}

#[test]
fn only_edits_sent_as_json_text_of_a_list_are_rewritten_in_the_call() {
    let mut args = json!({ "path": "a", "edits": "[{\"oldText\":\"x\",\"newText\":\"y\"}]" });
    repair_call_arguments("edit", args.as_object_mut().unwrap());
    assert_eq!(
        args,
        json!({ "path": "a", "edits": [{ "oldText": "x", "newText": "y" }] })
    );
    for (name, original) in [
        (
            "edit",
            json!({ "path": "a", "edits": "{\"oldText\":\"x\"}" }),
        ),
        (
            "edit",
            json!({ "path": "a", "oldText": "x", "newText": "y" }),
        ),
        (
            "write",
            json!({ "path": "a", "content": "[1]", "edits": "[1]" }),
        ),
    ] {
        let mut args = original.clone();
        repair_call_arguments(name, args.as_object_mut().unwrap());
        assert_eq!(args, original);
    }
}
