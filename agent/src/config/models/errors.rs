//! Why `models.json`, or one provider in it, is not taken: the reference's words, which the
//! start-up prints as warnings.

use std::path::PathBuf;

/// Why the whole file is rejected (every custom provider is dropped).
#[derive(Debug, thiserror::Error)]
pub enum ModelsFileError {
    /// The file cannot be read.
    #[error("Failed to load models.json: {source}\n\nFile: {}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It is not JSON (after comments and trailing commas are dropped).
    #[error("Failed to parse models.json: {source}\n\nFile: {}", .path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// It does not fit the schema.
    #[error(
        "Invalid models.json schema:\n{}\n\nFile: {}",
        .problems.iter().map(|problem| format!("  - {problem}")).collect::<Vec<_>>().join("\n"),
        .path.display()
    )]
    Schema {
        /// The file.
        path: PathBuf,
        /// Each problem, as `path: what is wrong`.
        problems: Vec<String>,
    },
}

/// Why one provider of the file cannot be composed (it alone is dropped).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderConfigError {
    /// `oauth` without `baseUrl`.
    #[error("Provider {0}: \"baseUrl\" is required when \"oauth\" is set.")]
    OAuthWithoutBaseUrl(String),
    /// Nothing that changes or defines models.
    #[error(
        "Provider {0}: must specify \"baseUrl\", \"headers\", \"compat\", \"modelOverrides\", or \"models\"."
    )]
    NothingGiven(String),
    /// A model without an `api`, at provider or model level.
    #[error(
        "Provider {provider}, model {model}: no \"api\" specified. Set at provider or model level."
    )]
    NoApi {
        /// The provider.
        provider: String,
        /// The model's id.
        model: String,
    },
    /// A custom model without a `baseUrl`.
    #[error("Provider {0}: \"baseUrl\" is required when defining custom models.")]
    NoBaseUrl(String),
    /// A `contextWindow` that is not a positive number.
    #[error("Provider {provider}, model {model}: invalid contextWindow")]
    InvalidContextWindow {
        /// The provider.
        provider: String,
        /// The model's id.
        model: String,
    },
    /// A `maxTokens` that is not a positive number.
    #[error("Provider {provider}, model {model}: invalid maxTokens")]
    InvalidMaxTokens {
        /// The provider.
        provider: String,
        /// The model's id.
        model: String,
    },
}
