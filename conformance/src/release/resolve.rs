//! A scenario as it holds on one release: `$since` variants picked, and the registry's rules for
//! the changes up to that release applied.
//!
//! `{$since: {"0.99.1": P1, "1.3.0": P2}}` stands for the pattern of the newest listed release
//! not after the run's release; before the first listed release it stands for nothing: the key
//! is left out of its object (an exact object then requires it absent), the element out of its
//! list, the item out of its `expect` list. A variant `"{{absent}}"` ends an element or item
//! from its release on (`{$since: {"0.84.1": P, "0.84.3": "{{absent}}"}}`); as a key's value it
//! requires the key absent.

use serde_json::{Map, Value};

use super::{Registry, ResolveError, Rule, SINCE_KEY, Version};
use crate::pattern::{self, MatchOptions, PARTIAL_KEY, Vars};
use crate::scenario::{Expect, ExpectFull, FileCheck, JournalSpec, Scenario, Step};

/// The `expect` item that skips records up to a pattern, matched partially.
const SKIP_UNTIL_KEY: &str = "$skip_until";

/// What the rules of a release do to a run beyond rewriting its patterns: records and array
/// elements that release added and the scenario does not know, left out before matching.
#[derive(Debug, Clone, Default)]
pub struct Adjustments {
    /// Records left out of `expect` steps and JSONL files (partial patterns).
    pub omit_records: Vec<Value>,
    /// Array elements left out of every record (partial patterns).
    pub omit_elements: Vec<Value>,
    /// Keys left out of the records a selector matches (partially): (selector, path, the
    /// literal values the key's object must hold).
    pub omit_keys: Vec<(Value, Vec<String>, Map<String, Value>)>,
    /// The ids of the changes whose rules were applied, for the log.
    pub applied: Vec<String>,
}

impl Adjustments {
    /// A record as the expectations see it: `None` when it is one to leave out, else without
    /// the elements and keys to leave out.
    pub fn apply(&self, record: crate::agent::Record) -> Option<crate::agent::Record> {
        match &record.json {
            Ok(json) if self.omits_record(json) => None,
            Ok(json) => Some(crate::agent::Record {
                json: Ok(self.without_elements(json)),
                ..record
            }),
            Err(_) => Some(record),
        }
    }

    /// Whether a record is one to leave out.
    pub fn omits_record(&self, record: &Value) -> bool {
        self.omit_records.iter().any(|p| partially(p, record))
    }

    /// The record without the array elements and keys to leave out (the record itself when
    /// there are none).
    pub fn without_elements(&self, record: &Value) -> Value {
        let mut record = if self.omit_elements.is_empty() {
            record.clone()
        } else {
            strip_elements(record, &self.omit_elements)
        };
        for (selector, path, of) in &self.omit_keys {
            if partially(selector, &record) {
                remove_path(&mut record, path, of);
            }
        }
        record
    }
}

/// Removes the key at `path`; a `**` step stands for any depth (`[**, cost, totalFromProvider]`:
/// that key of every `cost` object).
fn remove_path(value: &mut Value, path: &[String], of: &Map<String, Value>) {
    match path {
        [] => {}
        [any, rest @ ..] if any == "**" => {
            remove_path(value, rest, of);
            match value {
                Value::Object(map) => map.values_mut().for_each(|v| remove_path(v, path, of)),
                Value::Array(items) => items.iter_mut().for_each(|v| remove_path(v, path, of)),
                _ => {}
            }
        }
        [key] => {
            if let Value::Object(map) = value
                && of.iter().all(|(k, v)| map.get(k) == Some(v))
            {
                map.shift_remove(key);
            }
        }
        [key, rest @ ..] => {
            if let Some(inner) = value.get_mut(key.as_str()) {
                remove_path(inner, rest, of);
            }
        }
    }
}

fn partially(pattern: &Value, value: &Value) -> bool {
    pattern::match_value(
        pattern,
        value,
        &Vars::new(),
        &Default::default(),
        MatchOptions { partial: true },
    )
    .ok
}

