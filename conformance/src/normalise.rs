//! Normalising actual records for `record` and `diff`: volatile values (UUIDs, timestamps,
//! entry ids, scratch folders) become placeholders, and the known races of pi's stream are made
//! robust.

use serde_json::Value;

use crate::pattern::{ID8_RE, ISO_RE, PARTIAL_KEY, UUID_RE, Vars, is_whole};

/// Replaces volatile values in an actual value by placeholders: UUIDs, ISO timestamps,
/// epoch-millisecond timestamps under a `timestamp` key, 8-hex entry ids under `id`/`parentId`,
/// and the run's folders. Used by `record` and `diff`.
pub fn normalise(value: &Value, vars: &Vars) -> Value {
    normalise_at(value, vars, None)
}

/// [`normalise`], then the known races of pi's stream made robust: the `message_start` of an
/// assistant message is serialised late and may already hold streamed content, so only its role
/// is kept (as a partial object).
pub fn normalise_record(value: &Value, vars: &Vars) -> Value {
    let is_assistant_start = value.get("type").and_then(Value::as_str) == Some("message_start")
        && value.pointer("/message/role").and_then(Value::as_str) == Some("assistant");
    if is_assistant_start {
        return serde_json::json!({"type": "message_start", "message": {PARTIAL_KEY: true, "role": "assistant"}});
    }
    normalise(value, vars)
}

fn normalise_at(value: &Value, vars: &Vars, key: Option<&str>) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), normalise_at(v, vars, Some(k))))
                .collect(),
        ),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| normalise_at(v, vars, None)).collect())
        }
        Value::Number(n) => {
            let is_time_key = key.is_some_and(|k| k == "timestamp" || k.ends_with("At"));
            if is_time_key && n.as_u64().is_some_and(|ms| ms > 1_000_000_000_000) {
                Value::String("{{timestamp}}".into())
            } else {
                value.clone()
            }
        }
        Value::String(text) => Value::String(normalise_text(text, vars, key)),
        other => other.clone(),
    }
}

fn normalise_text(text: &str, vars: &Vars, key: Option<&str>) -> String {
    if is_whole(UUID_RE, text) {
        return "{{uuid}}".into();
    }
    if is_whole(ISO_RE, text) {
        return "{{timestamp}}".into();
    }
    if key.is_some_and(|k| k == "id" || k == "parentId" || k.ends_with("EntryId"))
        && is_whole(ID8_RE, text)
    {
        return "{{id8}}".into();
    }
    // Longest folder first so that nested folders are named precisely.
    let mut folders: Vec<(&String, &String)> = vars.iter().filter(|(_, v)| v.len() > 1).collect();
    folders.sort_by_key(|(_, v)| std::cmp::Reverse(v.len()));
    let mut out = text.to_owned();
    for (name, folder) in folders {
        out = out.replace(folder.as_str(), &format!("{{{{{name}}}}}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn normalise_replaces_volatile_values() {
        let vars = Vars::from([("cwd".to_owned(), "/tmp/w".to_owned())]);
        let value = json!({"id": "a1b2c3d4", "sessionId": "01a22dc7-4932-70db-8cb1-d8b19f9126da", "timestamp": 1764500000000u64, "path": "/tmp/w/x"});
        assert_eq!(
            normalise(&value, &vars),
            json!({"id": "{{id8}}", "sessionId": "{{uuid}}", "timestamp": "{{timestamp}}", "path": "{{cwd}}/x"})
        );
    }
}
