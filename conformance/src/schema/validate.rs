//! Checking lines against a release's schema: compiled once per release, shared by every run.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use serde_json::Value;

use super::SchemaError;
use crate::release::{Registry, Version};

/// At most this many violations are reported for one line.
const MAX_PER_LINE: usize = 5;

/// What a line is checked as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// A line a client writes (`InputLine`).
    Command,
    /// A line the agent writes (`OutputRecord`).
    Record,
    /// A line of a session file (`SessionFileLine`).
    SessionFile,
}

impl LineKind {
    /// The kind a line's `type` says it is: a command's or an answer's type is a command, the
    /// session header and entries' types are session lines, anything else is a record.
    pub fn guess(line: &Value) -> LineKind {
        let kind = line.get("type").and_then(Value::as_str).unwrap_or_default();
        let entry = line.get("parentId").is_some() && line.get("timestamp").is_some();
        if kind == "extension_ui_response" || pi_rpc_protocol::Command::TYPES.contains(&kind) {
            LineKind::Command
        } else if kind == "session" || entry {
            LineKind::SessionFile
        } else {
            LineKind::Record
        }
    }
}

/// One way a line departs from the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer of the offending value in the line (empty for the whole line).
    pub path: String,
    /// What is wrong.
    pub reason: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(f, "{path}: {}", self.reason)
    }
}

/// A release's schema, compiled for each kind of line.
pub struct Validators {
    /// The release.
    pub release: Version,
    schemas: boon::Schemas,
    command: boon::SchemaIndex,
    record: boon::SchemaIndex,
    session_file: boon::SchemaIndex,
}

static COMPILED: LazyLock<Mutex<HashMap<Version, Arc<Validators>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

impl Validators {
    /// The validators of `release`, compiled at the first call and shared after.
    pub fn of(release: Version, registry: &Registry) -> Result<Arc<Validators>, SchemaError> {
        let mut compiled = COMPILED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(validators) = compiled.get(&release) {
            return Ok(Arc::clone(validators));
        }
        let document = super::document(release, registry)?;
        let validators = Arc::new(Validators::compile(release, &document)?);
        compiled.insert(release, Arc::clone(&validators));
        Ok(validators)
    }

    /// Compiles `document` (a release's schema) for each kind of line.
    pub fn compile(release: Version, document: &Value) -> Result<Validators, SchemaError> {
        let failed = |error: boon::CompileError| SchemaError::Compile {
            release,
            message: error.to_string(),
        };
        // The document under a name of its own: its `$id` names the published file.
        let location = format!("urn:pi-rpc:schema:{release}");
        let mut compiler = boon::Compiler::new();
        compiler.set_default_draft(boon::Draft::V2020_12);
        compiler
            .add_resource(&location, document.clone())
            .map_err(failed)?;
        let mut schemas = boon::Schemas::new();
        let mut entry = |name: &str| {
            compiler
                .compile(&format!("{location}#/$defs/{name}"), &mut schemas)
                .map_err(failed)
        };
        use pi_rpc_protocol::schema::{INPUT_LINE, OUTPUT_RECORD, SESSION_FILE_LINE};
        let command = entry(INPUT_LINE)?;
        let record = entry(OUTPUT_RECORD)?;
        let session_file = entry(SESSION_FILE_LINE)?;
        Ok(Validators {
            release,
            schemas,
            command,
            record,
            session_file,
        })
    }

    /// How `value` departs from the schema of `kind` (empty when it follows it).
    pub fn check(&self, kind: LineKind, value: &Value) -> Vec<Violation> {
        let validator = match kind {
            LineKind::Command => &self.command,
            LineKind::Record => &self.record,
            LineKind::SessionFile => &self.session_file,
        };
        let mut violations = Vec::new();
        if let Err(error) = self.schemas.validate(value, *validator) {
            leaves(&error, &mut violations);
        }
        // The deepest first: a wrong field says more than the union that it made fail.
        violations.sort_by_key(|violation| std::cmp::Reverse(violation.path.matches('/').count()));
        violations.dedup();
        violations.truncate(MAX_PER_LINE);
        violations
    }

    /// Checks JSONL text: for each line that fails, its number (1-based) and what is wrong.
    /// `kind` `None` guesses each line's kind ([`LineKind::guess`]). Blank lines are skipped.
    pub fn check_jsonl(&self, text: &str, kind: Option<LineKind>) -> Vec<(usize, Vec<Violation>)> {
        let mut failures = Vec::new();
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let violations = match serde_json::from_str::<Value>(line) {
                Ok(value) => {
                    let kind = kind.unwrap_or_else(|| LineKind::guess(&value));
                    self.check(kind, &value)
                }
                Err(error) => vec![Violation {
                    path: String::new(),
                    reason: format!("not JSON: {error}"),
                }],
            };
            if !violations.is_empty() {
                failures.push((index + 1, violations));
            }
        }
        failures
    }
}

/// The innermost failures of `error` (a failed `allOf`, `if`/`then` or `$ref` holds why).
fn leaves(error: &boon::ValidationError<'_, '_>, out: &mut Vec<Violation>) {
    if error.causes.is_empty() {
        out.push(Violation {
            path: error.instance_location.to_string(),
            reason: error.kind.to_string(),
        });
    }
    for cause in &error.causes {
        leaves(cause, out);
    }
}
