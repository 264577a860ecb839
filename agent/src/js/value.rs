//! A parsed JSON value as JavaScript turns it into text: `String(value)`, what a template
//! string shows.

use std::borrow::Cow;

use serde_json::Value;

/// JavaScript's truthiness of a parsed JSON value: `null`, `false`, `0`, `NaN` and `""` are
/// false, everything else (any array or object) true.
pub(crate) fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0 && !n.is_nan()),
        Value::String(text) => !text.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// `value || fallback` as a template string shows it: `String(value)` when the value is truthy,
/// else the fallback.
pub(crate) fn display_or(value: Option<&Value>, fallback: &str) -> String {
    match value.filter(|value| truthy(value)) {
        Some(value) => display(Some(value)),
        None => fallback.to_owned(),
    }
}

/// What `text += value` appends where a provider's field should be text: a string as it is, any
/// other value as `String(value)` (`42` appends "42", `null` "null"). A missing field appends
/// nothing (JavaScript would append "undefined"; the reference's readers mostly check first).
pub(crate) fn appended(value: Option<&Value>) -> Cow<'_, str> {
    match value {
        None => Cow::Borrowed(""),
        Some(Value::String(text)) => Cow::Borrowed(text),
        Some(other) => Cow::Owned(display(Some(other))),
    }
}

/// `String(value)`, as a template string shows a value; `None` is `undefined`. Numbers print
/// as JavaScript prints them, arrays join their items with commas (`null` items empty), objects
/// are `[object Object]`.
pub(crate) fn display(value: Option<&Value>) -> String {
    value.map_or_else(|| "undefined".to_owned(), pi_rpc_protocol::id::js_text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn truthiness_is_javascript_s() {
        // Node: !!0, !!NaN-like, !!"" and !!null are false; !![] and !!{} are true.
        for falsy in [json!(null), json!(false), json!(0), json!(0.0), json!("")] {
            assert!(!truthy(&falsy), "{falsy}");
        }
        for truthy_value in [json!(true), json!(-1), json!("0"), json!([]), json!({})] {
            assert!(truthy(&truthy_value), "{truthy_value}");
        }
    }

    #[test]
    fn or_falls_back_on_falsy_values() {
        // Node: `${0 || "none"}` "none", `${"x" || "none"}` "x", `${[1] || "none"}` "1".
        assert_eq!(display_or(Some(&json!(0)), "none"), "none");
        assert_eq!(display_or(None, "none"), "none");
        assert_eq!(display_or(Some(&json!("x")), "none"), "x");
        assert_eq!(display_or(Some(&json!([1])), "none"), "1");
    }

    #[test]
    fn values_show_as_string_of_value_shows_them() {
        // Node: String(1.0) "1", String([1, null, [2, null]]) "1,,2,", String({}) "[object Object]".
        assert_eq!(display(Some(&json!(1.0))), "1");
        assert_eq!(display(Some(&json!(1e21))), "1e+21");
        assert_eq!(display(Some(&json!([1, null, [2, null]]))), "1,,2,");
        assert_eq!(display(Some(&json!({}))), "[object Object]");
        assert_eq!(display(Some(&json!(null))), "null");
        assert_eq!(display(None), "undefined");
    }

    #[test]
    fn appended_values_are_text_as_plus_makes_them() {
        // Node: "a" + 42 "a42", "a" + 1.0 "a1", "a" + true "atrue", "a" + null "anull".
        for (value, text) in [
            (json!(42), "42"),
            (json!(1.0), "1"),
            (json!(true), "true"),
            (json!(null), "null"),
            (json!("x"), "x"),
        ] {
            assert_eq!(appended(Some(&value)), text, "{value}");
        }
        assert!(matches!(appended(Some(&json!("x"))), Cow::Borrowed("x")));
        assert_eq!(appended(None), "");
    }
}
