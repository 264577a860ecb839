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
