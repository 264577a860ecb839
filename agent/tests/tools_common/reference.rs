//! Runs tool calls through our tools and through the reference pi's own tool code (its
//! JavaScript, run by its Node.js) on identical fixture folders, and compares the results a
//! client would see.
#![allow(dead_code, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pi_agent::tools::{ToolContext, ToolUpdate, execute};
use serde_json::Value;

/// Runs calls the way the reference's agent loop does: unknown tool, argument repair and
/// validation, execution with partial results, thrown errors as error results.
const HARNESS: &str = r#"
import { readFileSync } from "node:fs";
const [dist, casesFile] = process.argv.slice(2);
const toolsModule = await import(dist + "/pi-coding-agent/dist/core/tools/index.js");
const { validateToolArguments } = await import(dist + "/pi-ai/dist/utils/validation.js");
const cases = JSON.parse(readFileSync(casesFile, "utf8"));
const tools = Object.values(toolsModule.createAllTools(process.cwd()));
const results = [];
for (const call of cases) {
  const updates = [];
  const tool = tools.find((t) => t.name === call.tool);
  let outcome;
  if (!tool) {
    outcome = { content: [{ type: "text", text: `Tool ${call.tool} not found` }], details: {}, isError: true };
  } else {
    const controller = new AbortController();
    let timer;
    if (call.abortAfterMs !== undefined) timer = setTimeout(() => controller.abort(), call.abortAfterMs);
    try {
      const raw = structuredClone(call.args);
      const prepared = tool.prepareArguments ? tool.prepareArguments(raw) : raw;
      const args = validateToolArguments(tool, { name: call.tool, arguments: prepared });
      const result = await tool.execute("call-1", args, controller.signal, (partial) => updates.push(JSON.parse(JSON.stringify(partial))));
      outcome = { content: result.content, details: result.details, isError: false };
    } catch (error) {
      outcome = { content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }], details: {}, isError: true };
    }
    clearTimeout(timer);
  }
  results.push(JSON.parse(JSON.stringify({ ...outcome, updates })));
}
process.stdout.write(JSON.stringify(results));
"#;

fn reference_root() -> Option<PathBuf> {
    let root = pi_reference::version_dir(&pi_reference::launcher_path()?)?;
    root.join("pi/node_modules/@earendil-works/pi-coding-agent/dist")
        .is_dir()
        .then_some(root)
}

/// Replaces the random names of full-output logs, which differ from run to run.
fn redact(value: &mut Value, temp: &str) {
    match value {
        Value::String(text) => {
            while let Some(start) = text.find(&format!("{temp}/pi-bash-")) {
                let end = start + temp.len() + "/pi-bash-".len() + 16 + ".log".len();
                text.replace_range(start..end.min(text.len()), "<LOG>");
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| redact(item, temp)),
        Value::Object(map) => map.values_mut().for_each(|item| redact(item, temp)),
        _ => {}
    }
}

/// Puts the fixture folder into paths that need it.
fn place(cases: &[Value], cwd: &Path) -> Vec<Value> {
    let text = serde_json::to_string(cases)
        .unwrap()
        .replace("WORKDIR", &cwd.display().to_string());
    serde_json::from_str(&text).unwrap()
}

fn run_ours(cases: &[Value], cwd: &Path, temp: &Path) -> Vec<Value> {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mut results = Vec::new();
        for case in cases {
            let mut ctx = ToolContext::new(cwd);
            ctx.temp_dir = Some(temp.to_path_buf());
            ctx.agent_dir = Some(temp.parent().unwrap().join("agent"));
            if let Some(ms) = case.get("abortAfterMs").and_then(Value::as_u64) {
                let cancel = ctx.cancel.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    cancel.cancel();
                });
            }
            let updates: Arc<Mutex<Vec<ToolUpdate>>> = Arc::default();
            let sink = Arc::clone(&updates);
            let mut on_update = move |update: ToolUpdate| sink.lock().unwrap().push(update);
            let name = case["tool"].as_str().unwrap();
            let outcome = execute(name, &case["args"], &ctx, &mut on_update).await;
            let mut result = serde_json::to_value(&outcome).unwrap();
            let updates = serde_json::to_value(&*updates.lock().unwrap()).unwrap();
            result
                .as_object_mut()
                .unwrap()
                .insert("updates".into(), updates);
            results.push(result);
        }
        results
    })
}

