//! Reports: the summary table, JSON and JUnit for CI, and the HTML and Markdown matrix
//! (scenario by agent), in the manner of the Autobahn test suite's reports.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::json;

use crate::baseline::Comparison;
use crate::run::{Outcome, Verdict};

const VERDICTS: [Verdict; 7] = [
    Verdict::Pass,
    Verdict::NonStrict,
    Verdict::Fail,
    Verdict::Unimplemented,
    Verdict::Error,
    Verdict::Timeout,
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
            Some(reason) if !o.verdict.passed() => format!("(baseline: {reason})"),
            Some(_) => "STALE baseline entry: it passes now".to_owned(),
            None => one_line(&o.message, 100),
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
    if !comparison.stale.is_empty() {
        let _ = writeln!(
            text,
            "STALE baseline entries (they pass now): {}",
            comparison.stale.join(", ")
        );
    }
    text
}

/// The machine-readable result of a run.
pub fn json(agent: &str, outcomes: &[Outcome], comparison: &Comparison) -> String {
    let value = json!({
        "agent": agent,
        "ok": comparison.ok(),
        "unexpected": comparison.unexpected,
        "stale": comparison.stale,
        "expectedFailures": comparison.expected,
        "scenarios": outcomes.iter().map(|o| json!({
            "id": o.id,
            "title": o.title,
            "file": o.file.display().to_string(),
            "verdict": o.verdict,
            "message": o.message,
            "detail": o.detail,
            "nonStrict": o.non_strict,
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
        .filter(|o| !o.verdict.passed() && !baseline.contains_key(&o.id))
        .count();
    let total: f64 = outcomes.iter().map(|o| o.duration.as_secs_f64()).sum();
    let mut text = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        text,
        "<testsuite name=\"pi-conformance {}\" tests=\"{}\" failures=\"{failures}\" time=\"{total:.3}\">",
        xml(agent),
        outcomes.len()
    );
    for o in outcomes {
        let _ = write!(
            text,
            "  <testcase classname=\"{}\" name=\"{}\" time=\"{:.3}\"",
            xml(agent),
            xml(&o.id),
            o.duration.as_secs_f64()
        );
        if o.verdict.passed() {
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

/// One cell of the matrix: a scenario's verdict on one agent, as read back from `results.json`.
#[derive(Debug, Clone)]
pub struct Cell {
    /// Agent name.
    pub agent: String,
    /// Scenario id.
    pub id: String,
    /// Scenario title.
    pub title: String,
    /// Verdict word.
    pub verdict: String,
    /// One-line message.
    pub message: String,
}

/// Reads the cells of a `results.json` written by `run`.
pub fn cells_from_json(text: &str) -> Result<Vec<Cell>, serde_json::Error> {
    let value: serde_json::Value = serde_json::from_str(text)?;
    let agent = value["agent"].as_str().unwrap_or("?").to_owned();
    let s = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_owned();
    Ok(value["scenarios"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|o| Cell {
                    agent: agent.clone(),
                    id: s(&o["id"]),
                    title: s(&o["title"]),
                    verdict: s(&o["verdict"]).replace('_', "-"),
                    message: s(&o["message"]),
                })
                .collect()
        })
        .unwrap_or_default())
}

/// The matrix of scenarios by agents.
pub struct Matrix {
    agents: Vec<String>,
    rows: BTreeMap<String, (String, BTreeMap<String, Cell>)>,
}

impl Matrix {
    /// Builds the matrix from every agent's cells.
    pub fn new(cells: Vec<Cell>) -> Self {
        let mut agents = BTreeSet::new();
        let mut rows: BTreeMap<String, (String, BTreeMap<String, Cell>)> = BTreeMap::new();
        for c in cells {
            agents.insert(c.agent.clone());
            let row = rows
                .entry(c.id.clone())
                .or_insert_with(|| (c.title.clone(), BTreeMap::new()));
            row.1.insert(c.agent.clone(), c);
        }
        Self {
            agents: agents.into_iter().collect(),
            rows,
        }
    }

    /// The Markdown matrix; cells link to `<agent>/<id>/result.txt`.
    pub fn markdown(&self) -> String {
        let mut text = String::from("# pi-conformance results\n\n| scenario | title |");
        for agent in &self.agents {
            let _ = write!(text, " {agent} |");
        }
        text.push_str("\n|---|---|");
        text.push_str(&"---|".repeat(self.agents.len()));
        text.push('\n');
        for (id, (title, cells)) in &self.rows {
            let _ = write!(text, "| {id} | {} |", title.replace('|', "\\|"));
            for agent in &self.agents {
                match cells.get(agent) {
                    Some(c) => {
                        let _ = write!(
                            text,
                            " [{}]({agent}/{}/result.txt) |",
                            c.verdict,
                            crate::transcript::sanitise(id)
                        );
                    }
                    None => text.push_str(" — |"),
                }
            }
            text.push('\n');
        }
        text.push_str("\n| agent | verdicts |\n|---|---|\n");
        for agent in &self.agents {
            let _ = writeln!(text, "| {agent} | {} |", self.totals(agent));
        }
        text
    }

    /// Verdict counts of one agent, `pass 10, fail 2`.
    fn totals(&self, agent: &str) -> String {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for (_, cells) in self.rows.values() {
            if let Some(cell) = cells.get(agent) {
                *counts.entry(cell.verdict.as_str()).or_default() += 1;
            }
        }
        counts
            .iter()
            .map(|(verdict, n)| format!("{verdict} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The self-contained HTML matrix; cells link to `<agent>/<id>/result.txt`.
    pub fn html(&self) -> String {
        let mut text = String::from(
            "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>pi-conformance results</title>\n<style>\n\
             body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}\
             td,th{border:1px solid #999;padding:.25em .6em;text-align:left}\
             td.pass{background:#8e8}td.non-strict{background:#cf8}td.fail{background:#f88}\
             td.unimplemented{background:#ccc}td.error{background:#f8f}td.timeout{background:#fc6}\
             td.missing{background:#fff}a{color:#000}\n</style></head><body>\n<h1>pi-conformance results</h1>\n<table>\n<tr><th>scenario</th><th>title</th>",
        );
        for agent in &self.agents {
            let _ = write!(text, "<th>{}</th>", xml(agent));
        }
        text.push_str("</tr>\n");
        for (id, (title, cells)) in &self.rows {
            let _ = write!(text, "<tr><td>{}</td><td>{}</td>", xml(id), xml(title));
            for agent in &self.agents {
                match cells.get(agent) {
                    Some(c) => {
                        let _ = write!(
                            text,
                            "<td class=\"{}\" title=\"{}\"><a href=\"{}/{}/result.txt\">{}</a></td>",
                            xml(&c.verdict),
                            xml(&c.message),
                            xml(agent),
                            xml(&crate::transcript::sanitise(id)),
                            xml(&c.verdict)
                        );
                    }
                    None => text.push_str("<td class=\"missing\">—</td>"),
                }
            }
            text.push_str("</tr>\n");
        }
        text.push_str("<tr><th colspan=\"2\">totals</th>");
        for agent in &self.agents {
            let _ = write!(text, "<td>{}</td>", xml(&self.totals(agent)));
        }
        text.push_str("</tr>\n</table>\n</body></html>\n");
        text
    }
}
