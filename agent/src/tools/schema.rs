//! The tools' JSON schemas and the reference's argument handling: coercion of near-miss values
//! (TypeBox `Value.Convert`) and the validation errors a model sees.

use serde_json::{Map, Number, Value, json};

use super::ToolDefinition;
use super::js;
use super::truncate::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES};

/// The definitions of `read`, `bash`, `edit` and `write`, in that order.
pub(crate) fn definitions() -> Vec<ToolDefinition> {
    let kb = DEFAULT_MAX_BYTES / 1024;
    vec![
        ToolDefinition {
            name: "read",
            description: format!(
                "Read a file. Text files come back as their lines, images (jpg, png, gif, webp, \
                 bmp) as attachments. Text output stops at {DEFAULT_MAX_LINES} lines or {kb}KB, \
                 whichever comes first; read large files in parts with offset and limit, and keep \
                 going with offset until you have what you need."
            ),
            parameters: json!({
                "type": "object",
                "required": ["path"],
                "properties": {
                    "path": {"type": "string", "description": "File to read, absolute or relative to the working folder"},
                    "offset": {"type": "number", "description": "First line to return, counting from 1"},
                    "limit": {"type": "number", "description": "How many lines to return at most"}
                }
            }),
        },
        ToolDefinition {
            name: "bash",
            description: format!(
                "Run a bash command in the working folder and get its stdout and stderr. Only the \
                 last {DEFAULT_MAX_LINES} lines or {kb}KB of output are returned, whichever is \
                 smaller; when output is cut, the whole of it is kept in a temporary file. A \
                 timeout in seconds may be given."
            ),
            parameters: json!({
                "type": "object",
                "required": ["command"],
                "properties": {
                    "command": {"type": "string", "description": "The bash command line to run"},
                    "timeout": {"type": "number", "description": "Seconds before the command is stopped (no limit when left out)"}
                }
            }),
        },
        ToolDefinition {
            name: "edit",
            description:
                "Change one file by replacing exact text. Each edits[].oldText must match \
                          exactly one place in the file as it was before the call, and no two \
                          edits may overlap. Merge changes to the same or neighbouring lines into \
                          one edit, and keep oldText short: just enough to be unique."
                    .into(),
            parameters: json!({
                "type": "object",
                "required": ["path", "edits"],
                "properties": {
                    "path": {"type": "string", "description": "File to edit, absolute or relative to the working folder"},
                    "edits": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["oldText", "newText"],
                            "properties": {
                                "oldText": {"type": "string", "description": "Text to replace; it must occur exactly once in the original file and not overlap another edit's oldText"},
                                "newText": {"type": "string", "description": "The text to put in its place"}
                            }
                        },
                        "description": "The replacements, each matched against the original file rather than after the others; they must not overlap"
                    }
                }
            }),
        },
        ToolDefinition {
            name: "write",
            description: "Write a file, creating it or replacing what it held. Missing parent \
                          folders are created."
                .into(),
            parameters: json!({
                "type": "object",
                "required": ["path", "content"],
                "properties": {
                    "path": {"type": "string", "description": "File to write, absolute or relative to the working folder"},
                    "content": {"type": "string", "description": "The complete new content of the file"}
                }
            }),
        },
        ToolDefinition {
            name: "grep",
            description: format!(
                "Search the contents of files for a pattern and get the matching lines with their \
                 file paths and line numbers. Files that .gitignore excludes are skipped. At most \
                 {GREP_LIMIT} matches or {kb}KB of output come back, whichever is reached first, \
                 and lines longer than {GREP_LINE} characters are cut."
            ),
            parameters: json!({
                "type": "object",
                "required": ["pattern"],
                "properties": {
                    "pattern": {"type": "string", "description": "What to look for: a regular expression, or plain text with literal"},
                    "path": {"type": "string", "description": "Folder or file to search (the working folder when left out)"},
                    "glob": {"type": "string", "description": "Only search files matching this glob, such as '*.rs' or '**/*.test.ts'"},
                    "ignoreCase": {"type": "boolean", "description": "Ignore letter case (off when left out)"},
                    "literal": {"type": "boolean", "description": "Take the pattern as plain text, not as a regular expression (off when left out)"},
                    "context": {"type": "number", "description": "Lines to show before and after each match (none when left out)"},
                    "limit": {"type": "number", "description": "Most matches to return (100 when left out)"}
                }
            }),
        },
        ToolDefinition {
            name: "find",
            description: format!(
                "Find files by glob pattern and get their paths relative to the searched folder. \
                 Files that .gitignore excludes are skipped. At most {FIND_LIMIT} results or \
                 {kb}KB of output come back, whichever is reached first."
            ),
            parameters: json!({
                "type": "object",
                "required": ["pattern"],
                "properties": {
                    "pattern": {"type": "string", "description": "Glob the files must match, such as '*.rs', '**/*.json' or 'src/**/*.test.ts'"},
                    "path": {"type": "string", "description": "Folder to search (the working folder when left out)"},
                    "limit": {"type": "number", "description": "Most results to return (1000 when left out)"}
                }
            }),
        },
        ToolDefinition {
            name: "ls",
            description: format!(
                "List a folder: its entries in alphabetical order, dotfiles included, folders \
                 marked with a trailing '/'. At most {LS_LIMIT} entries or {kb}KB of output come \
                 back, whichever is reached first."
            ),
            parameters: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Folder to list (the working folder when left out)"},
                    "limit": {"type": "number", "description": "Most entries to return (500 when left out)"}
                }
            }),
        },
    ]
}

