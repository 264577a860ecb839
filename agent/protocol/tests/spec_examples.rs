//! Golden test over every JSON example of the reference's own spec, docs/rpc.md (read from the
//! installed reference, not copied into this repository). Each literal example must parse into
//! this crate's types and serialise back to the same bytes (compacted as `JSON.stringify`
//! would). The examples where the spec and the reference's observed output disagree are listed
//! in `DIVERGENCES`, with the reason; the types follow the reference.
//!
//! Without an installed reference the test says so and passes, unless `PI_REQUIRE_REFERENCE` is
//! set (CI sets it to 1), in which case it fails.

use std::path::PathBuf;

use pi_rpc_protocol::message::AgentMessage;
use pi_rpc_protocol::model::Model;
use pi_rpc_protocol::{Event, ExtensionUiRequest, Incoming, Response, json, parse_line};
use serde_json::Value;

/// Examples (by a distinctive fragment of their compact JSON) whose round trip differs, and why.
const DIVERGENCES: &[(&str, &str)] = &[
    (
        r#""id":"claude-sonnet-4-20250514","name":"Claude Sonnet 4""#,
        "Model: the reference writes `cost` before `contextWindow` and `maxTokens` (observed in \
         get_state, set_model, get_available_models); the spec lists it last",
    ),
    (
        r#""name":"session-name","description":"Set or clear session name","source":"extension","path""#,
        "get_commands: the reference reports `sourceInfo` {path, source, scope, origin}, not \
         `location`/`path` as the spec shows",
    ),
    (
        r#""role":"bashExecution","command":"ls -la","output":"total 48\ndrwxr-xr-x ...","exitCode":0,"cancelled":false,"truncated":false,"fullOutputPath":null"#,
        "BashExecutionMessage: the reference omits `fullOutputPath` when there is none (JSON.stringify \
         drops undefined); the spec writes null",
    ),
    (
        r#""role":"assistant","content":[{"type":"text","text":"Hello! How can I help?"}"#,
        "AssistantMessage: the example's usage has no `totalTokens`, which every reference usage \
         object carries",
    ),
];

/// The reference's spec, docs/rpc.md, in the install `$PI_REFERENCE` (or the default launcher)
/// belongs to.
fn reference_docs() -> Option<PathBuf> {
    let launcher = pi_reference::launcher_path()?;
    let docs = pi_reference::package_dir(&launcher, "pi-coding-agent")?.join("docs/rpc.md");
    docs.is_file().then_some(docs)
}

/// The JSON code blocks of a Markdown document, each split into its JSON texts: the whole block
/// when it parses as one value, else each line.
fn json_examples(markdown: &str) -> Vec<String> {
    let mut examples = Vec::new();
    let mut block: Option<String> = None;
    for line in markdown.lines() {
        match (&mut block, line.trim_start()) {
            (None, fence) if fence.starts_with("```json") => block = Some(String::new()),
            (Some(text), "```") => {
                if serde_json::from_str::<Value>(text).is_ok() {
                    examples.push(text.clone());
                } else {
                    examples.extend(
                        text.lines()
                            .filter(|l| !l.trim().is_empty())
                            .map(str::to_owned),
                    );
                }
                block = None;
            }
            (Some(text), _) => {
                text.push_str(line);
                text.push('\n');
            }
            (None, _) => {}
        }
    }
    examples
}

/// Passes a response's `data` through the typed payload of its command, so that the payload's
/// shape is checked too.
fn retype_data(command: &str, data: Value) -> serde_json::Result<Value> {
    use pi_rpc_protocol::response::*;
    fn through<T: serde::de::DeserializeOwned + serde::Serialize>(
        data: Value,
    ) -> serde_json::Result<Value> {
        serde_json::to_value(serde_json::from_value::<T>(data)?)
    }
    match command {
        "get_state" => through::<SessionState>(data),
        "set_model" => through::<Model>(data),
        "cycle_model" if data.is_null() => Ok(data),
        "cycle_model" => through::<CycleModelResult>(data),
        "get_available_models" => through::<AvailableModels>(data),
        "cycle_thinking_level" if data.is_null() => Ok(data),
        "cycle_thinking_level" => through::<ThinkingLevelResult>(data),
        "get_available_thinking_levels" => through::<AvailableThinkingLevels>(data),
        "new_session" | "switch_session" | "clone" => through::<CancelledResult>(data),
        "fork" => through::<ForkResult>(data),
        "compact" => through::<CompactionResult>(data),
        "bash" => through::<BashResult>(data),
        "get_session_stats" => through::<SessionStats>(data),
        "export_html" => through::<ExportHtmlResult>(data),
        "get_fork_messages" => through::<ForkMessages>(data),
        "get_entries" => through::<EntriesResult>(data),
        "get_tree" => through::<TreeResult>(data),
        "get_last_assistant_text" => through::<LastAssistantText>(data),
        "get_messages" => through::<MessagesResult>(data),
        "get_commands" => through::<CommandsResult>(data),
        _ => Ok(data),
    }
}

