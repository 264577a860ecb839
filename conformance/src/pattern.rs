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

use std::collections::{BTreeMap, HashMap};
use std::sync::{LazyLock, Mutex, PoisonError};

use regex::Regex;
use serde_json::{Map, Value};

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

/// Checks a pattern before anything runs: every placeholder known, every regex valid, no
/// unknown `$` key in an object. The error is a sentence naming the path.
pub fn lint(pattern: &Value) -> Result<(), String> {
    lint_at(pattern, "$")
}

fn lint_at(pattern: &Value, path: &str) -> Result<(), String> {
    match pattern {
        Value::Object(map) => {
            for (key, value) in map {
                if key.starts_with('$') && key != PARTIAL_KEY {
                    return Err(format!(
                        "{path}: unknown key `{key}` (did you mean `$partial`?)"
                    ));
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

fn lint_text(text: &str, path: &str) -> Result<(), String> {
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
                Regex::new(&re).map_err(|e| format!("{path}: bad regex /{re}/: {e}"))?;
            }
            Some(Placeholder::Kind { kind, .. }) if kind_matches(&kind, &Value::Null).is_err() => {
                return Err(format!(
                    "{path}: unknown placeholder `{{{{{kind}}}}}` (known: any, string, nonempty, \
                     number, integer, bool, object, array, null, uuid, uuidv7, id8, timestamp, \
                     regex:..., absent, ..., $NAME, {})",
                    VAR_NAMES.join(", ")
                ));
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

/// A compiled, anchored regex for a pattern, cached: the corpus uses a handful of patterns many
/// times. A pattern that does not compile is `None`.
fn whole(re: &str) -> Option<Regex> {
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

struct Ctx<'a> {
    vars: &'a Vars,
    captures: Captures,
    mismatches: Vec<String>,
    options: MatchOptions,
}

/// A parsed whole-string placeholder.
enum Placeholder {
    Kind {
        kind: String,
        capture: Option<String>,
    },
    BackRef(String),
    Regex(String),
    Absent,
    Rest,
}

fn parse_placeholder(text: &str) -> Option<Placeholder> {
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
fn kind_regex(kind: &str) -> Option<&'static str> {
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

fn kind_matches(kind: &str, actual: &Value) -> Result<bool, String> {
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
        other => return Err(format!("unknown placeholder kind `{other}`")),
    })
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 120 {
        let cut: String = text.chars().take(117).collect();
        format!("{cut}...")
    } else {
        text
    }
}

impl Ctx<'_> {
    fn fail(&mut self, path: &str, message: String) {
        self.mismatches.push(format!("{path}: {message}"));
    }

    fn value(&mut self, pattern: &Value, actual: &Value, path: &str) -> Value {
        match pattern {
            Value::String(text) if text.contains("{{") => self.string(text, actual, path),
            Value::Object(map) => self.object(map, actual, path),
            Value::Array(items) => self.array(items, actual, path),
            _ => {
                if !json_eq(pattern, actual) {
                    self.fail(
                        path,
                        format!("expected {}, got {}", short(pattern), short(actual)),
                    );
                }
                actual.clone()
            }
        }
    }

    fn string(&mut self, text: &str, actual: &Value, path: &str) -> Value {
        let original = Value::String(text.to_owned());
        let text = substitute_vars(text, self.vars);
        if !text.contains("{{") {
            let before = self.mismatches.len();
            let rendered = self.value(&Value::String(text), actual, path);
            return if self.mismatches.len() == before {
                original
            } else {
                rendered
            };
        }
        let shown = original;
        match parse_placeholder(&text) {
            Some(Placeholder::Kind { kind, capture }) => {
                match kind_matches(&kind, actual) {
                    Ok(true) => {}
                    Ok(false) => {
                        self.fail(
                            path,
                            format!("expected {{{{{kind}}}}}, got {}", short(actual)),
                        );
                        return actual.clone();
                    }
                    Err(message) => {
                        self.fail(path, message);
                        return actual.clone();
                    }
                }
                if let Some(name) = capture {
                    match self.captures.get(&name) {
                        Some(bound) if !json_eq(bound, actual) => {
                            self.fail(
                                path,
                                format!(
                                    "`{name}` was captured as {}, got {}",
                                    short(bound),
                                    short(actual)
                                ),
                            );
                            return actual.clone();
                        }
                        _ => {
                            self.captures.insert(name, actual.clone());
                        }
                    }
                }
                shown
            }
            Some(Placeholder::BackRef(name)) => match self.captures.get(&name) {
                Some(bound) if json_eq(bound, actual) => shown,
                Some(bound) => {
                    let message = format!(
                        "expected `{name}` = {}, got {}",
                        short(bound),
                        short(actual)
                    );
                    self.fail(path, message);
                    actual.clone()
                }
                None => {
                    self.fail(
                        path,
                        format!("`{name}` is referred to before it is captured"),
                    );
                    actual.clone()
                }
            },
            Some(Placeholder::Regex(re)) => match whole(&re).ok_or(()) {
                Ok(regex) if actual.as_str().is_some_and(|s| regex.is_match(s)) => shown,
                Ok(_) => {
                    self.fail(
                        path,
                        format!("expected a match of /{re}/, got {}", short(actual)),
                    );
                    actual.clone()
                }
                Err(()) => {
                    let err = Regex::new(&re)
                        .err()
                        .map(|e| e.to_string())
                        .unwrap_or_default();
                    self.fail(path, format!("bad regex /{re}/: {err}"));
                    actual.clone()
                }
            },
            Some(Placeholder::Absent) => {
                self.fail(path, format!("expected no value, got {}", short(actual)));
                actual.clone()
            }
            Some(Placeholder::Rest) => shown,
            None => {
                let before = self.mismatches.len();
                let rendered = self.template(&text, actual, path);
                if self.mismatches.len() == before {
                    shown
                } else {
                    rendered
                }
            }
        }
    }

    /// A string with placeholders among literal text.
    fn template(&mut self, text: &str, actual: &Value, path: &str) -> Value {
        let Some(actual_text) = actual.as_str() else {
            self.fail(
                path,
                format!("expected a string like {text:?}, got {}", short(actual)),
            );
            return actual.clone();
        };
        let mut re = String::new();
        let mut names = Vec::new();
        let mut rest = text;
        while let Some(start) = rest.find("{{") {
            re.push_str(&regex::escape(&rest[..start]));
            let after = &rest[start + 2..];
            let Some(end) = after.find("}}") else {
                re.push_str(&regex::escape(&rest[start..]));
                rest = "";
                break;
            };
            let inner = after[..end].trim();
            let piece = match parse_placeholder(&format!("{{{{{inner}}}}}")) {
                Some(Placeholder::Regex(r)) => format!("(?:{r})"),
                Some(Placeholder::BackRef(name)) => match self.captures.get(&name) {
                    Some(Value::String(s)) => regex::escape(s),
                    Some(other) => regex::escape(&other.to_string()),
                    None => {
                        self.fail(
                            path,
                            format!("`{name}` is referred to before it is captured"),
                        );
                        return actual.clone();
                    }
                },
                Some(Placeholder::Kind { kind, capture }) => {
                    let Some(kre) = kind_regex(&kind) else {
                        self.fail(
                            path,
                            format!("`{{{{{kind}}}}}` cannot stand inside a string"),
                        );
                        return actual.clone();
                    };
                    match capture {
                        Some(name) => {
                            let group = format!("c{}", names.len());
                            names.push((group.clone(), name));
                            format!("(?P<{group}>{kre})")
                        }
                        None => format!("(?:{kre})"),
                    }
                }
                _ => regex::escape(&format!("{{{{{inner}}}}}")),
            };
            re.push_str(&piece);
            rest = &after[end + 2..];
        }
        re.push_str(&regex::escape(rest));
        let Some(regex) = whole(&re) else {
            let err = Regex::new(&re)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            self.fail(path, format!("bad pattern {text:?}: {err}"));
            return actual.clone();
        };
        let Some(found) = regex.captures(actual_text) else {
            self.fail(path, format!("expected {text:?}, got {}", short(actual)));
            return actual.clone();
        };
        for (group, name) in names {
            let value = Value::String(found.name(&group).map_or("", |m| m.as_str()).to_owned());
            if let Some(bound) = self.captures.get(&name)
                && !json_eq(bound, &value)
            {
                self.fail(
                    path,
                    format!(
                        "`{name}` was captured as {}, got {}",
                        short(bound),
                        short(&value)
                    ),
                );
                return actual.clone();
            }
            self.captures.insert(name, value);
        }
        Value::String(text.to_owned())
    }

    fn object(&mut self, pattern: &Map<String, Value>, actual: &Value, path: &str) -> Value {
        let Some(actual_map) = actual.as_object() else {
            self.fail(path, format!("expected an object, got {}", short(actual)));
            return actual.clone();
        };
        let partial = self.options.partial
            || pattern
                .get(PARTIAL_KEY)
                .and_then(Value::as_bool)
                .unwrap_or(false);
        let mut rendered = Map::new();
        for (key, sub) in pattern {
            if key == PARTIAL_KEY {
                continue;
            }
            let sub_path = format!("{path}.{key}");
            let absent = matches!(
                sub.as_str().and_then(parse_placeholder),
                Some(Placeholder::Absent)
            );
            match actual_map.get(key) {
                None if absent => {}
                None => self.fail(&sub_path, "missing".into()),
                Some(value) => {
                    let shown = self.value(sub, value, &sub_path);
                    rendered.insert(key.clone(), shown);
                }
            }
        }
        for (key, value) in actual_map {
            if pattern.contains_key(key) {
                continue;
            }
            if !partial {
                self.fail(
                    &format!("{path}.{key}"),
                    format!("unexpected key, value {}", short(value)),
                );
                rendered.insert(key.clone(), value.clone());
            }
        }
        Value::Object(rendered)
    }

    fn array(&mut self, pattern: &[Value], actual: &Value, path: &str) -> Value {
        let Some(items) = actual.as_array() else {
            self.fail(path, format!("expected an array, got {}", short(actual)));
            return actual.clone();
        };
        let rest_at = pattern.iter().position(|p| {
            matches!(
                p.as_str().and_then(parse_placeholder),
                Some(Placeholder::Rest)
            )
        });
        let fixed = rest_at.unwrap_or(pattern.len());
        let mut rendered = Vec::new();
        for (index, item) in items.iter().enumerate() {
            if index < fixed {
                rendered.push(self.value(&pattern[index], item, &format!("{path}[{index}]")));
            } else if rest_at.is_none() {
                self.fail(
                    &format!("{path}[{index}]"),
                    format!("unexpected item {}", short(item)),
                );
                rendered.push(item.clone());
            }
        }
        if items.len() < fixed {
            self.fail(path, format!("expected {fixed} items, got {}", items.len()));
        }
        if rest_at.is_some() {
            rendered.push(Value::String("{{...}}".into()));
        }
        Value::Array(rendered)
    }
}

/// JSON equality where numbers compare by value (1 == 1.0).
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => x == y,
            _ => x == y,
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(pattern: Value, actual: Value) -> MatchResult {
        match_value(
            &pattern,
            &actual,
            &Vars::new(),
            &Captures::new(),
            MatchOptions::default(),
        )
    }

    #[test]
    fn exact_objects_reject_extra_and_missing_keys() {
        let result = check(json!({"a": 1, "b": 2}), json!({"a": 1, "c": 3}));
        assert!(!result.ok);
        assert_eq!(
            result.mismatches,
            vec!["$.b: missing", "$.c: unexpected key, value 3"]
        );
    }

    #[test]
    fn partial_objects_allow_extra_keys_and_render_without_them() {
        let result = check(json!({"$partial": true, "a": 1}), json!({"a": 1, "c": 3}));
        assert!(result.ok, "{:?}", result.mismatches);
        assert_eq!(result.rendered, json!({"a": 1}));
    }

    #[test]
    fn placeholders_match_kinds_and_render_as_themselves() {
        let result = check(
            json!({"id": "{{uuid}}", "t": "{{timestamp}}", "n": "{{number}}", "e": "{{id8}}"}),
            json!({"id": "01a22dc7-4932-70db-8cb1-d8b19f9126da", "t": 1764500000000u64, "n": 2.5, "e": "a1b2c3d4"}),
        );
        assert!(result.ok, "{:?}", result.mismatches);
        assert_eq!(result.rendered["id"], json!("{{uuid}}"));
        assert!(!check(json!("{{uuid}}"), json!("nope")).ok);
    }

    #[test]
    fn captures_bind_and_back_references_must_agree() {
        let first = check(
            json!({"s": "{{uuid as sid}}"}),
            json!({"s": "01a22dc7-4932-70db-8cb1-d8b19f9126da"}),
        );
        assert!(first.ok);
        let same = match_value(
            &json!("{{$sid}}"),
            &json!("01a22dc7-4932-70db-8cb1-d8b19f9126da"),
            &Vars::new(),
            &first.captures,
            MatchOptions::default(),
        );
        assert!(same.ok);
        let other = match_value(
            &json!("{{$sid}}"),
            &json!("x"),
            &Vars::new(),
            &first.captures,
            MatchOptions::default(),
        );
        assert!(!other.ok);
    }

    #[test]
    fn templates_mix_literal_text_and_placeholders() {
        assert!(
            check(
                json!("Unknown command: {{string}}"),
                json!("Unknown command: nope")
            )
            .ok
        );
        assert!(
            !check(
                json!("Unknown command: {{id8}}"),
                json!("Unknown command: nope")
            )
            .ok
        );
        assert!(
            check(
                json!("{{regex:Failed to parse .*}}"),
                json!("Failed to parse command: x")
            )
            .ok
        );
        let vars = Vars::from([("cwd".to_owned(), "/tmp/w".to_owned())]);
        let result = match_value(
            &json!("{{cwd}}/a.txt"),
            &json!("/tmp/w/a.txt"),
            &vars,
            &Captures::new(),
            MatchOptions::default(),
        );
        assert!(result.ok, "{:?}", result.mismatches);
    }

    #[test]
    fn absent_and_rest_placeholders() {
        assert!(check(json!({"a": 1, "b": "{{absent}}"}), json!({"a": 1})).ok);
        assert!(!check(json!({"a": 1, "b": "{{absent}}"}), json!({"a": 1, "b": 2})).ok);
        assert!(check(json!([1, "{{...}}"]), json!([1, 2, 3])).ok);
        assert!(!check(json!([1, 2]), json!([1, 2, 3])).ok);
    }

    #[test]
    fn lint_names_unknown_placeholders_keys_and_bad_regexes() {
        assert!(
            lint(&json!({"a": ["{{uuid as x}}", "{{$x}}", "{{cwd}}/f", "{{regex:a+}}"]})).is_ok()
        );
        assert!(
            lint(&json!({"a": "{{uuuid}}"}))
                .unwrap_err()
                .starts_with("$.a: unknown placeholder")
        );
        assert!(
            lint(&json!({"b": {"$partal": true}}))
                .unwrap_err()
                .contains("`$partal`")
        );
        assert!(
            lint(&json!(["{{regex:(}}"]))
                .unwrap_err()
                .contains("bad regex")
        );
    }
}

#[cfg(test)]
mod substitution_tests {
    use serde_json::json;

    use super::*;

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
