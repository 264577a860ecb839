//! The ChatGPT login that pi's `/login` leaves in `auth.json` (`"openai-codex": {"type":
//! "oauth", "access", "refresh", "expires", "accountId"}`), refreshed as the reference refreshes
//! it: read again before each call, and when it expires within five minutes its refresh token
//! is exchanged at OpenAI's token endpoint (`grant_type=refresh_token` with the Codex client
//! id) and the new tokens are written back. `PI_AGENT_OPENAI_AUTH_URL` replaces
//! `https://auth.openai.com` (pi-agent's own setting, for tests and proxies).

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

/// The provider the login is stored under.
const PROVIDER: &str = "openai-codex";
/// The Codex CLI's OAuth client id.
const CLIENT_ID: &str = "app_EMoamEEZ73f0CkXaXp7hrann";
/// OpenAI's auth server.
const AUTH_BASE_URL: &str = "https://auth.openai.com";
/// A login this close to expiry is refreshed first.
const MIN_VALIDITY_MS: u64 = 5 * 60 * 1000;

/// Why there is no access token to send, in the reference's words; the call fails with it.
#[derive(Debug, thiserror::Error)]
pub enum LoginError {
    /// `auth.json` cannot be read.
    #[error("Credential store read failed for {PROVIDER}: {0}")]
    Read(#[source] std::io::Error),
    /// `auth.json` is not a JSON object.
    #[error("Credential store read failed for {PROVIDER}: {} is not a JSON object", .0.display())]
    NotAnObject(PathBuf),
    /// `auth.json` holds no ChatGPT login.
    #[error("Provider is not configured: {PROVIDER}")]
    NotConfigured,
    /// The token endpoint could not be reached.
    #[error("OAuth refresh failed for {PROVIDER}: OpenAI Codex token refresh error: {0}")]
    RefreshUnreachable(#[source] reqwest::Error),
    /// The token endpoint refused (its body, else the status's reason).
    #[error(
        "OAuth refresh failed for {PROVIDER}: OpenAI Codex token refresh failed ({status}): {shown}"
    )]
    RefreshRefused { status: u16, shown: String },
    /// The token endpoint's answer lacks a token, the refresh token or the lifetime.
    #[error(
        "OAuth refresh failed for {PROVIDER}: OpenAI Codex token refresh response missing fields: {0}"
    )]
    RefreshIncomplete(Value),
    /// The new access token names no ChatGPT account.
    #[error("OAuth refresh failed for {PROVIDER}: Failed to extract accountId from token")]
    NoAccountId,
    /// The refreshed login cannot be written back.
    #[error("Credential store modify failed for {PROVIDER}: {0}")]
    Write(#[source] std::io::Error),
}

/// The ChatGPT account id in an access token's claims.
pub(super) fn account_id(token: &str) -> Option<String> {
    use base64::Engine;
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    let claims: Value = serde_json::from_slice(&bytes).ok()?;
    claims
        .pointer("/https:~1~1api.openai.com~1auth/chatgpt_account_id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
}

fn read(path: &Path) -> Result<Map<String, Value>, LoginError> {
    let text = std::fs::read_to_string(path).map_err(LoginError::Read)?;
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(LoginError::NotAnObject(path.to_owned())),
    }
}

/// Writes `auth.json` whole (readable by its owner only), through a file beside it.
fn write(path: &Path, entries: &Map<String, Value>) -> Result<(), LoginError> {
    let text =
        serde_json::to_string_pretty(entries).map_err(|error| LoginError::Write(error.into()))?;
    let temporary = path.with_extension("json.tmp");
    std::fs::write(&temporary, text)
        .and_then(|()| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&temporary, std::fs::Permissions::from_mode(0o600))
        })
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(LoginError::Write)
}

/// The access token to send: the stored one, refreshed first when it is about to expire.
pub(super) async fn fresh_access_token(
    http: &reqwest::Client,
    path: &Path,
) -> Result<String, LoginError> {
    let mut entries = read(path)?;
    let Some(Value::Object(login)) = entries.get(PROVIDER).cloned() else {
        return Err(LoginError::NotConfigured);
    };
    let text = |key: &str| {
        login
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let expires = login.get("expires").and_then(Value::as_f64).unwrap_or(0.0);
    if (crate::js::now_ms() + MIN_VALIDITY_MS) as f64 <= expires {
        return Ok(text("access"));
    }
    let base = std::env::var("PI_AGENT_OPENAI_AUTH_URL")
        .ok()
        .filter(|url| !url.is_empty())
        .unwrap_or_else(|| AUTH_BASE_URL.to_owned());
    let refresh = text("refresh");
    let response = http
        .post(format!("{}/oauth/token", base.trim_end_matches('/')))
        .form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh.as_str()),
            ("client_id", CLIENT_ID),
        ])
        .send()
        .await
        .map_err(LoginError::RefreshUnreachable)?;
    let status = response.status();
    let body = response.text().await.unwrap_or_default();
    if !status.is_success() {
        let shown = if body.is_empty() {
            status.canonical_reason().unwrap_or_default().to_owned()
        } else {
            body
        };
        return Err(LoginError::RefreshRefused {
            status: status.as_u16(),
            shown,
        });
    }
    let token: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let field = |key: &str| {
        token
            .get(key)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
    };
    let (Some(access), Some(refresh), Some(lifetime)) = (
        field("access_token"),
        field("refresh_token"),
        token.get("expires_in").and_then(Value::as_f64),
    ) else {
        return Err(LoginError::RefreshIncomplete(token));
    };
    let account = account_id(access).ok_or(LoginError::NoAccountId)?;
    let expires = crate::js::now_ms() as f64 + lifetime * 1000.0;
    entries.insert(
        PROVIDER.into(),
        json!({"type": "oauth", "access": access, "refresh": refresh, "expires": expires as u64, "accountId": account}),
    );
    write(path, &entries)?;
    Ok(access.to_owned())
}
