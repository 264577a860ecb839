//! The termination matrix: each phase of a run (after the answer; after tool calls and the
//! answer; after a provider error that is not retried; a stalled provider before the first
//! byte; mid-text; mid tool-call arguments; during a tool; in the retry wait; after the retries
//! ran out; after a stalled stream timed out; in a threshold, a `compact` or an overflow
//! compaction; an extension command's dialog) crossed with what the client does (closing stdin,
//! aborting then closing stdin, SIGTERM, SIGHUP, SIGINT, closing stdout, sending more prompts),
//! on pi-agent and on the reference side by side. For each cell: the exit code, the
//! `agent_settled` after the last `agent_end` the client read, whether the session file holds
//! every acknowledged prompt, whether both agents load the file back, and whether the phase's
//! process (the tool's, the extension's) outlived the agent (termination_support/).
//!
//! pi-agent must give the contract below in every cell; the reference must give it too, except
//! in the cells listed in `REFERENCE_DIVERGES` (with the reason). The table in
//! docs/src/termination.md is this run's; `TERMINATION=overwrite` rewrites it. Without the
//! reference only pi-agent is checked (a failure when `PI_REQUIRE_REFERENCE` is set).
//! `TERMINATION_ONLY` and `TERMINATION_ACTIONS` run the phases and actions whose names hold
//! their text; `TERMINATION_RELEASE=0.85.0` (with `PI_REFERENCE` at that release's launcher)
//! runs pi-agent speaking that release, to compare by hand (the contract is 0.84.1's).

mod support;
mod termination_support;

use std::path::PathBuf;

use anyhow::{Context, Result};
use termination_support::{Action, Loads, Outcome, Phase, loaded_by, run_cell};

/// What every cell must give on pi-agent (`loads`: by both agents, or by pi-agent alone when
/// the reference is not run).
fn contract(phase: Phase, action: Action, loads: &str) -> Outcome {
    let exit = match action {
        Action::StdinEof | Action::Abort | Action::StdoutClosed | Action::MorePrompts => "0",
        Action::Term => "143",
        Action::Hup => "129",
        Action::Int => "130",
    };
    let settled = match (phase, action) {
        (_, Action::StdoutClosed) => "-",
        // Every prompt acknowledged is answered, and the last run settles once.
        (_, Action::MorePrompts) => "1",
        // Before 0.85.0 `abort` does not reach a compaction: it waits for it, and the end of
        // stdin ends the agent first (pi-agent gives the abort 5 s to be answered).
        (Phase::ThresholdCompaction | Phase::Overflow, Action::Abort) => "0: in a compaction",
        // The run, or the retry wait, ends with one `agent_settled`.
        (_, Action::Abort) => "1",
        // What the client read last was the settled run before.
        (
            Phase::Idle
            | Phase::ToolsAnswered
            | Phase::ProviderError
            | Phase::RetryExhausted
            | Phase::IdleTimeout
            | Phase::ManualCompaction
            | Phase::ExtensionCommand,
            _,
        ) => "1",
        // The `agent_end` said `willRetry: true`; the exit is the end.
        (Phase::RetryWait, _) => "0: in the retry wait",
        // The compaction after the `agent_end` runs before `agent_settled`.
        (Phase::ThresholdCompaction | Phase::Overflow, _) => "0: in a compaction",
        // Ended mid-run: the client reads no `agent_end`; the exit is the end.
        _ => "no agent_end",
    };
    Outcome {
        exit: exit.to_owned(),
        settled: settled.to_owned(),
        prompt_kept: true,
        loads: loads.to_owned(),
        left_behind: false,
    }
}

/// Where the reference 0.84.1 departs from the contract, and why: in the cells of these phases
/// (none: every phase) and these actions (none: every action).
const REFERENCE_DIVERGES: &[(&[Phase], &[Action], &str)] = &[
    (
        &[],
        &[Action::Int],
        "no SIGINT handler in RPC mode: Node dies of the signal (exit by signal 2)",
    ),
    (
        &[],
        &[Action::StdoutClosed],
        "the write to the closed stdout throws (EPIPE) and Node exits with 1",
    ),
    (
        &[Phase::FirstByte, Phase::MidText, Phase::MidToolArgs],
        &[
            Action::StdinEof,
            Action::Term,
            Action::Hup,
            Action::Int,
            Action::StdoutClosed,
        ],
        "a new session's file is written at its first assistant message (until 0.99.1): the acknowledged prompt is lost, and there is no file to load",
    ),
    (
        &[Phase::ToolsAnswered],
        &[],
        "it does not end what a bash command that returned left running in the background (`sleep 30 &`)",
    ),
    (
        &[Phase::Tool],
        &[Action::Int],
        "dead of the signal, it kills nothing: the tool's process group lives on",
    ),
    (
        &[Phase::Tool],
        &[Action::Abort],
        "at stdin's end it exits once its runtime is disposed, while the abort still waits for the killed tool's process to close: the run's agent_end is never written",
    ),
    (
        &[Phase::Tool],
        &[Action::StdoutClosed],
        "it exits on the EPIPE error without killing the running tool's process group",
    ),
];

fn reference_diverges(phase: Phase, action: Action) -> Vec<&'static str> {
    REFERENCE_DIVERGES
        .iter()
        .filter(|(phases, actions, _)| {
            (phases.is_empty() || phases.contains(&phase))
                && (actions.is_empty() || actions.contains(&action))
        })
        .map(|(_, _, reason)| *reason)
        .collect()
}

