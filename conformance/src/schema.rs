//! The protocol's JSON Schema for each known release: the wire types' document
//! ([`pi_rpc_protocol::schema`]) with what the registry says each release added
//! (`conformance/releases.yaml`): left out before the change's release, marked `x-since` from it.
//!
//! `schema/` at the top of the repository holds one file per release
//! ([`file_name`]); `pi-conformance schema` writes them and `tests/schema.rs` fails when they
//! are stale.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::release::{Registry, RegistryError, Version};

pub mod cli;
pub mod validate;

pub use validate::{LineKind, Validators, Violation};

/// Where the files are published: the `$id` of a release's document is this, its file name
/// after.
pub const ID_BASE: &str =
    "https://raw.githubusercontent.com/pi-rpc-conformance/pi-rpc/main/schema/";

/// Why a schema cannot be made, written or compiled.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// The registry could not be read.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// A release the registry does not know.
    #[error("release {0} is not in conformance/releases.yaml")]
    UnknownRelease(Version),
    /// A change of [`ADDITIONS`] the registry does not know.
    #[error("the schema names change `{0}`, which conformance/releases.yaml does not list")]
    UnknownChange(&'static str),
    /// A place of [`ADDITIONS`] the document does not have.
    #[error("change `{change}`: the schema has no {place}")]
    MissingPlace {
        /// The change.
        change: &'static str,
        /// What was looked for.
        place: String,
    },
    /// A file could not be written or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The document is no valid schema.
    #[error("the schema of {release} does not compile: {message}")]
    Compile {
        /// The release.
        release: Version,
        /// What the validator said.
        message: String,
    },
}

/// Where in the document a change added something.
#[derive(Debug, Clone, Copy)]
pub enum Place {
    /// A property of a definition.
    Property(&'static str, &'static str),
    /// A variant of a tagged union: the definition, the tag's value.
    Variant(&'static str, &'static str),
    /// A property a definition forbade before the change (a success's `data`).
    Allowed(&'static str, &'static str),
    /// A property a change made required: the reference writes it always from the change's
    /// release (the definition and the property; before the release nothing changes).
    Required(&'static str, &'static str),
    /// A property the wire types keep among a message's open fields, given its schema (JSON
    /// text) here: the place is a path below `$defs` (`ToolExecutionEndEvent/properties/result`),
    /// the property's name, its schema. Before the change the place stays as it is (open).
    Added(&'static str, &'static str, &'static str),
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Property(def, name) | Place::Allowed(def, name) => {
                write!(f, "property `{name}` in `{def}`")
            }
            Place::Variant(def, value) => write!(f, "variant `{value}` in `{def}`"),
            Place::Added(path, name, _) => write!(f, "place for `{name}` at `{path}`"),
            Place::Required(def, name) => write!(f, "required `{name}` in `{def}`"),
        }
    }
}

