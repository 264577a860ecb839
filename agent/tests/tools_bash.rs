//! The bash tool with real processes, against results taken from the reference pi 0.84.1.
#![allow(clippy::unwrap_used)] // helpers of tests, outside #[test] functions

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pi_agent::tools::{ToolContent, ToolContext, ToolOutcome, ToolUpdate, execute, text_block};
use serde_json::{Value, json};

struct Run {
    outcome: ToolOutcome,
    updates: Vec<ToolUpdate>,
}

async fn bash_with(ctx: &ToolContext, args: Value) -> Run {
    let updates: Arc<Mutex<Vec<ToolUpdate>>> = Arc::default();
    let sink = Arc::clone(&updates);
    let mut on_update = move |update: ToolUpdate| sink.lock().unwrap().push(update);
    let outcome = execute("bash", &args, ctx, &mut on_update).await;
    let updates = updates.lock().unwrap().clone();
    Run { outcome, updates }
}

async fn bash(command: &str) -> Run {
    let dir = tempfile::tempdir().unwrap();
    bash_with(&ToolContext::new(dir.path()), json!({ "command": command })).await
}

/// The outcome as the 0.84.1 records show it, without the data later releases add.
fn without_data(outcome: ToolOutcome) -> ToolOutcome {
    ToolOutcome {
        structured: None,
        ..outcome
    }
}

#[tokio::test]
async fn output_comes_back_with_a_first_empty_update_and_the_accumulated_output() {
    let run = bash("echo hi").await;
    assert_eq!(
        (
            &run.outcome.content,
            &run.outcome.details,
            run.outcome.is_error
        ),
        (&vec![text_block("hi\n")], &None, false)
    );
    let structured = run.outcome.structured.as_ref().unwrap();
    assert_eq!(structured.value["output"], json!("hi\n"));
    assert_eq!(structured.value["exit_code"], json!(0));
    let updates: Vec<Value> = run
        .updates
        .iter()
        .map(|u| serde_json::to_value(u).unwrap())
        .collect();
    assert_eq!(
        updates,
        vec![
            json!({ "content": [] }),
            json!({ "content": [{ "type": "text", "text": "hi\n" }], "details": {} })
        ]
    );
}

#[tokio::test]
async fn a_silent_command_says_no_output() {
    let run = bash("true").await;
    assert_eq!(run.outcome.text(), "(no output)");
    assert!(!run.outcome.is_error);
    assert_eq!(run.updates.len(), 1);
}

#[tokio::test]
async fn a_failing_command_is_an_error_with_its_exit_code_after_the_output() {
    let failed = bash("exit 3").await.outcome;
    assert_eq!(
        failed.structured.as_ref().unwrap().value["exit_code"],
        json!(3)
    );
    assert_eq!(
        without_data(failed),
        ToolOutcome::error("(no output)\n\nCommand exited with code 3")
    );
    assert_eq!(
        without_data(bash("echo out; echo err >&2; exit 2").await.outcome),
        ToolOutcome::error("out\nerr\n\n\nCommand exited with code 2")
    );
}

#[tokio::test]
async fn a_command_killed_by_a_signal_counts_as_success() {
    let run = bash("kill -9 $$").await;
    assert_eq!(
        without_data(run.outcome),
        ToolOutcome::success(vec![text_block("(no output)")], None)
    );
}

#[tokio::test]
async fn output_is_passed_on_undecorated_except_for_invalid_utf8() {
    let run = bash(r"printf '\033[31mred\033[0m \xff\xfe end'").await;
    assert_eq!(
        run.outcome.text(),
        "\u{1b}[31mred\u{1b}[0m \u{fffd}\u{fffd} end"
    );
}

#[tokio::test]
async fn the_command_runs_in_the_working_folder() {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().canonicalize().unwrap();
    let run = bash_with(&ToolContext::new(&cwd), json!({ "command": "pwd" })).await;
    assert_eq!(run.outcome.text(), format!("{}\n", cwd.display()));
}

