//! Placeholders: `{{kind}}`, `{{kind as name}}`, `{{$name}}`, `{{regex:...}}`, `{{absent}}`,
//! `{{...}}`, and the cached regexes they compile to.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, PoisonError};

use regex::Regex;
use serde_json::Value;

use super::{ID8_RE, ISO_RE, NUMBER_RE, UUID_RE, UUIDV7_RE};

/// A compiled, anchored regex for a pattern, cached: the corpus uses a handful of patterns many
/// times. A pattern that does not compile is `None`.
pub(super) fn whole(re: &str) -> Option<Regex> {
    static CACHE: LazyLock<Mutex<HashMap<String, Option<Regex>>>> =
        LazyLock::new(|| Mutex::new(HashMap::new()));
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    if cache.len() > 10_000 {
        cache.clear();
    }
    cache
        .entry(re.to_owned())
        .or_insert_with(|| Regex::new(&format!("^(?:{re})$")).ok())
        .clone()
}

pub(crate) fn is_whole(re: &str, text: &str) -> bool {
    whole(re).is_some_and(|r| r.is_match(text))
}

/// A parsed whole-string placeholder.
pub(super) enum Placeholder {
    Kind {
        kind: String,
        capture: Option<String>,
    },
    BackRef(String),
    Regex(String),
    Absent,
    Rest,
}

pub(super) fn parse_placeholder(text: &str) -> Option<Placeholder> {
    let inner = text.strip_prefix("{{")?.strip_suffix("}}")?;
    if inner.contains("{{") || inner.contains("}}") {
        return None;
    }
    let inner = inner.trim();
    if let Some(re) = inner.strip_prefix("regex:") {
        return Some(Placeholder::Regex(re.to_owned()));
    }
    if let Some(name) = inner.strip_prefix('$') {
        return Some(Placeholder::BackRef(name.to_owned()));
    }
    if inner == "absent" {
        return Some(Placeholder::Absent);
    }
    if inner == "..." {
        return Some(Placeholder::Rest);
    }
    let (kind, capture) = match inner.split_once(" as ") {
        Some((kind, name)) => (kind.trim(), Some(name.trim().to_owned())),
        None => (inner, None),
    };
    Some(Placeholder::Kind {
        kind: kind.to_owned(),
        capture,
    })
}

/// The regex (without anchors) for a placeholder kind inside a string template.
pub(super) fn kind_regex(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "any" | "string" => ".*",
        "nonempty" => ".+",
        "uuid" => UUID_RE,
        "uuidv7" => UUIDV7_RE,
        "id8" => ID8_RE,
        "timestamp" => ISO_RE,
        "number" | "integer" => NUMBER_RE,
        _ => return None,
    })
}

/// A placeholder kind the matcher does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown placeholder kind `{0}`")]
pub struct UnknownKind(pub String);

pub(super) fn kind_matches(kind: &str, actual: &Value) -> Result<bool, UnknownKind> {
    let is_str = |re: &str| actual.as_str().is_some_and(|s| is_whole(re, s));
    Ok(match kind {
        "any" => true,
        "string" => actual.is_string(),
        "nonempty" => actual.as_str().is_some_and(|s| !s.is_empty()),
        "number" => actual.is_number(),
        "integer" => actual.is_i64() || actual.is_u64(),
        "bool" => actual.is_boolean(),
        "object" => actual.is_object(),
        "array" => actual.is_array(),
        "null" => actual.is_null(),
        "uuid" => is_str(UUID_RE),
        "uuidv7" => is_str(UUIDV7_RE),
        "id8" => is_str(ID8_RE),
        "timestamp" => is_str(ISO_RE) || actual.as_u64().is_some_and(|n| n > 1_000_000_000_000),
        other => return Err(UnknownKind(other.to_owned())),
    })
}
