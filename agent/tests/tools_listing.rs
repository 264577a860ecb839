//! The optional tools `grep`, `find` and `ls` on real folders, with the results the reference pi
//! 0.84.1 gives (taken from it with `rg` and `fd` installed; `tools_reference.rs` compares many
//! more calls whenever the reference and those programs are there).
#![allow(clippy::unwrap_used)] // helpers of tests, outside #[test] functions

use std::path::Path;

use pi_agent::tools::{ToolContext, ToolOutcome, execute, text_block};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

async fn call(dir: &Path, tool: &str, args: Value) -> ToolOutcome {
    execute(tool, &args, &ToolContext::new(dir), &mut |_| {
        panic!("{tool} does not stream")
    })
    .await
}

fn write(dir: &Path, name: &str, text: &str) {
    let file = dir.join(name);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, text).unwrap();
}

#[tokio::test]
async fn ls_sorts_case_folded_marks_folders_and_says_when_the_limit_cut_it() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["b.txt", "A.txt", "_x", "10", "9", ".dot"] {
        write(dir.path(), name, "");
    }
    std::fs::create_dir(dir.path().join("Sub")).unwrap();
    std::os::unix::fs::symlink("nowhere", dir.path().join("dangling")).unwrap();
    let all = call(dir.path(), "ls", json!({})).await;
    assert_eq!(
        all,
        ToolOutcome::success(
            vec![text_block("_x\n.dot\n10\n9\nA.txt\nb.txt\nSub/")],
            None
        )
    );
    let cut = call(dir.path(), "ls", json!({ "limit": 2 })).await;
    assert_eq!(
        cut,
        ToolOutcome::success(
            vec![text_block(
                "_x\n.dot\n\n[2 entries limit reached. Use limit=4 for more]"
            )],
            Some(json!({ "entryLimitReached": 2 }))
        )
    );
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    assert_eq!(
        call(dir.path(), "ls", json!({ "path": "empty" })).await,
        ToolOutcome::success(vec![text_block("(empty directory)")], None)
    );
    let missing = dir.path().join("missing");
    assert_eq!(
        call(dir.path(), "ls", json!({ "path": "missing" })).await,
        ToolOutcome::error(format!("Path not found: {}", missing.display()))
    );
    assert_eq!(
        call(dir.path(), "ls", json!({ "path": "b.txt" })).await,
        ToolOutcome::error(format!(
            "Not a directory: {}",
            dir.path().join("b.txt").display()
        ))
    );
}

#[tokio::test]
async fn grep_rows_name_the_file_and_line_with_context_rows_marked_apart() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/a.rs", "one\ntwo needle\nthree\n");
    write(dir.path(), "b.txt", "needle\n");
    let rows = call(
        dir.path(),
        "grep",
        json!({ "pattern": "needle", "path": "src" }),
    )
    .await;
    assert_eq!(
        rows,
        ToolOutcome::success(vec![text_block("a.rs:2: two needle")], None)
    );
    let context = call(
        dir.path(),
        "grep",
        json!({ "pattern": "NEEDLE", "ignoreCase": true, "path": "src/a.rs", "context": 1 }),
    )
    .await;
    assert_eq!(
        context,
        ToolOutcome::success(
            vec![text_block("a.rs-1- one\na.rs:2: two needle\na.rs-3- three")],
            None
        )
    );
    assert_eq!(
        call(dir.path(), "grep", json!({ "pattern": "absent" })).await,
        ToolOutcome::success(vec![text_block("No matches found")], None)
    );
    assert_eq!(
        call(dir.path(), "grep", json!({ "pattern": "(" })).await,
        ToolOutcome::error("regex parse error:\n    (\n    ^\nerror: unclosed group")
    );
}

