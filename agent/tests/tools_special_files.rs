//! Tools given a path that is not a regular file refuse it before opening it: a FIFO would
//! block them until someone opened its other end, `/dev/zero` would be read until memory ran
//! out. (The reference blocks, or reads on.)
#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers of tests, outside #[test] functions

use std::path::{Path, PathBuf};
use std::time::Duration;

use pi_agent::tools::{ToolContext, ToolOutcome, execute};
use serde_json::{Value, json};

async fn run(tool: &str, dir: &Path, args: Value) -> ToolOutcome {
    let context = ToolContext::new(dir);
    let mut on_update = |_| {};
    let call = execute(tool, &args, &context, &mut on_update);
    tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("the tool did not answer")
}

fn fifo(dir: &Path) -> PathBuf {
    let path = dir.join("pipe");
    rustix::fs::mkfifoat(rustix::fs::CWD, &path, rustix::fs::Mode::RWXU).unwrap();
    path
}

/// Checks that `outcome` is the tool's refusal to `verb` `path`, which is `kind`.
fn assert_refused(outcome: &ToolOutcome, verb: &str, path: &Path, kind: &str) {
    assert!(outcome.is_error, "{outcome:?}");
    assert_eq!(
        outcome.text(),
        format!(
            "Cannot {verb} {}: it is {kind}, not a regular file",
            path.display()
        )
    );
}

const FIFO: &str = "a named pipe (FIFO)";
const DEVICE: &str = "a character device";

#[tokio::test]
async fn write_refuses_a_fifo_and_a_device() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = fifo(dir.path());
    let outcome = run("write", dir.path(), json!({"path": "pipe", "content": "x"})).await;
    assert_refused(&outcome, "write", &pipe, FIFO);
    let outcome = run(
        "write",
        dir.path(),
        json!({"path": "/dev/null", "content": "x"}),
    )
    .await;
    assert_refused(&outcome, "write", Path::new("/dev/null"), DEVICE);
}

#[tokio::test]
async fn read_refuses_a_fifo_and_an_endless_device() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = fifo(dir.path());
    let outcome = run("read", dir.path(), json!({"path": "pipe"})).await;
    assert_refused(&outcome, "read", &pipe, FIFO);
    let outcome = run("read", dir.path(), json!({"path": "/dev/zero"})).await;
    assert_refused(&outcome, "read", Path::new("/dev/zero"), DEVICE);
}

#[tokio::test]
async fn edit_refuses_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let pipe = fifo(dir.path());
    let edits = json!([{"oldText": "a", "newText": "b"}]);
    let outcome = run("edit", dir.path(), json!({"path": "pipe", "edits": edits})).await;
    assert_refused(&outcome, "read", &pipe, FIFO);
}
