//! The credentials `auth.json` stores, one per provider: an API key (which may carry
//! variables, such as a Cloudflare account id or an AWS profile, in `env`), or an OAuth login
//! (`access`, `refresh`, `expires` and the provider's own fields, such as the ChatGPT
//! `accountId`).

use std::collections::HashMap;
use std::path::Path;

use serde_json::{Map, Value};

/// Providers whose OAuth logins this agent uses (others are ignored, as before).
pub(crate) const OAUTH_PROVIDERS: [&str; 1] = ["openai-codex"];

/// One stored credential.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Stored {
    /// `{"type": "api_key", "key"?, "env"?}`.
    ApiKey {
        /// The key, when not empty.
        key: Option<String>,
        /// Variables stored with it.
        env: Map<String, Value>,
    },
    /// `{"type": "oauth", "access", "refresh", "expires", ...}`.
    OAuth {
        /// The access token.
        access: String,
    },
    /// An OAuth login of another provider: only an extension's `oauth` (its `getApiKey`) makes
    /// a key of it.
    ExtensionOAuth,
}

impl Stored {
    /// The key or access token to send.
    pub(crate) fn key(&self) -> Option<&str> {
        match self {
            Stored::ApiKey { key, .. } => key.as_deref(),
            Stored::OAuth { access } => Some(access),
            Stored::ExtensionOAuth => None,
        }
    }

    /// The variables stored with an API key (none for a login).
    pub(crate) fn env(&self) -> Option<&Map<String, Value>> {
        match self {
            Stored::ApiKey { env, .. } => Some(env),
            Stored::OAuth { .. } | Stored::ExtensionOAuth => None,
        }
    }
}

/// Reads `auth.json`; problems become warnings and leave nothing stored.
pub(crate) fn load(path: &Path, warnings: &mut Vec<String>) -> HashMap<String, Stored> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return HashMap::new(),
        Err(error) => {
            warnings.push(format!("cannot read {}: {error}", path.display()));
            return HashMap::new();
        }
    };
    let Ok(Value::Object(entries)) = serde_json::from_str::<Value>(&text) else {
        warnings.push(format!("{} is not a JSON object", path.display()));
        return HashMap::new();
    };
    entries
        .into_iter()
        .filter_map(|(provider, credential)| {
            let stored = parse(&provider, &credential)?;
            Some((provider, stored))
        })
        .collect()
}

fn parse(provider: &str, credential: &Value) -> Option<Stored> {
    match credential.get("type").and_then(Value::as_str)? {
        "api_key" => {
            let key = credential
                .get("key")
                .and_then(Value::as_str)
                .filter(|key| !key.is_empty())
                .map(str::to_owned);
            let env = match credential.get("env") {
                Some(Value::Object(env)) => env.clone(),
                _ => Map::new(),
            };
            (key.is_some() || !env.is_empty()).then_some(Stored::ApiKey { key, env })
        }
        "oauth" if OAUTH_PROVIDERS.contains(&provider) => {
            let access = credential.get("access").and_then(Value::as_str)?;
            Some(Stored::OAuth {
                access: access.to_owned(),
            })
        }
        "oauth" => Some(Stored::ExtensionOAuth),
        _ => None,
    }
}
