//! Types generated from the schema work for a client, in TypeScript, Python and Go: the test
//! generates them for 0.84.1 with `conformance/clientgen/generate.sh`, the script that
//! schema/README.md shows, then reads the reference's own records
//! (`agent/protocol/tests/golden/reference-output.jsonl`: a get_state response, a prompt's
//! events from agent_start through message_update text deltas and message_end to agent_end and
//! agent_settled, more responses; and extension UI requests,
//! `conformance/clientgen/extension-ui.jsonl`) with each language's example of the README
//! (`conformance/clientgen/example.{ts,py,go}`): each prints one line a record, which must be
//! the line this test derives from the record itself. A record of the wrong shape must be
//! rejected (by the pydantic models and Go's decoder; by tsc for TypeScript, whose types check
//! code rather than records), so the generated types are not just "any JSON".
//!
//! Needs the reference install (its Node.js runs the npm tools) and the generators
//! (`conformance/clientgen/install.sh`), and Go (`go`, Debian's golang-go) for the Go part:
//! without them the test says so and passes, unless `PI_REQUIRE_REFERENCE` is set.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests, outside #[test] functions

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const RELEASE: &str = "0.84.1";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn clientgen() -> PathBuf {
    repo().join("conformance/clientgen")
}

/// Records of the reference 0.84.1: two recorded sessions, and what scenario extui.002 made it
/// write (`pi-conformance run --agent reference --out DIR scenarios/extui/extui.002-*`: its
/// `stdout.jsonl`), for extension UI requests.
fn records() -> [PathBuf; 2] {
    [
        repo().join("agent/protocol/tests/golden/reference-output.jsonl"),
        clientgen().join("extension-ui.jsonl"),
    ]
}

/// The line each example prints for `record`, derived here from the JSON itself.
fn summary(record: &Value) -> String {
    let text = |v: &Value| v.as_str().unwrap().to_owned();
    let kind = text(&record["type"]);
    match kind.as_str() {
        "response" => {
            let command = record["command"].as_str().unwrap_or("-");
            if record["success"] != Value::Bool(true) {
                return format!("response {command} error");
            }
            let mut out = format!("response {command} ok");
            if command == "get_state" {
                let data = &record["data"];
                out += &format!(
                    " model={} messages={}",
                    text(&data["model"]["id"]),
                    data["messageCount"]
                );
            }
            out
        }
        "extension_ui_request" => format!("extension_ui_request {}", text(&record["method"])),
        "message_update" => {
            let update = &record["assistantMessageEvent"];
            let kind = text(&update["type"]);
            if kind == "text_delta" {
                format!("message_update {kind} {}", text(&update["delta"]))
            } else {
                format!("message_update {kind}")
            }
        }
        "message_end" => format!("message_end {}", text(&record["message"]["role"])),
        "agent_end" => format!("agent_end {}", record["messages"].as_array().unwrap().len()),
        _ => kind,
    }
}

fn expected(records: &Path) -> String {
    let text = std::fs::read_to_string(records).unwrap();
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| summary(&serde_json::from_str(line).unwrap()) + "\n")
        .collect()
}

fn run(command: &mut Command) -> Output {
    command
        .output()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"))
}

