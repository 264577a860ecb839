//! Providers configured by more than a key variable, as the reference resolves them: Amazon
//! Bedrock by any AWS credential source, Google Vertex AI by a key or Application Default
//! Credentials with a project and location, the Cloudflare providers by a key plus the account
//! (and gateway) id their URLs are built from.

use std::path::PathBuf;

use super::env_keys::value;

/// The variables that configure Bedrock: a profile, access keys (both), a Bedrock API key, an
/// ECS task role or a web identity token.
const AWS_SOURCES: [&[&str]; 6] = [
    &["AWS_PROFILE"],
    &["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"],
    &["AWS_BEARER_TOKEN_BEDROCK"],
    &["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"],
    &["AWS_CONTAINER_CREDENTIALS_FULL_URI"],
    &["AWS_WEB_IDENTITY_TOKEN_FILE"],
];

/// The variables a Cloudflare provider's URL takes its ids from.
pub(crate) const CLOUDFLARE_ACCOUNT_ID: &str = "CLOUDFLARE_ACCOUNT_ID";
/// The AI Gateway's id variable.
pub(crate) const CLOUDFLARE_GATEWAY_ID: &str = "CLOUDFLARE_GATEWAY_ID";

/// A variable as the reference's auth context reads it: set and not blank.
pub(crate) fn env(name: &str) -> Option<String> {
    value(name).filter(|value| !value.trim().is_empty())
}

/// Whether the environment configures `provider` by the rules beyond a key variable, given
/// the stored credential's variables (`env` of an `auth.json` entry, which win) and whether a
/// key is known (stored or in the key variable). `None` for the providers without such rules.
pub(crate) fn configured(
    provider: &str,
    stored_env: &serde_json::Map<String, serde_json::Value>,
    has_key: bool,
) -> Option<bool> {
    let get = |name: &str| {
        stored_env
            .get(name)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
            .or_else(|| env(name))
    };
    match provider {
        "amazon-bedrock" => Some(
            has_key
                || AWS_SOURCES
                    .iter()
                    .any(|names| names.iter().all(|name| get(name).is_some())),
        ),
        "google-vertex" => Some(
            has_key || {
                let credentials = get("GOOGLE_APPLICATION_CREDENTIALS")
                    .map(PathBuf::from)
                    .unwrap_or_else(default_adc_path);
                let project = get("GOOGLE_CLOUD_PROJECT").or_else(|| get("GCLOUD_PROJECT"));
                credentials.exists() && project.is_some() && get("GOOGLE_CLOUD_LOCATION").is_some()
            },
        ),
        "cloudflare-workers-ai" => Some(has_key && get(CLOUDFLARE_ACCOUNT_ID).is_some()),
        "cloudflare-ai-gateway" => Some(
            has_key && get(CLOUDFLARE_ACCOUNT_ID).is_some() && get(CLOUDFLARE_GATEWAY_ID).is_some(),
        ),
        _ => None,
    }
}

/// `~/.config/gcloud/application_default_credentials.json`, where `gcloud auth
/// application-default login` leaves the user's credentials.
pub(crate) fn default_adc_path() -> PathBuf {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    home.join(".config")
        .join("gcloud")
        .join("application_default_credentials.json")
}
