//! From the model's raw arguments to typed ones: the edit tool's argument repair, coercion,
//! validation and the reference's error texts.

use serde_json::{Map, Value};

use super::{js, schema};

/// Why a call's arguments do not make a call (the result text of the failed call).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// No built-in tool has this name.
    #[error("Tool {0} not found")]
    UnknownTool(String),
    /// The arguments do not fit the tool's schema.
    #[error(
        "Validation failed for tool \"{tool}\":\n{}\n\nReceived arguments:\n{received}",
        .problems.iter().map(|(path, message)| format!("  - {path}: {message}")).collect::<Vec<_>>().join("\n")
    )]
    Invalid {
        /// The tool.
        tool: String,
        /// Each problem: where, and what is wrong.
        problems: Vec<(String, String)>,
        /// The arguments as received, as `JSON.stringify(args, null, 2)` writes them.
        received: String,
    },
}

/// Arguments of `read`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReadArgs {
    pub(crate) path: String,
    pub(crate) offset: Option<f64>,
    pub(crate) limit: Option<f64>,
}

/// Arguments of `bash`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BashArgs {
    pub(crate) command: String,
    pub(crate) timeout: Option<f64>,
}

/// One replacement of `edit`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Replacement {
    pub(crate) old_text: String,
    pub(crate) new_text: String,
}

/// Arguments of `edit`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EditArgs {
    pub(crate) path: String,
    pub(crate) edits: Vec<Replacement>,
}

/// Arguments of `write`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WriteArgs {
    pub(crate) path: String,
    pub(crate) content: String,
}

/// Arguments of `grep`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GrepArgs {
    pub(crate) pattern: String,
    pub(crate) path: Option<String>,
    pub(crate) glob: Option<String>,
    pub(crate) ignore_case: bool,
    pub(crate) literal: bool,
    pub(crate) context: Option<f64>,
    pub(crate) limit: Option<f64>,
}

/// Arguments of `find`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FindArgs {
    pub(crate) pattern: String,
    pub(crate) path: Option<String>,
    pub(crate) limit: Option<f64>,
}

/// Arguments of `ls`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LsArgs {
    pub(crate) path: Option<String>,
    pub(crate) limit: Option<f64>,
}

/// Checks `raw` against the schema of the built-in tool `name`, coerced as the reference
/// coerces it; the error is the result text of the failed call, worded as `wording` says. The
/// coerced arguments are what the tool's own `from_checked` reads.
pub(crate) fn check(
    name: &str,
    raw: &Value,
    wording: schema::ValidationWording,
) -> Result<Value, ArgsError> {
    let Some(node) = schema::node_for(name) else {
        return Err(ArgsError::UnknownTool(name.to_owned()));
    };
    let received = if name == "edit" {
        repair_edit_arguments(raw)
    } else {
        raw.clone()
    };
    let mut args = received.clone();
    schema::convert(&node, &mut args);
    let errors = schema::errors(&node, &args, wording);
    if !errors.is_empty() {
        return Err(ArgsError::Invalid {
            tool: name.to_owned(),
            problems: errors,
            received: js::stringify_pretty(&received),
        });
    }
    Ok(args)
}

/// The fields of checked arguments (an object; anything else reads as an empty one).
fn fields(args: &Value) -> &Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    args.as_object()
        .unwrap_or_else(|| EMPTY.get_or_init(Map::new))
}

impl ReadArgs {
    /// `read`'s arguments out of checked ones.
    pub(crate) fn from_checked(args: &Value) -> Self {
        let map = fields(args);
        Self {
            path: string_field(map, "path"),
            offset: map.get("offset").and_then(Value::as_f64),
            limit: map.get("limit").and_then(Value::as_f64),
        }
    }
}

impl BashArgs {
    /// `bash`'s arguments out of checked ones.
    pub(crate) fn from_checked(args: &Value) -> Self {
        let map = fields(args);
        Self {
            command: string_field(map, "command"),
            timeout: map.get("timeout").and_then(Value::as_f64),
        }
    }
}

