//! The matrix of earlier runs, in the manner of the Autobahn test suite's reports: verdict
//! counts by agent and release, then one row per scenario and one column per agent and release
//! (the columns of one agent side by side, oldest release first), each cell linking to its
//! transcript. Written as self-contained HTML and as Markdown.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::Value;

use super::xml;
use crate::release::Version;

/// One cell of the matrix: a scenario's verdict on one agent and release, as read back from a
/// `results.json`.
#[derive(Debug, Clone)]
pub struct Cell {
    /// The column: agent name and release (`reference@1.6.0`).
    pub agent: String,
    /// Scenario id.
    pub id: String,
    /// Scenario title.
    pub title: String,
    /// Verdict word.
    pub verdict: String,
    /// One-line message.
    pub message: String,
    /// Whether the scenario ran outside the releases it holds for (`run --outside`).
    pub outside: bool,
    /// Why it failed (results written before causes were recorded have none).
    pub cause: Option<crate::run::cause::Cause>,
    /// The scenario's tags.
    pub tags: Vec<String>,
}

impl Cell {
    /// Whether the scenario ran inside its releases (not `n/a`, not `run --outside`).
    pub fn ran_inside(&self) -> bool {
        !self.outside && self.verdict != "n/a"
    }

    /// Whether the verdict counts as passing ([`crate::run::Verdict::passed`]'s words).
    pub fn passed(&self) -> bool {
        matches!(self.verdict.as_str(), "pass" | "non-strict" | "skipped")
    }

    /// The word shown: the verdict, marked when the run was outside the scenario's releases
    /// (where failing is right and passing is a too narrow range).
    fn shown(&self) -> String {
        match (self.outside, self.verdict.as_str()) {
            (false, verdict) => verdict.to_owned(),
            (true, "pass" | "non-strict") => format!("{} outside", self.verdict),
            (true, _) => "fails outside".to_owned(),
        }
    }

    /// The CSS class of the cell.
    fn class(&self) -> String {
        match (self.outside, self.verdict.as_str()) {
            (false, "n/a") => "na".to_owned(),
            (false, verdict) => verdict.to_owned(),
            (true, "pass" | "non-strict") => "fail".to_owned(),
            (true, _) => "na".to_owned(),
        }
    }
}

/// A column key that sorts by agent name, then release number (labels without a release last).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Column {
    name: String,
    release: Option<Version>,
    label: String,
}

impl Column {
    fn of(label: &str) -> Self {
        let (name, release) = match label.split_once('@') {
            Some((name, release)) => (name, release.parse().ok()),
            None => (label, None),
        };
        Self {
            name: name.to_owned(),
            release,
            label: label.to_owned(),
        }
    }
}

/// Reads the cells of a `results.json` written by `run`.
pub fn cells_from_json(text: &str) -> Result<Vec<Cell>, serde_json::Error> {
    let value: Value = serde_json::from_str(text)?;
    let agent = value["agent"].as_str().unwrap_or("?").to_owned();
    let s = |v: &Value| v.as_str().unwrap_or_default().to_owned();
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
                    outside: o["outside"].as_bool().unwrap_or(false),
                    cause: serde_json::from_value(o["cause"].clone()).ok(),
                    tags: serde_json::from_value(o["tags"].clone()).unwrap_or_default(),
                })
                .collect()
        })
        .unwrap_or_default())
}

/// The matrix of scenarios by agents and releases.
pub struct Matrix {
    columns: Vec<Column>,
    rows: BTreeMap<String, (String, BTreeMap<String, Cell>)>,
}

impl Matrix {
    /// Builds the matrix from every column's cells.
    pub fn new(cells: Vec<Cell>) -> Self {
        let mut columns = BTreeSet::new();
        let mut rows: BTreeMap<String, (String, BTreeMap<String, Cell>)> = BTreeMap::new();
        for c in cells {
            columns.insert(Column::of(&c.agent));
            let row = rows
                .entry(c.id.clone())
                .or_insert_with(|| (c.title.clone(), BTreeMap::new()));
            row.1.insert(c.agent.clone(), c);
        }
        Self {
            columns: columns.into_iter().collect(),
            rows,
        }
    }

    /// The agent names and, for each, its releases (oldest first) with the column label.
    fn by_agent(&self) -> Vec<(&str, Vec<(&str, &str)>)> {
        let mut out: Vec<(&str, Vec<(&str, &str)>)> = Vec::new();
        for column in &self.columns {
            let release = column
                .label
                .split_once('@')
                .map_or("", |(_, release)| release);
            match out.last_mut() {
                Some((name, releases)) if *name == column.name => {
                    releases.push((release, &column.label));
                }
                _ => out.push((&column.name, vec![(release, &column.label)])),
            }
        }
        out
    }