#[tokio::test]
async fn grep_counts_the_limit_and_cuts_long_lines() {
    let dir = tempfile::tempdir().unwrap();
    let lines: String = (1..=4).map(|n| format!("hit {n}\n")).collect();
    write(dir.path(), "f.txt", &lines);
    write(
        dir.path(),
        "long.txt",
        &format!("hit {}\n", "x".repeat(600)),
    );
    let limited = call(
        dir.path(),
        "grep",
        json!({ "pattern": "hit", "path": "f.txt", "limit": 2 }),
    )
    .await;
    assert_eq!(
        limited,
        ToolOutcome::success(
            vec![text_block(
                "f.txt:1: hit 1\nf.txt:2: hit 2\n\n[2 matches limit reached. Use limit=4 for more, or refine pattern]"
            )],
            Some(json!({ "matchLimitReached": 2 }))
        )
    );
    let long = call(
        dir.path(),
        "grep",
        json!({ "pattern": "hit", "path": "long.txt" }),
    )
    .await;
    let row = format!("hit {}", "x".repeat(496));
    assert_eq!(
        long,
        ToolOutcome::success(
            vec![text_block(format!(
                "long.txt:1: {row}... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]"
            ))],
            Some(json!({ "linesTruncated": true }))
        )
    );
}

#[tokio::test]
async fn grep_skips_gitignored_files_only_inside_a_repository_and_find_always() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), ".gitignore", "skip.txt\n");
    write(dir.path(), "skip.txt", "needle\n");
    write(dir.path(), "keep.txt", "needle\n");
    // Outside a repository ripgrep does not read .gitignore; the reference's fd is told to.
    let grep_rows = call(dir.path(), "grep", json!({ "pattern": "needle" })).await;
    let mut rows: Vec<String> = grep_rows.text().lines().map(str::to_string).collect();
    rows.sort();
    assert_eq!(rows, ["keep.txt:1: needle", "skip.txt:1: needle"]);
    assert_eq!(
        call(dir.path(), "find", json!({ "pattern": "*.txt" })).await,
        ToolOutcome::success(vec![text_block("keep.txt")], None)
    );
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    assert_eq!(
        call(dir.path(), "grep", json!({ "pattern": "needle" })).await,
        ToolOutcome::success(vec![text_block("keep.txt:1: needle")], None)
    );
}

#[tokio::test]
async fn find_marks_folders_matches_paths_with_a_slash_and_reports_its_limit() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    write(dir.path(), "src/deep/a.rs", "");
    write(dir.path(), "src/B.RS", "");
    let deep = call(dir.path(), "find", json!({ "pattern": "deep" })).await;
    assert_eq!(
        deep,
        ToolOutcome::success(vec![text_block("src/deep/")], None)
    );
    let mut rows: Vec<String> = call(dir.path(), "find", json!({ "pattern": "*.rs" }))
        .await
        .text()
        .lines()
        .map(str::to_string)
        .collect();
    rows.sort();
    assert_eq!(rows, ["src/B.RS", "src/deep/a.rs"]);
    assert_eq!(
        call(dir.path(), "find", json!({ "pattern": "src/*/*.rs" })).await,
        ToolOutcome::success(vec![text_block("src/deep/a.rs")], None)
    );
    assert_eq!(
        call(dir.path(), "find", json!({ "pattern": "*.RS", "limit": 1 })).await,
        ToolOutcome::success(
            vec![text_block(
                "src/B.RS\n\n[1 results limit reached. Use limit=2 for more, or refine pattern]"
            )],
            Some(json!({ "resultLimitReached": 1 }))
        )
    );
    let missing = dir.path().join("missing");
    assert_eq!(
        call(
            dir.path(),
            "find",
            json!({ "pattern": "x", "path": "missing" })
        )
        .await,
        ToolOutcome::error(format!(
            "[fd error]: Search path '{}' is not a directory.\n[fd error]: No valid search paths given.",
            missing.display()
        ))
    );
}

#[tokio::test]
async fn a_cancelled_search_ends_as_aborted() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", "x\n");
    let mut ctx = ToolContext::new(dir.path());
    ctx.cancel = CancellationToken::new();
    ctx.cancel.cancel();
    for (tool, args) in [
        ("grep", json!({ "pattern": "x" })),
        ("find", json!({ "pattern": "*" })),
        ("ls", json!({})),
    ] {
        let outcome = execute(tool, &args, &ctx, &mut |_| {}).await;
        assert_eq!(outcome, ToolOutcome::error("Operation aborted"), "{tool}");
    }
}
