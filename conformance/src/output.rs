//! What a judging run leaves behind, for `run` and `client` alike: transcripts and
//! `results.json` under the output folder, the summary (or JSON, or JUnit) on stdout, and the
//! comparison with the expected-failure baseline.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::baseline::Baseline;
use crate::report::Judged;
use crate::run::{Outcome, Verdict};
use crate::{report, transcript};

/// Output on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The summary table, then each unexpected failure with its diff.
    Text,
    /// `results.json`'s content.
    Json,
    /// JUnit XML.
    Junit,
}

/// Where and how a run's results go.
#[derive(Debug, Clone)]
pub struct Emit<'a> {
    /// The output folder.
    pub out: &'a Path,
    /// Output on stdout.
    pub format: Format,
    /// The baseline file.
    pub baseline_path: &'a Path,
    /// Rewrite the baseline from this run's failures.
    pub update_baseline: bool,
    /// Where the rewritten baseline goes, when not to `baseline_path`.
    pub rewrite_path: Option<PathBuf>,
    /// The run's wall time and jobs, for the text summary.
    pub wall: Duration,
    /// Jobs the run used.
    pub jobs: usize,
}

/// Errors writing a run's results.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

fn file(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::File {
        path: path.to_owned(),
        source,
    }
}

/// Writes the transcripts and `results.json` of `agent`'s outcomes, prints the summary in the
/// chosen format, updates the baseline if asked; `true` when the run is good (no unexpected
/// failure, no stale baseline entry; always after updating the baseline).
pub fn emit(emit: &Emit<'_>, judged: &Judged, outcomes: &[Outcome]) -> Result<bool, Error> {
    let baseline =
        Baseline::read(emit.baseline_path, judged.release).map_err(file(emit.baseline_path))?;
    for outcome in outcomes.iter().filter(|o| o.verdict.ran()) {
        transcript::write(emit.out, outcome)
            .map_err(file(&transcript::folder(emit.out, outcome)))?;
    }
    let comparison = baseline.compare(outcomes);
    let results = report::json(judged, outcomes, &comparison);
    let results_dir = emit.out.join(&judged.label);
    std::fs::create_dir_all(&results_dir).map_err(file(&results_dir))?;
    let results_path = results_dir.join("results.json");
    std::fs::write(&results_path, &results).map_err(file(&results_path))?;
    match emit.format {
        Format::Text => {
            print!(
                "{}",
                report::summary(outcomes, &comparison, &baseline.entries)
            );
            println!(
                "wall time {:.1}s with {} jobs",
                emit.wall.as_secs_f64(),
                emit.jobs
            );
            // Skipped scenarios passed nothing: say which, and why, once per reason.
            let mut skipped: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
            for outcome in outcomes.iter().filter(|o| o.verdict == Verdict::Skipped) {
                skipped
                    .entry(&outcome.message)
                    .or_default()
                    .push(&outcome.id);
            }
            for (reason, ids) in skipped {
                println!("NOTE: {} skipped ({}): {reason}", ids.len(), ids.join(", "));
            }
            for outcome in outcomes.iter().filter(|o| {
                (o.verdict.ran()
                    && !o.verdict.passed()
                    && !o.outside
                    && !baseline.entries.contains_key(&o.id))
                    || (o.outside && o.verdict.passed())
            }) {
                let cause = outcome.cause.as_ref().map_or(String::new(), |cause| {
                    format!("cause: {}: {}\n", cause.kind.label(), cause.key)
                });
                println!(
                    "\n== {} ({}): {}\n{cause}{}\ntranscript: {}",
                    outcome.id,
                    outcome.verdict.word(),
                    outcome.message,
                    outcome.detail,
                    transcript::folder(emit.out, outcome).display()
                );
            }
        }
        Format::Json => print!("{results}"),
        Format::Junit => print!(
            "{}",
            report::junit(&judged.label, outcomes, &baseline.entries)
        ),
    }
    if emit.update_baseline {
        let path = emit.rewrite_path.as_deref().unwrap_or(emit.baseline_path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(file(parent))?;
        }
        let text = baseline.render_from(&judged.label, &judged.rerun, outcomes);
        std::fs::write(path, text).map_err(file(path))?;
        eprintln!("wrote {}", path.display());
        return Ok(true);
    }
    Ok(comparison.ok())
}

/// Prints progress on stderr: a live line on a terminal, a line per scenario otherwise.
pub struct Progress {
    live: bool,
    counts: BTreeMap<&'static str, usize>,
}

impl Progress {
    /// Progress for the terminal stderr is, or for a log.
    pub fn new() -> Self {
        Self {
            live: std::io::stderr().is_terminal(),
            counts: BTreeMap::new(),
        }
    }

    /// Counts one more outcome, `done` of `total`, and shows it.
    pub fn update(&mut self, outcome: &Outcome, done: usize, total: usize) {
        *self.counts.entry(outcome.verdict.word()).or_default() += 1;
        let counts: Vec<String> = self
            .counts
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let mut err = std::io::stderr().lock();
        if self.live {
            let _ = write!(
                err,
                "\r\x1b[K[{done}/{total}] {} | {} {}",
                counts.join(", "),
                outcome.id,
                outcome.verdict.word()
            );
            if done == total {
                let _ = writeln!(err);
            }
        } else {
            let _ = writeln!(
                err,
                "[{done}/{total}] {} {} ({:.1}s)",
                outcome.id,
                outcome.verdict.word(),
                outcome.duration.as_secs_f64()
            );
        }
    }
}

impl Default for Progress {
    fn default() -> Self {
        Self::new()
    }
}
