//! A parsed JSON value as JavaScript turns it into text: `String(value)`, what a template
//! string shows.

use serde_json::Value;

use super::number_to_string;

/// `String(value)`, as a template string shows a value; `None` is `undefined`. Numbers print
/// as JavaScript prints them, arrays join their items with commas (`null` items empty), objects
/// are `[object Object]`.
pub(crate) fn display(value: Option<&Value>) -> String {
    match value {
        None => "undefined".to_owned(),
        Some(Value::Null) => "null".to_owned(),
        Some(Value::Bool(flag)) => flag.to_string(),
        Some(Value::Number(number)) => number
            .as_f64()
            .map_or_else(|| number.to_string(), number_to_string),
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::Null => String::new(),
                other => display(Some(other)),
            })
            .collect::<Vec<_>>()
            .join(","),
        Some(Value::Object(_)) => "[object Object]".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
}
