//! The edit tool on real files, against results taken from the reference pi 0.84.1.
#![allow(clippy::unwrap_used)] // helpers of tests, outside #[test] functions

use std::path::Path;

use pi_agent::tools::{ToolContext, ToolOutcome, execute, text_block};
use serde_json::{Value, json};

async fn edit(dir: &Path, args: Value) -> ToolOutcome {
    execute("edit", &args, &ToolContext::new(dir), &mut |_| {
        panic!("edit does not stream")
    })
    .await
}

fn one(path: &str, old_text: &str, new_text: &str) -> Value {
    json!({ "path": path, "edits": [{ "oldText": old_text, "newText": new_text }] })
}

fn code() -> String {
    (1..=30).map(|n| format!("fn f{n}() {{}}\n")).collect()
}

#[tokio::test]
async fn several_edits_apply_together_with_a_numbered_diff_and_a_patch() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("code.rs"), code()).unwrap();
    let args = json!({ "path": "code.rs", "edits": [
        { "oldText": "fn f2() {}", "newText": "fn two() {}" },
        { "oldText": "fn f20() {}", "newText": "" },
        { "oldText": "fn f29() {}\nfn f30() {}\n", "newText": "fn end() {}\n" }
    ] });
    let outcome = edit(dir.path(), args).await;
    let diff = "  1 fn f1() {}\n- 2 fn f2() {}\n+ 2 fn two() {}\n  3 fn f3() {}\n  4 fn f4() {}\n  5 fn f5() {}\n  6 fn f6() {}\n    ...\n 16 fn f16() {}\n 17 fn f17() {}\n 18 fn f18() {}\n 19 fn f19() {}\n-20 fn f20() {}\n+20 \n 21 fn f21() {}\n 22 fn f22() {}\n 23 fn f23() {}\n 24 fn f24() {}\n 25 fn f25() {}\n 26 fn f26() {}\n 27 fn f27() {}\n 28 fn f28() {}\n-29 fn f29() {}\n-30 fn f30() {}\n+29 fn end() {}";
    let patch = "--- code.rs\n+++ code.rs\n@@ -1,6 +1,6 @@\n fn f1() {}\n-fn f2() {}\n+fn two() {}\n fn f3() {}\n fn f4() {}\n fn f5() {}\n fn f6() {}\n@@ -16,15 +16,14 @@\n fn f16() {}\n fn f17() {}\n fn f18() {}\n fn f19() {}\n-fn f20() {}\n+\n fn f21() {}\n fn f22() {}\n fn f23() {}\n fn f24() {}\n fn f25() {}\n fn f26() {}\n fn f27() {}\n fn f28() {}\n-fn f29() {}\n-fn f30() {}\n+fn end() {}\n";
    assert_eq!(
        outcome,
        ToolOutcome::success(
            vec![text_block("Successfully replaced 3 block(s) in code.rs.")],
            Some(json!({ "diff": diff, "patch": patch, "firstChangedLine": 2 }))
        )
    );
    let written = std::fs::read_to_string(dir.path().join("code.rs")).unwrap();
    let expected = code()
        .replace("fn f2() {}", "fn two() {}")
        .replace("fn f20() {}", "")
        .replace("fn f29() {}\nfn f30() {}\n", "fn end() {}\n");
    assert_eq!(written, expected);
}

#[tokio::test]
async fn line_endings_and_byte_order_mark_survive_and_legacy_arguments_work() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("crlf.txt");
    std::fs::write(&file, b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n").unwrap();
    let args = json!({ "path": "crlf.txt", "oldText": "two\nthree", "newText": "2\n3" });
    let outcome = edit(dir.path(), args).await;
    assert_eq!(
        outcome.details,
        Some(json!({
            "diff": " 1 one\n-2 two\n-3 three\n+2 2\n+3 3",
            "patch": "--- crlf.txt\n+++ crlf.txt\n@@ -1,3 +1,3 @@\n one\n-two\n-three\n+2\n+3\n",
            "firstChangedLine": 2
        }))
    );
    assert_eq!(
        std::fs::read(&file).unwrap(),
        b"\xef\xbb\xbfone\r\n2\r\n3\r\n"
    );
}

#[tokio::test]
async fn text_that_is_not_there_or_not_unique_is_refused_and_the_file_kept() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("dup.txt");
    std::fs::write(&file, "same\nother\nsame\n").unwrap();
    assert_eq!(
        edit(dir.path(), one("dup.txt", "absent", "x")).await,
        ToolOutcome::error(
            "Could not find the exact text in dup.txt. The old text must match exactly including \
             all whitespace and newlines."
        )
    );
    assert_eq!(
        edit(dir.path(), one("dup.txt", "same", "x")).await,
        ToolOutcome::error(
            "Found 2 occurrences of the text in dup.txt. The text must be unique. Please provide \
             more context to make it unique."
        )
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "same\nother\nsame\n"
    );
}

