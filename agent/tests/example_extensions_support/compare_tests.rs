//! The comparison of two runs on made-up runs: what counts as the same, what is skipped.

use serde_json::{Value, json};

use super::compare::{Aspect, Comparison, first_difference};
use super::run::{AgentRun, CommandOutcome, example_commands, flags_section};

fn loaded(headless: Vec<(&str, CommandOutcome)>) -> AgentRun {
    AgentRun {
        loaded: true,
        exit_code: Some(0),
        commands: Some(json!([{"name": "x", "source": "extension"}])),
        tools: Some(json!([{"name": "read", "description": "r"}])),
        headless: headless
            .into_iter()
            .map(|(n, o)| (n.to_owned(), o))
            .collect(),
        ..AgentRun::default()
    }
}

fn ran(text: &str) -> CommandOutcome {
    CommandOutcome::Ran(vec![
        json!({"type": "extension_ui_request", "message": text}),
    ])
}

fn compare(reference: AgentRun, ours: AgentRun) -> Comparison {
    let base = Some(json!([{"name": "read", "description": "r"}]));
    Comparison::new("x", reference, ours, (&base, &base))
}

#[test]
fn a_command_that_starts_a_model_run_on_the_reference_is_skipped() {
    let reference = loaded(vec![("a", CommandOutcome::ModelRun), ("b", ran("hi"))]);
    let ours = loaded(vec![("a", ran("other")), ("b", ran("hi"))]);
    let comparison = compare(reference, ours);
    assert_eq!(comparison.headless, Aspect::Same);
    assert_eq!(comparison.skipped, ["/a (starts a model run)"]);
    assert!(comparison.matches());
}

#[test]
fn a_command_that_takes_long_only_on_ours_differs() {
    let comparison = compare(
        loaded(vec![("a", ran("hi"))]),
        loaded(vec![("a", CommandOutcome::TookLong)]),
    );
    assert_eq!(
        comparison.headless,
        Aspect::Differs("/a (ours: TookLong)".to_owned())
    );
    assert!(!comparison.matches());
}

#[test]
fn differing_records_are_named_by_the_first_that_differs() {
    let comparison = compare(
        loaded(vec![("a", ran("hi"))]),
        loaded(vec![("a", ran("ho"))]),
    );
    assert_eq!(
        comparison.headless,
        Aspect::Differs("/a (record 0.message: reference \"hi\" / ours \"ho\")".to_owned())
    );
}

#[test]
fn an_example_the_reference_cannot_load_must_fail_in_ours_too() {
    let failed = AgentRun {
        exit_code: Some(1),
        stderr: "Error: Cannot find module 'ms'".to_owned(),
        ..AgentRun::default()
    };
    let both = compare(failed.clone(), failed.clone());
    assert!(both.matches());
    assert_eq!(both.failure.as_deref(), Some("needs npm dependencies (ms)"));
    assert!(!compare(failed, loaded(Vec::new())).matches());
}

#[test]
fn built_in_tools_are_the_same_when_each_is_its_agents_own() {
    let (theirs, mine) = (
        Some(json!([{"name": "read", "description": "pi's words"}])),
        Some(json!([{"name": "read", "description": "our words"}])),
    );
    let with = |tools: Value| AgentRun {
        tools: Some(tools),
        ..loaded(Vec::new())
    };
    let cached = |tools: &Option<Value>, extra: Value| {
        let mut list = tools
            .clone()
            .and_then(|t| t.as_array().cloned())
            .unwrap_or_default();
        list.push(extra);
        Value::Array(list)
    };
    let tool = json!({"name": "hello", "description": "Says hello", "cache_control": {"type": "ephemeral"}});
    let same = Comparison::new(
        "x",
        with(cached(&theirs, tool.clone())),
        with(cached(&mine, tool.clone())),
        (&theirs, &mine),
    );
    assert_eq!(same.tools, Aspect::Same);
    let other =
        json!({"name": "hello", "description": "Says hi", "cache_control": {"type": "ephemeral"}});
    let differs = Comparison::new(
        "x",
        with(cached(&theirs, tool)),
        with(cached(&mine, other)),
        (&theirs, &mine),
    );
    assert_eq!(
        differs.tools,
        Aspect::Differs(
            "hello.description: reference \"Says hello\" / ours \"Says hi\"".to_owned()
        )
    );
}

#[test]
fn the_first_difference_is_named_by_its_path() {
    let a = json!({"name": "plan", "sourceInfo": {"path": "<root>/extensions/plan-mode"}});
    let b = json!({"name": "plan", "sourceInfo": {"path": "<root>/extensions/plan-mode/index.ts"}});
    assert_eq!(
        first_difference(&a, &b, ""),
        ".sourceInfo.path: reference \"<root>/extensions/plan-mode\" / ours \
         \"<root>/extensions/plan-mode/index.ts\""
    );
}

#[test]
fn the_flags_section_ends_at_the_next_empty_line() {
    let help = "Options:\n  --x\n\nExtension CLI Flags:\n  --preset <value>  Preset\n  --plan  Plan\n\nExamples:\n";
    assert_eq!(
        flags_section(help),
        "  --preset <value>  Preset\n  --plan  Plan"
    );
    assert_eq!(flags_section("Options:\n  --x\n"), "");
}

#[test]
fn only_the_examples_own_commands_are_run() {
    let commands = json!([
        {"name": "llama", "source": "extension", "sourceInfo": {"path": "<inline:llama.cpp>"}},
        {"name": "preset", "source": "extension", "sourceInfo": {"path": "<root>/extensions/preset.ts"}},
        {"name": "skill:x", "source": "skill", "sourceInfo": {"path": "<root>/extensions/x/SKILL.md"}}
    ]);
    assert_eq!(example_commands(Some(&commands)), ["preset"]);
}
