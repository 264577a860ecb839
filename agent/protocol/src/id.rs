//! Request ids: whatever JSON value the client sent, echoed back as given.

use serde::{Deserialize, Deserializer, Serialize};

/// A command's `id`. The reference echoes any JSON value; strings, numbers and `null` are what
/// clients send. Other values (objects, arrays, booleans) are kept as they came.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged)]
pub enum RequestId {
    /// `"req-1"`
    String(String),
    /// `42`, printed back as JavaScript would (`1.0` becomes `1`).
    Number(serde_json::Number),
    /// `null`: echoed as `"id":null`.
    Null,
    /// Any other JSON value, echoed unchanged.
    Other(serde_json::Value),
}

impl From<&str> for RequestId {
    fn from(value: &str) -> Self {
        RequestId::String(value.to_owned())
    }
}

impl From<String> for RequestId {
    fn from(value: String) -> Self {
        RequestId::String(value)
    }
}

impl From<i64> for RequestId {
    fn from(value: i64) -> Self {
        RequestId::Number(value.into())
    }
}

impl RequestId {
    /// Builds an id from any JSON value.
    pub fn from_value(value: serde_json::Value) -> Self {
        match value {
            serde_json::Value::String(text) => RequestId::String(text),
            serde_json::Value::Number(number) => RequestId::Number(number),
            serde_json::Value::Null => RequestId::Null,
            other => RequestId::Other(other),
        }
    }
}

/// Deserialises an optional id so that an explicit `null` is kept as `Some(RequestId::Null)`
/// while a missing key stays `None` (use with `#[serde(default)]`).
pub fn deserialize_optional_id<'de, D>(deserializer: D) -> Result<Option<RequestId>, D::Error>
where
    D: Deserializer<'de>,
{
    let value = serde_json::Value::deserialize(deserializer)?;
    Ok(Some(RequestId::from_value(value)))
}

/// Deserialises an optional entry id the way the reference reads one: any JSON value present
/// is taken as text (JavaScript's `String(value)`: `null`, `42`, `true`, an array's elements
/// joined by commas, `[object Object]`), so that a value no entry has answers
/// `Entry not found: <text>` as the reference's does; a missing key stays `None` (use with
/// `#[serde(default)]`).
pub fn deserialize_entry_text<'de, D>(deserializer: D) -> Result<Option<String>, D::Error>
where
    D: Deserializer<'de>,
{
    let value = serde_json::Value::deserialize(deserializer)?;
    Ok(Some(js_text(&value)))
}

/// JavaScript's `String(value)` of a JSON value: what the reference makes of a value where it
/// expects text (an entry id, a provider's delta appended with `+`).
pub fn js_text(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::String(text) => text.clone(),
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::Null => String::new(),
                other => js_text(other),
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => "[object Object]".to_owned(),
        // As JavaScript prints a number: `1.0` is "1", `1e21` "1e+21".
        Value::Number(number) => number
            .as_f64()
            .map_or_else(|| number.to_string(), crate::json::format_js_number),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod entry_text_tests {
    use super::*;

    #[derive(Deserialize)]
    struct Get {
        #[serde(default, deserialize_with = "deserialize_entry_text")]
        since: Option<String>,
    }

    #[test]
    fn any_json_value_is_read_as_javascript_text() {
        let since = |json: &str| serde_json::from_str::<Get>(json).unwrap().since;
        assert_eq!(since("{}"), None);
        assert_eq!(
            since(r#"{"since": "ab12cd34"}"#).as_deref(),
            Some("ab12cd34")
        );
        assert_eq!(since(r#"{"since": null}"#).as_deref(), Some("null"));
        assert_eq!(since(r#"{"since": 42}"#).as_deref(), Some("42"));
        // As JavaScript prints numbers.
        assert_eq!(since(r#"{"since": 1.0}"#).as_deref(), Some("1"));
        assert_eq!(since(r#"{"since": 1e21}"#).as_deref(), Some("1e+21"));
        assert_eq!(
            since(r#"{"since": [1, null, "x"]}"#).as_deref(),
            Some("1,,x")
        );
        assert_eq!(
            since(r#"{"since": {"a": 1}}"#).as_deref(),
            Some("[object Object]")
        );
    }
}
