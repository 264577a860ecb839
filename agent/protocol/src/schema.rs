//! The protocol as one JSON Schema document (draft 2020-12), generated from the wire types
//! (feature `schema`).
//!
//! The document's `$defs` hold every wire type under its Rust name, each with a `$anchor` of the
//! same name, and four entry points:
//!
//! - `InputLine`: a line a client writes (a command, or an answer to an extension UI dialog);
//! - `OutputRecord`: a line the agent writes (a response, an event, an extension UI request);
//! - `SessionFileLine`: a line of a session file (the header or an entry, version 3);
//! - `Response`, split per command (`GetStateResponse`, ...) for successes, `ErrorResponse`.
//!
//! Unions tagged by a field (`type`, `role`, `method`) are written as a list of the tag's values
//! and one `if`/`then` per value rather than a `oneOf`, so that a validator reports the failing
//! field of the variant the record names instead of "no variant matched".

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::command::{Command, ExtensionUiResponse, Request};
use crate::event::Event;
use crate::extension_ui::ExtensionUiRequest;
use crate::response::{
    AvailableModels, AvailableThinkingLevels, BashResult, CancelledResult, ClearQueueResult,
    CommandsResult, CompactionResult, CycleModelResult, EntriesResult, ExportHtmlResult,
    ForkMessages, ForkResult, InputAccepted, LastAssistantText, MessagesResult, SessionState,
    SessionStats, ThinkingLevelResult, TreeResult,
};
use crate::session::{SessionEntry, SessionHeader};

/// The draft the document follows.
pub const DRAFT: &str = "https://json-schema.org/draft/2020-12/schema";

/// The entry point for lines a client writes.
pub const INPUT_LINE: &str = "InputLine";
/// The entry point for lines the agent writes.
pub const OUTPUT_RECORD: &str = "OutputRecord";
/// The entry point for lines of a session file.
pub const SESSION_FILE_LINE: &str = "SessionFileLine";

/// A dropped assistant message recorded in the session (`type: "context_edit"`, from pi
/// 0.87.0): pi-agent writes it as raw JSON, so it is modelled here for the schema only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContextEditEntry {
    /// 8 hex digits, unique within the session.
    pub id: String,
    /// The previous entry on this branch.
    #[schemars(required, schema_with = "nullable::<String>")]
    pub parent_id: Option<String>,
    /// ISO 8601 time.
    pub timestamp: String,
    /// The entry taken out of the model's context.
    pub target_id: String,
    /// What replaces it; `null` drops it.
    #[schemars(required, schema_with = "nullable::<Value>")]
    pub replacement: Option<Value>,
}

/// The schema of a field that is always written, `null` when there is no value (for
/// `#[schemars(required, schema_with = ...)]`).
pub fn nullable<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<Option<T>>()
}

/// What a command's success response carries in `data`.
enum Data {
    /// No `data` key.
    Absent,
    /// `data` holds the schema.
    Required(Schema),
    /// `data` holds the schema or `null`.
    Nullable(Schema),
    /// `data` may be absent; when present it holds the schema.
    Optional(Schema),
}

/// The `data` of a command's success, `None` for a type this table does not know.
fn data_of(kind: &str, generator: &mut SchemaGenerator) -> Option<Data> {
    let data = match kind {
        "prompt" | "steer" | "follow_up" => {
            Data::Optional(generator.subschema_for::<InputAccepted>())
        }
        "abort"
        | "set_thinking_level"
        | "set_steering_mode"
        | "set_follow_up_mode"
        | "set_auto_compaction"
        | "set_auto_retry"
        | "abort_retry"
        | "abort_bash"
        | "set_session_name" => Data::Absent,
        "new_session" | "switch_session" | "clone" => {
            Data::Required(generator.subschema_for::<CancelledResult>())
        }
        "get_state" => Data::Required(generator.subschema_for::<SessionState>()),
        "get_messages" => Data::Required(generator.subschema_for::<MessagesResult>()),
        "set_model" => Data::Required(generator.subschema_for::<crate::model::Model>()),
        "cycle_model" => Data::Nullable(generator.subschema_for::<CycleModelResult>()),
        "get_available_models" => Data::Required(generator.subschema_for::<AvailableModels>()),
        "cycle_thinking_level" => Data::Nullable(generator.subschema_for::<ThinkingLevelResult>()),
        "get_available_thinking_levels" => {
            Data::Required(generator.subschema_for::<AvailableThinkingLevels>())
        }
        "compact" => Data::Required(generator.subschema_for::<CompactionResult>()),
        "bash" => Data::Required(generator.subschema_for::<BashResult>()),
        "get_session_stats" => Data::Required(generator.subschema_for::<SessionStats>()),
        "export_html" => Data::Required(generator.subschema_for::<ExportHtmlResult>()),
        "fork" => Data::Required(generator.subschema_for::<ForkResult>()),
        "get_fork_messages" => Data::Required(generator.subschema_for::<ForkMessages>()),
        "get_entries" => Data::Required(generator.subschema_for::<EntriesResult>()),
        "get_tree" => Data::Required(generator.subschema_for::<TreeResult>()),
        "get_last_assistant_text" => Data::Required(generator.subschema_for::<LastAssistantText>()),
        "get_commands" => Data::Required(generator.subschema_for::<CommandsResult>()),
        "clear_queue" => Data::Required(generator.subschema_for::<ClearQueueResult>()),
        _ => return None,
    };
    Some(data)
}

