//! `record`: writing the records an agent sent into a scenario as its expectations.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::load::Loaded;
use crate::scenario::{Expect, ExpectFull, Step};

/// Errors writing a recorded scenario.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Serialising the scenario failed.
    #[error("cannot write the scenario as YAML: {0}")]
    Yaml(String),
}

/// The scenario with each `expect` step's records replaced by `collected` (one list per expect
/// step, then the records read after the last step), as YAML with the schema comment first.
pub fn rewrite(loaded: &Loaded, collected: &[Vec<Value>]) -> Result<String, RecordError> {
    let mut scenario = loaded.scenario.clone();
    let mut lists = collected.iter();
    for step in &mut scenario.steps {
        if let Step::Expect(expect) = step {
            let records = lists.next().cloned().unwrap_or_default();
            let old = expect.full();
            let full = ExpectFull {
                records,
                ignore: old.ignore,
                partial: false,
                until: None,
                timeout_ms: old.timeout_ms,
            };
            *expect = if full.ignore.is_empty() && full.timeout_ms.is_none() {
                Expect::List(full.records)
            } else {
                Expect::Full(full)
            };
        }
    }
    if let Some(trailing) = lists.next().filter(|t| !t.is_empty()) {
        scenario
            .steps
            .push(Step::Expect(Expect::List(trailing.clone())));
    }
    let value = serde_json::to_value(&scenario).map_err(|e| RecordError::Yaml(e.to_string()))?;
    // Long one-line strings stay on one line (no folding); multi-line ones become `|` blocks.
    let mut options = serde_saphyr::SerializerOptions::default();
    options.folded_wrap_chars = 1_000_000;
    let mut body = serde_saphyr::to_string_with_options(&Layout(&value, false), options)
        .map_err(|e| RecordError::Yaml(e.to_string()))?;
    if !body.ends_with('\n') {
        body.push('\n');
    }
    let header = loaded
        .source
        .lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect::<String>();
    Ok(header + &body)
}

/// Objects and lists whose compact JSON is at most this long are written in flow style.
const FLOW_WIDTH: usize = 90;

/// Keys whose lists are always written as blocks, one item per line: the lists a reader scans.
const BLOCK_KEYS: [&str; 6] = ["steps", "expect", "records", "journal", "entries", "jsonl"];

/// A JSON value laid out for reading: short objects and lists on one line (flow style), longer
/// ones as blocks; the scenario itself, its steps list and expectation lists always as blocks.
struct Layout<'a>(&'a Value, bool);

impl Serialize for Layout<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Layout(value, may_flow) = *self;
        let short = || value.to_string().chars().count() <= FLOW_WIDTH;
        match value {
            Value::Object(map)
                if may_flow
                    && !map.is_empty()
                    && !map.keys().any(|k| BLOCK_KEYS.contains(&k.as_str()))
                    && short() =>
            {
                serde_saphyr::FlowMap(map).serialize(serializer)
            }
            Value::Array(items) if may_flow && !items.is_empty() && short() => {
                serde_saphyr::FlowSeq(items).serialize(serializer)
            }
            Value::Object(map) => {
                let mut out = serializer.serialize_map(Some(map.len()))?;
                for (key, value) in map {
                    let block = BLOCK_KEYS.contains(&key.as_str()) && value.is_array();
                    out.serialize_entry(key, &Layout(value, !block))?;
                }
                out.end()
            }
            Value::Array(items) => {
                let mut out = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    out.serialize_element(&Layout(item, true))?;
                }
                out.end()
            }
            other => other.serialize(serializer),
        }
    }
}
