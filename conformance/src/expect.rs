//! Matching a stream of records against an expectation: an exact ordered list of items, with
//! unordered groups, skip-until, alternatives and raw-line items.

use serde_json::Value;

use crate::agent::Record;
use crate::pattern::{self, Captures, MatchOptions, Vars};

mod error;

pub use error::ItemError;

/// One item of an expectation.
#[derive(Debug, Clone)]
pub enum Item {
    /// One record matching this pattern.
    Record(Value),
    /// These records in any order.
    Unordered(Vec<Value>),
    /// Any records up to and including one that matches (partially).
    SkipUntil(Value),
    /// The strict pattern, or one of the allowed alternatives (a non-strict pass).
    Either {
        /// What a conforming agent sends.
        strict: Value,
        /// The records tolerated instead.
        allow: Vec<Value>,
        /// The exits tolerated instead (`{$exit: ...}` alternatives): the agent closes stdout
        /// where the record was due and exits like this; the scenario ends there.
        exits: Vec<ExitAlternative>,
        /// Why it is tolerated.
        reason: String,
    },
    /// The raw line (without LF), placeholders allowed.
    Raw(String),
}

impl Item {
    /// Parses one item of an `expect` list.
    pub fn parse(value: &Value) -> Result<Self, ItemError> {
        let Some(map) = value.as_object() else {
            return Ok(Item::Record(value.clone()));
        };
        let special: Vec<&String> = map
            .keys()
            .filter(|k| k.starts_with('$') && *k != pattern::PARTIAL_KEY)
            .collect();
        let Some(key) = special.first() else {
            return Ok(Item::Record(value.clone()));
        };
        if map.len() != 1 {
            return Err(ItemError::NotAlone((*key).clone()));
        }
        let inner = &map[key.as_str()];
        match key.as_str() {
            "$unordered" => match inner.as_array() {
                Some(items) if !items.is_empty() => Ok(Item::Unordered(items.clone())),
                _ => Err(ItemError::Unordered),
            },
            "$skip_until" => Ok(Item::SkipUntil(inner.clone())),
            "$raw" => match inner.as_str() {
                Some(text) => Ok(Item::Raw(text.to_owned())),
                None => Err(ItemError::Raw),
            },
            "$either" => {
                let strict = inner
                    .get("strict")
                    .cloned()
                    .ok_or(ItemError::EitherStrict)?;
                let alternatives = match inner.get("allow") {
                    Some(Value::Array(items)) if !items.is_empty() => items.clone(),
                    Some(one @ Value::Object(_)) => vec![one.clone()],
                    _ => return Err(ItemError::EitherAllow),
                };
                let mut allow = Vec::new();
                let mut exits = Vec::new();
                for alternative in alternatives {
                    match alternative.get(EXIT_KEY) {
                        Some(spec) if alternative.as_object().is_some_and(|m| m.len() == 1) => {
                            exits.push(ExitAlternative::parse(spec)?);
                        }
                        Some(_) => return Err(ItemError::ExitNotAlone),
                        None => allow.push(alternative),
                    }
                }
                let reason = inner
                    .get("reason")
                    .and_then(Value::as_str)
                    .ok_or(ItemError::EitherReason)?
                    .to_owned();
                Ok(Item::Either {
                    strict,
                    allow,
                    exits,
                    reason,
                })
            }
            other => Err(ItemError::UnknownKey(other.to_owned())),
        }
    }

    /// The item as shown in a diff.
    pub fn display(&self) -> Value {
        match self {
            Item::Record(p) => pattern::display_pattern(p),
            Item::Unordered(items) => {
                serde_json::json!({"$unordered": items.iter().map(pattern::display_pattern).collect::<Vec<_>>()})
            }
            Item::SkipUntil(p) => serde_json::json!({"$skip_until": pattern::display_pattern(p)}),
            Item::Either { strict, .. } => pattern::display_pattern(strict),
            Item::Raw(text) => serde_json::json!({"$raw": text}),
        }
    }
}

