//! The coverage table: each item of the protocol (command, response outcome, event, streaming
//! delta kind, extension UI method and answer, provider wire format, mock quirk) and the
//! scenarios that exercise it, read from what the scenarios send and expect.
//!
//! The table is generated into `scenarios/COVERAGE.md`; `tests/coverage.rs` keeps the committed
//! file current, so an item without a scenario is visible in review.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use pi_rpc_protocol::{Command, Event};
use serde_json::Value;

use crate::load::Loaded;
use crate::scenario::{Expect, Step};

/// Kinds of `message_update.assistantMessageEvent`.
const DELTA_KINDS: [&str; 9] = [
    "text_start",
    "text_delta",
    "text_end",
    "thinking_start",
    "thinking_delta",
    "thinking_end",
    "toolcall_start",
    "toolcall_delta",
    "toolcall_end",
];

/// Commands without a failure path in the reference (beyond malformed input, which the
/// `errors` area covers).
const ALWAYS_SUCCEED: [&str; 15] = [
    "abort",
    "abort_bash",
    "abort_retry",
    "cycle_model",
    "cycle_thinking_level",
    "get_available_models",
    "get_available_thinking_levels",
    "get_commands",
    "get_fork_messages",
    "get_last_assistant_text",
    "get_messages",
    "get_session_stats",
    "get_state",
    "get_tree",
    "new_session",
];

/// Extension UI request methods.
const UI_METHODS: [&str; 9] = [
    "select",
    "confirm",
    "input",
    "editor",
    "notify",
    "setStatus",
    "setWidget",
    "setTitle",
    "set_editor_text",
];

/// Extension UI answers.
const UI_ANSWERS: [&str; 3] = ["value", "confirmed", "cancelled"];

/// Provider wire formats.
const APIS: [&str; 9] = [
    "anthropic-messages",
    "openai-completions",
    "openai-responses",
    "google-generative-ai",
    "bedrock-converse-stream",
    "google-vertex",
    "mistral-conversations",
    "azure-openai-responses",
    "openai-codex-responses",
];

/// The wire format of the built-in providers that have one of their own, for scenarios that
/// choose them with `--provider` rather than `setup.api`.
const PROVIDER_APIS: [(&str, &str); 6] = [
    ("amazon-bedrock", "bedrock-converse-stream"),
    ("cloudflare-workers-ai", "openai-completions"),
    ("google-vertex", "google-vertex"),
    ("mistral", "mistral-conversations"),
    ("azure-openai-responses", "azure-openai-responses"),
    ("openai-codex", "openai-codex-responses"),
];

/// Every option of the reference's `pi --help`, each spelling its own item.
const OPTIONS: [&str; 56] = [
    "--provider",
    "--model",
    "--api-key",
    "--system-prompt",
    "--append-system-prompt",
    "--mode",
    "--print",
    "-p",
    "--continue",
    "-c",
    "--resume",
    "-r",
    "--session",
    "--session-id",
    "--fork",
    "--session-dir",
    "--no-session",
    "--name",
    "-n",
    "--models",
    "--no-tools",
    "-nt",
    "--no-builtin-tools",
    "-nbt",
    "--tools",
    "-t",
    "--exclude-tools",
    "-xt",
    "--thinking",
    "--extension",
    "-e",
    "--no-extensions",
    "-ne",
    "--skill",
    "--no-skills",
    "-ns",
    "--prompt-template",
    "--no-prompt-templates",
    "-np",
    "--theme",
    "--no-themes",
    "--no-context-files",
    "-nc",
    "--export",
    "--list-models",
    "--verbose",
    "--tui-mode",
    "--approve",
    "-a",
    "--no-approve",
    "-na",
    "--offline",
    "--help",
    "-h",
    "--version",
    "-v",
];