    /// Verdict counts of one column, `pass 10, fail 2` (runs outside the scenarios' releases
    /// counted apart).
    fn totals(&self, label: &str) -> String {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for (_, cells) in self.rows.values() {
            if let Some(cell) = cells.get(label) {
                *counts.entry(cell.shown()).or_default() += 1;
            }
        }
        counts
            .iter()
            .map(|(verdict, n)| format!("{verdict} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The Markdown matrix: verdict counts by agent and release, then every scenario; cells
    /// link to `<agent>@<release>/<id>/result.txt`.
    pub fn markdown(&self) -> String {
        let mut text = String::from("# pi-conformance results\n\n## Verdicts by release\n\n");
        text.push_str("| agent | release | verdicts |\n|---|---|---|\n");
        for (name, releases) in self.by_agent() {
            for (release, label) in releases {
                let _ = writeln!(text, "| {name} | {release} | {} |", self.totals(label));
            }
        }
        text.push_str("\n## Scenarios\n\n| scenario | title |");
        for column in &self.columns {
            let _ = write!(text, " {} |", column.label);
        }
        text.push_str("\n|---|---|");
        text.push_str(&"---|".repeat(self.columns.len()));
        text.push('\n');
        for (id, (title, cells)) in &self.rows {
            let _ = write!(text, "| {id} | {} |", title.replace('|', "\\|"));
            for column in &self.columns {
                match cells.get(&column.label) {
                    Some(c) if c.verdict == "n/a" => text.push_str(" n/a |"),
                    Some(c) => {
                        let _ = write!(
                            text,
                            " [{}]({}/{}/result.txt) |",
                            c.shown(),
                            column.label,
                            crate::transcript::sanitise(id)
                        );
                    }
                    None => text.push_str(" — |"),
                }
            }
            text.push('\n');
        }
        text
    }

    /// The self-contained HTML matrix; cells link to `<agent>@<release>/<id>/result.txt`.
    pub fn html(&self) -> String {
        let mut text = String::from(
            "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>pi-conformance results</title>\n<style>\n\
             body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin-bottom:2em}\
             td,th{border:1px solid #999;padding:.25em .6em;text-align:left}\
             td.pass{background:#8e8}td.non-strict{background:#cf8}td.fail{background:#f88}\
             td.unimplemented{background:#ccc}td.error{background:#f8f}td.timeout{background:#fc6}\
             td.na{background:#eee;color:#666}td.missing{background:#fff}a{color:#000}\n</style></head><body>\n\
             <h1>pi-conformance results</h1>\n<h2>Verdicts by release</h2>\n<table>\n\
             <tr><th>agent</th><th>release</th><th>verdicts</th></tr>\n",
        );
        for (name, releases) in self.by_agent() {
            for (release, label) in releases {
                let _ = writeln!(
                    text,
                    "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                    xml(name),
                    xml(release),
                    xml(&self.totals(label))
                );
            }
        }
        text.push_str("</table>\n<h2>Scenarios</h2>\n<table>\n<tr><th>scenario</th><th>title</th>");
        for column in &self.columns {
            let _ = write!(text, "<th>{}</th>", xml(&column.label));
        }
        text.push_str("</tr>\n");
        for (id, (title, cells)) in &self.rows {
            let _ = write!(text, "<tr><td>{}</td><td>{}</td>", xml(id), xml(title));
            for column in &self.columns {
                match cells.get(&column.label) {
                    Some(c) if c.verdict == "n/a" => {
                        let _ = write!(
                            text,
                            "<td class=\"na\" title=\"{}\">n/a</td>",
                            xml(&c.message)
                        );
                    }
                    Some(c) => {
                        let _ = write!(
                            text,
                            "<td class=\"{}\" title=\"{}\"><a href=\"{}/{}/result.txt\">{}</a></td>",
                            xml(&c.class()),
                            xml(&c.message),
                            xml(&column.label),
                            xml(&crate::transcript::sanitise(id)),
                            xml(&c.shown())
                        );
                    }
                    None => text.push_str("<td class=\"missing\">—</td>"),
                }
            }
            text.push_str("</tr>\n");
        }
        text.push_str("</table>\n</body></html>\n");
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(agent: &str, id: &str, verdict: &str, outside: bool) -> Cell {
        Cell {
            agent: agent.into(),
            id: id.into(),
            title: "t".into(),
            verdict: verdict.into(),
            message: String::new(),
            outside,
            cause: None,
            tags: Vec::new(),
        }
    }

    #[test]
    fn columns_group_agents_and_sort_releases_by_number() {
        let matrix = Matrix::new(vec![
            cell("reference@1.6.0", "a.001", "pass", false),
            cell("reference@0.84.10", "a.001", "pass", false),
            cell("reference@0.84.2", "a.001", "fails", true),
            cell("ours@0.84.1", "a.001", "n/a", false),
        ]);
        let labels: Vec<&str> = matrix.columns.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "ours@0.84.1",
                "reference@0.84.2",
                "reference@0.84.10",
                "reference@1.6.0"
            ]
        );
        let markdown = matrix.markdown();
        assert!(
            markdown.contains("| reference | 0.84.2 | fails outside 1 |"),
            "{markdown}"
        );
        assert!(
            markdown.contains(
                "| a.001 | t | n/a | [fails outside](reference@0.84.2/a.001/result.txt) |"
            ),
            "{markdown}"
        );
    }
}