fn strip_elements(value: &Value, patterns: &[Value]) -> Value {
    match value {
        Value::Array(items) => Value::Array(
            items
                .iter()
                .filter(|item| !patterns.iter().any(|p| partially(p, item)))
                .map(|item| strip_elements(item, patterns))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), strip_elements(v, patterns)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Resolves every `$since` in `value` for `release`; `None` when the whole value stands for
/// nothing on that release.
pub fn since(value: &Value, release: Version) -> Result<Option<Value>, ResolveError> {
    match value {
        Value::Object(map) if map.contains_key(SINCE_KEY) => {
            if map.len() != 1 {
                return Err(ResolveError::SinceNotAlone);
            }
            let Some(variants) = map[SINCE_KEY].as_object().filter(|m| !m.is_empty()) else {
                return Err(ResolveError::SinceShape);
            };
            let mut chosen: Option<(Version, &Value)> = None;
            for (text, pattern) in variants {
                let version: Version = text.parse().map_err(ResolveError::SinceVersion)?;
                if version <= release && chosen.is_none_or(|(best, _)| version > best) {
                    chosen = Some((version, pattern));
                }
            }
            match chosen {
                Some((_, pattern)) => since(pattern, release),
                None => Ok(None),
            }
        }
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, item) in map {
                if let Some(item) = since(item, release)? {
                    out.insert(key.clone(), item);
                }
            }
            Ok(Some(Value::Object(out)))
        }
        Value::Array(items) => Ok(Some(Value::Array(since_all(items, release)?))),
        other => Ok(Some(other.clone())),
    }
}

/// The placeholder that, as a `$since` variant, ends an element or item: from that release on
/// it is left out (as an object's value it keeps its meaning: the key must be absent).
const ABSENT: &str = "{{absent}}";

/// Resolves a list: elements that stand for nothing, or for [`ABSENT`], are left out.
fn since_all(values: &[Value], release: Version) -> Result<Vec<Value>, ResolveError> {
    let mut out = Vec::new();
    for value in values {
        out.extend(since(value, release)?.filter(|v| v.as_str() != Some(ABSENT)));
    }
    Ok(out)
}

/// The scenario as it holds on `release`, and what the run leaves out: every `$since`
/// resolved, and the rules of the changes up to `release` (those the scenario does not state
/// itself, see [`Rule::unless`]) applied. The error names the step.
pub fn for_release(
    scenario: &Scenario,
    release: Version,
    registry: &Registry,
) -> Result<(Scenario, Adjustments), ResolveError> {
    let mut resolved = scenario.clone();
    resolved.steps = Vec::with_capacity(scenario.steps.len());
    for (index, step) in scenario.steps.iter().enumerate() {
        let step = self::step(step, release).map_err(|source| ResolveError::Step {
            number: index + 1,
            source: Box::new(source),
        })?;
        resolved.steps.extend(step);
    }
    let mut adjustments = Adjustments::default();
    let mut adds: Vec<&Rule> = Vec::new();
    for change in registry.changes.iter().filter(|c| c.since <= release) {
        let rules: Vec<&Rule> = change
            .rules
            .iter()
            .filter(|rule| !mentions(&resolved, &rule.unless))
            .collect();
        if rules.is_empty() {
            continue;
        }
        adjustments.applied.push(change.id.clone());
        for rule in rules {
            if rule.add.is_some() {
                adds.push(rule);
            }
            adjustments
                .omit_records
                .extend(rule.omit_records.iter().cloned());
            adjustments
                .omit_elements
                .extend(rule.omit_elements.iter().cloned());
            let selector = Value::Object(rule.to.clone());
            adjustments.omit_keys.extend(
                rule.omit_keys
                    .iter()
                    .map(|path| (selector.clone(), path.clone(), rule.of.clone())),
            );
        }
    }
    if !adds.is_empty() {
        for step in &mut resolved.steps {
            match step {
                Step::Expect(Expect::List(records)) => add_keys_all(records, &adds),
                Step::Expect(Expect::Full(full)) if !full.partial => {
                    add_keys_all(&mut full.records, &adds);
                }
                Step::File(FileCheck {
                    jsonl: Some(lines),
                    partial: false,
                    ..
                }) => add_keys_all(lines, &adds),
                _ => {}
            }
        }
    }
    Ok((resolved, adjustments))
}