/// What each change of the registry added to the wire types, by change id.
pub const ADDITIONS: &[(&str, &[Place])] = &[
    (
        "message-update-usage",
        &[
            Place::Property("MessageUpdateEvent", "usage"),
            Place::Required("MessageUpdateEvent", "usage"),
        ],
    ),
    (
        "toolcall-start-identity",
        &[
            Place::Property("ToolcallStart", "id"),
            Place::Property("ToolcallStart", "toolName"),
            Place::Required("ToolcallStart", "id"),
            Place::Required("ToolcallStart", "toolName"),
        ],
    ),
    (
        "clear-queue",
        &[
            Place::Variant("Request", "clear_queue"),
            Place::Variant("SuccessResponse", "clear_queue"),
        ],
    ),
    (
        "system-message",
        &[Place::Variant("AgentMessage", "system")],
    ),
    (
        "context-edit",
        &[Place::Variant("SessionEntry", "context_edit")],
    ),
    (
        "prompt-disposition",
        &[
            Place::Allowed("PromptResponse", "data"),
            Place::Allowed("SteerResponse", "data"),
            Place::Allowed("FollowUpResponse", "data"),
            Place::Required("PromptResponse", "data"),
            Place::Required("SteerResponse", "data"),
            Place::Required("FollowUpResponse", "data"),
        ],
    ),
    (
        "assistant-thinking-level",
        &[Place::Added(
            "AssistantMessage",
            "thinkingLevel",
            r##"{"$ref": "#/$defs/ThinkingLevel", "description": "The thinking level the agent asked for (absent in messages of sessions written before)."}"##,
        )],
    ),
    (
        "bash-structured-result",
        &[Place::Added(
            "ToolExecutionEndEvent/properties/result",
            "structuredContent",
            r#"{"description": "The tool's machine-readable result (`bash`: `output`, `truncated`, `exit_code`, `wall_time_seconds`; `read` from 1.3.0: the text read); not sent to the model."}"#,
        )],
    ),
    (
        "durations",
        &[
            Place::Property("ToolExecutionEndEvent", "durationMs"),
            Place::Property("ToolResultMessage", "durationMs"),
            Place::Added(
                "AssistantMessage",
                "durationMs",
                r#"{"type": "integer", "minimum": 0, "description": "How long the model call took, in milliseconds (absent in messages of sessions written before)."}"#,
            ),
        ],
    ),
    (
        "settled-aborted",
        &[
            Place::Property("AgentSettledEvent", "aborted"),
            Place::Required("AgentSettledEvent", "aborted"),
        ],
    ),
    (
        "cost-total-from-provider",
        &[Place::Property("UsageCost", "totalFromProvider")],
    ),
];

/// The file of a release's schema in `schema/`.
pub fn file_name(release: Version) -> String {
    format!("pi-rpc-{release}.schema.json")
}

/// The `$id` of a release's schema.
pub fn schema_id(release: Version) -> String {
    format!("{ID_BASE}{}", file_name(release))
}

/// The schema of `release`.
pub fn document(release: Version, registry: &Registry) -> Result<Value, SchemaError> {
    if !registry.versions().contains(&release) {
        return Err(SchemaError::UnknownRelease(release));
    }
    let mut document = pi_rpc_protocol::schema::document(&schema_id(release));
    document["title"] = json!(format!("RPC protocol of the pi coding agent {release}"));
    for (change, places) in ADDITIONS {
        let since = registry
            .change(change)
            .ok_or(SchemaError::UnknownChange(change))?
            .since;
        for place in *places {
            apply(&mut document["$defs"], *place, since, release).ok_or_else(|| {
                SchemaError::MissingPlace {
                    change,
                    place: place.to_string(),
                }
            })?;
        }
    }
    Ok(document)
}

/// Leaves `place` out of the document when `release` is before `since`, marks it otherwise;
/// `None` when the document has no such place.
fn apply(defs: &mut Value, place: Place, since: Version, release: Version) -> Option<()> {
    let present = release >= since;
    let note = json!(since.to_string());
    match place {
        Place::Property(def, name) => {
            let def = defs.get_mut(def)?;
            let properties = def.get_mut("properties")?.as_object_mut()?;
            if present {
                properties
                    .get_mut(name)?
                    .as_object_mut()?
                    .insert("x-since".into(), note);
            } else {
                properties.remove(name)?;
                if let Some(required) = def.get_mut("required").and_then(Value::as_array_mut) {
                    required.retain(|key| key != name);
                }
            }
        }
        Place::Allowed(def, name) => {
            let property = defs.get_mut(def)?.get_mut("properties")?.get_mut(name)?;
            if present {
                property.as_object_mut()?.insert("x-since".into(), note);
            } else {
                *property = Value::Bool(false);
            }
        }
        Place::Required(def, name) => {
            let def = defs.get_mut(def)?.as_object_mut()?;
            if present {
                def.get("properties")?.get(name)?;
                let required = def.entry("required").or_insert_with(|| json!([]));
                let required = required.as_array_mut()?;
                if !required.iter().any(|key| key == name) {
                    required.push(json!(name));
                }
            }
        }
        Place::Added(path, name, schema) => {
            let at = defs.pointer_mut(&format!("/{path}"))?.as_object_mut()?;
            if present {
                let mut schema: Value = serde_json::from_str(schema).ok()?;
                schema.as_object_mut()?.insert("x-since".into(), note);
                let properties = at.entry("properties").or_insert_with(|| json!({}));
                properties.as_object_mut()?.insert(name.into(), schema);
            }
        }
        Place::Variant(def, value) => {
            let def = defs.get_mut(def)?.as_object_mut()?;
            let (tag, values) = def
                .get_mut("properties")?
                .as_object_mut()?
                .iter_mut()
                .find_map(|(tag, property)| {
                    let values = property.get_mut("enum")?.as_array_mut()?;
                    Some((tag.clone(), values))
                })?;
            let position = values.iter().position(|known| known == value)?;
            let conditions = def.get_mut("allOf")?.as_array_mut()?;
            let is_variant =
                |condition: &Value| condition["if"]["properties"][&tag]["const"] == value;
            if present {
                let condition = conditions.iter_mut().find(|c| is_variant(c))?;
                condition
                    .get_mut("then")?
                    .as_object_mut()?
                    .insert("x-since".into(), note);
            } else {
                conditions.retain(|condition| !is_variant(condition));
                if let Some(values) = def
                    .get_mut("properties")
                    .and_then(|properties| properties.get_mut(&tag))
                    .and_then(|property| property.get_mut("enum"))
                    .and_then(Value::as_array_mut)
                {
                    values.remove(position);
                }
            }
        }
    }
    Some(())
}

