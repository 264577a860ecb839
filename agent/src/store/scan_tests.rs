use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::store::json_strategies::{KEYS_WITH_DIGITS, canonical, object};

/// The text with every number outside strings replaced by `#`, and the numbers.
fn split_numbers(text: &str) -> (String, Vec<String>) {
    let mut skeleton = String::new();
    let mut numbers = Vec::new();
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            skeleton.push(c);
            match c {
                '\\' => skeleton.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
        } else if c == '-' || c.is_ascii_digit() {
            let mut number = c.to_string();
            while let Some(&next) = chars.peek() {
                if !(next.is_ascii_digit() || matches!(next, '.' | 'e' | 'E' | '+' | '-')) {
                    break;
                }
                number.push(next);
                chars.next();
            }
            skeleton.push('#');
            numbers.push(number);
        } else {
            in_string = c == '"';
            skeleton.push(c);
        }
    }
    (skeleton, numbers)
}

/// What the scanner must guarantee when it accepts a line: the line is a JSON object and is
/// exactly what `JSON.stringify` writes after `JSON.parse`. serde_json's own float parsing is
/// not correctly rounded (JavaScript's is), so numbers are compared by JavaScript's rule: a
/// number is as written when the shortest text of its correctly rounded value is that text.
fn assert_sound(line: &str) {
    if scan(line).is_some() {
        let value: Value = serde_json::from_str(line).unwrap_or_else(|error| {
            panic!("accepted invalid JSON {line:?}: {error}");
        });
        assert!(value.is_object(), "accepted a non-object: {line:?}");
        let written = canonical(&value);
        let (line_skeleton, line_numbers) = split_numbers(line);
        let (skeleton, numbers) = split_numbers(&written);
        assert_eq!(line_skeleton, skeleton, "accepted a non-canonical line");
        for (ours, theirs) in line_numbers.iter().zip(&numbers) {
            let exact = ours
                .parse::<f64>()
                .map(pi_rpc_protocol::json::format_js_number);
            assert!(
                ours == theirs || exact.as_deref() == Ok(ours.as_str()),
                "accepted a non-canonical number {ours} ({theirs}) in {line:?}"
            );
        }
    }
}

