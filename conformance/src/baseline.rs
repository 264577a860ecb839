//! Expected-failure baselines: `conformance/baselines/<agent>.txt`, one scenario id per line
//! followed by the reason; `#` starts a comment. A reason that starts with a releases range in
//! brackets (`tools.010 [>=1.5.0] keeps 0.84.1's wording`) lists the failure only for an agent
//! speaking a release in that range.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::agent::AgentCommand;
use crate::release::{Range, Version};
use crate::run::Outcome;

/// The baseline file of an agent in `dir`: `<name>@<release>.txt` when there is one, else
/// `<name>.txt` (what the agent fails on whatever release it speaks).
pub fn default_path(dir: &Path, agent: &AgentCommand) -> PathBuf {
    let own = dir.join(format!("{}.txt", agent.label()));
    if own.is_file() {
        own
    } else {
        dir.join(format!("{}.txt", agent.name))
    }
}

/// The ids an agent is expected to fail, with reasons.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    /// id -> reason (with its releases range, if it has one), for the release read for.
    pub entries: BTreeMap<String, String>,
    /// The lines listing failures of other releases, kept as they are when it is rewritten.
    pub other_releases: Vec<String>,
}

/// How the run compares with the baseline.
#[derive(Debug, Clone, Default)]
pub struct Comparison {
    /// Failures listed in the baseline.
    pub expected: Vec<String>,
    /// Failures not listed: they fail the run.
    pub unexpected: Vec<String>,
    /// Listed ids that now pass: they fail the run until removed.
    pub stale: Vec<String>,
    /// Scenarios run outside the releases they hold for (`run --outside`) that fail there, as
    /// they should.
    pub outside_failing: Vec<String>,
    /// Scenarios run outside their releases that pass there: their `releases` range is too
    /// narrow, which fails the run.
    pub outside_passing: Vec<String>,
}

impl Comparison {
    /// Whether the run is good.
    pub fn ok(&self) -> bool {
        self.unexpected.is_empty() && self.stale.is_empty() && self.outside_passing.is_empty()
    }
}

impl Baseline {
    /// Reads a baseline for an agent speaking `release`; a missing file is an empty baseline.
    pub fn read(path: &Path, release: Version) -> std::io::Result<Self> {
        match std::fs::read_to_string(path) {
            Ok(text) => Ok(Self::parse(&text, release)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(err) => Err(err),
        }
    }

    /// Parses baseline text for an agent speaking `release`.
    pub fn parse(text: &str, release: Version) -> Self {
        let mut baseline = Self::default();
        for line in text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            let (id, reason) = match line.split_once(char::is_whitespace) {
                Some((id, reason)) => (id.to_owned(), reason.trim().to_owned()),
                None => (line.to_owned(), String::new()),
            };
            if applies(&reason, release) {
                baseline.entries.insert(id, reason);
            } else {
                baseline.other_releases.push(line.to_owned());
            }
        }
        baseline
    }

    /// Compares outcomes with the baseline.
    pub fn compare(&self, outcomes: &[Outcome]) -> Comparison {
        let mut comparison = Comparison::default();
        for outcome in outcomes.iter().filter(|o| o.verdict.ran()) {
            if outcome.outside {
                let list = if outcome.verdict.passed() {
                    &mut comparison.outside_passing
                } else {
                    &mut comparison.outside_failing
                };
                list.push(outcome.id.clone());
                continue;
            }
            let listed = self.entries.contains_key(&outcome.id);
            match (outcome.verdict.passed(), listed) {
                (true, true) => comparison.stale.push(outcome.id.clone()),
                (false, true) => comparison.expected.push(outcome.id.clone()),
                (false, false) => comparison.unexpected.push(outcome.id.clone()),
                (true, false) => {}
            }
        }
        comparison
    }

    /// A baseline text listing the failures of these outcomes, keeping existing reasons;
    /// `label` names the agent, `rerun` the runner's arguments that rewrite it.
    pub fn render_from(&self, label: &str, rerun: &str, outcomes: &[Outcome]) -> String {
        let mut text = format!(
            "# Expected failures of the agent `{label}`: scenario id, then the reason (after a\n\
             # releases range in brackets, `[>=1.5.0]`, for the failures of those releases only).\n\
             # An id that passes is stale and fails the run; an unlisted failure fails the run.\n\
             # Rewrite it from a run with: pi-conformance {rerun} --update-baseline\n"
        );
        let mut failing: Vec<&Outcome> = outcomes
            .iter()
            .filter(|o| o.verdict.ran() && !o.outside && !o.verdict.passed())
            .collect();
        failing.sort_by(|a, b| a.id.cmp(&b.id));
        for outcome in failing {
            let reason = self
                .entries
                .get(&outcome.id)
                .cloned()
                .unwrap_or_else(|| reason_of(outcome));
            text.push_str(&format!("{} {reason}\n", outcome.id));
        }
        for line in &self.other_releases {
            text.push_str(&format!("{line}\n"));
        }
        text
    }
}

/// Whether a reason lists a failure on `release`: it has no `[RANGE]` in front, or one that
/// holds `release` (a range that does not parse holds every release, and shows in the reason).
fn applies(reason: &str, release: Version) -> bool {
    reason
        .strip_prefix('[')
        .and_then(|rest| rest.split_once(']'))
        .and_then(|(range, _)| range.parse::<Range>().ok())
        .is_none_or(|range| range.contains(release))
}

/// A one-line reason for a failure: its cause (kind and key), else the verdict, the message
/// and the first differing path.
fn reason_of(outcome: &Outcome) -> String {
    let reason = match &outcome.cause {
        Some(cause) => format!("{}: {}", cause.kind.label(), cause.key),
        None => {
            let mut reason = format!("{}: {}", outcome.verdict.word(), outcome.message);
            if let Some(detail) = outcome.detail.lines().find(|l| l.starts_with('$')) {
                reason.push_str(&format!(" ({detail})"));
            }
            reason
        }
    };
    let reason = reason.replace('\n', " ");
    if reason.chars().count() > 200 {
        reason.chars().take(197).collect::<String>() + "..."
    } else {
        reason
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ids_and_reasons_and_skips_comments() {
        let b = Baseline::parse(
            "# c\n\nstate.001   not implemented yet\nerr.002\n",
            Version(0, 84, 1),
        );
        assert_eq!(
            b.entries.get("state.001").map(String::as_str),
            Some("not implemented yet")
        );
        assert_eq!(b.entries.get("err.002").map(String::as_str), Some(""));
        assert_eq!(b.entries.len(), 2);
    }

    #[test]
    fn a_reason_with_a_range_lists_the_failure_on_its_releases_only() {
        let text = "tools.010 [>=1.5.0] keeps the old wording\nframing.017 always\n";
        let old = Baseline::parse(text, Version(1, 4, 0));
        assert_eq!(old.entries.len(), 1);
        assert_eq!(
            old.other_releases,
            vec!["tools.010 [>=1.5.0] keeps the old wording"]
        );
        let new = Baseline::parse(text, Version(1, 5, 0));
        assert_eq!(
            new.entries.get("tools.010").map(String::as_str),
            Some("[>=1.5.0] keeps the old wording")
        );
        assert!(new.other_releases.is_empty());
    }
}