/// The releases where a scenario changes: the bounds of its `releases` range, the releases
/// its `$since` variants name, and the first releases of the changes it names; sorted, after
/// the default release (a variant of the default release is no change).
pub fn bounds(scenario: &Scenario, registry: &Registry) -> Vec<Version> {
    let mut found: Vec<Version> = scenario
        .releases
        .as_deref()
        .and_then(|text| text.parse::<super::Range>().ok())
        .map(|range| range.bounds())
        .unwrap_or_default();
    for id in &scenario.changes {
        found.extend(
            registry
                .changes
                .iter()
                .filter(|c| &c.id == id)
                .map(|c| c.since),
        );
    }
    if let Ok(steps) = serde_json::to_value(&scenario.steps) {
        since_releases(&steps, &mut found);
    }
    found.retain(|version| *version > registry.default);
    found.sort();
    found.dedup();
    found
}

fn since_releases(value: &Value, found: &mut Vec<Version>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(variants)) = map.get(SINCE_KEY) {
                found.extend(
                    variants
                        .keys()
                        .filter_map(|text| text.parse::<Version>().ok()),
                );
            }
            map.values().for_each(|item| since_releases(item, found));
        }
        Value::Array(items) => items.iter().for_each(|item| since_releases(item, found)),
        _ => {}
    }
}

/// Whether a step holds a `$since` anywhere.
pub fn has_since(step: &Step) -> bool {
    serde_json::to_string(step).is_ok_and(|text| text.contains(&format!("\"{SINCE_KEY}\"")))
}

/// One step on `release`; `None` when an `expect` step is left with nothing to expect.
pub fn step(step: &Step, release: Version) -> Result<Option<Step>, ResolveError> {
    let required = |value: &Value| since(value, release)?.ok_or(ResolveError::NoValue(release));
    Ok(Some(match step {
        Step::Send(value) => Step::Send(required(value)?),
        Step::Expect(expect) => {
            let full = expect.full();
            let resolved = ExpectFull {
                records: since_all(&full.records, release)?,
                ignore: since_all(&full.ignore, release)?,
                until: match &full.until {
                    Some(until) => since(until, release)?,
                    None => None,
                },
                ..full
            };
            if resolved.records.is_empty() && resolved.until.is_none() {
                return Ok(None);
            }
            match expect {
                Expect::List(_) => Step::Expect(Expect::List(resolved.records)),
                Expect::Full(_) => Step::Expect(Expect::Full(resolved)),
            }
        }
        Step::Journal(JournalSpec::List(entries)) => {
            Step::Journal(JournalSpec::List(since_all(entries, release)?))
        }
        Step::Journal(JournalSpec::Full { entries, exact }) => Step::Journal(JournalSpec::Full {
            entries: since_all(entries, release)?,
            exact: *exact,
        }),
        Step::File(check) => Step::File(FileCheck {
            jsonl: match &check.jsonl {
                Some(lines) => Some(since_all(lines, release)?),
                None => None,
            },
            ..check.clone()
        }),
        other => other.clone(),
    }))
}

