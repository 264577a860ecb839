//! Matching JSON values against patterns with placeholders.
//!
//! A pattern is a JSON value. A string that is a whole placeholder, such as `"{{uuid}}"`, matches
//! any value of that kind; a string that contains placeholders, such as
//! `"Unknown command: {{string}}"`, is matched as a regular expression built from its parts.
//! Objects match exactly (same keys) unless partial; arrays match element by element.
//!
//! Every match also renders the actual value "as the pattern sees it": positions that matched a
//! placeholder show the placeholder, extra keys of partial objects are dropped, keys come in the
//! pattern's order. A line diff of the pattern and this rendering then shows only real
//! differences.

use std::collections::BTreeMap;

use regex::Regex;
use serde_json::Value;

mod matcher;
mod placeholder;

use matcher::Ctx;
pub(crate) use placeholder::is_whole;
use placeholder::{Placeholder, kind_matches, parse_placeholder};

/// The key that makes one object pattern partial: `{$partial: true, type: response}`.
pub const PARTIAL_KEY: &str = "$partial";

pub(crate) const UUID_RE: &str = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
pub(crate) const UUIDV7_RE: &str =
    "[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";
pub(crate) const ID8_RE: &str = "[0-9a-f]{8}";
pub(crate) const ISO_RE: &str =
    r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})";
const NUMBER_RE: &str = r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?";

/// Values known for one run, substituted for `{{cwd}}`, `{{home}}`, `{{agent_dir}}`,
/// `{{session_dir}}`, `{{mock_url}}`.
pub type Vars = BTreeMap<String, String>;

/// Captured values by name (`{{uuid as sid}}` binds `sid`, `{{$sid}}` refers to it).
pub type Captures = BTreeMap<String, Value>;

/// The outcome of one match.
#[derive(Debug, Clone)]
pub struct MatchResult {
    /// Whether the value matched.
    pub ok: bool,
    /// Where and why it did not, one line each (`$.data.model: expected ..., got ...`).
    pub mismatches: Vec<String>,
    /// The actual value rendered as the pattern sees it (see the module docs).
    pub rendered: Value,
    /// Captures, including those bound by this match when it succeeded.
    pub captures: Captures,
}

/// Options of one match.
#[derive(Debug, Clone, Copy, Default)]
pub struct MatchOptions {
    /// Every object pattern is partial.
    pub partial: bool,
}

/// Matches `actual` against `pattern`, starting from the captures given.
pub fn match_value(
    pattern: &Value,
    actual: &Value,
    vars: &Vars,
    captures: &Captures,
    options: MatchOptions,
) -> MatchResult {
    let mut ctx = Ctx {
        vars,
        captures: captures.clone(),
        mismatches: Vec::new(),
        options,
    };
    let rendered = ctx.value(pattern, actual, "$");
    let ok = ctx.mismatches.is_empty();
    MatchResult {
        ok,
        mismatches: ctx.mismatches,
        rendered,
        captures: if ok { ctx.captures } else { captures.clone() },
    }
}

/// A pattern with the `$partial` markers removed, for display next to a rendering.
pub fn display_pattern(pattern: &Value) -> Value {
    match pattern {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != PARTIAL_KEY)
                .map(|(k, v)| (k.clone(), display_pattern(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(display_pattern).collect()),
        other => other.clone(),
    }
}

/// Run variables a pattern may name.
pub const VAR_NAMES: [&str; 5] = ["cwd", "home", "agent_dir", "session_dir", "mock_url"];

/// Why a pattern is refused before anything runs; each names the path (`$.a[0].b`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LintError {
    /// An object has a `$` key other than `$partial`.
    #[error("{path}: unknown key `{key}` (did you mean `$partial`?)")]
    UnknownKey {
        /// Where.
        path: String,
        /// The key.
        key: String,
    },
    /// A `{{regex:...}}` does not compile.
    #[error("{path}: bad regex /{regex}/: {source}")]
    BadRegex {
        /// Where.
        path: String,
        /// The expression.
        regex: String,
        /// Why it does not compile.
        source: regex::Error,
    },
    /// A placeholder names no known kind.
    #[error(
        "{path}: unknown placeholder `{{{{{kind}}}}}` (known: any, string, nonempty, number, \
         integer, bool, object, array, null, uuid, uuidv7, id8, timestamp, regex:..., absent, \
         ..., $NAME, {vars})",
        vars = VAR_NAMES.join(", ")
    )]
    UnknownPlaceholder {
        /// Where.
        path: String,
        /// The kind written.
        kind: String,
    },
}