#[test]
fn indexes_a_message_entry() {
    let line = r#"{"type":"message","id":"a1","parentId":"a0","timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"hi \"there\"\n"}],"timestamp":1}}"#;
    let scanned = scan(line).unwrap();
    assert_eq!(scanned.kind.unwrap().of(line), "message");
    assert_eq!(scanned.id.unwrap().of(line), "a1");
    assert_eq!(scanned.parent_id.unwrap().of(line), "a0");
    assert_eq!(
        scanned.timestamp.unwrap().of(line),
        "2026-01-01T00:00:00.000Z"
    );
    assert_eq!(scanned.role.unwrap().of(line), "user");
    assert!(scanned.message_has_content);
    let message = scanned.message.unwrap().of(line);
    assert!(message.starts_with(r#"{"role":"user""#) && message.ends_with("\"timestamp\":1}"));
}

#[test]
fn a_null_parent_and_missing_content_are_seen() {
    let line =
        r#"{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":null}}"#;
    let scanned = scan(line).unwrap();
    assert_eq!(scanned.parent_id, None);
    assert!(!scanned.message_has_content);
    let line = r#"{"type":"message","id":"a1","message":{"role":"user"}}"#;
    assert!(!scan(line).unwrap().message_has_content);
}

#[test]
fn nested_fields_of_the_same_names_are_not_indexed() {
    let line = r#"{"type":"custom","id":"c","data":{"id":"inner","message":{"role":"x"}}}"#;
    let scanned = scan(line).unwrap();
    assert_eq!(scanned.id.unwrap().of(line), "c");
    assert_eq!(scanned.message, None);
    assert_eq!(scanned.role, None);
}

#[test]
fn refuses_what_is_not_canonical() {
    for line in [
        "",
        "[]",
        "5",
        r#"{"a":1} "#,
        r#"{ "a":1}"#,
        r#"{"a": 1}"#,
        r#"{"a":1}{"b":2}"#,
        r#"{"a":1,"a":2}"#,
        r#"{"b":1,"1":2}"#,
        r#"{"a":1.0}"#,
        r#"{"a":0.10}"#,
        r#"{"a":0.0000001}"#,
        r#"{"a":00.5}"#,
        r#"{"a":0.1000000000000000055511151231257827}"#,
        r#"{"a":-0}"#,
        r#"{"a":01}"#,
        r#"{"a":1e21}"#,
        r#"{"a":12345678901234567890}"#,
        r#"{"a":"\u0041"}"#,
        r#"{"a":"\/"}"#,
        r#"{"a":"\u000A"}"#,
        r#"{"a":"\u001F"}"#,
        r#"{"a":"\ud83d\ude00"}"#,
        "{\"a\":\"\t\"}",
        r#"{"a":tru}"#,
        r#"{"a":[1,]}"#,
        r#"{"a":{"b":1,}}"#,
        r#"{"type":"m\"x"}"#,
        r#"{"id":5}"#,
        r#"{"message":"text"}"#,
        r#"{"a":1"#,
    ] {
        assert_eq!(scan(line), None, "{line:?}");
        assert_sound(line);
    }
}

#[test]
fn accepts_what_javascript_writes() {
    for value in [
        json!({}),
        json!({"a": [], "b": {}, "c": [[]], "d": [{}]}),
        json!({"n": 0, "m": -5, "f": 0.1, "g": 1.5e-7, "h": 1e21, "big": 9007199254740991u64}),
        json!({"a": 0.0036, "b": -12.5, "c": 0.000001, "d": 123456789.123456, "e": 1e-7}),
        json!({"s": "\u{7f} / é \u{2028} \u{1f600} \u{0} \u{1f} \u{8}\t\n\u{c}\r\"\\"}),
        json!({"t": true, "f": false, "z": null, "k10": "4294967295"}),
        json!({"4294967295": 1}),
    ] {
        let line = canonical(&value);
        assert!(scan(&line).is_some(), "{line}");
        assert_sound(&line);
    }
}

#[test]
fn too_deep_goes_the_slow_way() {
    let deep = format!("{{\"a\":{}1{}}}", "[".repeat(120), "]".repeat(120));
    assert_eq!(scan(&deep), None);
}

proptest! {
    #[test]
    fn plain_runs_end_at_the_first_quote_backslash_or_control(
        bytes in prop::collection::vec(prop_oneof![Just(b'"'), Just(b'\\'), Just(0x1f), Just(0x20), Just(0x5b), Just(0x5d), Just(0xa2), any::<u8>(), Just(b'a'), Just(b'a'), Just(b'a'), Just(b'a')], 0..120),
        from in 0usize..120,
    ) {
        let at = from.min(bytes.len());
        let expected = bytes[at..]
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
            .map_or(bytes.len(), |offset| at + offset);
        prop_assert_eq!(plain_end(&bytes, at), expected);
        prop_assert_eq!(skip_plain(&bytes, at), expected);
    }

    #[test]
    fn accepted_lines_are_canonical_json(object in object(KEYS_WITH_DIGITS), cut in 0usize..64, byte in any::<u8>()) {
        let line = canonical(&object);
        assert_sound(&line);
        // A mutation: one character replaced.
        let mut bytes = line.clone().into_bytes();
        if !bytes.is_empty() {
            let at = cut % bytes.len();
            bytes[at] = byte;
            if let Ok(mutated) = String::from_utf8(bytes) {
                assert_sound(&mutated);
            }
        }
    }

    #[test]
    fn indexed_fields_match_the_parsed_object(object in object(KEYS_WITH_DIGITS)) {
        let line = canonical(&object);
        let Some(scanned) = scan(&line) else {
            return Ok(());
        };
        let text = |span: Option<Span>| span.map(|span| span.of(&line).to_owned());
        let string = |value: Option<&Value>| value.and_then(Value::as_str).map(str::to_owned);
        prop_assert_eq!(text(scanned.kind), string(object.get("type")));
        prop_assert_eq!(text(scanned.id), string(object.get("id")));
        prop_assert_eq!(text(scanned.parent_id), string(object.get("parentId")));
        let message = object.get("message").filter(|m| m.is_object());
        prop_assert_eq!(text(scanned.message), message.map(canonical));
        prop_assert_eq!(text(scanned.role), string(message.and_then(|m| m.get("role"))));
        let content = message.and_then(|m| m.get("content")).is_some_and(|c| !c.is_null());
        prop_assert_eq!(scanned.message_has_content, content);
    }
}
