//! The walk of one match: a pattern and a value side by side, mismatches collected by path,
//! the value rendered as the pattern sees it.

use regex::Regex;
use serde_json::{Map, Value};

use super::placeholder::{Placeholder, kind_matches, kind_regex, parse_placeholder, whole};
use super::{Captures, MatchOptions, PARTIAL_KEY, Vars, substitute_vars};

pub(super) struct Ctx<'a> {
    pub(super) vars: &'a Vars,
    pub(super) captures: Captures,
    pub(super) mismatches: Vec<String>,
    pub(super) options: MatchOptions,
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

    pub(super) fn value(&mut self, pattern: &Value, actual: &Value, path: &str) -> Value {
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
                    Err(unknown) => {
                        self.fail(path, unknown.to_string());
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
    use serde_json::{Value, json};

    use crate::pattern::{Captures, MatchOptions, MatchResult, Vars, match_value};

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
}