/// Whether the scenario has a record pattern (in `expect` steps and JSONL files) holding every
/// entry of `selector` (an empty selector is held by none).
fn mentions(scenario: &Scenario, selector: &Map<String, Value>) -> bool {
    if selector.is_empty() {
        return false;
    }
    scenario.steps.iter().any(|step| {
        let values: Vec<&Value> = match step {
            Step::Expect(Expect::List(records)) => records.iter().collect(),
            Step::Expect(Expect::Full(full)) => full.records.iter().chain(&full.until).collect(),
            Step::File(check) => check.jsonl.iter().flatten().collect(),
            // The mock's journal holds provider requests, not records: it does not count.
            _ => Vec::new(),
        };
        values.into_iter().any(|value| holds(value, selector))
    })
}

/// Whether `value` has an object holding every entry of `selector` (a selector value
/// `"{{any}}"` only asks for the key).
fn holds(value: &Value, selector: &Map<String, Value>) -> bool {
    match value {
        Value::Object(map) => {
            selector.iter().all(|(k, v)| match map.get(k) {
                Some(_) if v.as_str() == Some("{{any}}") => true,
                found => found == Some(v),
            }) || map.values().any(|v| holds(v, selector))
        }
        Value::Array(items) => items.iter().any(|v| holds(v, selector)),
        _ => false,
    }
}

fn add_keys_all(values: &mut [Value], rules: &[&Rule]) {
    for value in values {
        add_keys(value, None, rules);
    }
}

