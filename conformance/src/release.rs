//! pi's releases: version numbers, the release ranges scenarios hold for, and the registry of
//! known releases and of the RPC protocol's changes between them (`conformance/releases.yaml`).
//!
//! A scenario holds for every known release unless its `releases` range says otherwise. Inside
//! its patterns, `{$since: {RELEASE: PATTERN, ...}}` picks a variant by release (see
//! [`resolve`]), and the registry's rules adapt every scenario to the additions a release made
//! to records the scenario was written before (see [`resolve::Adjustments`]).

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::{Map, Value};

mod error;
pub mod resolve;

pub use error::{RangeError, RegistryError, ResolveError, VersionError};
pub use resolve::{Adjustments, bounds, for_release};

/// The key of a release-conditional pattern.
pub const SINCE_KEY: &str = "$since";

/// A release number, `MAJOR.MINOR.PATCH`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(pub u32, pub u32, pub u32);

impl FromStr for Version {
    type Err = VersionError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || VersionError(text.to_owned());
        let mut parts = text.trim().split('.').map(|part| part.parse::<u32>());
        let version = match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(Ok(a)), Some(Ok(b)), Some(Ok(c)), None) => Version(a, b, c),
            _ => return Err(bad()),
        };
        Ok(version)
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The releases a scenario holds for: comparisons joined by spaces, all of which must hold
/// (`>=0.84.4`, `>=0.84.4 <1.0.3`, `<0.99.1`, `=1.6.0`, or a bare release for exactly it), or
/// `*` for every release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Range {
    text: String,
    bounds: Vec<(Ordering, bool, Version)>,
}

impl Range {
    /// Every release.
    pub fn all() -> Self {
        Self {
            text: "*".into(),
            bounds: Vec::new(),
        }
    }

    /// Whether `version` is in the range.
    pub fn contains(&self, version: Version) -> bool {
        self.bounds.iter().all(|(side, inclusive, bound)| {
            let order = version.cmp(bound);
            order == *side || (*inclusive && order == Ordering::Equal)
        })
    }

    /// The releases the range's comparisons name.
    pub fn bounds(&self) -> Vec<Version> {
        self.bounds.iter().map(|(_, _, version)| *version).collect()
    }

    /// The first release of `releases` (sorted) in the range, if any.
    pub fn first_in(&self, releases: &[Version]) -> Option<Version> {
        releases.iter().copied().find(|v| self.contains(*v))
    }
}

impl FromStr for Range {
    type Err = RangeError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut bounds = Vec::new();
        for word in text.split_whitespace() {
            if word == "*" {
                continue;
            }
            let (side, inclusive, rest) = if let Some(rest) = word.strip_prefix(">=") {
                (Ordering::Greater, true, rest)
            } else if let Some(rest) = word.strip_prefix("<=") {
                (Ordering::Less, true, rest)
            } else if let Some(rest) = word.strip_prefix('>') {
                (Ordering::Greater, false, rest)
            } else if let Some(rest) = word.strip_prefix('<') {
                (Ordering::Less, false, rest)
            } else {
                (
                    Ordering::Equal,
                    true,
                    word.strip_prefix('=').unwrap_or(word),
                )
            };
            let version = rest.parse().map_err(|source| RangeError::Version {
                range: text.to_owned(),
                source,
            })?;
            bounds.push((side, inclusive, version));
        }
        if bounds.is_empty() && text.trim() != "*" {
            return Err(RangeError::Empty(text.to_owned()));
        }
        Ok(Self {
            text: text.trim().to_owned(),
            bounds,
        })
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// One known release.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Release {
    /// Its number.
    pub version: Version,
    /// Its date as published.
    pub date: String,
    /// Anything a reader should know about installing or running it.
    #[serde(default)]
    pub note: Option<String>,
}