/// The key of an exit alternative in `$either`'s `allow`: `{$exit: 1}`.
pub const EXIT_KEY: &str = "$exit";

/// An exit tolerated where a record was due: `{$exit: CODE}` or
/// `{$exit: {code: CODE, stderr_contains: TEXT or [TEXT...]}}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitAlternative {
    /// The exit code.
    pub code: i32,
    /// Texts the agent's stderr must contain.
    pub stderr_contains: Vec<String>,
}

impl ExitAlternative {
    /// Parses the value of `$exit`.
    pub fn parse(spec: &Value) -> Result<Self, ItemError> {
        let code = |v: &Value| v.as_i64().and_then(|c| i32::try_from(c).ok());
        match spec {
            Value::Number(_) => Ok(Self {
                code: code(spec).ok_or(ItemError::ExitShape)?,
                stderr_contains: Vec::new(),
            }),
            Value::Object(map) => {
                if let Some(key) = map.keys().find(|k| *k != "code" && *k != "stderr_contains") {
                    return Err(ItemError::ExitKey(key.clone()));
                }
                let code = map.get("code").and_then(code).ok_or(ItemError::ExitShape)?;
                let stderr_contains = match map.get("stderr_contains") {
                    None => Vec::new(),
                    Some(Value::String(text)) => vec![text.clone()],
                    Some(Value::Array(items)) => items
                        .iter()
                        .map(|i| i.as_str().map(str::to_owned))
                        .collect::<Option<_>>()
                        .ok_or(ItemError::StderrContains)?,
                    Some(_) => return Err(ItemError::StderrContains),
                };
                Ok(Self {
                    code,
                    stderr_contains,
                })
            }
            _ => Err(ItemError::ExitShape),
        }
    }

    /// Whether an exit with this code and stderr is the one tolerated.
    pub fn accepts(&self, code: Option<i32>, stderr: &str) -> bool {
        code == Some(self.code) && self.stderr_contains.iter().all(|t| stderr.contains(t))
    }

    /// The alternative as written, for messages.
    pub fn describe(&self) -> String {
        let mut text = format!("exit code {}", self.code);
        for needle in &self.stderr_contains {
            text.push_str(&format!(", stderr containing {needle:?}"));
        }
        text
    }
}

/// What feeding one record did.
#[derive(Debug)]
pub enum Feed {
    /// The record was taken; more items remain.
    More,
    /// The record was taken and the expectation is complete.
    Done,
    /// The record does not fit.
    Mismatch(Mismatch),
}

/// A record that does not fit the expectation.
#[derive(Debug, Clone)]
pub struct Mismatch {
    /// One-line summary.
    pub summary: String,
    /// Paths and reasons.
    pub details: Vec<String>,
    /// The expected item, as shown.
    pub expected: Value,
    /// The actual record, rendered against the expected item.
    pub actual: Value,
    /// Whether the agent answered `Unknown command` where something else was expected.
    pub unknown_command: bool,
}

/// A running expectation.
#[derive(Debug)]
pub struct Matcher {
    items: Vec<Item>,
    next: usize,
    left: Vec<Value>,
    ignore: Vec<Value>,
    options: MatchOptions,
    /// Non-strict reasons met so far.
    pub non_strict: Vec<String>,
    /// The records (their indexes) an `$either`'s allowed alternative matched: a recorded
    /// divergence each, so their departures from the schema are excused too.
    pub excused: Vec<usize>,
    /// Records consumed, rendered, for the transcript.
    pub taken: Vec<Value>,
    /// Records dropped by `ignore` or skipped by `$skip_until`.
    pub skipped: usize,
}

impl Matcher {
    /// A matcher for these items.
    pub fn new(items: Vec<Item>, ignore: Vec<Value>, partial: bool) -> Self {
        let mut matcher = Self {
            items,
            next: 0,
            left: Vec::new(),
            ignore,
            options: MatchOptions { partial },
            non_strict: Vec::new(),
            excused: Vec::new(),
            taken: Vec::new(),
            skipped: 0,
        };
        matcher.enter();
        matcher
    }