/// What one scenario touches.
#[derive(Debug, Default)]
struct Touches {
    sent: BTreeSet<String>,
    succeeded: BTreeSet<String>,
    failed: BTreeSet<String>,
    events: BTreeSet<String>,
    deltas: BTreeSet<String>,
    ui_methods: BTreeSet<String>,
    ui_answers: BTreeSet<String>,
    api: String,
    quirks: BTreeSet<String>,
    options: BTreeSet<String>,
}

/// One section of the table: item -> scenario ids.
type Section = BTreeMap<String, BTreeSet<String>>;

/// Renders the coverage table of `scenarios` as Markdown.
pub fn render(scenarios: &[Loaded], quirk_names: &[&str]) -> String {
    let touches: Vec<(String, Touches)> = scenarios
        .iter()
        .map(|loaded| (loaded.scenario.id.clone(), touches_of(loaded)))
        .collect();
    let section = |items: &[&str], pick: &dyn Fn(&Touches, &str) -> bool| -> Section {
        items
            .iter()
            .map(|item| {
                let ids = touches
                    .iter()
                    .filter(|(_, t)| pick(t, item))
                    .map(|(id, _)| id.clone())
                    .collect();
                ((*item).to_owned(), ids)
            })
            .collect()
    };
    let commands: Vec<&str> = Command::TYPES.to_vec();
    let fallible: Vec<&str> = commands
        .iter()
        .copied()
        .filter(|command| !ALWAYS_SUCCEED.contains(command))
        .collect();
    let events: Vec<&str> = Event::TYPES.to_vec();
    let sections: Vec<(&str, Section)> = vec![
        (
            "Commands sent",
            section(&commands, &|t, item| t.sent.contains(item)),
        ),
        (
            "Commands answered `success: true`",
            section(&commands, &|t, item| t.succeeded.contains(item)),
        ),
        (
            "Commands answered `success: false` (commands that can fail: getters, aborts, \
             cycles and `new_session` always succeed in the reference)",
            section(&fallible, &|t, item| t.failed.contains(item)),
        ),
        (
            "Events",
            section(&events, &|t, item| t.events.contains(item)),
        ),
        (
            "`message_update` kinds",
            section(&DELTA_KINDS, &|t, item| t.deltas.contains(item)),
        ),
        (
            "Extension UI requests",
            section(&UI_METHODS, &|t, item| t.ui_methods.contains(item)),
        ),
        (
            "Extension UI answers",
            section(&UI_ANSWERS, &|t, item| t.ui_answers.contains(item)),
        ),
        (
            "Provider wire formats",
            section(&APIS, &|t, item| t.api == item),
        ),
        (
            "Mock quirk fixtures",
            section(quirk_names, &|t, item| t.quirks.contains(item)),
        ),
        (
            "Command-line options (given in `setup.args` or `setup.extra_args`)",
            section(&OPTIONS, &|t, item| t.options.contains(item)),
        ),
    ];
    let mut out = String::new();
    let _ = writeln!(out, "# Scenario coverage\n");
    let _ = writeln!(
        out,
        "Generated from the scenarios by `cargo test -p pi-conformance --test coverage` \
         (`COVERAGE=overwrite` rewrites it). An item is covered by a scenario that sends it, \
         or whose expectations contain it. {} scenarios.\n",
        scenarios.len()
    );
    let mut uncovered = Vec::new();
    for (title, items) in &sections {
        for (item, ids) in items {
            if ids.is_empty() {
                uncovered.push(format!("{title}: `{item}`"));
            }
        }
    }
    if uncovered.is_empty() {
        let _ = writeln!(out, "Every item has at least one scenario.\n");
    } else {
        let _ = writeln!(out, "**Items without a scenario ({}):**\n", uncovered.len());
        for item in &uncovered {
            let _ = writeln!(out, "- {item}");
        }
        out.push('\n');
    }
    for (title, items) in &sections {
        let _ = writeln!(out, "## {title}\n\n| item | scenarios |\n|---|---|");
        for (item, ids) in items {
            let list = if ids.is_empty() {
                "**none**".to_owned()
            } else {
                ids.iter().cloned().collect::<Vec<_>>().join(", ")
            };
            let _ = writeln!(out, "| `{item}` | {list} |");
        }
        out.push('\n');
    }
    out
}

