//! `agent/tests/example_extensions_known.txt`: the examples on which pi-agent is known to differ
//! from the reference, one a line as `name: reason`; `#` starts a comment line.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::compare::Comparison;

/// The file's path.
pub fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/example_extensions_known.txt")
}

/// The listed examples with their reasons (an absent file lists none).
pub fn read() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path()).unwrap_or_default();
    parse(&text)
}

/// The entries of the file's `text`.
pub fn parse(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| match line.split_once(':') {
            Some((name, reason)) => (name.trim().to_owned(), reason.trim().to_owned()),
            None => (line.to_owned(), String::new()),
        })
        .collect()
}

/// The file's text for a run: every example that differs, with what differs.
pub fn render(comparisons: &[Comparison]) -> String {
    let mut text = String::from(
        "# pi's example extensions on which pi-agent differs from the reference (see\n\
         # tests/example_extensions.rs), one a line: `example: what differs`.\n\
         # Regenerate: EXAMPLES=overwrite cargo test -p pi-agent --test example_extensions\n",
    );
    for comparison in comparisons.iter().filter(|c| !c.matches()) {
        text.push_str(&format!("{}: {}\n", comparison.name, comparison.reason()));
    }
    text
}

/// What is wrong with the list for this run: examples that differ and are not listed, listed
/// ones that now match, listed names that are no example (of those run, `all` says whether
/// every example was).
pub fn check(
    listed: &BTreeMap<String, String>,
    comparisons: &[Comparison],
    all: bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    for comparison in comparisons {
        match (comparison.matches(), listed.contains_key(&comparison.name)) {
            (false, false) => problems.push(format!(
                "{} differs and is not listed: {}",
                comparison.name,
                comparison.reason()
            )),
            (true, true) => problems.push(format!(
                "{} is listed ({}) but now matches the reference: take it off the list",
                comparison.name, listed[&comparison.name]
            )),
            _ => {}
        }
    }
    if all {
        for name in listed.keys() {
            if !comparisons.iter().any(|c| &c.name == name) {
                problems.push(format!("{name} is listed but is no example"));
            }
        }
    }
    problems
}

#[test]
fn entries_are_names_with_reasons() {
    let entries = parse("# comment\n\ndoom-overlay: needs a terminal UI\nplain\n");
    assert_eq!(entries.len(), 2);
    assert_eq!(entries["doom-overlay"], "needs a terminal UI");
    assert_eq!(entries["plain"], "");
}