/// Default limits of the listing tools, as their descriptions state them.
const GREP_LIMIT: usize = 100;
/// The longest line `grep` shows whole, in UTF-16 units.
pub(crate) const GREP_LINE: usize = 500;
const FIND_LIMIT: usize = 1000;
const LS_LIMIT: usize = 500;

/// The shape of an argument value, as far as validation needs it.
pub(crate) enum Node {
    String,
    Number,
    Boolean,
    Array(Box<Node>),
    /// Properties in schema order: name, shape, required.
    Object(Vec<(&'static str, Node, bool)>),
}

/// The argument shape of a tool, or `None` for an unknown tool.
pub(crate) fn node_for(name: &str) -> Option<Node> {
    use Node::{Array, Number, Object, String};
    Some(match name {
        "read" => Object(vec![
            ("path", String, true),
            ("offset", Number, false),
            ("limit", Number, false),
        ]),
        "bash" => Object(vec![("command", String, true), ("timeout", Number, false)]),
        "edit" => Object(vec![
            ("path", String, true),
            (
                "edits",
                Array(Box::new(Object(vec![
                    ("oldText", String, true),
                    ("newText", String, true),
                ]))),
                true,
            ),
        ]),
        "write" => Object(vec![("path", String, true), ("content", String, true)]),
        "grep" => Object(vec![
            ("pattern", String, true),
            ("path", String, false),
            ("glob", String, false),
            ("ignoreCase", Node::Boolean, false),
            ("literal", Node::Boolean, false),
            ("context", Number, false),
            ("limit", Number, false),
        ]),
        "find" => Object(vec![
            ("pattern", String, true),
            ("path", String, false),
            ("limit", Number, false),
        ]),
        "ls" => Object(vec![("path", String, false), ("limit", Number, false)]),
        _ => return None,
    })
}

/// Coerces `value` toward `node` in place, as TypeBox's `Value.Convert` does.
pub(crate) fn convert(node: &Node, value: &mut Value) {
    match node {
        Node::String => {
            let text = match value {
                Value::Number(number) => js::number_to_string(number.as_f64().unwrap_or(0.0)),
                Value::Bool(flag) => flag.to_string(),
                Value::Null => "null".into(),
                _ => return,
            };
            *value = Value::String(text);
        }
        Node::Number => {
            let number = match value {
                Value::Bool(flag) => Some(if *flag { 1.0 } else { 0.0 }),
                Value::Null => Some(0.0),
                Value::String(text) => number_from_string(text),
                _ => None,
            };
            if let Some(number) = number.and_then(Number::from_f64) {
                *value = Value::Number(number);
            }
        }
        Node::Boolean => {
            let flag = match value {
                Value::Number(number) if number.as_f64() == Some(0.0) => false,
                Value::Number(number) if number.as_f64() == Some(1.0) => true,
                Value::Null => false,
                Value::String(text) if text.to_lowercase() == "false" || text == "0" => false,
                Value::String(text) if text.to_lowercase() == "true" || text == "1" => true,
                _ => return,
            };
            *value = Value::Bool(flag);
        }
        Node::Array(items) => {
            if !value.is_array() {
                *value = Value::Array(vec![value.take()]);
            }
            if let Value::Array(elements) = value {
                for element in elements {
                    convert(items, element);
                }
            }
        }
        Node::Object(properties) => {
            if let Value::Object(map) = value {
                for (name, property, _) in properties {
                    if let Some(field) = map.get_mut(*name) {
                        convert(property, field);
                    }
                }
            }
        }
    }
}

/// TypeBox's string-to-number conversion: a finite `+text`, `true`/`false`, or an integer-like
/// text (`12`, `12.5`, `12n`) within the safe integer range.
fn number_from_string(text: &str) -> Option<f64> {
    let number = js::string_to_number(text);
    if number.is_finite() {
        return Some(number);
    }
    match text.to_lowercase().as_str() {
        "false" => return Some(0.0),
        "true" => return Some(1.0),
        _ => {}
    }
    let digits = text.strip_suffix('n').unwrap_or(text);
    let integer_part = if text.ends_with('n') {
        is_integer_text(digits).then_some(digits)
    } else if let Some((whole, fraction)) = text.split_once('.') {
        (is_integer_text(whole)
            && !fraction.is_empty()
            && fraction.bytes().all(|b| b.is_ascii_digit()))
        .then_some(whole)
    } else {
        is_integer_text(text).then_some(text)
    }?;
    let parsed: f64 = integer_part.parse().ok()?;
    (parsed.abs() <= 9_007_199_254_740_991.0).then_some(parsed)
}

/// `-?(0|[1-9]\d*)`
fn is_integer_text(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    match digits.as_bytes() {
        [b'0'] => true,
        [first, rest @ ..] => (b'1'..=b'9').contains(first) && rest.iter().all(u8::is_ascii_digit),
        [] => false,
    }
}

/// How validation failures are worded (the release spoken decides it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ValidationWording {
    /// TypeBox's: `must be string`, one `must have required properties a, b` at the first
    /// missing property (pi before 1.5.0).
    #[default]
    TypeBox,
    /// JSON Schema checks as pi-schema words them: `expected string, got object`, and
    /// `missing` at each missing property (pi 1.5.0 on).
    Schema,
}

impl ValidationWording {
    /// How the given release words validation failures.
    pub fn for_release(release: crate::release::RpcRelease) -> Self {
        if release.has(crate::release::Feature::SchemaValidationMessages) {
            Self::Schema
        } else {
            Self::TypeBox
        }
    }
}

/// The validation errors of `value` against `node`, as `(path, message)` in the order the
/// wording's validator reports them.
pub(crate) fn errors(
    node: &Node,
    value: &Value,
    wording: ValidationWording,
) -> Vec<(String, String)> {
    let mut found = Vec::new();
    collect_errors(node, value, &mut Vec::new(), &mut found, wording);
    found
}

/// The JSON Schema type of a node.
fn type_name(node: &Node) -> &'static str {
    match node {
        Node::String => "string",
        Node::Number => "number",
        Node::Boolean => "boolean",
        Node::Array(_) => "array",
        Node::Object(_) => "object",
    }
}