const BEGIN: &str = "<!-- termination matrix: begin -->";
const END: &str = "<!-- termination matrix: end -->";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_way_a_run_ends_on_both_agents() -> Result<()> {
    let ours = PathBuf::from(env!("CARGO_BIN_EXE_pi-agent"));
    let reference = pi_reference::launcher_or_skip("the termination matrix on the reference");
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    // `TERMINATION_ONLY=retry` runs the phases whose names hold the text, `TERMINATION_ACTIONS`
    // the actions (no docs check then).
    let only = std::env::var("TERMINATION_ONLY").ok();
    let only_actions = std::env::var("TERMINATION_ACTIONS").ok();
    let phases = Phase::ALL.into_iter().filter(|phase| {
        only.as_ref()
            .is_none_or(|text| phase.name().contains(text.as_str()))
    });
    let started = std::time::Instant::now();
    let loads = Loads::default();
    for phase in phases {
        for action in Action::ALL.into_iter().filter(|action| {
            action.crosses(phase)
                && only_actions
                    .as_ref()
                    .is_none_or(|text| action.name().contains(text.as_str()))
        }) {
            let expected = contract(
                phase,
                action,
                if reference.is_some() {
                    "both"
                } else {
                    "pi-agent"
                },
            );
            let (mut mine, my_files) = run_cell(&ours, phase, action)
                .await
                .with_context(|| format!("pi-agent, {} / {}", phase.name(), action.name()))?;
            let mut theirs = match &reference {
                Some(launcher) => {
                    Some(run_cell(launcher, phase, action).await.with_context(|| {
                        format!("reference, {} / {}", phase.name(), action.name())
                    })?)
                }
                None => None,
            };
            // Each agent's files loaded back in both agents, at once.
            let (loads, reference) = (&loads, &reference);
            let in_reference = |written| async move {
                match reference {
                    Some(launcher) => loads.of(launcher, written).await.map(Some),
                    None => Ok(None),
                }
            };
            let their_files = theirs.as_ref().map(|(_, files)| files);
            let (mine_ours, mine_theirs, theirs_ours, theirs_theirs) = tokio::join!(
                loads.of(&ours, &my_files),
                in_reference(&my_files),
                async {
                    match their_files {
                        Some(files) => loads.of(&ours, files).await,
                        None => Ok(None),
                    }
                },
                async {
                    match their_files {
                        Some(files) => in_reference(files).await.map(Option::flatten),
                        None => Ok(None),
                    }
                },
            );
            mine.loads = loaded_by(mine_ours?, mine_theirs?);
            let (theirs_ours, theirs_theirs) = (theirs_ours?, theirs_theirs?);
            let theirs = theirs.take().map(|(mut outcome, _)| {
                outcome.loads = loaded_by(theirs_ours, Some(theirs_theirs));
                outcome
            });
            if mine != expected {
                failures.push(format!(
                    "pi-agent, {} / {}: {} (the contract: {})",
                    phase.name(),
                    action.name(),
                    mine.cells(),
                    expected.cells()
                ));
            }
            let reasons = reference_diverges(phase, action);
            if let Some(theirs) = &theirs {
                match (theirs == &expected, reasons.is_empty()) {
                    (false, true) => failures.push(format!(
                        "reference, {} / {}: {} departs from the contract ({}) unlisted",
                        phase.name(),
                        action.name(),
                        theirs.cells(),
                        expected.cells()
                    )),
                    (true, false) => failures.push(format!(
                        "reference, {} / {}: listed as diverging, but it keeps the contract",
                        phase.name(),
                        action.name()
                    )),
                    _ => {}
                }
            }
            let theirs = theirs.map_or_else(|| "not run".to_owned(), |o| o.cells());
            println!(
                "{} / {}: pi-agent {}; reference {} ({:.0?})",
                phase.name(),
                action.name(),
                mine.cells(),
                theirs,
                started.elapsed()
            );
            rows.push(format!(
                "| {} | {} | {} | {} | {} |",
                phase.name(),
                action.name(),
                mine.cells(),
                theirs,
                reasons.join("; ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    if reference.is_some() && only.is_none() && only_actions.is_none() {
        check_docs_table(&rows)?;
    }
    Ok(())
}

/// The docs' table is this run's (rewritten with `TERMINATION=overwrite`).
fn check_docs_table(rows: &[String]) -> Result<()> {
    let header = "| phase | the client | pi-agent: exit | settled | prompt | loads | processes | reference: exit | settled | prompt | loads | processes | why the reference differs |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|";
    let table = format!("{BEGIN}\n{header}\n{}\n{END}", rows.join("\n"));
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../docs/src/termination.md");
    let page = std::fs::read_to_string(&path).context("docs/src/termination.md")?;
    let (Some(start), Some(end)) = (page.find(BEGIN), page.find(END)) else {
        anyhow::bail!("docs/src/termination.md has no {BEGIN} ... {END} section");
    };
    let current = &page[start..end + END.len()];
    if std::env::var("TERMINATION").is_ok_and(|value| value == "overwrite") {
        std::fs::write(&path, page.replacen(current, &table, 1))?;
        return Ok(());
    }
    assert_eq!(
        current, table,
        "docs/src/termination.md's table is not this run's; rerun with TERMINATION=overwrite"
    );
    Ok(())
}
