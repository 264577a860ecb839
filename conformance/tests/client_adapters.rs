//! `pi-conformance client` against the adapters shipped in `conformance/clients/`: pi's own
//! TypeScript `RpcClient` (from the installed reference) and the example Python client pass the
//! client corpus, and deliberately broken copies of each (one mistake per copy, made here by
//! patching the original) fail exactly the cases aimed at that mistake, with a message that names
//! the cause.
//!
//! Both tests need the reference install (pi's `RpcClient` and its Node.js 22, which also runs
//! the extensions of the corpus's transcripts): without it they say so and pass, unless
//! `PI_REQUIRE_REFERENCE` is set.

#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests, outside #[test] functions

#[path = "support/broken_clients.rs"]
mod broken_clients;
#[path = "support/ours.rs"]
mod ours;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, PoisonError};

use broken_clients::{Broken, PYTHON, RPC_CLIENT};
use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The reference's Node.js and the folder of its `rpc-client.js`, or `None` (skipped).
fn reference() -> Option<(PathBuf, PathBuf)> {
    let launcher =
        pi_reference::launcher_or_skip("the client corpus against the shipped adapters")?;
    let node = pi_reference::version_dir(&launcher)?.join("node/node_modules/node/bin/node");
    let rpc = pi_reference::package_dir(&launcher, "pi-coding-agent")?.join("dist/modes/rpc");
    let found = (node.is_file() && rpc.join("rpc-client.js").is_file()).then_some((node, rpc));
    pi_reference::or_skip(
        found,
        "the reference install has no Node.js or rpc-client.js where install.sh puts them",
    )
}

/// A copy of `files` (from `from`) in `to`, with the broken client's patches applied; each text
/// to replace must occur exactly once, so that a change in the original is noticed.
fn patched_copy(from: &Path, files: &[&str], to: &Path, broken: &Broken) {
    std::fs::create_dir_all(to).unwrap();
    for file in files {
        let mut text = std::fs::read_to_string(from.join(file)).unwrap();
        for patch in broken.patches.iter().filter(|p| p.file == *file) {
            let found = text.matches(patch.find).count();
            assert_eq!(
                found, 1,
                "{}: the text to patch occurs {found} times in {file}, not once:\n{}",
                broken.name, patch.find
            );
            text = text.replacen(patch.find, patch.replace, 1);
        }
        std::fs::write(to.join(file), text).unwrap();
    }
}

/// Where the runs' transcripts and results stay, for a look after a failure.
fn out() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("client-conformance-out")
}

/// One corpus run at a time: each uses every core already.
static ONE_RUN: Mutex<()> = Mutex::new(());

/// Runs the client corpus against every client at once; returns each client's `results.json`.
fn run_corpus(clients: &[(String, String)], node: &Path, out: &Path) -> BTreeMap<String, Value> {
    let _one = ONE_RUN.lock().unwrap_or_else(PoisonError::into_inner);
    ours::build_ours().unwrap();
    let node_dir = node.parent().unwrap();
    let path = std::env::var("PATH").unwrap_or_default();
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("pi-conformance"));
    command
        .current_dir(repo())
        .env("PATH", format!("{}:{path}", node_dir.display()))
        .args(["client", "scenarios/client", "--format", "json", "--out"])
        .arg(out);
    if std::env::var_os("PI_AGENT_NODE").is_none() {
        command.env("PI_AGENT_NODE", node);
    }
    for (name, line) in clients {
        command.args(["--client", line, "--name", name]);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.code().is_some_and(|c| c <= 1),
        "pi-conformance client failed to run: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    clients
        .iter()
        .map(|(name, _)| {
            let text = std::fs::read_to_string(out.join(name).join("results.json")).unwrap();
            (name.clone(), serde_json::from_str(&text).unwrap())
        })
        .collect()
}

