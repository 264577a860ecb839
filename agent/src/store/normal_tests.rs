use std::fmt::Write as _;

use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;
use crate::store::json_strategies::{KEYS_WITHOUT_DIGITS, canonical, object};
use crate::store::scan::scan;

fn normalised(line: &str) -> Option<String> {
    let mut text = "kept ".to_owned();
    let done = normalise(line, &mut text);
    let rest = text.strip_prefix("kept ").expect("the start is kept");
    match done {
        Some(done) => {
            // The fields the pass found are the scanner's for the text it wrote.
            assert_eq!(done.scanned, scan(rest), "{line:?} became {rest:?}");
            Some(rest.to_owned())
        }
        None => {
            assert_eq!(rest, "", "a refused line leaves nothing behind");
            None
        }
    }
}

/// How a number is written in the styled text.
#[derive(Debug, Clone, Copy)]
enum NumberStyle {
    /// As Python's `repr`: `1.0`, `1e-05`, `1e+22`.
    Python,
    /// Exponent form: `1.5e3`.
    Exponent,
}

/// `value` written as another program might: Python's `json.dumps` separators (`", "`,
/// `": "`) or other whitespace, every non-ASCII character escaped (`ensure_ascii`), `/` as
/// `\/`, escapes in upper case, numbers in `style`.
fn styled(value: &Value, space: &str, style: NumberStyle, out: &mut String) {
    match value {
        Value::Object(map) => {
            out.push('{');
            for (index, (key, value)) in map.iter().enumerate() {
                if index > 0 {
                    write!(out, ",{space}").unwrap();
                }
                styled_string(key, out);
                write!(out, "{space}:{space}").unwrap();
                styled(value, space, style, out);
            }
            write!(out, "{space}}}").unwrap();
        }
        Value::Array(items) => {
            write!(out, "[{space}").unwrap();
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    write!(out, "{space},").unwrap();
                }
                styled(item, space, style, out);
            }
            out.push(']');
        }
        Value::String(text) => styled_string(text, out),
        Value::Number(number) => match (number.as_f64(), number.is_f64(), style) {
            (Some(float), true, NumberStyle::Python)
                if float.fract() == 0.0 && float.abs() < 1e16 =>
            {
                write!(out, "{float:.1}").unwrap()
            }
            (Some(float), true, NumberStyle::Python) => write!(out, "{float:?}").unwrap(),
            (Some(float), _, NumberStyle::Exponent) => write!(out, "{float:e}").unwrap(),
            _ => write!(out, "{number}").unwrap(),
        },
        other => write!(out, "{other}").unwrap(),
    }
}

fn styled_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            '\n' => out.push_str("\\n"),
            c if c.is_ascii() && c >= ' ' => out.push(c),
            c => {
                let mut units = [0; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(out, "\\u{unit:04X}").unwrap();
                }
            }
        }
    }
    out.push('"');
}

/// Equal as `JSON.parse` would read them: key order counts, numbers within rounding (the
/// reference parse here, serde_json's, is not correctly rounded).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && same(va, vb))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same(a, b))
        }
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (a.as_f64().unwrap(), b.as_f64().unwrap());
            a == b || (a - b).abs() <= a.abs().max(b.abs()) * 1e-15
        }
        (a, b) => a == b,
    }
}

#[test]
fn python_style_lines_become_what_javascript_writes() {
    let line = r#"{"type": "message", "id": "a1", "parentId": null, "message": {"role": "user", "content": [{"type": "text", "text": "caf\u00e9 \ud83d\ude00 a\/b \"q\""}], "timestamp": 1.0, "cost": 1e-05}}"#;
    assert_eq!(
        normalised(line).as_deref(),
        Some(
            r#"{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":[{"type":"text","text":"café 😀 a/b \"q\""}],"timestamp":1,"cost":0.00001}}"#
        )
    );
}

#[test]
fn escapes_come_out_as_javascript_writes_them() {
    let line = r#"{ "s" : "\u0041\u000A\u001f\u0008\u0009\u000C\u000d\u0022\u005C\u2028\b" }"#;
    assert_eq!(
        normalised(line).as_deref(),
        Some("{\"s\":\"A\\n\\u001f\\b\\t\\f\\r\\\"\\\\\u{2028}\\b\"}")
    );
}

#[test]
fn numbers_take_javascripts_shortest_form() {
    for (written, expected) in [
        ("1.0", "1"),
        ("-0", "0"),
        ("-0.0", "0"),
        ("1E2", "100"),
        ("1e21", "1e+21"),
        ("1.5e-7", "1.5e-7"),
        ("0.0000001", "1e-7"),
        ("1e400", "null"),
        ("12345678901234567890", "12345678901234567000"),
        ("0.10", "0.1"),
        ("17", "17"),
    ] {
        let line = format!("{{\"n\": {written}}}");
        assert_eq!(
            normalised(&line),
            Some(format!("{{\"n\":{expected}}}")),
            "{written}"
        );
    }
}

