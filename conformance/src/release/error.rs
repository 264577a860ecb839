//! Why a release number, a release range, the registry or a `$since` variant is refused.

use super::{SINCE_KEY, Version};

/// A text that is not a release number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a release number such as 0.84.1")]
pub struct VersionError(pub String);

/// A release range that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RangeError {
    /// One of its comparisons names no release number.
    #[error("release range `{range}`: {source}")]
    Version {
        /// The range as written.
        range: String,
        /// The word that is no release number.
        source: VersionError,
    },
    /// It has no comparison and is not `*`.
    #[error("release range `{0}` is empty: write `*` for every release")]
    Empty(String),
}

/// A registry (`releases.yaml`) that is malformed or inconsistent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// The YAML does not have the registry's shape (the parser's sentence).
    #[error("releases.yaml: {0}")]
    Yaml(String),
    /// Releases out of order or listed twice.
    #[error("releases.yaml: releases must be listed oldest first, once each")]
    Order,
    /// The default release is not one of the releases.
    #[error("releases.yaml: the default release {0} is not listed")]
    DefaultUnlisted(Version),
    /// Two changes share an id.
    #[error("releases.yaml: change `{0}` is listed twice")]
    ChangeTwice(String),
    /// A change names a release that is not listed.
    #[error("releases.yaml: change `{change}` names release {since}, which is not listed")]
    ChangeRelease {
        /// The change.
        change: String,
        /// The release it names.
        since: Version,
    },
    /// A rule has no kind or several.
    #[error(
        "releases.yaml: a rule of change `{0}` must have exactly one of `add`, \
         `omit_records`, `omit_elements` and `omit_keys`"
    )]
    RuleKinds(String),
}

/// A scenario that cannot be resolved for a release.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// `$since` shares its object with other keys.
    #[error("`{SINCE_KEY}` must be the only key of its object")]
    SinceNotAlone,
    /// `$since` does not hold a non-empty map.
    #[error(
        "`{SINCE_KEY}` takes a map of releases to patterns, such as \
         {{\"0.99.1\": {{disposition: started}}}}"
    )]
    SinceShape,
    /// A `$since` key is no release number.
    #[error("`{SINCE_KEY}`: {0}")]
    SinceVersion(VersionError),
    /// A value a step needs stands for nothing on the release.
    #[error("`{SINCE_KEY}` leaves this step without a value on release {0}")]
    NoValue(Version),
    /// Where in the scenario: the 1-based step.
    #[error("step {number}: {source}")]
    Step {
        /// The 1-based step number.
        number: usize,
        /// What is wrong there.
        source: Box<ResolveError>,
    },
    /// Which release the scenario was resolved for.
    #[error("on release {release}: {source}")]
    OnRelease {
        /// The release.
        release: Version,
        /// What is wrong there.
        source: Box<ResolveError>,
    },
    /// The registry the release comes from is malformed.
    #[error(transparent)]
    Registry(#[from] RegistryError),
}