#[tokio::test]
async fn errors_of_several_edits_name_the_edit() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.txt"), "line1\nline2\nline3\n").unwrap();
    let overlap = json!({ "path": "small.txt", "edits": [
        { "oldText": "line1\nline2", "newText": "a" },
        { "oldText": "line2\nline3", "newText": "b" }
    ] });
    assert_eq!(
        edit(dir.path(), overlap).await,
        ToolOutcome::error(
            "edits[0] and edits[1] overlap in small.txt. Merge them into one edit or target \
             disjoint regions."
        )
    );
    let missing = json!({ "path": "small.txt", "edits": [
        { "oldText": "line1", "newText": "a" },
        { "oldText": "nope", "newText": "b" }
    ] });
    assert_eq!(
        edit(dir.path(), missing).await,
        ToolOutcome::error(
            "Could not find edits[1] in small.txt. The oldText must match exactly including all \
             whitespace and newlines."
        )
    );
}

#[tokio::test]
async fn empty_and_unchanged_replacements_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("small.txt"), "line1\nline2\n").unwrap();
    assert_eq!(
        edit(dir.path(), one("small.txt", "", "x")).await,
        ToolOutcome::error("oldText must not be empty in small.txt.")
    );
    assert_eq!(
        edit(dir.path(), one("small.txt", "line2", "line2")).await,
        ToolOutcome::error(
            "No changes made to small.txt. The replacement produced identical content. This might \
             indicate an issue with special characters or the text not existing as expected."
        )
    );
    assert_eq!(
        edit(dir.path(), json!({ "path": "small.txt", "edits": [] })).await,
        ToolOutcome::error(
            "Edit tool input is invalid. edits must contain at least one replacement."
        )
    );
}

#[tokio::test]
async fn a_missing_file_reports_its_error_code() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        edit(dir.path(), one("missing.txt", "a", "b")).await,
        ToolOutcome::error("Could not edit file: missing.txt. Error code: ENOENT.")
    );
}

#[tokio::test]
async fn typographic_quotes_and_trailing_spaces_match_plain_text() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("fuzzy.txt");
    std::fs::write(&file, "say \u{201c}hi\u{201d}   \nkeep \u{2014} this\n").unwrap();
    let outcome = edit(dir.path(), one("fuzzy.txt", "say \"hi\"", "say \"bye\"")).await;
    assert_eq!(
        outcome.text(),
        "Successfully replaced 1 block(s) in fuzzy.txt."
    );
    // The untouched line keeps its dash.
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "say \"bye\"\nkeep \u{2014} this\n"
    );
}

#[tokio::test]
async fn edits_sent_as_json_text_are_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("e.txt");
    std::fs::write(&file, "smile 😀\n").unwrap();
    let args = json!({ "path": "e.txt", "edits": "[{\"oldText\":\"😀\",\"newText\":\"🙂\"}]" });
    assert!(!edit(dir.path(), args).await.is_error);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "smile 🙂\n");
}

#[tokio::test]
async fn concurrent_edits_of_one_file_all_land() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("code.rs");
    std::fs::write(&file, code()).unwrap();
    let ctx = ToolContext::new(dir.path());
    let calls = (1..=10).map(|n| {
        let args = one(
            "code.rs",
            &format!("fn f{n}() {{}}"),
            &format!("fn g{n}() {{}}"),
        );
        let ctx = &ctx;
        async move { execute("edit", &args, ctx, &mut |_| {}).await }
    });
    let outcomes = futures_join_all(calls).await;
    assert!(
        outcomes.iter().all(|outcome| !outcome.is_error),
        "{outcomes:?}"
    );
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(
        (1..=10).all(|n| written.contains(&format!("fn g{n}() {{}}\n"))),
        "{written}"
    );
}

/// Runs the futures concurrently on this task and collects their outputs in order.
async fn futures_join_all<F: std::future::Future>(
    futures: impl Iterator<Item = F>,
) -> Vec<F::Output> {
    let mut set = Vec::new();
    for future in futures {
        set.push(Box::pin(future));
    }
    let mut outputs: Vec<Option<F::Output>> = set.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (index, future) in set.iter_mut().enumerate() {
            if outputs[index].is_none() {
                match future.as_mut().poll(cx) {
                    std::task::Poll::Ready(output) => outputs[index] = Some(output),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    outputs.into_iter().map(Option::unwrap).collect()
}
