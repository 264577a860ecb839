//! What the Mistral SDK's schema refuses in a chunk, as pi 0.84.1 meets it: that release reads
//! the stream through `@mistralai/mistralai` (2.2.6), which checks every chunk with zod before
//! pi sees it. A `content` that is neither text, a list nor `null` (a number, `42`), or a tool
//! call's `arguments` that are neither an object nor text, fail the stream with zod's issues as
//! JSON (`JSON.stringify(issues, null, 2)`), the chunk unread. A list item that does not fit
//! its kind (a text part whose `text` is a number) is no failure: the SDK turns it into an
//! unknown item, which pi skips ([`item_fits`]).

use serde_json::{Value, json};

/// The error text of a chunk the schema refuses, or `None` when it passes these checks.
pub(super) fn refusal(chunk: &Value) -> Option<String> {
    let mut issues = Vec::new();
    let choices = chunk.get("choices").and_then(Value::as_array);
    for (at, choice) in choices.into_iter().flatten().enumerate() {
        let Some(delta) = choice.get("delta").filter(|delta| delta.is_object()) else {
            continue;
        };
        match delta.get("content") {
            None | Some(Value::Null | Value::String(_) | Value::Array(_)) => {}
            Some(other) => issues.push(union_issue(
                json!(["data", "choices", at, "delta", "content"]),
                ["string", "array"],
                received(Some(other)),
            )),
        }
        let calls = delta.get("tool_calls").and_then(Value::as_array);
        for (index, call) in calls.into_iter().flatten().enumerate() {
            let Some(function) = call.get("function").filter(|f| f.is_object()) else {
                continue;
            };
            let arguments = function.get("arguments");
            if !matches!(arguments, Some(Value::String(_) | Value::Object(_))) {
                issues.push(union_issue(
                    json!([
                        "data",
                        "choices",
                        at,
                        "delta",
                        "tool_calls",
                        index,
                        "function",
                        "arguments"
                    ]),
                    ["record", "string"],
                    received(arguments),
                ));
            }
        }
    }
    (!issues.is_empty()).then(|| crate::js::stringify_pretty(&Value::Array(issues)))
}

/// Whether a `content` list item survives the SDK's schema: a text part with text, a thinking
/// part whose parts all have text where they name any. Other kinds pass through as they are.
pub(super) fn item_fits(item: &Value) -> bool {
    let text_fits = |part: &Value| matches!(part.get("text"), None | Some(Value::String(_)));
    match item.get("type").and_then(Value::as_str) {
        Some("text") => matches!(item.get("text"), Some(Value::String(_))),
        Some("thinking") => item
            .get("thinking")
            .and_then(Value::as_array)
            .is_some_and(|parts| parts.iter().all(text_fits)),
        _ => true,
    }
}

/// zod's name for the kind of value it got.
fn received(value: Option<&Value>) -> &'static str {
    match value {
        None => "undefined",
        Some(Value::Null) => "null",
        Some(Value::Bool(_)) => "boolean",
        Some(Value::Number(_)) => "number",
        Some(Value::String(_)) => "string",
        Some(Value::Array(_)) => "array",
        Some(Value::Object(_)) => "object",
    }
}

/// An `invalid_union` issue: the value at `path` is none of `expected`.
fn union_issue(path: Value, expected: [&str; 2], got: &str) -> Value {
    let branch = |kind: &str| {
        json!([{
            "expected": kind,
            "code": "invalid_type",
            "path": [],
            "message": format!("Invalid input: expected {kind}, received {got}"),
        }])
    };
    json!({
        "code": "invalid_union",
        "errors": [branch(expected[0]), branch(expected[1])],
        "path": path,
        "message": "Invalid input",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(delta: Value) -> Value {
        json!({"id": "x", "model": "m", "choices": [{"index": 0, "delta": delta}]})
    }

    #[test]
    fn a_number_content_is_refused_in_zods_words() {
        // @mistralai/mistralai 2.2.6 on {"content": 42}, JSON.stringify(error.issues, null, 2).
        let expected = r#"[
  {
    "code": "invalid_union",
    "errors": [
      [
        {
          "expected": "string",
          "code": "invalid_type",
          "path": [],
          "message": "Invalid input: expected string, received number"
        }
      ],
      [
        {
          "expected": "array",
          "code": "invalid_type",
          "path": [],
          "message": "Invalid input: expected array, received number"
        }
      ]
    ],
    "path": [
      "data",
      "choices",
      0,
      "delta",
      "content"
    ],
    "message": "Invalid input"
  }
]"#;
        assert_eq!(
            refusal(&chunk(json!({"content": 42}))).as_deref(),
            Some(expected)
        );
    }

    #[test]
    fn arguments_that_are_neither_object_nor_text_are_refused() {
        for (arguments, got) in [
            (json!(1), "number"),
            (json!([]), "array"),
            (json!(null), "null"),
        ] {
            let delta = json!({"tool_calls": [{"id": "a", "function": {"name": "r", "arguments": arguments}}]});
            let text = refusal(&chunk(delta)).unwrap();
            let issues: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(
                issues[0]["path"],
                json!([
                    "data",
                    "choices",
                    0,
                    "delta",
                    "tool_calls",
                    0,
                    "function",
                    "arguments"
                ])
            );
            assert_eq!(
                issues[0]["errors"][0][0]["message"],
                format!("Invalid input: expected record, received {got}")
            );
            assert_eq!(
                issues[0]["errors"][1][0]["message"],
                format!("Invalid input: expected string, received {got}")
            );
        }
        let missing = json!({"tool_calls": [{"id": "a", "function": {"name": "r"}}]});
        assert!(
            refusal(&chunk(missing))
                .unwrap()
                .contains("received undefined")
        );
    }

    #[test]
    fn what_the_schema_takes_passes() {
        for delta in [
            json!({"content": "a"}),
            json!({"content": null}),
            json!({"content": [{"type": "text", "text": 5}]}),
            json!({"tool_calls": [{"function": {"name": "r", "arguments": "{}"}}]}),
            json!({"tool_calls": [{"function": {"name": "r", "arguments": {"a": 1}}}]}),
        ] {
            assert_eq!(refusal(&chunk(delta.clone())), None, "{delta}");
        }
    }

    #[test]
    fn items_that_do_not_fit_their_kind_are_unknown() {
        assert!(item_fits(&json!({"type": "text", "text": "a"})));
        assert!(!item_fits(&json!({"type": "text", "text": 5})));
        assert!(!item_fits(&json!({"type": "text"})));
        assert!(item_fits(
            &json!({"type": "thinking", "thinking": [{"type": "text", "text": "a"}]})
        ));
        assert!(!item_fits(
            &json!({"type": "thinking", "thinking": [{"type": "text", "text": "a"}, {"type": "text", "text": 7}]})
        ));
    }
}