#[test]
fn refuses_what_one_pass_cannot_reproduce_or_is_invalid() {
    let deep = format!("{{\"a\":{}1{}}}", "[".repeat(120), "]".repeat(120));
    let many = format!(
        "{{{}}}",
        (0..70)
            .map(|i| format!("\"k{i}\":{i}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    for line in [
        "",
        "[1]",
        "5",
        r#"{"a": 1, "a": 2}"#,
        r#"{"a": 1, "\u0061": 2}"#,
        r#"{"b": 1, "1": 2}"#,
        r#"{"s": "\ud83d"}"#,
        r#"{"s": "\ude00"}"#,
        r#"{"s": "\ud83dx"}"#,
        r#"{"a": 1} x"#,
        r#"{"a": 1,}"#,
        r#"{"a": [1,]}"#,
        r#"{"a": 01}"#,
        r#"{"a": 1.}"#,
        r#"{"a": .5}"#,
        r#"{"a": +1}"#,
        r#"{"a": NaN}"#,
        r#"{"a": "\x"}"#,
        r#"{"a": "\u12"}"#,
        "{\"a\": \"\t\"}",
        r#"{"a": tru}"#,
        r#"{"a" 1}"#,
        r#"{"a": 1"#,
        &deep,
        &many,
    ] {
        assert_eq!(normalised(line), None, "{line:?}");
    }
}

#[test]
fn the_indexed_fields_are_found_in_the_written_text() {
    let line = r#"{"type": "message", "id": "caf\u00e9", "parentId": null, "timestamp": "t", "message": {"role": "user", "content": [{"type": "text", "text": "na\u00efve"}], "timestamp": 1.0}}"#;
    let mut text = String::new();
    let scanned = normalise(line, &mut text)
        .and_then(|done| done.scanned)
        .unwrap();
    assert_eq!(scanned.kind.map(|span| span.of(&text)), Some("message"));
    assert_eq!(scanned.id.map(|span| span.of(&text)), Some("café"));
    assert_eq!(scanned.parent_id, None);
    assert_eq!(
        scanned.message.map(|span| span.of(&text)),
        Some(r#"{"role":"user","content":[{"type":"text","text":"naïve"}],"timestamp":1}"#)
    );
    assert_eq!(scanned.role.map(|span| span.of(&text)), Some("user"));
    assert!(scanned.message_has_content);
    // Written, but not indexed: an id with an escape, a message that is not an object, a
    // type that is not a string.
    for line in [
        r#"{"id": "a\"b"}"#,
        r#"{"type": "message", "message": [1]}"#,
        r#"{"type": 5}"#,
        r#"{"parentId": false}"#,
    ] {
        let mut text = String::new();
        assert_eq!(
            normalise(line, &mut text).map(|done| done.scanned),
            Some(None),
            "{line}"
        );
    }
}

#[test]
fn canonical_lines_come_back_unchanged() {
    let value = json!({"type": "message", "id": "x", "message": {"role": "user",
        "content": [{"type": "text", "text": "é \u{1f600} \u{7f} \u{1} \\ \""}], "n": [0.5, -3, 1e21]}});
    let line = canonical(&value);
    assert_eq!(normalised(&line), Some(line));
}

proptest! {
    #[test]
    fn styled_lines_normalise_to_the_canonical_text(
        object in object(KEYS_WITHOUT_DIGITS),
        space in prop::sample::select(vec!["", " ", "  ", "\t", " \r "]),
        python in any::<bool>(),
    ) {
        let style = if python { NumberStyle::Python } else { NumberStyle::Exponent };
        let mut line = String::new();
        styled(&object, space, style, &mut line);
        prop_assert_eq!(normalised(&line), Some(canonical(&object)), "{}", line);
    }

    #[test]
    fn what_is_accepted_is_the_parse_of_the_line(
        object in object(KEYS_WITHOUT_DIGITS),
        cut in 0usize..256,
        byte in any::<u8>(),
    ) {
        let mut line = String::new();
        styled(&object, " ", NumberStyle::Python, &mut line);
        let mut bytes = line.into_bytes();
        let at = cut % bytes.len();
        bytes[at] = byte;
        let Ok(mutated) = String::from_utf8(bytes) else {
            return Ok(());
        };
        if let Some(output) = normalised(&mutated) {
            let parsed: Value = match serde_json::from_str(&mutated) {
                Ok(parsed) => parsed,
                // JSON.parse reads a number beyond a double's range as an infinity (which
                // JSON.stringify writes as null); serde_json refuses it.
                Err(error) if error.to_string().starts_with("number out of range") => {
                    prop_assert!(output.contains("null"));
                    return Ok(());
                }
                Err(error) => panic!("accepted invalid JSON {mutated:?}: {error}"),
            };
            prop_assert!(parsed.is_object());
            let ours: Value = serde_json::from_str(&output).unwrap();
            prop_assert!(same(&parsed, &ours), "{} became {}", mutated, output);
            prop_assert_eq!(normalised(&output), Some(output.clone()));
        }
    }
}