/// What a value is, in JSON Schema's words (a whole number is an `integer`).
fn value_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(number) => match number.as_f64() {
            Some(n) if n.is_finite() && n.fract() == 0.0 => "integer",
            _ => "number",
        },
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn path_text(path: &[String]) -> String {
    if path.is_empty() {
        "root".to_string()
    } else {
        path.join(".")
    }
}

fn collect_errors(
    node: &Node,
    value: &Value,
    path: &mut Vec<String>,
    found: &mut Vec<(String, String)>,
    wording: ValidationWording,
) {
    let fits = match node {
        Node::String => value.is_string(),
        Node::Number => value.is_number(),
        Node::Boolean => value.is_boolean(),
        Node::Array(_) => value.is_array(),
        Node::Object(_) => value.is_object(),
    };
    if !fits {
        let message = match wording {
            ValidationWording::TypeBox => format!("must be {}", type_name(node)),
            ValidationWording::Schema => {
                format!("expected {}, got {}", type_name(node), value_type(value))
            }
        };
        found.push((path_text(path), message));
        return;
    }
    match (node, value) {
        (Node::Array(items), Value::Array(elements)) => {
            for (index, element) in elements.iter().enumerate() {
                path.push(index.to_string());
                collect_errors(items, element, path, found, wording);
                path.pop();
            }
        }
        (Node::Object(properties), Value::Object(map)) => {
            collect_object_errors(properties, map, path, found, wording);
        }
        _ => {}
    }
}

fn collect_object_errors(
    properties: &[(&'static str, Node, bool)],
    map: &Map<String, Value>,
    path: &mut Vec<String>,
    found: &mut Vec<(String, String)>,
    wording: ValidationWording,
) {
    let missing: Vec<&str> = properties
        .iter()
        .filter(|(name, _, required)| *required && !map.contains_key(*name))
        .map(|(name, _, _)| *name)
        .collect();
    match wording {
        ValidationWording::TypeBox => {
            if let Some(first) = missing.first() {
                path.push((*first).to_string());
                found.push((
                    path.join("."),
                    format!("must have required properties {}", missing.join(", ")),
                ));
                path.pop();
            }
        }
        ValidationWording::Schema => {
            for name in missing {
                path.push(name.to_string());
                found.push((path.join("."), "missing".into()));
                path.pop();
            }
        }
    }
    for (name, property, _) in properties {
        if let Some(field) = map.get(*name) {
            path.push((*name).to_string());
            collect_errors(property, field, path, found, wording);
            path.pop();
        }
    }
}
