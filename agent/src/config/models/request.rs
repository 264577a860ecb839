//! A model as one call sends it: its headers resolved, and what authenticates the call (or why
//! that could not be resolved: the call then fails with the reference's text, sending nothing).

use std::path::PathBuf;

use pi_rpc_protocol::model::Model;
use serde_json::{Map, Value};

use super::super::values::ResolveError;

/// [`ModelRegistry::resolve`](super::ModelRegistry::resolve)'s answer for one call.
#[derive(Debug, Clone)]
pub struct RequestModel {
    /// The model with the resolved headers of its provider and its own, and the catalog's
    /// `thinkingLevelMap`, `samplingParams` and `compat` in their fields.
    pub model: Model,
    /// What authenticates the call, or why it cannot be resolved.
    pub auth: Result<RequestAuth, RequestAuthError>,
}

/// What authenticates one model call besides the model's headers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestAuth {
    /// The key for the provider; `None` when the model's headers carry the authentication.
    pub api_key: Option<String>,
    /// The `auth.json` whose OAuth login gave the key (the call refreshes it there when it
    /// expires).
    pub oauth_store: Option<PathBuf>,
    /// The variables stored with the provider's `auth.json` key (a Cloudflare account id, an
    /// AWS profile, a Vertex project).
    pub stored_env: Map<String, Value>,
}

/// Why a call's key or headers cannot be resolved, in the reference's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestAuthError {
    /// The provider's `apiKey` or one of its headers (a missing variable, a failing command).
    #[error("API key auth failed for provider {provider}: {source}")]
    Provider {
        /// The provider.
        provider: String,
        /// Why.
        source: ResolveError,
    },
    /// `authHeader` asks for a key the provider does not have.
    #[error("No API key found for \"{0}\"")]
    NoKeyForHeader(String),
    /// One of the model's own headers.
    #[error(transparent)]
    ModelHeader(ResolveError),
}