/// The name of a command's success response in `$defs`: `get_state` gives `GetStateResponse`.
pub fn response_def(kind: &str) -> String {
    let mut name: String = kind
        .split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect();
    name.push_str("Response");
    name
}

/// A reference to a definition of the document.
pub fn def_ref(name: &str) -> Value {
    json!({"$ref": format!("#/$defs/{name}")})
}

/// The whole protocol as one schema document with the given `$id`.
pub fn document(id: &str) -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    generator.subschema_for::<Request>();
    generator.subschema_for::<ExtensionUiResponse>();
    generator.subschema_for::<Event>();
    generator.subschema_for::<ExtensionUiRequest>();
    generator.subschema_for::<SessionHeader>();
    generator.subschema_for::<SessionEntry>();
    generator.subschema_for::<ContextEditEntry>();
    let responses: Vec<(&str, Data)> = Command::TYPES
        .iter()
        .map(|kind| (*kind, data_of(kind, &mut generator).unwrap_or(Data::Absent)))
        .collect();
    let mut defs = generator.take_definitions(true);
    add_context_edit(&mut defs);
    add_responses(&mut defs, responses);
    add_entry_points(&mut defs);
    let mut defs = Value::Object(defs);
    dispatch_tagged_unions(&mut defs);
    collapse_string_enums(&mut defs);
    if let Value::Object(defs) = &mut defs {
        for (name, def) in defs.iter_mut() {
            if let Value::Object(def) = def {
                def.insert("$anchor".into(), Value::String(name.clone()));
            }
        }
    }
    json!({
        "$schema": DRAFT,
        "$id": id,
        "title": "RPC protocol of the pi coding agent",
        "description": "Lines a client writes (InputLine), lines the agent writes \
            (OutputRecord) and lines of a session file (SessionFileLine), one JSON value a line.",
        "anyOf": [def_ref(INPUT_LINE), def_ref(OUTPUT_RECORD), def_ref(SESSION_FILE_LINE)],
        "$defs": defs,
    })
}

/// Makes `context_edit` one of the session entries.
fn add_context_edit(defs: &mut Map<String, Value>) {
    if let Some(Value::Array(branches)) = defs
        .get_mut("SessionEntry")
        .and_then(|entry| entry.get_mut("oneOf"))
    {
        branches.push(json!({
            "$ref": "#/$defs/ContextEditEntry",
            "type": "object",
            "properties": {"type": {"type": "string", "const": "context_edit"}},
            "required": ["type"],
            "description": "`context_edit` (from pi 0.87.0)",
        }));
    }
}

