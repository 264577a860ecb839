//! What went wrong when the extensions were first loaded, worded and ordered as the reference
//! reports it.

/// What went wrong when the extensions were first loaded, in the reference's words.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct LoadProblems {
    /// The providers the factories registered that could not be composed:
    /// `Extension "<path>" error: <why>` (filled in once they are applied).
    pub providers: Vec<String>,
    /// Command-line flags that no loaded extension registered, or without their value.
    pub flags: Vec<String>,
    /// The extensions that failed to load, in load order, then the `-e` paths that do not
    /// exist: `Failed to load extension "<path>": <why>`.
    pub extensions: Vec<String>,
}

/// What the reference adds after the errors when an extension failed to load (naming this
/// program).
const LOAD_FAILURE_HINT: &str = "Hint: Start without extensions using \"pi-agent -ne\".";

impl LoadProblems {
    /// Whether there is nothing to report.
    pub fn is_empty(&self) -> bool {
        self.providers.is_empty() && self.flags.is_empty() && self.extensions.is_empty()
    }

    /// Each error, in the order the reference reports them: the providers, the flags, then the
    /// extensions.
    pub fn errors(&self) -> impl Iterator<Item = &str> {
        self.providers
            .iter()
            .chain(&self.flags)
            .chain(&self.extensions)
            .map(String::as_str)
    }

    /// The reference's hint, which it prints after all the start-up errors when an extension
    /// failed to load.
    pub fn hint(&self) -> Option<&'static str> {
        (!self.extensions.is_empty()).then_some(LOAD_FAILURE_HINT)
    }
}
