//! `scenarios/CHANGES.md`: the RPC protocol's changes release by release, from the registry
//! (`conformance/releases.yaml`), each linked to the scenarios that prove it (their `changes`
//! field). `tests/changes.rs` keeps the committed file current and every change proven.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;

use crate::load::Loaded;
use crate::release::{ChangeKind, Registry, Rule};

/// The changes of the registry that no scenario proves.
pub fn unproven<'a>(registry: &'a Registry, scenarios: &[Loaded]) -> Vec<&'a str> {
    registry
        .changes
        .iter()
        .filter(|change| {
            !scenarios
                .iter()
                .any(|l| l.scenario.changes.contains(&change.id))
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
         change links the scenarios that prove it: a scenario that holds (`releases`) from the \
         release that brought the change, or one of the older behaviour that holds until it, \
         or one that shows both sides with `$since`; `pi-conformance run --outside` checks \
         that a scenario fails on the releases outside its range. The corpus follows \
         {default}; on a later release, the rules listed with a change adapt the scenarios \
         written before it (docs/src/testing-an-agent.md, \"Releases\").\n\n\
         **Protocol** changes are changes of the RPC records (fields, new records, commands and \
         their answers): pi-agent follows them when it speaks the release (`--rpc-release`). \
         **Behaviour** changes are seen through the records but are not their format (texts, \
         timing, model catalogs, extension API details): pi-agent keeps {default}'s unless the \
         change says it follows it; where it keeps it, the scenarios that check it hold for the \
         releases before the change, or list the failure in `conformance/baselines/ours.txt`.\n",
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
            let kind = match (change.kind, change.followed()) {
                (ChangeKind::Protocol, true) => "Protocol",
                (ChangeKind::Protocol, false) => "Protocol (pi-agent keeps the older records)",
                (ChangeKind::Behaviour, true) => "Behaviour (pi-agent follows it)",
                (ChangeKind::Behaviour, false) => "Behaviour",
            };
            let _ = writeln!(
                out,
                "- {kind}: **{}** (`{}`)",
                change.title.trim(),
                change.id
            );
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
        let of = if rule.of.is_empty() {
            String::new()
        } else {
            format!(
                " (of objects holding `{}`)",
                compact(&Value::Object(rule.of.clone()))
            )
        };
        let records = if selector.is_empty() {
            "every record".to_owned()
        } else {
            format!("the records with {selector}")
        };
        format!("{}{of} left out of {records}", keys.join(", "))
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