/// Replaces the generic `Response` by one definition per command's success and one for errors.
fn add_responses(defs: &mut Map<String, Value>, responses: Vec<(&str, Data)>) {
    let mut conditions = Vec::new();
    for (kind, data) in responses {
        let (data, required) = match data {
            Data::Absent => (Value::Bool(false), false),
            Data::Required(schema) => (schema.to_value(), true),
            Data::Nullable(schema) => (
                json!({"anyOf": [schema.to_value(), {"type": "null"}]}),
                true,
            ),
            Data::Optional(schema) => (schema.to_value(), false),
        };
        let required = if required { json!(["data"]) } else { json!([]) };
        let name = response_def(kind);
        defs.insert(
            name.clone(),
            json!({
                "description": format!("The success response to `{kind}`."),
                "type": "object",
                "properties": {"data": data},
                "required": required,
            }),
        );
        conditions.push(json!({
            "if": {"properties": {"command": {"const": kind}}, "required": ["command"]},
            "then": def_ref(&name),
        }));
    }
    defs.insert(
        "SuccessResponse".into(),
        json!({
            "description": "A command's success: `data` as the command gives it.",
            "type": "object",
            "properties": {"command": {"enum": Command::TYPES.to_vec()}},
            "required": ["command"],
            "allOf": conditions,
        }),
    );
    defs.insert(
        "ErrorResponse".into(),
        json!({
            "description": "A command's failure, or the answer to a line that is no command \
                (`command` is `parse` for a line that is not JSON, absent for one that is no \
                object or has no `type`, the type given for an unknown command).",
            "type": "object",
            "properties": {
                "command": {"description": "The command's `type` as given: any JSON value."},
                "error": {"type": "string"},
            },
            "required": ["error"],
        }),
    );
    defs.insert(
        "Response".into(),
        json!({
            "description": "Exactly one per command: `{id, type, command, success, data|error}`.",
            "type": "object",
            "properties": {
                "id": {"$ref": "#/$defs/RequestId", "description": "The command's id, as given."},
                "type": {"const": "response"},
                "command": {"description": "The command's type."},
                "success": {"type": "boolean"},
            },
            "required": ["type", "success"],
            "if": {"properties": {"success": {"const": false}}},
            "then": def_ref("ErrorResponse"),
            "else": def_ref("SuccessResponse"),
        }),
    );
}

/// The three kinds of lines.
fn add_entry_points(defs: &mut Map<String, Value>) {
    if let Some(Value::Object(answer)) = defs.get_mut("ExtensionUiResponse") {
        if let Some(Value::Object(properties)) = answer.get_mut("properties") {
            properties.insert("type".into(), json!({"const": "extension_ui_response"}));
        }
        if let Some(Value::Array(required)) = answer.get_mut("required") {
            required.push(json!("type"));
        }
    }
    let is = |kind: &str| json!({"properties": {"type": {"const": kind}}, "required": ["type"]});
    defs.insert(
        INPUT_LINE.into(),
        json!({
            "description": "A line a client writes on the agent's stdin.",
            "type": "object",
            "if": is("extension_ui_response"),
            "then": def_ref("ExtensionUiResponse"),
            "else": def_ref("Request"),
        }),
    );
    defs.insert(
        OUTPUT_RECORD.into(),
        json!({
            "description": "A line the agent writes on its stdout (in `--mode json`, the session \
                header comes first).",
            "type": "object",
            "required": ["type"],
            "if": is("response"),
            "then": def_ref("Response"),
            "else": {
                "if": is("extension_ui_request"),
                "then": def_ref("ExtensionUiRequest"),
                "else": {
                    "if": is("session"),
                    "then": def_ref("SessionHeader"),
                    "else": def_ref("Event"),
                },
            },
        }),
    );
    defs.insert(
        SESSION_FILE_LINE.into(),
        json!({
            "description": "A line of a session file (version 3): the header, then entries.",
            "type": "object",
            "if": is("session"),
            "then": def_ref("SessionHeader"),
            "else": def_ref("SessionEntry"),
        }),
    );
}

/// The field and value a branch of a tagged union is tagged with.
fn branch_tag(branch: &Value) -> Option<(&str, &Value)> {
    let required = branch.get("required")?.as_array()?;
    branch
        .get("properties")?
        .as_object()?
        .iter()
        .find_map(|(key, property)| {
            let value = property.get("const")?;
            required
                .contains(&Value::String(key.clone()))
                .then_some((key.as_str(), value))
        })
}

