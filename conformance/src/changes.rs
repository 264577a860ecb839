//! `scenarios/CHANGES.md`: the RPC protocol's changes release by release, from the registry
//! (`conformance/releases.yaml`), each linked to the scenarios that prove it (their `changes`
//! field). `tests/changes.rs` keeps the committed file current and every change proven.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::load::Loaded;
use crate::release::{Registry, Rule};

/// The changes of the registry that no scenario proves.
pub fn unproven<'a>(registry: &'a Registry, scenarios: &[Loaded]) -> Vec<&'a str> {
    registry
        .changes
        .iter()
        .filter(|change| {
            !scenarios
                .iter()
                .any(|l| l.scenario.changes.iter().any(|id| *id == change.id))
        })
        .map(|change| change.id.as_str())
        .collect()
}

/// Renders `CHANGES.md`; scenario links are relative to `root` (the scenarios folder).
pub fn render(registry: &Registry, scenarios: &[Loaded], root: &Path) -> String {
    let mut proving: BTreeMap<&str, Vec<&Loaded>> = BTreeMap::new();
    for loaded in scenarios {
        for id in &loaded.scenario.changes {
            proving.entry(id.as_str()).or_default().push(loaded);
        }
    }
    let mut out = String::from("# Changes of pi's RPC protocol, release by release\n\n");
    let _ = writeln!(
        out,
        "Generated from `conformance/releases.yaml` and the scenarios' `changes` fields by \
         `cargo test -p pi-conformance --test changes` (`CHANGES=overwrite` rewrites it). Each \
         change links the scenarios that prove it: they hold (`releases`) from the release \
         that brought it, and `pi-conformance run --outside` checks that they fail on the \
         releases before. The corpus follows {default}; on a later release, the rules listed \
         with a change adapt the scenarios written before it (conformance/README.md, \
         \"Releases\").\n",
        default = registry.default
    );
    for release in &registry.releases {
        let changes: Vec<_> = registry
            .changes
            .iter()
            .filter(|c| c.since == release.version)
            .collect();
        let _ = writeln!(out, "## {} ({})\n", release.version, release.date);
        if let Some(note) = &release.note {
            let _ = writeln!(out, "_{}._\n", note.trim_end_matches('.'));
        }
        if changes.is_empty() {
            out.push_str("No change of the RPC protocol.\n\n");
            continue;
        }
        for change in changes {
            let _ = writeln!(out, "- **{}** (`{}`)", change.title, change.id);
            if let Some(detail) = &change.detail {
                let _ = writeln!(out, "  {}", detail.trim().replace('\n', "\n  "));
            }
            match proving.get(change.id.as_str()) {
                Some(list) => {
                    let links: Vec<String> = list
                        .iter()
                        .map(|l| {
                            let path = l.file.strip_prefix(root).unwrap_or(&l.file);
                            format!("[{}]({})", l.scenario.id, path.display())
                        })
                        .collect();
                    let _ = writeln!(out, "  Proven by {}.", links.join(", "));
                }
                None => out.push_str("  **Proven by no scenario.**\n"),
            }
            for rule in &change.rules {
                let _ = writeln!(
                    out,
                    "  Older scenarios on this release: {}.",
                    describe(rule)
                );
            }
        }
        out.push('\n');
    }
    out
}

/// A rule in words.
fn describe(rule: &Rule) -> String {
    let compact = |v: &Value| serde_json::to_string(v).unwrap_or_default();
    let selector = {
        let mut parts: Vec<String> = rule
            .to
            .iter()
            .map(|(k, v)| format!("`{k}: {}`", compact(v)))
            .collect();
        parts.extend(rule.has.iter().map(|k| format!("a `{k}` key")));
        if let Some(under) = &rule.under {
            parts.push(format!("under a `{under}` key"));
        }
        parts.join(" and ")
    };
    let text = if let Some(add) = &rule.add {
        let keys: Vec<String> = add
            .iter()
            .map(|(k, v)| format!("`{k}: {}`", compact(v)))
            .collect();
        format!(
            "exact object patterns with {selector} expect {} as well",
            keys.join(", ")
        )
    } else if !rule.omit_records.is_empty() {
        let patterns: Vec<String> = rule
            .omit_records
            .iter()
            .map(|p| format!("`{}`", compact(p)))
            .collect();
        format!("records matching {} are left out", patterns.join(" or "))
    } else if !rule.omit_keys.is_empty() {
        let keys: Vec<String> = rule
            .omit_keys
            .iter()
            .map(|path| format!("`{}`", path.join(".")))
            .collect();
        format!(
            "{} left out of the records with {selector}",
            keys.join(", ")
        )
    } else {
        let patterns: Vec<String> = rule
            .omit_elements
            .iter()
            .map(|p| format!("`{}`", compact(p)))
            .collect();
        format!(
            "list elements matching {} are left out of every record",
            patterns.join(" or ")
        )
    };
    if rule.unless.is_empty() {
        text
    } else {
        let unless = compact(&Value::Object(rule.unless.clone()));
        format!("{text}, unless the scenario itself expects `{unless}`")
    }
}
