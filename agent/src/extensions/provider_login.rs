//! The key of an extension provider registered with `oauth`, made of the login `auth.json`
//! stores under its name, as the reference makes it for each call: the host runs the
//! extension's `getApiKey(credentials)`, after `refreshToken(credentials)` when the login
//! expires within five minutes; a refreshed login is written back to `auth.json`. (The login
//! itself, `/login`, is interactive: not reachable in RPC mode.)

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::client::HostClient;
use super::protocol::{HostReply, ToHost};
use crate::provider::hooks::HookFuture;

/// The providers whose key their `oauth` makes, and where their logins are stored.
#[derive(Debug, Default)]
pub(super) struct Logins {
    providers: Vec<String>,
    auth_path: Option<PathBuf>,
}

impl Logins {
    /// Those of `registry`: extension providers with `oauth` and a login in `auth.json`.
    pub(super) fn of(registry: &crate::config::ModelRegistry) -> Self {
        Self {
            providers: registry.extension_logins(),
            auth_path: registry.auth_path().map(Path::to_owned),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.providers.is_empty()
    }

    /// The key of a call of `provider`'s models, when its `oauth` makes it.
    pub(super) fn key<'a>(
        &'a self,
        client: &'a HostClient,
        provider: &'a str,
    ) -> Option<HookFuture<'a, Result<String, String>>> {
        let path = self.auth_path.as_deref()?;
        self.providers.iter().any(|name| name == provider).then(|| {
            let key: HookFuture<'a, Result<String, String>> =
                Box::pin(login_key(client, path, provider));
            key
        })
    }
}

/// The errors, in the reference's words.
fn read_failed(provider: &str, why: impl std::fmt::Display) -> String {
    format!("Credential store read failed for {provider}: {why}")
}

fn read_logins(path: &Path, provider: &str) -> Result<Map<String, Value>, String> {
    let text = std::fs::read_to_string(path).map_err(|error| read_failed(provider, error))?;
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(entries)) => Ok(entries),
        _ => Err(read_failed(provider, "auth.json is not a JSON object")),
    }
}

/// Writes `auth.json` whole (readable by its owner only), through a file beside it.
fn write_logins(path: &Path, entries: &Map<String, Value>) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(entries)?;
    let temporary = path.with_extension("json.tmp");
    std::fs::write(&temporary, text)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&temporary, std::fs::Permissions::from_mode(0o600))?;
    }
    std::fs::rename(&temporary, path)
}

/// Reads the login again (another process may have refreshed it), has the host make the key
/// and stores a refreshed login.
async fn login_key(client: &HostClient, path: &Path, provider: &str) -> Result<String, String> {
    let not_configured = || format!("Provider is not configured: {provider}");
    let mut entries = read_logins(path, provider)?;
    let credential = entries
        .get(provider)
        .filter(|entry| entry.get("type").and_then(Value::as_str) == Some("oauth"))
        .cloned()
        .ok_or_else(not_configured)?;
    let asked = client
        .ask(|id| ToHost::ProviderAuth {
            id,
            provider,
            credential: &credential,
        })
        .await;
    let gone = || "The extension host ended before the provider's key was made".to_owned();
    let reply = asked.map_err(|_| gone())?.await.map_err(|_| gone())?;
    let HostReply::ProviderKey {
        api_key,
        refreshed,
        error,
    } = reply
    else {
        return Err(gone());
    };
    if let Some(refreshed) = refreshed {
        entries.insert(provider.to_owned(), refreshed);
        write_logins(path, &entries)
            .map_err(|error| format!("Credential store modify failed for {provider}: {error}"))?;
    }
    match (api_key, error) {
        (_, Some(error)) => Err(error),
        (Some(key), None) => Ok(key),
        (None, None) => Err(not_configured()),
    }
}