/// Rewrites every `oneOf` whose branches share a tag field into the tag's values and one
/// `if`/`then` per value.
pub fn dispatch_tagged_unions(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(dispatch_tagged_unions),
        Value::Object(object) => {
            object.values_mut().for_each(dispatch_tagged_unions);
            let Some(Value::Array(branches)) = object.get("oneOf") else {
                return;
            };
            let tags: Option<Vec<(String, Value)>> = branches
                .iter()
                .map(|branch| {
                    branch_tag(branch).map(|(key, value)| (key.to_owned(), value.clone()))
                })
                .collect();
            let Some(tags) = tags else { return };
            let Some((tag, _)) = tags.first().cloned() else {
                return;
            };
            if tags.iter().any(|(key, _)| *key != tag) {
                return;
            }
            let Some(Value::Array(branches)) = object.remove("oneOf") else {
                return;
            };
            let values: Vec<Value> = tags.into_iter().map(|(_, value)| value).collect();
            let conditions = branches.into_iter().zip(&values).map(|(branch, value)| {
                json!({
                    "if": {"properties": {tag.as_str(): {"const": value}}, "required": [tag]},
                    "then": branch,
                })
            });
            let all_of = object
                .entry("allOf")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(all_of) = all_of {
                all_of.extend(conditions);
            }
            let properties = object
                .entry("properties")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(properties) = properties {
                properties.insert(tag.clone(), json!({"enum": values}));
            }
            let required = object
                .entry("required")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(required) = required
                && !required.contains(&Value::String(tag.clone()))
            {
                required.push(Value::String(tag));
            }
            object
                .entry("type")
                .or_insert_with(|| Value::String("object".into()));
        }
        _ => {}
    }
}

/// Rewrites a `oneOf` of string constants into one `enum`, each value's description kept in
/// the enum's.
fn collapse_string_enums(value: &mut Value) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(collapse_string_enums),
        Value::Object(object) => {
            object.values_mut().for_each(collapse_string_enums);
            let Some(Value::Array(branches)) = object.get("oneOf") else {
                return;
            };
            let constants: Option<Vec<(Value, Option<String>)>> = branches
                .iter()
                .map(|branch| {
                    let constant = branch.get("const").filter(|value| value.is_string())?;
                    let description = branch.get("description").and_then(Value::as_str);
                    Some((constant.clone(), description.map(str::to_owned)))
                })
                .collect();
            let Some(constants) = constants else { return };
            let mut description = object
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_default();
            for (constant, about) in &constants {
                if let (Some(text), Some(about)) = (constant.as_str(), about) {
                    description.push_str(&format!("\n- `{text}`: {about}"));
                }
            }
            object.remove("oneOf");
            object.insert("type".into(), json!("string"));
            let values: Vec<Value> = constants.into_iter().map(|(value, _)| value).collect();
            object.insert("enum".into(), Value::Array(values));
            object.insert("description".into(), Value::String(description));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_its_success_data() {
        let mut generator = SchemaSettings::draft2020_12().into_generator();
        for kind in Command::TYPES {
            assert!(data_of(kind, &mut generator).is_some(), "{kind}");
        }
        assert!(data_of("no_such_command", &mut generator).is_none());
    }

    #[test]
    fn response_names_are_camel_case() {
        assert_eq!(response_def("get_state"), "GetStateResponse");
        assert_eq!(response_def("bash"), "BashResponse");
    }

    #[test]
    fn tagged_unions_become_conditionals() {
        let mut union = json!({"oneOf": [
            {"properties": {"type": {"const": "a"}, "x": {}}, "required": ["type", "x"]},
            {"properties": {"type": {"const": "b"}}, "required": ["type"]},
        ]});
        dispatch_tagged_unions(&mut union);
        assert_eq!(union["properties"]["type"]["enum"], json!(["a", "b"]));
        assert_eq!(union["allOf"][0]["if"]["properties"]["type"]["const"], "a");
        assert_eq!(union["allOf"][1]["then"]["required"], json!(["type"]));
        assert!(union.get("oneOf").is_none());
        let mut untagged = json!({"oneOf": [{"type": "string"}, {"type": "array"}]});
        let before = untagged.clone();
        dispatch_tagged_unions(&mut untagged);
        assert_eq!(untagged, before);
    }

    #[test]
    fn document_has_the_entry_points_and_no_tagged_one_of() {
        let document = document("urn:test");
        let defs = &document["$defs"];
        for name in [
            INPUT_LINE,
            OUTPUT_RECORD,
            SESSION_FILE_LINE,
            "GetStateResponse",
        ] {
            assert_eq!(defs[name]["$anchor"], name);
        }
        assert_eq!(
            defs["Event"]["properties"]["type"]["enum"]
                .as_array()
                .map(Vec::len),
            Some(Event::TYPES.len())
        );
        assert_eq!(defs["ThinkingLevel"]["enum"][0], "off");
        let entry_types = &defs["SessionEntry"]["properties"]["type"]["enum"];
        assert!(
            entry_types
                .as_array()
                .is_some_and(|types| types.contains(&json!("context_edit")))
        );
    }
}