fn run_reference(root: &Path, cases: &[Value], cwd: &Path, temp: &Path) -> Vec<Value> {
    let scratch = temp.parent().unwrap();
    let harness = scratch.join("harness.mjs");
    let cases_file = scratch.join("cases.json");
    std::fs::write(&harness, HARNESS).unwrap();
    std::fs::write(&cases_file, serde_json::to_string(cases).unwrap()).unwrap();
    let node = root.join("node/node_modules/node/bin/node");
    let output = Command::new(node)
        .arg(&harness)
        .arg(root.join("pi/node_modules/@earendil-works"))
        .arg(&cases_file)
        .current_dir(cwd)
        .env("TMPDIR", temp)
        .env("PI_CODING_AGENT_DIR", scratch.join("agent"))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "harness failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Drops the bytes of image blocks, which depend on the encoder, keeping their type.
fn redact_image_data(result: &mut Value) {
    for block in result["content"].as_array_mut().into_iter().flatten() {
        if block["type"] == "image" {
            block["data"] = Value::String("<IMAGE>".into());
        }
    }
}

/// How output splits into chunks depends on timing, and so do the partial results in between;
/// the first (empty) and the last (all the output) do not.
fn keep_first_and_last_update(result: &mut Value) {
    if let Some(Value::Array(updates)) = result.get_mut("updates")
        && updates.len() > 2
    {
        let last = updates.pop().unwrap();
        updates.truncate(1);
        updates.push(last);
    }
}

/// [`compare`], failing with every difference (`what` names the cases: `cases`, `diffs`, ...);
/// nothing to check without the reference.
pub fn assert_same(cases: &[Value], make: impl Fn(&Path), redact_images: bool, what: &str) {
    let Some(failures) = compare(cases, make, redact_images) else {
        return;
    };
    assert!(
        failures.is_empty(),
        "{} of {} {what} differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Runs `cases` through both implementations, each on a fresh fixture made by `make`, and
/// describes every case whose results differ. `None` when the reference is not installed.
pub fn compare(cases: &[Value], make: impl Fn(&Path), redact_images: bool) -> Option<Vec<String>> {
    let root = pi_reference::or_skip(
        reference_root(),
        "reference pi 0.84.1 not installed: its tools are not compared",
    )?;
    let scratch = tempfile::tempdir().unwrap();
    let scratch = scratch.path().canonicalize().unwrap();
    let cwd = scratch.join("work");
    let temp = scratch.join("tmp");
    std::fs::create_dir_all(&temp).unwrap();
    let cases = &place(cases, &cwd);
    make(&cwd);
    let ours = run_ours(cases, &cwd, &temp);
    make(&cwd);
    let theirs = run_reference(&root, cases, &cwd, &temp);

    let temp_text = temp.display().to_string();
    let mut failures = Vec::new();
    for ((case, mut ours), mut theirs) in cases.iter().zip(ours).zip(theirs) {
        redact(&mut ours, &temp_text);
        redact(&mut theirs, &temp_text);
        keep_first_and_last_update(&mut ours);
        keep_first_and_last_update(&mut theirs);
        if redact_images {
            redact_image_data(&mut ours);
            redact_image_data(&mut theirs);
        }
        if case.get("sortLines") == Some(&Value::Bool(true)) {
            sort_result_lines(&mut ours);
            sort_result_lines(&mut theirs);
        }
        if ours != theirs {
            failures.push(format!(
                "case {}\n  ours:      {}\n  reference: {}",
                truncate(&case.to_string()),
                truncate(&ours.to_string()),
                truncate(&theirs.to_string())
            ));
        }
    }
    eprintln!("compared {} calls with the reference", cases.len());
    Some(failures)
}

pub fn truncate(text: &str) -> String {
    if text.len() <= 3000 {
        return text.to_string();
    }
    let mut end = 3000;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &text[..end])
}

/// Sorts the rows of a text result (those before a `[notice]`): the reference's `rg` and `fd`
/// search in parallel and print files in the order the searches finish.
fn sort_result_lines(result: &mut Value) {
    for block in result["content"].as_array_mut().into_iter().flatten() {
        if let Some(text) = block["text"].as_str() {
            let (rows, notice) = match text.find("\n\n[") {
                Some(at) => text.split_at(at),
                None => (text, ""),
            };
            let mut rows: Vec<&str> = rows.split('\n').collect();
            rows.sort_unstable();
            block["text"] = Value::String(format!("{}{notice}", rows.join("\n")));
        }
    }
}