/// The cases a client did not pass, with their messages.
fn failures(results: &Value) -> BTreeMap<String, String> {
    results["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| !matches!(o["verdict"].as_str(), Some("pass" | "non-strict")))
        .map(|o| {
            let text = format!(
                "{} ({}) {}\n{}",
                o["verdict"].as_str().unwrap_or(""),
                o["message"].as_str().unwrap_or(""),
                "",
                o["detail"].as_str().unwrap_or("")
            );
            (o["id"].as_str().unwrap().to_owned(), text)
        })
        .collect()
}

/// The good client passes (up to its baseline); each broken one fails exactly its cases, each
/// failure's message naming the cause.
fn check(good: &str, results: &BTreeMap<String, Value>, broken: &[Broken]) {
    let good_results = &results[good];
    assert_eq!(
        good_results["ok"],
        Value::Bool(true),
        "{good} does not pass the client corpus (beyond its baseline): {:#?}",
        failures(good_results)
    );
    // A copy keeps the original's expected failures (pi's RpcClient cannot answer dialogs), with
    // the same verdict, unless its own mistake fails them first.
    let inherited = failures(good_results);
    let verdict = |text: &str| text.split(' ').next().unwrap_or("").to_owned();
    let mut problems = Vec::new();
    for client in broken {
        let failed = failures(&results[client.name]);
        let own: Vec<&str> = client.fails.iter().map(|(id, _)| *id).collect();
        let kept: Vec<&String> = inherited
            .keys()
            .filter(|id| !own.contains(&id.as_str()))
            .collect();
        let mut expected: Vec<&str> = own
            .iter()
            .copied()
            .chain(kept.iter().map(|id| id.as_str()))
            .collect();
        expected.sort_unstable();
        let got: Vec<&str> = failed.keys().map(String::as_str).collect();
        if got != expected {
            problems.push(format!(
                "{} ({}) failed {got:?}, not {expected:?}:\n{:#?}",
                client.name, client.mistake, failed
            ));
            continue;
        }
        for id in kept {
            if verdict(&failed[id]) != verdict(&inherited[id]) {
                problems.push(format!(
                    "{}: {id} is not {}: {}",
                    client.name,
                    verdict(&inherited[id]),
                    failed[id]
                ));
            }
        }
        for (id, cause) in client.fails {
            let text = &failed[*id];
            let message = text.lines().next().unwrap_or("");
            if !message.contains(cause) {
                problems.push(format!(
                    "{}: the message of {id} does not name the cause ({cause:?}):\n{text}",
                    client.name
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn rpc_client_passes_the_client_corpus_and_each_broken_copy_fails_its_cases() {
    let Some((node, rpc)) = reference() else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let adapter = repo().join("conformance/clients/rpc-client/adapter.mjs");
    let line = |module: &Path| {
        format!(
            "'{}' '{}' --client-module '{}'",
            node.display(),
            adapter.display(),
            module.display()
        )
    };
    let mut clients = vec![("rpc-client".to_owned(), line(&rpc.join("rpc-client.js")))];
    for broken in RPC_CLIENT {
        let copy = work.path().join(broken.name);
        patched_copy(&rpc, &["rpc-client.js", "jsonl.js"], &copy, broken);
        clients.push((broken.name.to_owned(), line(&copy.join("rpc-client.js"))));
    }
    let results = run_corpus(&clients, &node, &out());
    check("rpc-client", &results, RPC_CLIENT);
}

#[test]
fn the_python_client_passes_the_client_corpus_and_each_broken_copy_fails_its_cases() {
    let Some((node, _)) = reference() else {
        return;
    };
    let python = Command::new("python3").arg("--version").output();
    let found = python.is_ok_and(|o| o.status.success()).then_some(());
    if pi_reference::or_skip(
        found,
        "python3 is not installed; the Python client is not checked",
    )
    .is_none()
    {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let folder = repo().join("conformance/clients/python");
    let adapter = folder.join("adapter.py");
    let line = |module: &Path| {
        format!(
            "python3 '{}' --client-module '{}'",
            adapter.display(),
            module.display()
        )
    };
    let mut clients = vec![("python".to_owned(), line(&folder.join("pi_rpc.py")))];
    for broken in PYTHON {
        let copy = work.path().join(broken.name);
        patched_copy(&folder, &["pi_rpc.py"], &copy, broken);
        clients.push((broken.name.to_owned(), line(&copy.join("pi_rpc.py"))));
    }
    let results = run_corpus(&clients, &node, &out());
    check("python", &results, PYTHON);
}
