//! Pi's own example extensions (the installed reference package's `examples/extensions`), each
//! copied alone into a scratch folder and loaded with `-e` as a pi user keeps them, on the
//! reference and on pi-agent side by side (the two at once, one example after another), each
//! against its own mock model:
//!
//! 1. start-up: whether it loads (answers `get_commands`), the exit code, and stderr until stdin
//!    closes at the end (what an exit writes races with the extension host: shown, not compared);
//! 2. `get_commands`;
//! 3. the tools of the model request that one prompt makes (from the mock's journal);
//! 4. the `Extension CLI Flags:` section of `--help`;
//! 5. each of the example's commands run headless as `/name`, dialogs answered as cancelled,
//!    its records until the answer and a quiet moment; a command that starts a model run or
//!    takes long is not compared (the summary says which).
//!
//! Paths, UUIDs and times are normalised. The test prints a summary table, writes both runs in
//! full to `$CARGO_TARGET_TMPDIR/example_extensions.md`, and fails when an example differs that
//! `tests/example_extensions_known.txt` does not list, or a listed one now matches.
//! `EXAMPLES=overwrite cargo test -p pi-agent --test example_extensions` rewrites that list
//! from the run; `EXAMPLES_ONLY=hello,preset` runs only those examples.
//!
//! Skipped, saying why, without the reference or a Node.js for extensions (a failure when
//! `PI_REQUIRE_REFERENCE` is set).

// The normalising patterns are constants: `expect` on compiling them cannot fail at run time.
#![allow(clippy::expect_used)]

mod example_extensions_support;
mod support;

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use example_extensions_support::compare::{Comparison, TABLE_HEADER};
use example_extensions_support::run::{Program, run};
use example_extensions_support::{examples, known};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pi_agent_runs_pis_example_extensions_as_the_reference_does() -> Result<()> {
    let Some(launcher) = pi_reference::launcher_or_skip("pi's example extensions on pi-agent")
    else {
        return Ok(());
    };
    let Some(node) = pi_reference::or_skip(
        pi_reference::extension_node(),
        "no Node.js for pi-agent's extensions (set PI_AGENT_NODE)",
    ) else {
        return Ok(());
    };
    let folder = pi_reference::package_dir(&launcher, "pi-coding-agent")
        .map(|dir| dir.join("examples/extensions"))
        .filter(|dir| dir.is_dir());
    let Some(folder) = pi_reference::or_skip(folder, "the reference has no examples/extensions")
    else {
        return Ok(());
    };
    let only: Option<Vec<String>> = std::env::var("EXAMPLES_ONLY")
        .ok()
        .map(|names| names.split(',').map(|n| n.trim().to_owned()).collect());
    let overwrite = std::env::var("EXAMPLES").is_ok_and(|v| v == "overwrite");
    assert!(
        !(overwrite && only.is_some()),
        "EXAMPLES=overwrite rewrites the whole list: run it without EXAMPLES_ONLY"
    );

    let install = pi_reference::version_dir(&launcher).context("no install folder")?;
    let reference = Program {
        path: launcher,
        vars: Vec::new(),
        own_paths: vec![(install.display().to_string(), "<pi>")],
    };
    let ours = Program {
        path: PathBuf::from(env!("CARGO_BIN_EXE_pi-agent")),
        vars: vec![("PI_AGENT_NODE".to_owned(), node)],
        own_paths: Vec::new(),
    };

    let started = Instant::now();
    let (theirs, mine) = tokio::join!(run(&reference, None), run(&ours, None));
    let (theirs, mine) = (theirs?, mine?);
    anyhow::ensure!(
        theirs.tools.is_some() && mine.tools.is_some(),
        "without extensions, a prompt must show the tools: reference {theirs:?}, ours {mine:?}"
    );
    let baselines = (theirs.tools, mine.tools);
    let mut comparisons = Vec::new();
    for example in examples(&folder)? {
        if only
            .as_ref()
            .is_some_and(|only| !only.contains(&example.name))
        {
            continue;
        }
        let (theirs, mine) = tokio::join!(
            run(&reference, Some(&example.source)),
            run(&ours, Some(&example.source))
        );
        let theirs = theirs.with_context(|| format!("{} on the reference", example.name))?;
        let mine = mine.with_context(|| format!("{} on pi-agent", example.name))?;
        comparisons.push(Comparison::new(
            &example.name,
            theirs,
            mine,
            (&baselines.0, &baselines.1),
        ));
    }
    let elapsed = started.elapsed();

    println!("{TABLE_HEADER}");
    for comparison in &comparisons {
        println!("{}", comparison.row());
    }
    println!("\nWhat differs:");
    for comparison in comparisons.iter().filter(|c| !c.matches()) {
        println!("- {}: {}", comparison.name, comparison.reason());
    }
    println!("\n{}", totals(&comparisons));
    println!(
        "{} examples in {:.1} s",
        comparisons.len(),
        elapsed.as_secs_f64()
    );
    let report = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("example_extensions.md");
    let details: Vec<String> = comparisons.iter().map(Comparison::details).collect();
    std::fs::write(&report, details.join("\n"))?;
    println!("both runs in full: {}", report.display());

    if overwrite {
        std::fs::write(known::path(), known::render(&comparisons))?;
        println!("rewrote {}", known::path().display());
        return Ok(());
    }
    let problems = known::check(&known::read(), &comparisons, only.is_none());
    assert!(
        problems.is_empty(),
        "{} of {}:\n{}\n(rerun with EXAMPLES=overwrite to rewrite the list from this run)",
        problems.len(),
        known::path().display(),
        problems.join("\n")
    );
    Ok(())
}

/// The counts of the run: examples, those each agent loads, those where each aspect is the
/// same.
fn totals(comparisons: &[Comparison]) -> String {
    use example_extensions_support::compare::Aspect;
    let count = |f: &dyn Fn(&Comparison) -> bool| comparisons.iter().filter(|c| f(c)).count();
    let loaded_by_ref = count(&|c| c.reference.loaded);
    let same = |f: &dyn Fn(&Comparison) -> &Aspect| {
        count(&|c| c.reference.loaded && *f(c) == Aspect::Same)
    };
    format!(
        "examples: {}; loads in the reference: {loaded_by_ref}; in pi-agent: {}; of those the \
         reference loads, the same start-up: {}, commands: {}, tools: {}, flags: {}, headless \
         records: {} (of {} with commands to run); matching in every aspect: {}",
        comparisons.len(),
        count(&|c| c.ours.loaded),
        same(&|c| &c.loads),
        same(&|c| &c.commands),
        same(&|c| &c.tools),
        same(&|c| &c.flags),
        same(&|c| &c.headless),
        count(&|c| c.reference.loaded && c.headless != Aspect::NotCompared),
        count(&|c| c.reference.loaded && c.matches()),
    )
}