    fn enter(&mut self) {
        if let Some(Item::Unordered(group)) = self.items.get(self.next) {
            self.left = group.clone();
        }
    }

    fn advance(&mut self) -> Feed {
        self.next += 1;
        self.enter();
        if self.is_done() {
            Feed::Done
        } else {
            Feed::More
        }
    }

    /// Whether every item has been met.
    pub fn is_done(&self) -> bool {
        self.next >= self.items.len()
    }

    /// Whether an item after the one waited for expects a record of this `type`: a record of it
    /// arriving now came earlier than expected.
    pub fn expects_later(&self, record_type: &Value) -> bool {
        let typed = |pattern: &Value| pattern.get("type") == Some(record_type);
        self.items
            .iter()
            .skip(self.next + 1)
            .any(|item| match item {
                Item::Record(pattern) | Item::SkipUntil(pattern) => typed(pattern),
                Item::Unordered(patterns) => patterns.iter().any(typed),
                Item::Either { strict, allow, .. } => typed(strict) || allow.iter().any(typed),
                Item::Raw(_) => false,
            })
    }

    /// The exit alternatives of the item waited for, with their reason, if it has any.
    pub fn exit_alternatives(&self) -> Option<(&[ExitAlternative], &str)> {
        match self.items.get(self.next)? {
            Item::Either { exits, reason, .. } if !exits.is_empty() => {
                Some((exits.as_slice(), reason.as_str()))
            }
            _ => None,
        }
    }

    /// Whether any item has exit alternatives.
    pub fn has_exit_alternatives(items: &[Item]) -> bool {
        items
            .iter()
            .any(|i| matches!(i, Item::Either { exits, .. } if !exits.is_empty()))
    }

    /// The item waited for, as shown.
    pub fn waiting_for(&self) -> Option<Value> {
        match self.items.get(self.next)? {
            Item::Unordered(_) => Some(serde_json::json!({"$unordered": self.left})),
            item => Some(item.display()),
        }
    }

