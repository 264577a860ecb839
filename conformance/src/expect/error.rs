//! Why an expectation item (or an exit alternative) is malformed.

use super::EXIT_KEY;

/// A malformed expectation item; the text is the sentence a scenario author sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ItemError {
    /// A `$` key shares its item with other keys.
    #[error("`{0}` must be the only key of its item")]
    NotAlone(String),
    /// `$unordered` without a non-empty list.
    #[error("`$unordered` takes a non-empty list of record patterns")]
    Unordered,
    /// `$raw` without a string.
    #[error("`$raw` takes the line as a string")]
    Raw,
    /// `$either` without `strict`.
    #[error("`$either` needs `strict`: the conforming record")]
    EitherStrict,
    /// `$either` without `allow`.
    #[error("`$either` needs `allow`: the tolerated records")]
    EitherAllow,
    /// `$either` without `reason`.
    #[error("`$either` needs `reason`: why the alternative is tolerated")]
    EitherReason,
    /// An exit alternative with other keys beside `$exit`.
    #[error("`{EXIT_KEY}` must be the only key of its alternative")]
    ExitNotAlone,
    /// A `$` key that is no item kind.
    #[error("unknown item key `{0}` (known: $unordered, $skip_until, $either, $raw, $partial)")]
    UnknownKey(String),
    /// `$exit`'s value has the wrong shape.
    #[error("`$exit` takes an exit code or {{code, stderr_contains}}")]
    ExitShape,
    /// `$exit`'s object has a key it does not take.
    #[error("`$exit` takes an exit code or {{code, stderr_contains}}; unknown key `{0}`")]
    ExitKey(String),
    /// `stderr_contains` is neither a text nor a list of texts.
    #[error("`stderr_contains` takes a text or a list of texts")]
    StderrContains,
}