/// Checks a pattern before anything runs: every placeholder known, every regex valid, no
/// unknown `$` key in an object.
pub fn lint(pattern: &Value) -> Result<(), LintError> {
    lint_at(pattern, "$")
}

fn lint_at(pattern: &Value, path: &str) -> Result<(), LintError> {
    match pattern {
        Value::Object(map) => {
            for (key, value) in map {
                if key.starts_with('$') && key != PARTIAL_KEY {
                    return Err(LintError::UnknownKey {
                        path: path.to_owned(),
                        key: key.clone(),
                    });
                }
                lint_at(value, &format!("{path}.{key}"))?;
            }
            Ok(())
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, item)| lint_at(item, &format!("{path}[{i}]"))),
        Value::String(text) => lint_text(text, path),
        _ => Ok(()),
    }
}

fn lint_text(text: &str, path: &str) -> Result<(), LintError> {
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            return Ok(());
        };
        let inner = after[..end].trim();
        rest = &after[end + 2..];
        if VAR_NAMES.contains(&inner) {
            continue;
        }
        match parse_placeholder(&format!("{{{{{inner}}}}}")) {
            Some(Placeholder::Regex(re)) => {
                if let Err(source) = Regex::new(&re) {
                    return Err(LintError::BadRegex {
                        path: path.to_owned(),
                        regex: re,
                        source,
                    });
                }
            }
            Some(Placeholder::Kind { kind, .. }) if kind_matches(&kind, &Value::Null).is_err() => {
                return Err(LintError::UnknownPlaceholder {
                    path: path.to_owned(),
                    kind,
                });
            }
            _ => {}
        }
    }
    Ok(())
}

/// Substitutes captured values (`{{$name}}`) in every string of a value, as a `send` step does:
/// a string that is exactly one reference takes the captured value whatever its JSON type; a
/// reference inside a longer string takes the captured text (or its JSON text). References to
/// names not captured stay as they are.
pub fn substitute_captures(value: &Value, captures: &Captures) -> Value {
    match value {
        Value::String(text) => {
            let whole = text.strip_prefix("{{$").and_then(|t| t.strip_suffix("}}"));
            if let Some(captured) = whole.and_then(|name| captures.get(name)) {
                return captured.clone();
            }
            let mut out = text.clone();
            for (name, captured) in captures {
                let reference = format!("{{{{${name}}}}}");
                if out.contains(&reference) {
                    let replacement = match captured {
                        Value::String(captured) => captured.clone(),
                        other => other.to_string(),
                    };
                    out = out.replace(&reference, &replacement);
                }
            }
            Value::String(out)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| substitute_captures(item, captures))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| (key.clone(), substitute_captures(item, captures)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Substitutes run variables (`{{cwd}}` ...) in a text; other placeholders stay.
pub fn substitute_vars(text: &str, vars: &Vars) -> String {
    let mut out = text.to_owned();
    for (name, value) in vars {
        out = out.replace(&format!("{{{{{name}}}}}"), value);
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn lint_names_unknown_placeholders_keys_and_bad_regexes() {
        assert!(
            lint(&json!({"a": ["{{uuid as x}}", "{{$x}}", "{{cwd}}/f", "{{regex:a+}}"]})).is_ok()
        );
        assert!(
            lint(&json!({"a": "{{uuuid}}"}))
                .unwrap_err()
                .to_string()
                .starts_with("$.a: unknown placeholder")
        );
        assert!(
            lint(&json!({"b": {"$partal": true}}))
                .unwrap_err()
                .to_string()
                .contains("`$partal`")
        );
        assert!(
            lint(&json!(["{{regex:(}}"]))
                .unwrap_err()
                .to_string()
                .contains("bad regex")
        );
    }

    #[test]
    fn send_values_take_captured_values_whole_or_inside_text() {
        let mut captures = Captures::new();
        captures.insert("sel".into(), json!("5b7c"));
        captures.insert("n".into(), json!(42));
        let sent = json!({"id": "{{$sel}}", "count": "{{$n}}", "text": "id {{$sel}} n {{$n}}", "other": "{{$missing}}"});
        assert_eq!(
            substitute_captures(&sent, &captures),
            json!({"id": "5b7c", "count": 42, "text": "id 5b7c n 42", "other": "{{$missing}}"})
        );
    }
}