fn reserialise(value: &Value, text: &str) -> Result<String, String> {
    let kind = value
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let fail = |error: &dyn std::fmt::Display| format!("does not parse: {error}");
    let written = match kind {
        "response" => {
            let mut response: Response =
                serde_json::from_value(value.clone()).map_err(|e| fail(&e))?;
            if let (Some(command), Some(data)) = (response.command.clone(), response.data.take()) {
                response.data = Some(retype_data(&command, data).map_err(|e| fail(&e))?);
            }
            json::to_string(&response)
        }
        "extension_ui_request" => json::to_string(
            &serde_json::from_value::<ExtensionUiRequest>(value.clone()).map_err(|e| fail(&e))?,
        ),
        "extension_ui_response" => match parse_line(text).map_err(|e| fail(&e))? {
            Incoming::ExtensionUiResponse(response) => {
                let mut object = serde_json::to_value(&response).map_err(|e| fail(&e))?;
                // The type tag is the line's, not the struct's; put it first as clients write it.
                let mut tagged = serde_json::Map::new();
                tagged.insert("type".into(), "extension_ui_response".into());
                tagged.extend(
                    object
                        .as_object_mut()
                        .map(std::mem::take)
                        .unwrap_or_default(),
                );
                json::to_string(&tagged)
            }
            Incoming::Request(_) => return Err("parsed as a command".into()),
        },
        kind if pi_rpc_protocol::Command::TYPES.contains(&kind) => {
            match parse_line(text).map_err(|e| fail(&e))? {
                Incoming::Request(request) => json::to_string(&request),
                Incoming::ExtensionUiResponse(_) => {
                    return Err("parsed as an extension UI response".into());
                }
            }
        }
        kind if Event::TYPES.contains(&kind) => {
            json::to_string(&serde_json::from_value::<Event>(value.clone()).map_err(|e| fail(&e))?)
        }
        _ if value.get("role").is_some() => json::to_string(
            &serde_json::from_value::<AgentMessage>(value.clone()).map_err(|e| fail(&e))?,
        ),
        _ if value.get("contextWindow").is_some() => {
            json::to_string(&serde_json::from_value::<Model>(value.clone()).map_err(|e| fail(&e))?)
        }
        _ => return Err("not a record this crate models".into()),
    };
    written.map_err(|error| error.to_string())
}

#[test]
fn every_literal_spec_example_round_trips_or_is_a_listed_divergence() {
    let Some(path) = pi_reference::or_skip(
        reference_docs(),
        "the reference's docs/rpc.md is not installed (run conformance/reference/install.sh)",
    ) else {
        return;
    };
    let markdown = std::fs::read_to_string(&path).unwrap();
    let mut literal = 0;
    let mut placeholders = 0;
    let mut unmodelled = Vec::new();
    let mut failures = Vec::new();
    let mut diverged = Vec::new();
    for text in json_examples(&markdown) {
        // Examples with `...`, `{...}` or `"...": "..."` stand for any content: not literal.
        let value = match serde_json::from_str::<Value>(&text) {
            Ok(value) if !text.contains("\"...\"") => value,
            _ => {
                placeholders += 1;
                continue;
            }
        };
        literal += 1;
        let compact = json::to_string(&value).unwrap();
        match reserialise(&value, &text) {
            Ok(written) if written == compact => {}
            Ok(written) => match DIVERGENCES
                .iter()
                .find(|(fragment, _)| compact.contains(fragment))
            {
                Some((fragment, _)) => diverged.push(*fragment),
                None => failures.push(format!("spec: {compact}\nours: {written}")),
            },
            Err(reason) if reason == "not a record this crate models" => unmodelled.push(compact),
            Err(reason) => match DIVERGENCES
                .iter()
                .find(|(fragment, _)| compact.contains(fragment))
            {
                Some((fragment, _)) => diverged.push(*fragment),
                None => failures.push(format!("spec: {compact}\n{reason}")),
            },
        }
    }
    eprintln!("diverging as listed: {diverged:#?}");
    eprintln!(
        "{literal} literal examples ({} diverge as listed), {placeholders} with placeholders, \
         {} not modelled",
        diverged.len(),
        unmodelled.len()
    );
    assert!(
        failures.is_empty(),
        "examples that do not round-trip:\n{}",
        failures.join("\n\n")
    );
    for (fragment, reason) in DIVERGENCES {
        assert!(
            diverged.contains(fragment),
            "stale divergence (now round-trips or gone): {reason}"
        );
    }
    assert!(
        literal >= 60,
        "only {literal} literal examples found in {}",
        path.display()
    );
    assert!(
        unmodelled.len() <= 1,
        "examples of unmodelled records: {unmodelled:#?}"
    );
}
