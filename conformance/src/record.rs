//! `record`: writing the records an agent sent into a scenario as its expectations.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::load::Loaded;
use crate::scenario::{Expect, ExpectFull, Step};

mod splice;

/// Errors writing a recorded scenario.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// Serialising the scenario failed.
    #[error("cannot write the scenario as YAML: {0}")]
    Yaml(String),
}

/// The scenario with each `expect` step's records replaced by `collected` (one list per expect
/// step, then the records read after the last step, appended as a last `expect` step).
///
/// The scenario's own text is kept and only the re-recorded `expect` steps are rewritten:
/// comments (before and after steps and top-level keys, inside other steps), blank lines, key
/// order and layout stay as written; full-line comments inside a re-recorded `expect` step are
/// moved above it. An `expect` step that read nothing, or that the run did not reach (the agent
/// ended early), is kept as it was. When the steps are not a block list this can follow, or the result would not load,
/// the whole scenario is written anew, keeping only the leading comment lines.
pub fn rewrite(loaded: &Loaded, collected: &[Vec<Value>]) -> Result<String, RecordError> {
    let mut lists = collected.iter();
    let replaced: Vec<Option<Step>> = loaded
        .scenario
        .steps
        .iter()
        .map(|step| match step {
            Step::Expect(expect) => lists
                .next()
                .filter(|records| !records.is_empty())
                .map(|records| recorded(expect, records)),
            _ => None,
        })
        .collect();
    let trailing = lists
        .next()
        .filter(|t| !t.is_empty())
        .map(|t| Step::Expect(Expect::List(t.clone())));
    if let Some(text) = splice(loaded, &replaced, trailing.as_ref())?
        && crate::load::parse(&loaded.file, text.clone()).is_ok()
    {
        return Ok(text);
    }
    anew(loaded, &replaced, trailing)
}

/// An expect step with its records replaced.
fn recorded(expect: &Expect, records: &[Value]) -> Step {
    let old = expect.full();
    let full = ExpectFull {
        records: records.to_vec(),
        ignore: old.ignore,
        partial: false,
        until: None,
        timeout_ms: old.timeout_ms,
    };
    Step::Expect(if full.ignore.is_empty() && full.timeout_ms.is_none() {
        Expect::List(full.records)
    } else {
        Expect::Full(full)
    })
}

/// The source with the replaced steps rewritten in place; `None` when its layout is not one
/// this follows.
fn splice(
    loaded: &Loaded,
    replaced: &[Option<Step>],
    trailing: Option<&Step>,
) -> Result<Option<String>, RecordError> {
    let lines: Vec<&str> = loaded.source.split_inclusive('\n').collect();
    let Some(layout) = splice::layout(&lines) else {
        return Ok(None);
    };
    if layout.items.len() != replaced.len() {
        return Ok(None);
    }
    let mut out = String::new();
    let mut at = 0;
    for (span, step) in layout.items.iter().zip(replaced) {
        let Some(step) = step else { continue };
        out.extend(lines[at..span.start].iter().copied());
        out.push_str(&splice::replace_item(
            &lines,
            span,
            layout.indent,
            &step_yaml(step)?,
        ));
        at = span.end;
    }
    let last_end = layout.items.last().map_or(lines.len(), |span| span.end);
    if let Some(step) = trailing {
        out.extend(lines[at..last_end].iter().copied());
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&splice::indented(&step_yaml(step)?, layout.indent));
        at = last_end;
    }
    out.extend(lines[at..].iter().copied());
    Ok(Some(out))
}

/// One step as the YAML of a one-item list (`- expect: ...`), laid out like a whole scenario.
fn step_yaml(step: &Step) -> Result<String, RecordError> {
    let value = serde_json::to_value(std::slice::from_ref(step))
        .map_err(|e| RecordError::Yaml(e.to_string()))?;
    yaml(&value)
}

fn yaml(value: &Value) -> Result<String, RecordError> {
    // Long one-line strings stay on one line (no folding); multi-line ones become `|` blocks.
    let mut options = serde_saphyr::SerializerOptions::default();
    options.folded_wrap_chars = 1_000_000;
    let mut body = serde_saphyr::to_string_with_options(&Layout(value, false), options)
        .map_err(|e| RecordError::Yaml(e.to_string()))?;
    if !body.ends_with('\n') {
        body.push('\n');
    }
    Ok(body)
}

/// The whole scenario written anew, with the leading comment lines of the original.
fn anew(
    loaded: &Loaded,
    replaced: &[Option<Step>],
    trailing: Option<Step>,
) -> Result<String, RecordError> {
    let mut scenario = loaded.scenario.clone();
    for (step, new) in scenario.steps.iter_mut().zip(replaced) {
        if let Some(new) = new {
            *step = new.clone();
        }
    }
    scenario.steps.extend(trailing);
    let value = serde_json::to_value(&scenario).map_err(|e| RecordError::Yaml(e.to_string()))?;
    let body = yaml(&value)?;
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