#[tokio::test]
async fn a_missing_working_folder_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("gone");
    let run = bash_with(&ToolContext::new(&gone), json!({ "command": "true" })).await;
    assert_eq!(
        run.outcome,
        ToolOutcome::error(format!(
            "Working directory does not exist: {}\nCannot execute bash commands.",
            gone.display()
        ))
    );
}

#[tokio::test]
async fn a_timeout_stops_the_command_and_keeps_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path());
    let run = bash_with(
        &ctx,
        json!({ "command": "echo started; sleep 10", "timeout": 0.3 }),
    )
    .await;
    assert_eq!(
        run.outcome,
        ToolOutcome::error("started\n\n\nCommand timed out after 0.3 seconds")
    );
}

#[tokio::test]
async fn timeouts_must_be_positive_and_below_the_timer_limit() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path());
    let zero = bash_with(&ctx, json!({ "command": "echo x", "timeout": 0 })).await;
    assert_eq!(
        zero.outcome,
        ToolOutcome::error("Invalid timeout: must be a finite number of seconds")
    );
    let huge = bash_with(&ctx, json!({ "command": "echo x", "timeout": 3_000_000 })).await;
    assert_eq!(
        huge.outcome,
        ToolOutcome::error("Invalid timeout: maximum is 2147483.647 seconds")
    );
}

#[tokio::test]
async fn cancelling_kills_the_whole_process_group_and_says_command_aborted() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path());
    let marker = dir.path().join("survived");
    let command = format!(
        "(sleep 0.3; touch {}) & echo begun; sleep 10",
        marker.display()
    );
    let cancel = ctx.cancel.clone();
    let updates: Arc<Mutex<Vec<ToolUpdate>>> = Arc::default();
    let sink = Arc::clone(&updates);
    // Cancel as soon as the first output arrives: no timing guess.
    let mut on_update = move |update: ToolUpdate| {
        if !update.content.is_empty() {
            cancel.cancel();
        }
        sink.lock().unwrap().push(update);
    };
    let outcome = execute("bash", &json!({ "command": command }), &ctx, &mut on_update).await;
    assert_eq!(outcome, ToolOutcome::error("begun\n\n\nCommand aborted"));
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    assert!(
        !marker.exists(),
        "a child of the aborted command kept running"
    );
}

#[tokio::test]
async fn dropping_a_running_call_kills_its_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path());
    let marker = dir.path().join("survived");
    let command = format!("(sleep 0.3; touch {}) & echo begun; wait", marker.display());
    let (started_tx, started_rx) = tokio::sync::oneshot::channel();
    let mut started = Some(started_tx);
    let mut on_update = move |update: ToolUpdate| {
        if !update.content.is_empty()
            && let Some(started) = started.take()
        {
            let _ = started.send(());
        }
    };
    let args = json!({ "command": command });
    let call = execute("bash", &args, &ctx, &mut on_update);
    tokio::select! {
        _ = call => panic!("the command finished before it was dropped"),
        _ = started_rx => {}
    }
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    assert!(!marker.exists(), "the dropped command kept running");
}

#[tokio::test]
async fn a_run_cancelled_before_it_starts_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path());
    ctx.cancel.cancel();
    let marker = dir.path().join("ran");
    let run = bash_with(
        &ctx,
        json!({ "command": format!("touch {}", marker.display()) }),
    )
    .await;
    assert_eq!(run.outcome, ToolOutcome::error("Command aborted"));
    assert!(!marker.exists());
}

#[tokio::test]
async fn background_children_holding_the_pipes_do_not_hold_up_the_result() {
    let run = bash("(sleep 3; echo late) & echo early").await;
    assert_eq!(run.outcome.text(), "early\n");
}