/// The document as written to its file: pretty, with a final line break.
pub fn render(document: &Value) -> String {
    let mut text = serde_json::to_string_pretty(document).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes the schema of each of `releases` into `dir`: the files written.
pub fn write_all(
    dir: &Path,
    releases: &[Version],
    registry: &Registry,
) -> Result<Vec<PathBuf>, SchemaError> {
    std::fs::create_dir_all(dir).map_err(|source| SchemaError::Io {
        path: dir.to_owned(),
        source,
    })?;
    let mut written = Vec::new();
    for release in releases {
        let path = dir.join(file_name(*release));
        let text = render(&document(*release, registry)?);
        std::fs::write(&path, text).map_err(|source| SchemaError::Io {
            path: path.clone(),
            source,
        })?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry() -> &'static Registry {
        crate::release::registry().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn additions_are_left_out_before_their_release_and_marked_from_it() {
        let first = document(Version(0, 84, 1), registry()).unwrap_or_else(|e| panic!("{e}"));
        let newest = document(registry().newest(), registry()).unwrap_or_else(|e| panic!("{e}"));
        let usage = "/$defs/MessageUpdateEvent/properties/usage";
        assert!(first.pointer(usage).is_none());
        assert_eq!(
            newest.pointer(&format!("{usage}/x-since")),
            Some(&json!("0.84.2"))
        );
        let commands = "/$defs/Request/properties/type/enum";
        let has = |doc: &Value| {
            doc.pointer(commands)
                .and_then(Value::as_array)
                .map(|v| v.contains(&json!("clear_queue")))
        };
        assert_eq!(has(&first), Some(false));
        assert_eq!(has(&newest), Some(true));
        assert_eq!(
            first.pointer("/$defs/PromptResponse/properties/data"),
            Some(&json!(false))
        );
        assert_eq!(first["$id"], json!(schema_id(Version(0, 84, 1))));
        let assistant = "/$defs/AssistantMessage/properties";
        assert!(
            first
                .pointer(&format!("{assistant}/thinkingLevel"))
                .is_none()
        );
        assert_eq!(
            newest.pointer(&format!("{assistant}/thinkingLevel/x-since")),
            Some(&json!("0.99.1"))
        );
        assert_eq!(
            newest.pointer(&format!("{assistant}/durationMs/x-since")),
            Some(&json!("1.3.0"))
        );
        let structured = "/$defs/ToolExecutionEndEvent/properties/result/properties";
        assert!(first.pointer(structured).is_none());
        assert_eq!(
            newest.pointer(&format!("{structured}/structuredContent/x-since")),
            Some(&json!("0.99.1"))
        );
    }

    #[test]
    fn an_unknown_release_has_no_schema() {
        assert!(matches!(
            document(Version(0, 1, 0), registry()),
            Err(SchemaError::UnknownRelease(_))
        ));
    }
}