/// A change of the RPC protocol, first in release `since`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Change {
    /// Stable id, used by the `changes` field of the scenarios that prove it.
    pub id: String,
    /// The first release with the change.
    pub since: Version,
    /// One sentence (Markdown).
    pub title: String,
    /// More, when needed (Markdown).
    #[serde(default)]
    pub detail: Option<String>,
    /// `protocol` (records, their fields, commands: what pi-agent follows when it speaks the
    /// release) or `behaviour` (texts, timing, model catalogs, extension API details the older
    /// scenarios hold until; pi-agent keeps 0.84.1's).
    #[serde(default)]
    pub kind: ChangeKind,
    /// Whether pi-agent follows the change when it speaks the release: by default it follows
    /// protocol changes and keeps 0.84.1's behaviour.
    #[serde(default)]
    pub pi_agent: Option<Following>,
    /// How the scenarios written before the change are run on releases that have it.
    #[serde(default)]
    pub rules: Vec<Rule>,
}

/// What pi-agent does with a change when it speaks a release that has it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Following {
    /// It follows the change.
    Follows,
    /// It keeps the default release's behaviour (its scenarios list the failure in
    /// `conformance/baselines/ours.txt`, or hold for the releases before the change).
    Keeps,
}

impl Change {
    /// Whether pi-agent follows this change.
    pub fn followed(&self) -> bool {
        match self.pi_agent {
            Some(following) => following == Following::Follows,
            None => self.kind == ChangeKind::Protocol,
        }
    }
}

/// What a change is about.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// The RPC records: their fields, new records, commands and their answers.
    #[default]
    Protocol,
    /// Behaviour seen through the records but not their format: texts, timing, model
    /// catalogs, extension API details.
    Behaviour,
}

/// How scenarios written before a change are run on the releases that have it. Exactly one of
/// `add`, `omit_records`, `omit_elements` and `omit_keys`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Keys and their patterns added to every exact object pattern that `to` and `has` select
    /// and that does not name the key itself.
    #[serde(default)]
    pub add: Option<Map<String, Value>>,
    /// Selects object patterns holding these literal values (`{type: message_update}`); for
    /// `omit_keys`, the records matching it (partially).
    #[serde(default)]
    pub to: Map<String, Value>,
    /// Selects object patterns holding these keys.
    #[serde(default)]
    pub has: Vec<String>,
    /// Selects object patterns that are the value of a key with this name (`cost`).
    #[serde(default)]
    pub under: Option<String>,
    /// Records matching one of these patterns (partially) are left out of `expect` steps and of
    /// `file` JSONL lines before matching.
    #[serde(default)]
    pub omit_records: Vec<Value>,
    /// Array elements matching one of these patterns (partially), anywhere inside a record or a
    /// JSONL line, are left out before matching.
    #[serde(default)]
    pub omit_elements: Vec<Value>,
    /// Keys, each a path from the record (`[result, structuredContent]`; a `**` step stands for
    /// any depth), left out of the records `to` selects before matching.
    #[serde(default)]
    pub omit_keys: Vec<Vec<String>>,
    /// For `omit_keys`: only from objects holding these literal values (`{role: assistant}`).
    #[serde(default)]
    pub of: Map<String, Value>,
    /// The rule is not applied to a scenario with an object pattern holding these literal
    /// values (a value `"{{any}}"` only asks for the key): such a scenario states the change
    /// itself.
    #[serde(default)]
    pub unless: Map<String, Value>,
}

/// The registry: every known release, the default one, and the protocol's changes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Registry {
    /// The release this workspace follows: `--agent reference` and `--agent ours` speak it.
    pub default: Version,
    /// Every known release, oldest first.
    pub releases: Vec<Release>,
    /// The changes, by the release that brought them.
    pub changes: Vec<Change>,
}

/// The registry's source, `conformance/releases.yaml`.
pub const REGISTRY_YAML: &str = include_str!("../releases.yaml");

static REGISTRY: LazyLock<Result<Registry, RegistryError>> =
    LazyLock::new(|| parse_registry(REGISTRY_YAML));

/// The registry built into the runner. Its validity is checked by the crate's tests, so an
/// invalid one is a build that cannot pass them; callers still get the error as a value.
pub fn registry() -> Result<&'static Registry, RegistryError> {
    REGISTRY.as_ref().map_err(Clone::clone)
}