    /// Feeds one record.
    pub fn feed(&mut self, record: &Record, vars: &Vars, captures: &mut Captures) -> Feed {
        let partial = MatchOptions { partial: true };
        if let Ok(json) = &record.json
            && self
                .ignore
                .iter()
                .any(|p| pattern::match_value(p, json, vars, captures, partial).ok)
        {
            self.skipped += 1;
            return Feed::More;
        }
        let Some(item) = self.items.get(self.next).cloned() else {
            return Feed::Done;
        };
        let json = match (&item, &record.json) {
            (Item::Raw(_), _) => Value::Null,
            (_, Ok(json)) => json.clone(),
            (Item::SkipUntil(_), Err(_)) => {
                self.skipped += 1;
                return Feed::More;
            }
            (_, Err(why)) => {
                return Feed::Mismatch(Mismatch {
                    summary: format!(
                        "stdout line {} is not a JSON record: {why}",
                        record.index + 1
                    ),
                    details: vec![],
                    expected: item.display(),
                    actual: Value::String(record.text()),
                    unknown_command: false,
                });
            }
        };
        match item {
            Item::Record(p) => {
                let result = pattern::match_value(&p, &json, vars, captures, self.options);
                if result.ok {
                    *captures = result.captures;
                    self.taken.push(result.rendered);
                    self.advance()
                } else {
                    Feed::Mismatch(mismatch(record, &p, &json, result))
                }
            }
            Item::SkipUntil(p) => {
                let result = pattern::match_value(&p, &json, vars, captures, partial);
                if result.ok {
                    *captures = result.captures;
                    self.taken.push(result.rendered);
                    self.advance()
                } else {
                    self.skipped += 1;
                    Feed::More
                }
            }
            Item::Either {
                strict,
                allow,
                reason,
                ..
            } => {
                let result = pattern::match_value(&strict, &json, vars, captures, self.options);
                if result.ok {
                    *captures = result.captures;
                    self.taken.push(result.rendered);
                    return self.advance();
                }
                for alt in &allow {
                    let alt_result = pattern::match_value(alt, &json, vars, captures, self.options);
                    if alt_result.ok {
                        *captures = alt_result.captures;
                        self.taken.push(alt_result.rendered);
                        self.non_strict.push(reason.clone());
                        self.excused.push(record.index);
                        return self.advance();
                    }
                }
                Feed::Mismatch(mismatch(record, &strict, &json, result))
            }
            Item::Raw(text) => {
                let actual = Value::String(record.text());
                let expected = Value::String(text.clone());
                let result = pattern::match_value(&expected, &actual, vars, captures, self.options);
                if result.ok && record.lf {
                    *captures = result.captures;
                    self.taken.push(actual);
                    self.advance()
                } else {
                    let mut details = result.mismatches;
                    if !record.lf {
                        details.push("the line does not end with LF".into());
                    }
                    Feed::Mismatch(Mismatch {
                        summary: format!(
                            "stdout line {} differs from the expected bytes",
                            record.index + 1
                        ),
                        details,
                        expected: serde_json::json!({"$raw": text}),
                        actual: serde_json::json!({"$raw": record.text()}),
                        unknown_command: false,
                    })
                }
            }
            Item::Unordered(_) => {
                let mut best: Option<(usize, pattern::MatchResult)> = None;
                for (index, p) in self.left.iter().enumerate() {
                    let result = pattern::match_value(p, &json, vars, captures, self.options);
                    if result.ok {
                        *captures = result.captures;
                        self.taken.push(result.rendered);
                        self.left.remove(index);
                        return if self.left.is_empty() {
                            self.advance()
                        } else {
                            Feed::More
                        };
                    }
                    let closer = best
                        .as_ref()
                        .is_none_or(|(_, b)| result.mismatches.len() < b.mismatches.len());
                    if closer {
                        best = Some((index, result));
                    }
                }
                match best {
                    Some((index, result)) => {
                        let p = self.left[index].clone();
                        let mut m = mismatch(record, &p, &json, result);
                        m.summary = format!(
                            "stdout line {} matches none of the {} records left in an unordered group (closest shown)",
                            record.index + 1,
                            self.left.len()
                        );
                        Feed::Mismatch(m)
                    }
                    None => self.advance(),
                }
            }
        }
    }
}

fn mismatch(record: &Record, p: &Value, json: &Value, result: pattern::MatchResult) -> Mismatch {
    let unknown_command = json.get("type").and_then(Value::as_str) == Some("response")
        && json
            .get("error")
            .and_then(Value::as_str)
            .is_some_and(|e| e.starts_with("Unknown command"))
        && !p
            .get("error")
            .and_then(Value::as_str)
            .is_some_and(|e| e.starts_with("Unknown command"));
    let summary = match json.get("error").and_then(Value::as_str) {
        Some(error) if unknown_command => {
            format!(
                "stdout line {}: the agent answered {error:?}",
                record.index + 1
            )
        }
        _ => format!("stdout line {} does not match", record.index + 1),
    };
    Mismatch {
        summary,
        details: result.mismatches,
        expected: pattern::display_pattern(p),
        actual: result.rendered,
        unknown_command,
    }
}

/// A unified line diff of two JSON values, pretty-printed.
pub fn diff(expected: &Value, actual: &Value) -> String {
    let left = serde_json::to_string_pretty(expected).unwrap_or_default() + "\n";
    let right = serde_json::to_string_pretty(actual).unwrap_or_default() + "\n";
    similar::TextDiff::from_lines(&left, &right)
        .unified_diff()
        .context_radius(3)
        .header("expected", "actual")
        .to_string()
}

#[cfg(test)]
mod tests;