impl EditArgs {
    /// `edit`'s arguments out of checked (and repaired) ones.
    pub(crate) fn from_checked(args: &Value) -> Self {
        let map = fields(args);
        Self {
            path: string_field(map, "path"),
            edits: map
                .get("edits")
                .and_then(Value::as_array)
                .map(|edits| {
                    edits
                        .iter()
                        .filter_map(Value::as_object)
                        .map(|edit| Replacement {
                            old_text: string_field(edit, "oldText"),
                            new_text: string_field(edit, "newText"),
                        })
                        .collect()
                })
                .unwrap_or_default(),
        }
    }
}

impl WriteArgs {
    /// `write`'s arguments out of checked ones.
    pub(crate) fn from_checked(args: &Value) -> Self {
        let map = fields(args);
        Self {
            path: string_field(map, "path"),
            content: string_field(map, "content"),
        }
    }
}

impl GrepArgs {
    /// `grep`'s arguments out of checked ones.
    pub(crate) fn from_checked(args: &Value) -> Self {
        let map = fields(args);
        Self {
            pattern: string_field(map, "pattern"),
            path: optional_string(map, "path"),
            glob: optional_string(map, "glob"),
            ignore_case: map.get("ignoreCase").and_then(Value::as_bool) == Some(true),
            literal: map.get("literal").and_then(Value::as_bool) == Some(true),
            context: map.get("context").and_then(Value::as_f64),
            limit: map.get("limit").and_then(Value::as_f64),
        }
    }
}

impl FindArgs {
    /// `find`'s arguments out of checked ones.
    pub(crate) fn from_checked(args: &Value) -> Self {
        let map = fields(args);
        Self {
            pattern: string_field(map, "pattern"),
            path: optional_string(map, "path"),
            limit: map.get("limit").and_then(Value::as_f64),
        }
    }
}

impl LsArgs {
    /// `ls`'s arguments out of checked ones.
    pub(crate) fn from_checked(args: &Value) -> Self {
        let map = fields(args);
        Self {
            path: optional_string(map, "path"),
            limit: map.get("limit").and_then(Value::as_f64),
        }
    }
}

fn optional_string(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_string)
}

fn string_field(map: &Map<String, Value>, key: &str) -> String {
    map.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The part of the argument repair that the reference performs on the tool call itself (so that
/// the stored assistant message changes too): `edit`'s `edits` sent as JSON text of a list is
/// replaced by the list.
pub(crate) fn repair_in_place(name: &str, args: &mut Map<String, Value>) {
    if name != "edit" {
        return;
    }
    if let Some(Value::String(text)) = args.get("edits")
        && let Ok(parsed @ Value::Array(_)) = serde_json::from_str::<Value>(text)
    {
        args.insert("edits".into(), parsed);
    }
}

/// The reference's repair of edit arguments: `edits` sent as JSON text is parsed, and a legacy
/// top-level `oldText`/`newText` pair becomes one more entry of `edits`.
fn repair_edit_arguments(raw: &Value) -> Value {
    let Value::Object(input) = raw else {
        return raw.clone();
    };
    let mut args = input.clone();
    repair_in_place("edit", &mut args);
    let (Some(Value::String(old_text)), Some(Value::String(new_text))) =
        (args.get("oldText"), args.get("newText"))
    else {
        return Value::Object(args);
    };
    let mut pair = Map::new();
    pair.insert("oldText".into(), Value::String(old_text.clone()));
    pair.insert("newText".into(), Value::String(new_text.clone()));
    let mut edits = match args.get("edits") {
        Some(Value::Array(edits)) => edits.clone(),
        _ => Vec::new(),
    };
    edits.push(Value::Object(pair));
    args.shift_remove("oldText");
    args.shift_remove("newText");
    args.insert("edits".into(), Value::Array(edits));
    Value::Object(args)
}
