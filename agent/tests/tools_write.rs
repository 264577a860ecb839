//! The write tool on real files, against results taken from the reference pi 0.84.1.
#![allow(clippy::unwrap_used)] // helpers of tests, outside #[test] functions

use std::path::Path;

use pi_agent::tools::{ToolContext, ToolOutcome, execute, text_block};
use serde_json::{Value, json};

async fn write(dir: &Path, args: Value) -> ToolOutcome {
    execute("write", &args, &ToolContext::new(dir), &mut |_| {
        panic!("write does not stream")
    })
    .await
}

#[tokio::test]
async fn missing_folders_are_created_and_the_size_is_counted_in_utf16_units() {
    let dir = tempfile::tempdir().unwrap();
    let outcome = write(
        dir.path(),
        json!({ "path": "deep/a/b.txt", "content": "héllo 😀\n" }),
    )
    .await;
    assert_eq!(
        outcome,
        ToolOutcome::success(
            vec![text_block("Successfully wrote 9 bytes to deep/a/b.txt")],
            None
        )
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("deep/a/b.txt")).unwrap(),
        "héllo 😀\n"
    );
}

#[tokio::test]
async fn an_existing_file_is_replaced_and_numbers_become_text() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f.txt");
    std::fs::write(&file, "old content").unwrap();
    let outcome = write(dir.path(), json!({ "path": "f.txt", "content": 12.5 })).await;
    assert_eq!(outcome.text(), "Successfully wrote 4 bytes to f.txt");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "12.5");
}

#[tokio::test]
async fn writing_over_a_folder_reports_nodes_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let outcome = write(dir.path(), json!({ "path": "sub", "content": "x" })).await;
    let path = dir.path().join("sub");
    assert_eq!(
        outcome,
        ToolOutcome::error(format!(
            "EISDIR: illegal operation on a directory, open '{}'",
            path.display()
        ))
    );
}

#[tokio::test]
async fn a_cancelled_run_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path());
    ctx.cancel.cancel();
    let args = json!({ "path": "f.txt", "content": "x" });
    let outcome = execute("write", &args, &ctx, &mut |_| {}).await;
    assert_eq!(outcome, ToolOutcome::error("Operation aborted"));
    assert!(!dir.path().join("f.txt").exists());
}