fn touches_of(loaded: &Loaded) -> Touches {
    let scenario = &loaded.scenario;
    let provider_api = scenario.setup.args.as_ref().and_then(|args| {
        let position = args.iter().position(|arg| arg == "--provider")?;
        let provider = args.get(position + 1)?;
        PROVIDER_APIS
            .iter()
            .find(|(name, _)| name == provider)
            .map(|(_, api)| (*api).to_owned())
    });
    let mut touches = Touches {
        api: scenario
            .setup
            .api
            .clone()
            .or(provider_api)
            .unwrap_or_else(|| APIS[0].to_owned()),
        ..Touches::default()
    };
    if let Some(mock) = &scenario.mock {
        collect_quirks(mock, &mut touches.quirks);
    }
    let args = scenario.setup.args.iter().flatten();
    touches.options = args
        .chain(&scenario.setup.extra_args)
        .filter(|arg| OPTIONS.contains(&arg.as_str()))
        .cloned()
        .collect();
    for step in &scenario.steps {
        match step {
            Step::Send(value) => note_sent(value, &mut touches),
            Step::SendRaw(text) => {
                for line in text.split('\n') {
                    if let Ok(value) = serde_json::from_str::<Value>(line.trim_end_matches('\r')) {
                        note_sent(&value, &mut touches);
                    }
                }
            }
            Step::Expect(expect) => {
                let full = match expect {
                    Expect::List(records) => records.clone(),
                    Expect::Full(full) => full.records.clone(),
                };
                for pattern in &full {
                    note_expected(pattern, &mut touches);
                }
            }
            _ => {}
        }
    }
    touches
}

fn note_sent(value: &Value, touches: &mut Touches) {
    let Some(kind) = value.get("type").and_then(Value::as_str) else {
        return;
    };
    if kind == "extension_ui_response" {
        for answer in UI_ANSWERS {
            if value.get(answer).is_some() {
                touches.ui_answers.insert(answer.to_owned());
            }
        }
    } else {
        touches.sent.insert(kind.to_owned());
    }
}

/// Walks an expected pattern (including `$unordered`, `$either`, `$skip_until` wrappers).
fn note_expected(pattern: &Value, touches: &mut Touches) {
    match pattern {
        Value::Object(object) => {
            if let Some(kind) = object.get("type").and_then(Value::as_str) {
                match kind {
                    "response" => {
                        let command = object.get("command").and_then(Value::as_str);
                        match (command, object.get("success").and_then(Value::as_bool)) {
                            (Some(command), Some(true)) => {
                                touches.succeeded.insert(command.to_owned());
                            }
                            (Some(command), Some(false)) => {
                                touches.failed.insert(command.to_owned());
                            }
                            _ => {}
                        }
                    }
                    "extension_ui_request" => {
                        if let Some(method) = object.get("method").and_then(Value::as_str) {
                            touches.ui_methods.insert(method.to_owned());
                        }
                    }
                    kind if Event::TYPES.contains(&kind) => {
                        touches.events.insert(kind.to_owned());
                    }
                    kind if DELTA_KINDS.contains(&kind) => {
                        touches.deltas.insert(kind.to_owned());
                    }
                    _ => {}
                }
            }
            for value in object.values() {
                note_expected(value, touches);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| note_expected(item, touches)),
        Value::String(raw) if raw.starts_with('{') => {
            if let Ok(value) = serde_json::from_str::<Value>(raw) {
                note_expected(&value, touches);
            }
        }
        _ => {}
    }
}

fn collect_quirks(value: &Value, quirks: &mut BTreeSet<String>) {
    match value {
        Value::Object(object) => {
            if let Some(name) = object.get("quirk").and_then(Value::as_str) {
                quirks.insert(name.to_owned());
            }
            object.values().for_each(|v| collect_quirks(v, quirks));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_quirks(v, quirks)),
        _ => {}
    }
}
