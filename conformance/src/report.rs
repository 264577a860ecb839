//! Reports: the summary table, JSON and JUnit for CI; the HTML and Markdown matrix (scenario by
//! agent and release) is in [`matrix`].

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::json;

use crate::agent::AgentCommand;
use crate::baseline::Comparison;
use crate::release::Version;
use crate::run::{Outcome, Verdict};

const VERDICTS: [Verdict; 8] = [
    Verdict::Pass,
    Verdict::NonStrict,
    Verdict::Fail,
    Verdict::Unimplemented,
    Verdict::Error,
    Verdict::Timeout,
    Verdict::NotApplicable,
    Verdict::Skipped,
];

/// Counts per verdict, `pass 3, fail 1`.
pub fn counts(outcomes: &[Outcome]) -> String {
    VERDICTS
        .iter()
        .filter_map(|v| {
            let n = outcomes.iter().filter(|o| o.verdict == *v).count();
            (n > 0).then(|| format!("{} {n}", v.word()))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn one_line(text: &str, max: usize) -> String {
    let line = text.replace('\n', " ");
    if line.chars().count() > max {
        line.chars().take(max.saturating_sub(3)).collect::<String>() + "..."
    } else {
        line
    }
}

/// The summary table printed after a run.
pub fn summary(
    outcomes: &[Outcome],
    comparison: &Comparison,
    baseline: &BTreeMap<String, String>,
) -> String {
    let width = outcomes
        .iter()
        .map(|o| o.id.len())
        .max()
        .unwrap_or(2)
        .max(8);
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{:width$}  {:13}  {:>6}  note",
        "scenario", "verdict", "time"
    );
    for o in outcomes {
        let note = match baseline.get(&o.id) {
            _ if o.outside && o.verdict.passed() => {
                "PASSES outside its releases: widen its `releases` range".to_owned()
            }
            _ if o.outside => format!("(outside its releases: {})", one_line(&o.message, 80)),
            Some(reason) if !o.verdict.passed() => format!("(baseline: {reason})"),
            Some(_) if o.verdict.ran() => "STALE baseline entry: it passes now".to_owned(),
            _ => one_line(&o.message, 100),
        };
        let _ = writeln!(
            text,
            "{:width$}  {:13}  {:>5.1}s  {note}",
            o.id,
            o.verdict.word(),
            o.duration.as_secs_f64()
        );
    }
    let _ = writeln!(text, "\n{} scenarios: {}", outcomes.len(), counts(outcomes));
    if !comparison.expected.is_empty() {
        let _ = writeln!(
            text,
            "expected failures (baseline): {}",
            comparison.expected.len()
        );
    }
    if !comparison.unexpected.is_empty() {
        let _ = writeln!(
            text,
            "UNEXPECTED failures: {}",
            comparison.unexpected.join(", ")
        );
    }
    let causes = causes::of_outcomes(outcomes);
    if !causes.is_empty() {
        let _ = writeln!(text, "failures by cause:\n{}", causes::text(&causes, 3));
    }
    if !comparison.stale.is_empty() {
        let _ = writeln!(
            text,
            "STALE baseline entries (they pass now): {}",
            comparison.stale.join(", ")
        );
    }
    if !comparison.outside_failing.is_empty() {
        let _ = writeln!(
            text,
            "failing outside their releases, as they should: {}",
            comparison.outside_failing.len()
        );
    }
    if !comparison.outside_passing.is_empty() {
        let _ = writeln!(
            text,
            "PASSING outside their releases (ranges too narrow): {}",
            comparison.outside_passing.join(", ")
        );
    }
    text
}

/// Whose outcomes a run judged: an agent speaking a release, or a client.
#[derive(Debug, Clone)]
pub struct Judged {
    /// What results, transcripts and baselines are keyed by (`reference@1.6.0`, `client`).
    pub label: String,
    /// The agent's or client's name (`reference`, `client`).
    pub name: String,
    /// The release the agent speaks (a client's run: the default release).
    pub release: Version,
    /// The arguments that rerun it, for the baseline's header (`run --agent ours@1.6.0`).
    pub rerun: String,
}

impl Judged {
    /// An agent: keyed by its name and release.
    pub fn agent(agent: &AgentCommand) -> Self {
        let spec = if agent.name == "custom" {
            format!("'...' --release {}", agent.release)
        } else {
            agent.label()
        };
        Self {
            label: agent.label(),
            name: agent.name.clone(),
            release: agent.release,
            rerun: format!("run --agent {spec}"),
        }
    }

    /// A client, driving an agent speaking `release`: keyed by its name.
    pub fn client(name: &str, release: Version) -> Self {
        Self {
            label: name.to_owned(),
            name: name.to_owned(),
            release,
            rerun: format!("client --name {name}"),
        }
    }
}

/// The machine-readable result of a run.
pub fn json(judged: &Judged, outcomes: &[Outcome], comparison: &Comparison) -> String {
    let value = json!({
        "agent": judged.label,
        "name": judged.name,
        "release": judged.release.to_string(),
        "ok": comparison.ok(),
        "unexpected": comparison.unexpected,
        "stale": comparison.stale,
        "expectedFailures": comparison.expected,
        "outsidePassing": comparison.outside_passing,
        "scenarios": outcomes.iter().map(|o| json!({
            "id": o.id,
            "title": o.title,
            "file": o.file.display().to_string(),
            "verdict": o.verdict,
            "outside": o.outside,
            "message": o.message,
            "detail": o.detail,
            "nonStrict": o.non_strict,
            "tags": o.tags,
            "cause": o.cause,
            "firstDifference": o.first_difference,
            "seconds": o.duration.as_secs_f64(),
        })).collect::<Vec<_>>(),
    });
    serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
}

fn xml(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        .collect::<String>()
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// JUnit XML; baseline failures are reported as skipped.
pub fn junit(agent: &str, outcomes: &[Outcome], baseline: &BTreeMap<String, String>) -> String {
    let failures = outcomes
        .iter()
        .filter(|o| o.verdict.ran() && o.verdict.passed() == o.outside)
        .filter(|o| o.outside || !baseline.contains_key(&o.id))
        .count();
    let total: f64 = outcomes.iter().map(|o| o.duration.as_secs_f64()).sum();
    let mut text = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        text,
        "<testsuite name=\"pi-conformance {}\" tests=\"{}\" failures=\"{failures}\" time=\"{total:.3}\">",
        xml(agent),
        outcomes.len()
    );
    for o in outcomes.iter().filter(|o| o.verdict.ran()) {
        let _ = write!(
            text,
            "  <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
            xml(agent),
            xml(&o.id),
            o.duration.as_secs_f64()
        );
        if o.verdict.passed() != o.outside {
            text.push_str("/>\n");
        } else if let Some(reason) = baseline.get(&o.id) {
            let _ = writeln!(
                text,
                ">\n    <skipped message=\"baseline: {}\"/>\n  </testcase>",
                xml(reason)
            );
        } else {
            let _ = writeln!(
                text,
                ">\n    <failure type=\"{}\" message=\"{}\">{}</failure>\n  </testcase>",
                o.verdict.word(),
                xml(&o.message),
                xml(&o.detail)
            );
        }
    }
    text.push_str("</testsuite>\n");
    text
}

pub mod causes;
pub mod compatibility;
pub mod matrix;

pub use matrix::{Cell, Matrix, cells_from_json};