/// Adds the rules' keys to every exact object pattern they select that does not name them
/// (`$skip_until` patterns match partially: nothing is added inside them).
fn add_keys(value: &mut Value, key: Option<&str>, rules: &[&Rule]) {
    match value {
        Value::Object(map) if map.contains_key(SKIP_UNTIL_KEY) => {}
        Value::Object(map) => {
            let partial = map.get(PARTIAL_KEY) == Some(&Value::Bool(true));
            if !partial {
                for rule in rules {
                    let selected = rule.to.iter().all(|(k, v)| map.get(k) == Some(v))
                        && rule.has.iter().all(|k| map.contains_key(k))
                        && rule.under.as_deref().is_none_or(|under| key == Some(under));
                    if !selected {
                        continue;
                    }
                    for (key, pattern) in rule.add.iter().flatten() {
                        if !map.contains_key(key) {
                            map.insert(key.clone(), pattern.clone());
                        }
                    }
                }
            }
            for (name, item) in map.iter_mut() {
                add_keys(item, Some(name), rules);
            }
        }
        Value::Array(items) => {
            for item in items {
                add_keys(item, key, rules);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v(text: &str) -> Version {
        text.parse().unwrap()
    }

    #[test]
    fn since_picks_the_newest_variant_not_after_the_release() {
        let pattern = json!({"type": "response", "data": {"$since": {"0.99.1": {"d": 1}, "1.3.0": {"d": 2}}}});
        assert_eq!(
            since(&pattern, v("0.84.1")).unwrap(),
            Some(json!({"type": "response"}))
        );
        assert_eq!(
            since(&pattern, v("1.0.3")).unwrap(),
            Some(json!({"type": "response", "data": {"d": 1}}))
        );
        assert_eq!(
            since(&pattern, v("1.6.0")).unwrap(),
            Some(json!({"type": "response", "data": {"d": 2}}))
        );
        let list = json!([1, {"$since": {"0.84.4": 2}}, 3]);
        assert_eq!(since(&list, v("0.84.3")).unwrap(), Some(json!([1, 3])));
        assert_eq!(since(&list, v("0.84.4")).unwrap(), Some(json!([1, 2, 3])));
        let ended = json!([1, {"$since": {"0.84.1": 2, "0.84.3": "{{absent}}"}}]);
        assert_eq!(since(&ended, v("0.84.2")).unwrap(), Some(json!([1, 2])));
        assert_eq!(since(&ended, v("0.84.3")).unwrap(), Some(json!([1])));
        let key = json!({"a": {"$since": {"0.84.1": 2, "0.84.3": "{{absent}}"}}});
        assert_eq!(
            since(&key, v("0.84.3")).unwrap(),
            Some(json!({"a": "{{absent}}"}))
        );
    }

    #[test]
    fn malformed_since_is_explained() {
        for bad in [
            json!({"$since": {"0.99": 1}}),
            json!({"$since": 1}),
            json!({"$since": {"0.99.1": 1}, "x": 2}),
        ] {
            assert!(
                since(&bad, v("1.0.3"))
                    .unwrap_err()
                    .to_string()
                    .contains("$since")
            );
        }
    }

    #[test]
    fn add_rules_fill_exact_patterns_of_their_kind_only() {
        let rule = Rule {
            add: Some(json!({"usage": "{{object}}"}).as_object().unwrap().clone()),
            to: json!({"type": "message_update"})
                .as_object()
                .unwrap()
                .clone(),
            ..Rule::default()
        };
        let mut records = vec![
            json!({"type": "message_update", "assistantMessageEvent": {}}),
            json!({"type": "message_update", "usage": {"input": 1}}),
            json!({"$partial": true, "type": "message_update"}),
            json!({"type": "message_end"}),
        ];
        add_keys_all(&mut records, &[&rule]);
        assert_eq!(
            records,
            vec![
                json!({"type": "message_update", "assistantMessageEvent": {}, "usage": "{{object}}"}),
                json!({"type": "message_update", "usage": {"input": 1}}),
                json!({"$partial": true, "type": "message_update"}),
                json!({"type": "message_end"}),
            ]
        );
    }

    #[test]
    fn bounds_are_the_range_the_variants_and_the_changes_after_the_default() {
        let text = "id: t.001\ntitle: t\nreleases: \"<1.5.0\"\nchanges: [clear-queue]\n\
                    steps:\n- expect:\n  - {a: {$since: {\"0.84.1\": 1, \"0.86.1\": 2}}}\n";
        let loaded = crate::load::parse(std::path::Path::new("t.yaml"), text.to_owned()).unwrap();
        let registry = crate::release::registry().unwrap();
        assert_eq!(
            bounds(&loaded.scenario, registry),
            vec![v("0.84.4"), v("0.86.1"), v("1.5.0")]
        );
    }

    #[test]
    fn omissions_drop_records_and_nested_elements() {
        let adjustments = Adjustments {
            omit_records: vec![json!({"message": {"role": "system"}})],
            omit_elements: vec![json!({"role": "system"})],
            omit_keys: vec![(
                json!({"type": "end"}),
                vec!["result".to_owned(), "extra".to_owned()],
                Map::new(),
            )],
            applied: vec![],
        };
        assert_eq!(
            adjustments.without_elements(&json!({"type": "end", "result": {"a": 1, "extra": 2}})),
            json!({"type": "end", "result": {"a": 1}})
        );
        let deep = Adjustments {
            omit_keys: vec![(
                json!({}),
                vec!["**".into(), "cost".into(), "x".into()],
                Map::new(),
            )],
            ..Adjustments::default()
        };
        assert_eq!(
            deep.without_elements(&json!({"m": [{"cost": {"x": 1, "y": 2}}], "cost": {"x": 3}})),
            json!({"m": [{"cost": {"y": 2}}], "cost": {}})
        );
        let of = Adjustments {
            omit_keys: vec![(
                json!({}),
                vec!["**".into(), "level".into()],
                json!({"role": "a"}).as_object().unwrap().clone(),
            )],
            ..Adjustments::default()
        };
        assert_eq!(
            of.without_elements(&json!({"level": 1, "m": [{"role": "a", "level": 2}]})),
            json!({"level": 1, "m": [{"role": "a"}]})
        );
        assert!(adjustments.omits_record(
            &json!({"type": "message_start", "message": {"role": "system", "x": 1}})
        ));
        assert!(
            !adjustments
                .omits_record(&json!({"type": "message_start", "message": {"role": "user"}}))
        );
        assert_eq!(
            adjustments.without_elements(
                &json!({"data": {"messages": [{"role": "system"}, {"role": "user"}]}})
            ),
            json!({"data": {"messages": [{"role": "user"}]}})
        );
    }
}