#[tokio::test]
async fn long_output_keeps_the_last_lines_and_the_whole_in_a_log_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = ToolContext::new(dir.path());
    let logs = tempfile::tempdir().unwrap();
    ctx.temp_dir = Some(logs.path().to_path_buf());
    let run = bash_with(&ctx, json!({ "command": "seq 1 3000" })).await;
    let details = run.outcome.details.clone().unwrap();
    let log = PathBuf::from(details["fullOutputPath"].as_str().unwrap());
    assert_eq!(log.parent(), Some(logs.path()));
    let name = log.file_name().unwrap().to_str().unwrap();
    assert!(
        name.starts_with("pi-bash-") && name.ends_with(".log") && name.len() == 28,
        "{name}"
    );
    let all: String = (1..=3000).map(|n| format!("{n}\n")).collect();
    assert_eq!(std::fs::read_to_string(&log).unwrap(), all);
    let kept: String = (1001..=3000).map(|n| format!("{n}\n")).collect();
    let kept = kept.trim_end();
    assert_eq!(
        run.outcome.text(),
        format!(
            "{kept}\n\n[Showing lines 1001-3000 of 3000. Full output: {}]",
            log.display()
        )
    );
    assert_eq!(
        details,
        json!({
            "truncation": {
                "content": kept,
                "truncated": true,
                "truncatedBy": "lines",
                "totalLines": 3000,
                "totalBytes": 13893,
                "outputLines": 2000,
                "outputBytes": 9999,
                "lastLinePartial": false,
                "firstLineExceedsLimit": false,
                "maxLines": 2000,
                "maxBytes": 51200
            },
            "fullOutputPath": log.display().to_string()
        })
    );
}

#[tokio::test]
async fn one_huge_line_keeps_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = ToolContext::new(dir.path());
    ctx.temp_dir = Some(dir.path().to_path_buf());
    let command = r"head -c 60000 /dev/zero | tr '\0' a";
    let run = bash_with(&ctx, json!({ "command": command })).await;
    let text = run.outcome.text();
    let log = run.outcome.details.as_ref().unwrap()["fullOutputPath"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        text,
        format!(
            "{}\n\n[Showing last 50.0KB of line 1 (line is 58.6KB). Full output: {log}]",
            "a".repeat(51200)
        )
    );
}

#[tokio::test]
async fn the_agent_bin_folder_comes_first_on_path_and_session_variables_are_set() {
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = ToolContext::new(dir.path());
    ctx.agent_dir = Some(PathBuf::from("/opt/pi-agent-dir"));
    ctx.bash_env = vec![("PI_SESSION_ID".into(), "session-1".into())];
    let run = bash_with(
        &ctx,
        json!({ "command": "echo \"${PATH%%:*} $PI_SESSION_ID\"" }),
    )
    .await;
    assert_eq!(run.outcome.text(), "/opt/pi-agent-dir/bin session-1\n");
}

#[tokio::test]
async fn a_command_prefix_runs_first() {
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = ToolContext::new(dir.path());
    ctx.shell_command_prefix = Some("GREETING=hello".into());
    let run = bash_with(&ctx, json!({ "command": "echo $GREETING" })).await;
    assert_eq!(run.outcome.text(), "hello\n");
}

#[tokio::test]
async fn a_missing_custom_shell_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = ToolContext::new(dir.path());
    ctx.shell_path = Some(PathBuf::from("/nonexistent/shell"));
    let run = bash_with(&ctx, json!({ "command": "true" })).await;
    assert_eq!(
        run.outcome,
        ToolOutcome::error("Custom shell path not found: /nonexistent/shell")
    );
}

#[tokio::test]
async fn streamed_updates_accumulate_the_output() {
    let run = bash("echo one; sleep 0.3; echo two").await;
    let texts: Vec<String> = run
        .updates
        .iter()
        .map(|update| match update.content.first() {
            Some(ToolContent::Text { text }) => text.clone(),
            _ => String::new(),
        })
        .collect();
    assert_eq!(texts, vec!["", "one\n", "one\ntwo\n"]);
}
