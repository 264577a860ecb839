//! The compatibility report (`compatibility.md`, written by `report`): for every agent and
//! release in the output folder side by side, the scenarios passed per area (the scenario id's
//! prefix: `prompt`, `sessions`, ...), then each agent's most common causes of failure with a
//! scenario that shows each. What a port author reads first: how far the agent is from pi, and
//! where.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::Cell;
use super::causes;

/// Causes listed per agent.
const CAUSES_SHOWN: usize = 5;

/// The tags of scenarios that configure the agent through pi's own files: `settings.json`,
/// the agent folder's other files, a `models.json` of their own.
pub const CONFIG_TAGS: [&str; 3] = ["pi-settings", "pi-agent-dir", "pi-models"];

/// The report's Markdown, from every column's cells.
pub fn markdown(cells: &[Cell]) -> String {
    let columns: BTreeSet<&str> = cells.iter().map(|c| c.agent.as_str()).collect();
    let columns: Vec<&str> = columns.into_iter().collect();
    // area -> column -> (passed, ran)
    let mut areas: BTreeMap<&str, BTreeMap<&str, (usize, usize)>> = BTreeMap::new();
    for cell in cells.iter().filter(|c| c.ran_inside()) {
        let area = cell.id.split('.').next().unwrap_or(&cell.id);
        let counts = areas
            .entry(area)
            .or_default()
            .entry(cell.agent.as_str())
            .or_default();
        counts.1 += 1;
        counts.0 += usize::from(cell.passed());
    }
    let mut text = String::from(
        "# Compatibility\n\nScenarios passed of those run, per area (n/a ones left out).\n\n",
    );
    text.push_str("| area |");
    for column in &columns {
        let _ = write!(text, " {column} |");
    }
    text.push_str("\n|---|");
    text.push_str(&"---:|".repeat(columns.len()));
    text.push('\n');
    let mut totals = vec![(0, 0); columns.len()];
    for (area, counts) in &areas {
        let _ = write!(text, "| {area} |");
        for (i, column) in columns.iter().enumerate() {
            match counts.get(column) {
                Some((passed, ran)) => {
                    totals[i].0 += passed;
                    totals[i].1 += ran;
                    let _ = write!(text, " {passed}/{ran} |");
                }
                None => text.push_str(" — |"),
            }
        }
        text.push('\n');
    }
    text.push_str("| **all** |");
    for (passed, ran) in &totals {
        let _ = write!(text, " **{passed}/{ran}** |");
    }
    text.push('\n');
    for column in &columns {
        let failing: Vec<&Cell> = cells
            .iter()
            .filter(|c| c.agent == *column && c.ran_inside() && !c.passed())
            .collect();
        if failing.is_empty() {
            continue;
        }
        let _ = writeln!(
            text,
            "\n## {column}: the {CAUSES_SHOWN} most common causes of failure\n"
        );
        let mut by_key: BTreeMap<(String, String), Vec<&str>> = BTreeMap::new();
        for cell in &failing {
            if let Some(cause) = &cell.cause {
                by_key
                    .entry((cause.kind.label().to_owned(), cause.key.clone()))
                    .or_default()
                    .push(&cell.id);
            }
        }
        let mut ranked: Vec<(&(String, String), &Vec<&str>)> = by_key.iter().collect();
        ranked.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(b.0)));
        text.push_str("| failures | cause | for example |\n|---:|---|---|\n");
        for ((kind, key), ids) in ranked.iter().take(CAUSES_SHOWN) {
            let _ = writeln!(
                text,
                "| {} | {kind}: {} | {} |",
                ids.len(),
                key.replace('|', "\\|"),
                ids[0]
            );
        }
        let groups = causes::group(failing.iter().filter_map(|c| c.cause.as_ref()));
        let kinds: Vec<String> = groups
            .iter()
            .map(|g| format!("{} {}", g.kind.label(), g.count))
            .collect();
        let configured = failing
            .iter()
            .filter(|c| c.tags.iter().any(|t| CONFIG_TAGS.contains(&t.as_str())))
            .count();
        let _ = writeln!(
            text,
            "\nAll {} failures by kind: {}. {configured} of them are in scenarios that \
             configure the agent through pi's own files (tags {}): there the agent may be \
             configured differently rather than answer differently.",
            failing.len(),
            kinds.join(", "),
            CONFIG_TAGS.join(", ")
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::cause::{Cause, CauseKind};

    fn cell(agent: &str, id: &str, verdict: &str, cause: Option<(CauseKind, &str)>) -> Cell {
        Cell {
            agent: agent.into(),
            id: id.into(),
            title: "t".into(),
            verdict: verdict.into(),
            message: String::new(),
            outside: false,
            cause: cause.map(|(kind, key)| Cause {
                kind,
                key: key.into(),
            }),
            tags: Vec::new(),
        }
    }

    #[test]
    fn areas_count_side_by_side_and_causes_rank_with_an_example() {
        let shape = Some((
            CauseKind::FieldShape,
            "response (get_state): $.data missing",
        ));
        let cells = [
            cell("ours@0.84.1", "prompt.001", "pass", None),
            cell("ours@0.84.1", "prompt.002", "pass", None),
            cell("port@0.84.1", "prompt.001", "fail", shape),
            cell("port@0.84.1", "prompt.002", "fail", shape),
            cell(
                "port@0.84.1",
                "queue.001",
                "timeout",
                Some((CauseKind::Hang, "waiting")),
            ),
            cell("port@0.84.1", "queue.002", "n/a", None),
        ];
        let text = markdown(&cells);
        assert!(text.contains("| prompt | 2/2 | 0/2 |"), "{text}");
        assert!(text.contains("| queue | — | 0/1 |"), "{text}");
        assert!(text.contains("| **all** | **2/2** | **0/3** |"), "{text}");
        assert!(
            text.contains("| 2 | field shape: response (get_state): $.data missing | prompt.001 |"),
            "{text}"
        );
        assert!(!text.contains("## ours@0.84.1"), "{text}");
        assert!(
            text.contains("field shape 2, no answer in time 1"),
            "{text}"
        );
    }
}
