//! What differs between two runs of the same thing and is not behaviour: the scratch folders'
//! paths, UUIDs, session entry ids, times.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
        .expect("a valid pattern")
});

static ISO_TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?")
        .expect("a valid pattern")
});

/// Milliseconds since 1970 from 2017 to 2049, as a run's clock gives them (in ids and names).
static EPOCH_MS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b1[5-9]\d{11}\b|\b2[0-4]\d{11}\b").expect("a valid pattern"));

/// Keys whose values are times or counters of a run, whatever their type.
const TIME_KEYS: [&str; 4] = ["timestamp", "createdAt", "updatedAt", "duration"];

/// How one agent's texts are made comparable with the other's.
pub struct Normaliser {
    /// Replacements, longest first: (path as written, placeholder).
    paths: Vec<(String, String)>,
}

impl Normaliser {
    /// Replaces `root` (the agent's scratch folder) and every other `(path, placeholder)`.
    pub fn new(root: &std::path::Path, others: &[(String, &str)]) -> Self {
        let mut paths: Vec<(String, String)> = vec![(root.display().to_string(), "<root>".into())];
        if let Ok(real) = root.canonicalize() {
            paths.push((real.display().to_string(), "<root>".into()));
        }
        paths.extend(
            others
                .iter()
                .filter(|(path, _)| !path.is_empty())
                .map(|(path, placeholder)| (path.clone(), (*placeholder).to_owned())),
        );
        paths.sort_by_key(|(path, _)| std::cmp::Reverse(path.len()));
        paths.dedup_by(|a, b| a.0 == b.0);
        Self { paths }
    }

    /// `text` with paths, UUIDs and times replaced by placeholders.
    pub fn text(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for (path, placeholder) in &self.paths {
            text = text.replace(path.as_str(), placeholder);
        }
        let text = UUID.replace_all(&text, "<uuid>");
        let text = ISO_TIME.replace_all(&text, "<time>");
        EPOCH_MS.replace_all(&text, "<time>").into_owned()
    }

    /// `value` with every string normalised as [`Self::text`] and the values of time keys
    /// replaced.
    pub fn value(&self, value: &Value) -> Value {
        match value {
            Value::String(id) if is_entry_id(id) => Value::from("<id>"),
            Value::String(text) => Value::String(self.text(text)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.value(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(key, v)| {
                        let v = if TIME_KEYS.contains(&key.as_str()) && !v.is_null() {
                            Value::from("<time>")
                        } else {
                            self.value(v)
                        };
                        (self.text(key), v)
                    })
                    .collect(),
            ),
            Value::Number(number) if number.as_u64().is_some_and(is_epoch_ms) => {
                Value::from("<time>")
            }
            other => other.clone(),
        }
    }
}

/// Whether `text` is a session entry's id: 8 lower-case hexadecimal digits, random each run.
fn is_entry_id(text: &str) -> bool {
    text.len() == 8
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Whether `n` reads as milliseconds since 1970 of the years [`EPOCH_MS`] spans.
fn is_epoch_ms(n: u64) -> bool {
    (1_500_000_000_000..2_500_000_000_000).contains(&n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_uuids_and_times_become_placeholders() {
        let normaliser = Normaliser::new(std::path::Path::new("/tmp/.tmpAB"), &[]);
        let value = serde_json::json!({
            "path": "/tmp/.tmpAB/extensions/x.ts",
            "id": "123e4567-e89b-12d3-a456-426614174000",
            "timestamp": 1700000000000u64,
            "text": "at 2024-01-02T03:04:05.678Z",
            "label": "bookmark-1796586448383",
            "at": 1796586448383u64,
            "count": 12,
            "entry": {"id": "22374f5a", "parentId": "2f84e951"}
        });
        assert_eq!(
            normaliser.value(&value),
            serde_json::json!({
                "path": "<root>/extensions/x.ts",
                "id": "<uuid>",
                "timestamp": "<time>",
                "text": "at <time>",
                "label": "bookmark-<time>",
                "at": "<time>",
                "count": 12,
                "entry": {"id": "<id>", "parentId": "<id>"}
            })
        );
    }
}
