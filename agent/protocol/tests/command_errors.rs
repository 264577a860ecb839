//! The table of bad input lines: each yields one clear error (the text of an error response),
//! with the `command` and `id` that response carries, and nothing panics.

use pi_rpc_protocol::{CommandError, Incoming, RequestId, Response, json, parse_line};

/// (input line, expected error response as the agent writes it)
const CASES: &[(&str, &str)] = &[
    (
        "",
        r#"{"type":"response","command":"parse","success":false,"error":"Failed to parse command: Unexpected end of JSON input"}"#,
    ),
    (
        "   ",
        r#"{"type":"response","command":"parse","success":false,"error":"Failed to parse command: Unexpected end of JSON input"}"#,
    ),
    (
        "null",
        r#"{"type":"response","success":false,"error":"Unknown command: undefined (a command must be a JSON object)"}"#,
    ),
    (
        "[]",
        r#"{"type":"response","success":false,"error":"Unknown command: undefined (a command must be a JSON object)"}"#,
    ),
    (
        "42",
        r#"{"type":"response","success":false,"error":"Unknown command: undefined (a command must be a JSON object)"}"#,
    ),
    (
        r#""get_state""#,
        r#"{"type":"response","success":false,"error":"Unknown command: undefined (a command must be a JSON object)"}"#,
    ),
    (
        r#"{"id":"a"}"#,
        r#"{"id":"a","type":"response","success":false,"error":"Unknown command: undefined (the \"type\" field is missing)"}"#,
    ),
    (
        r#"{"id":7,"type":"bogus"}"#,
        r#"{"id":7,"type":"response","command":"bogus","success":false,"error":"Unknown command: bogus"}"#,
    ),
    (
        r#"{"id":null,"type":"bogus"}"#,
        r#"{"id":null,"type":"response","command":"bogus","success":false,"error":"Unknown command: bogus"}"#,
    ),
    (
        r#"{"id":"p","type":"prompt"}"#,
        r#"{"id":"p","type":"response","command":"prompt","success":false,"error":"Invalid prompt command: missing field `message`"}"#,
    ),
    (
        r#"{"type":"set_model","provider":1,"modelId":"x"}"#,
        r#"{"type":"response","command":"set_model","success":false,"error":"Invalid set_model command: invalid type: integer `1`, expected a string"}"#,
    ),
    (
        r#"{"type":"set_thinking_level","level":"extreme"}"#,
        r#"{"type":"response","command":"set_thinking_level","success":false,"error":"Invalid set_thinking_level command: unknown variant `extreme`, expected one of `off`, `minimal`, `low`, `medium`, `high`, `xhigh`, `max`"}"#,
    ),
];

#[test]
fn bad_lines_yield_one_clear_error_response_each() {
    for (line, expected) in CASES {
        let error = match parse_line(line) {
            Err(error) => error,
            Ok(incoming) => panic!("{line:?} parsed as {incoming:?}"),
        };
        let response = Response::error(error.id().cloned(), error.command(), error.to_string());
        assert_eq!(
            json::to_string(&response).unwrap(),
            *expected,
            "input {line:?}"
        );
    }
}

#[test]
fn syntax_errors_name_the_problem_and_quote_the_line() {
    for line in [
        "{bad",
        "\u{feff}{\"type\":\"get_state\"}",
        "{\"type\":\"get_state\"} x",
    ] {
        let error = parse_line(line).unwrap_err();
        assert!(
            matches!(error, CommandError::Parse { .. }),
            "{line:?}: {error:?}"
        );
        let text = error.to_string();
        assert!(text.starts_with("Failed to parse command: "), "{text}");
        assert!(
            text.len() > "Failed to parse command: ".len() + 10,
            "{text}"
        );
    }
    let bom = parse_line("\u{feff}{\"type\":\"get_state\"}")
        .unwrap_err()
        .to_string();
    assert!(bom.contains("byte order mark"), "{bom}");
}

#[test]
fn ids_of_every_json_kind_are_kept_as_given() {
    for (line, id) in [
        (
            r#"{"id":"x","type":"get_state"}"#,
            Some(RequestId::from("x")),
        ),
        (
            r#"{"id":1.50,"type":"get_state"}"#,
            Some(RequestId::Number(
                serde_json::Number::from_f64(1.5).unwrap(),
            )),
        ),
        (r#"{"id":null,"type":"get_state"}"#, Some(RequestId::Null)),
        (r#"{"type":"get_state"}"#, None),
    ] {
        let Ok(Incoming::Request(request)) = parse_line(line) else {
            panic!("{line}")
        };
        assert_eq!(request.id, id, "{line}");
        let echoed = json::to_string(&Response::ok(request.id, "get_state")).unwrap();
        let expected_id = serde_json::from_str::<serde_json::Value>(line)
            .unwrap()
            .get("id")
            .cloned();
        let echoed_value: serde_json::Value = serde_json::from_str(&echoed).unwrap();
        assert_eq!(echoed_value.get("id").cloned(), expected_id, "{line}");
    }
}

#[test]
fn unknown_input_fields_are_tolerated() {
    let Ok(Incoming::Request(request)) =
        parse_line(r#"{"type":"prompt","message":"hi","future":{"x":1},"id":"a"}"#)
    else {
        panic!("not a request")
    };
    assert_eq!(
        json::to_string(&request).unwrap(),
        r#"{"id":"a","type":"prompt","message":"hi"}"#
    );
}

#[test]
fn extension_ui_responses_are_recognised() {
    for line in [
        r#"{"type":"extension_ui_response","id":"u1","value":"Allow"}"#,
        r#"{"type":"extension_ui_response","id":"u2","confirmed":true}"#,
        r#"{"type":"extension_ui_response","id":"u3","cancelled":true}"#,
    ] {
        assert!(
            matches!(parse_line(line), Ok(Incoming::ExtensionUiResponse(_))),
            "{line}"
        );
    }
}