fn ok(command: &mut Command) -> String {
    let output = run(command);
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Records the generated types must reject (a file each), as (what is wrong, the record).
const WRONG: [(&str, &str); 2] = [
    (
        "a text delta's contentIndex is a word",
        r#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":"first","delta":"x"}}"#,
    ),
    (
        "a tool's start whose toolCallId is a number",
        r#"{"type":"tool_execution_start","toolCallId":7,"toolName":"read","args":{}}"#,
    ),
];

/// The example reads every record to the expected lines, and (when `validates`) rejects each
/// `WRONG` record.
fn reads_records(language: &str, work: &Path, validates: bool, example: impl Fn(&Path) -> Command) {
    for records in records() {
        let got = ok(&mut example(&records));
        let want = expected(&records);
        assert!(
            got == want,
            "{language}: the example's lines differ from {}'s:\n{}",
            records.display(),
            similar::TextDiff::from_lines(&want, &got).unified_diff()
        );
    }
    for (what, record) in WRONG.iter().filter(|_| validates) {
        let file = work.join("wrong.jsonl");
        std::fs::write(&file, format!("{record}\n")).unwrap();
        let output = run(&mut example(&file));
        assert!(
            !output.status.success()
                && String::from_utf8_lossy(&output.stderr).contains("rejected"),
            "{language}: {what}: not rejected ({})",
            String::from_utf8_lossy(&output.stdout)
        );
    }
}

/// The lines between `README begin` and `README end` in `file`, which schema/README.md must
/// show as they are.
fn readme_part(file: &str) -> String {
    let text = std::fs::read_to_string(clientgen().join(file)).unwrap();
    let start = text.find("README begin\n").expect("README begin") + "README begin\n".len();
    let end = text[start..].find("README end").expect("README end") + start;
    let part = &text[start..text[..end].rfind('\n').unwrap() + 1];
    part.trim_matches('\n').to_owned()
}

#[test]
fn the_readme_shows_the_script_and_the_examples() {
    let readme = std::fs::read_to_string(repo().join("schema/README.md")).unwrap();
    for command in [
        "bash conformance/clientgen/install.sh",
        &format!("bash conformance/clientgen/generate.sh {RELEASE} OUT"),
    ] {
        assert!(
            readme.contains(command),
            "schema/README.md lacks `{command}`"
        );
    }
    for file in ["example.ts", "example.py", "example.go"] {
        assert!(
            readme.contains(&readme_part(file)),
            "schema/README.md does not show conformance/clientgen/{file}'s README part as it is"
        );
    }
}

#[test]
fn summaries_follow_the_records() {
    let delta = r#"{"type":"message_update","assistantMessageEvent":{"type":"text_delta","contentIndex":0,"delta":"Hi"}}"#;
    assert_eq!(
        summary(&serde_json::from_str(delta).unwrap()),
        "message_update text_delta Hi"
    );
    let failed = r#"{"type":"response","command":"compact","success":false,"error":"e"}"#;
    assert_eq!(
        summary(&serde_json::from_str(failed).unwrap()),
        "response compact error"
    );
    let want: String = records().iter().map(|file| expected(file)).collect();
    for line in [
        "extension_ui_request select",
        "response get_state ok model=mock-model-1 messages=0",
        "agent_start",
        "message_update text_delta Hello",
        "message_end assistant",
        "agent_end 2",
        "agent_settled",
    ] {
        assert!(want.lines().any(|l| l == line), "no record reads `{line}`");
    }
}

/// The install root (where install.sh put the tools), or `None` after saying what is missing.
fn tools_home() -> Option<PathBuf> {
    let launcher = pi_reference::launcher_or_skip("the generated client types")?;
    let home = launcher.parent()?.parent()?.to_owned();
    let installed = home
        .join("tools/schema-ts/node_modules/quicktype/dist/index.js")
        .is_file()
        && home
            .join("tools/schema-ts/node_modules/@types/node")
            .is_dir()
        && home
            .join("tools/clientgen-py/bin/datamodel-codegen")
            .is_file();
    pi_reference::or_skip(
        installed.then_some(home),
        "the type generators are not installed: run conformance/clientgen/install.sh",
    )
}

#[test]
fn generated_types_read_real_records() {
    let Some(home) = tools_home() else {
        return;
    };
    let node = home.join("0.84.1/node/node_modules/node/bin/node");
    let npm = home.join("tools/schema-ts/node_modules");
    let out = tempfile::tempdir().unwrap();
    let out = out.path();
    ok(Command::new("bash")
        .arg(clientgen().join("generate.sh"))
        .args([RELEASE, out.to_str().unwrap()])
        .env("PI_REFERENCE_HOME", &home));

    // Python: the pydantic models validate each record.
    let python = home.join("tools/clientgen-py/bin/python");
    reads_records("Python", out, true, |records| {
        let mut command = Command::new(&python);
        command
            .arg(clientgen().join("example.py"))
            .arg(records)
            .env("PYTHONPATH", out);
        command
    });
    let state = r#"{"type":"response","command":"get_state","success":true,"data":{"model":null}}"#;
    std::fs::write(out.join("state.jsonl"), format!("{state}\n")).unwrap();
    let output = run(Command::new(&python)
        .arg(clientgen().join("example.py"))
        .arg(out.join("state.jsonl"))
        .env("PYTHONPATH", out));
    assert!(
        !output.status.success() && String::from_utf8_lossy(&output.stderr).contains("rejected"),
        "Python: a get_state response without the state's fields is not rejected"
    );

    // TypeScript: tsc --strict checks the example against the types, then node runs it.
    std::fs::copy(clientgen().join("example.ts"), out.join("example.ts")).unwrap();
    let tsc = |files: &[&str]| {
        let mut command = Command::new(&node);
        command
            .arg(npm.join("typescript/bin/tsc"))
            .args(["--strict", "--noEmitOnError", "--target", "es2022"])
            .args(["--module", "commonjs", "--types", "node", "--typeRoots"])
            .arg(npm.join("@types"))
            .args(["--outDir", "js"])
            .args(files)
            .current_dir(out);
        command
    };
    ok(&mut tsc(&["example.ts", "pi_rpc.ts"]));
    // (The types check code, not records: tsc rejects a wrong record below.)
    reads_records("TypeScript", out, false, |records| {
        let mut command = Command::new(&node);
        command.arg(out.join("js/example.js")).arg(records);
        command
    });
    let wrong = "import type { Event } from \"./pi_rpc\";\nexport const wrong: Event = {\n  \
        type: \"message_update\",\n  assistantMessageEvent: { type: \"text_delta\", \
        contentIndex: \"first\", delta: \"x\" },\n};\n";
    std::fs::write(out.join("wrong.ts"), wrong).unwrap();
    let output = run(&mut tsc(&["wrong.ts", "pi_rpc.ts"]));
    let message = String::from_utf8_lossy(&output.stdout);
    assert!(
        !output.status.success() && message.contains("error TS2322"),
        "TypeScript: tsc accepts a text delta whose contentIndex is a string:\n{message}"
    );

    // Go: the structs, formatted by gofmt, vetted and built into the example.
    let Some(go) = pi_reference::or_skip(
        Command::new("go")
            .arg("version")
            .output()
            .ok()
            .filter(|o| o.status.success()),
        "Go is not installed (Debian's golang-go; conformance/clientgen/install.sh installs it)",
    ) else {
        return;
    };
    eprintln!("{}", String::from_utf8_lossy(&go.stdout).trim());
    let module = out.join("go");
    std::fs::create_dir_all(module.join("pirpc")).unwrap();
    std::fs::copy(out.join("pi_rpc.go"), module.join("pirpc/pi_rpc.go")).unwrap();
    std::fs::copy(clientgen().join("example.go"), module.join("main.go")).unwrap();
    std::fs::write(
        module.join("go.mod"),
        "module example.com/client\n\ngo 1.19\n",
    )
    .unwrap();
    let go = |args: &[&str]| {
        let mut command = Command::new("go");
        command
            .args(args)
            .current_dir(&module)
            .env("GOPROXY", "off")
            .env("GOFLAGS", "-mod=mod")
            .env("GOTOOLCHAIN", "local");
        command
    };
    let unformatted = ok(Command::new("gofmt").arg("-l").arg(&module));
    assert!(
        unformatted.is_empty(),
        "Go: not gofmt's form: {unformatted}"
    );
    ok(&mut go(&["vet", "./..."]));
    ok(&mut go(&["build", "-o", "client", "."]));
    reads_records("Go", out, true, |records| {
        let mut command = Command::new(module.join("client"));
        command.arg(records);
        command
    });
}