/// Parses and checks a registry: releases sorted and unique, the default known, change ids
/// unique, each change's release known, each rule of one kind.
pub fn parse_registry(text: &str) -> Result<Registry, RegistryError> {
    let registry: Registry =
        serde_saphyr::from_str(text).map_err(|e| RegistryError::Yaml(e.to_string()))?;
    let versions = registry.versions();
    if versions.windows(2).any(|pair| pair[0] >= pair[1]) {
        return Err(RegistryError::Order);
    }
    if !versions.contains(&registry.default) {
        return Err(RegistryError::DefaultUnlisted(registry.default));
    }
    let mut ids = std::collections::BTreeSet::new();
    for change in &registry.changes {
        if !ids.insert(change.id.as_str()) {
            return Err(RegistryError::ChangeTwice(change.id.clone()));
        }
        if !versions.contains(&change.since) {
            return Err(RegistryError::ChangeRelease {
                change: change.id.clone(),
                since: change.since,
            });
        }
        for rule in &change.rules {
            let kinds = usize::from(rule.add.is_some())
                + usize::from(!rule.omit_records.is_empty())
                + usize::from(!rule.omit_elements.is_empty())
                + usize::from(!rule.omit_keys.is_empty());
            if kinds != 1 {
                return Err(RegistryError::RuleKinds(change.id.clone()));
            }
        }
    }
    Ok(registry)
}

impl Registry {
    /// The known release numbers, oldest first.
    pub fn versions(&self) -> Vec<Version> {
        self.releases.iter().map(|r| r.version).collect()
    }

    /// The newest known release.
    pub fn newest(&self) -> Version {
        self.releases.last().map_or(self.default, |r| r.version)
    }

    /// A change by id.
    pub fn change(&self, id: &str) -> Option<&Change> {
        self.changes.iter().find(|c| c.id == id)
    }

    /// The release before `version` among the known ones.
    pub fn previous(&self, version: Version) -> Option<Version> {
        self.versions().into_iter().rev().find(|v| *v < version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Version {
        text.parse().unwrap()
    }

    #[test]
    fn versions_compare_numerically() {
        assert!(v("0.84.10") > v("0.84.9"));
        assert!(v("1.0.3") > v("0.99.1"));
        assert_eq!(v("1.6.0").to_string(), "1.6.0");
        assert!("1.6".parse::<Version>().is_err());
        assert!("1.6.x".parse::<Version>().is_err());
    }

    #[test]
    fn ranges_join_their_bounds() {
        let range: Range = ">=0.84.4 <1.0.3".parse().unwrap();
        assert!(!range.contains(v("0.84.3")));
        assert!(range.contains(v("0.84.4")));
        assert!(range.contains(v("0.99.1")));
        assert!(!range.contains(v("1.0.3")));
        let exact: Range = "0.84.1".parse().unwrap();
        assert!(exact.contains(v("0.84.1")) && !exact.contains(v("0.84.2")));
        assert!(Range::all().contains(v("9.9.9")));
        assert!("*".parse::<Range>().unwrap().contains(v("0.1.0")));
        assert!("".parse::<Range>().is_err());
        assert!(">=x".parse::<Range>().is_err());
        assert_eq!(
            range.first_in(&[v("0.84.1"), v("0.85.0")]),
            Some(v("0.85.0"))
        );
    }

    #[test]
    fn the_built_in_registry_is_valid() {
        let registry = registry().unwrap();
        assert_eq!(registry.default.to_string(), pi_reference::VERSION);
        assert!(registry.newest() >= registry.default);
    }

    #[test]
    fn a_registry_out_of_order_or_with_a_mixed_rule_is_refused() {
        let unordered = "default: 0.84.1\nreleases:\n  - {version: 0.84.2, date: x}\n  - {version: 0.84.1, date: x}\nchanges: []\n";
        assert_eq!(parse_registry(unordered).unwrap_err(), RegistryError::Order);
        let mixed = "default: 0.84.1\nreleases:\n  - {version: 0.84.1, date: x}\nchanges:\n  - id: a\n    since: 0.84.1\n    title: t\n    rules:\n      - {add: {k: 1}, omit_records: [{type: x}]}\n";
        assert!(
            parse_registry(mixed)
                .unwrap_err()
                .to_string()
                .contains("exactly one")
        );
    }
}
