//! Where a Bedrock call's credentials, region and endpoint come from, in the order the
//! reference and the AWS SDK's default chain look:
//!
//! - a Bedrock API key (the provider's `auth.json` key, else `AWS_BEARER_TOKEN_BEDROCK`) is
//!   sent as a bearer token, unless `AWS_BEDROCK_SKIP_AUTH=1`;
//! - else access keys: `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN`
//!   (unless a profile was stored with the key), then the profile (`AWS_PROFILE`, else
//!   `default`) of the shared files (`AWS_SHARED_CREDENTIALS_FILE`, `AWS_CONFIG_FILE`, by
//!   default `~/.aws/credentials` and `~/.aws/config`): static keys or a `credential_process`,
//!   then a web identity (`AWS_WEB_IDENTITY_TOKEN_FILE` with `AWS_ROLE_ARN`, exchanged at STS),
//!   then an ECS task role (`AWS_CONTAINER_CREDENTIALS_FULL_URI` or `..._RELATIVE_URI`).
//!
//! The region is the inference profile ARN's, else `AWS_REGION` / `AWS_DEFAULT_REGION`, else
//! the explicit endpoint's, else (without a profile) `us-east-1`, else the profile's.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;

use super::super::{LlmRequest, stored_env};
use super::sigv4::Credentials;

/// Why a Bedrock call has no credentials; the call fails with this text before it is sent.
#[derive(Debug, thiserror::Error)]
pub enum CredentialsError {
    /// The profile's `credential_process` could not be run.
    #[error("credential_process of profile {profile} failed: {source}")]
    ProcessFailed {
        profile: String,
        source: std::io::Error,
    },
    /// The profile's `credential_process` printed no keys.
    #[error("credential_process of profile {0} gave no credentials")]
    ProcessGaveNothing(String),
    /// The web identity could not be exchanged for keys.
    #[error(transparent)]
    WebIdentity(#[from] super::web_identity::WebIdentityError),
    /// The container credentials endpoint could not be reached.
    #[error("Failed to load container credentials: {0}")]
    ContainerUnreachable(#[source] reqwest::Error),
    /// The container credentials endpoint gave no keys.
    #[error("Failed to load container credentials")]
    ContainerGaveNothing,
    /// No source in the chain has credentials.
    #[error("Could not load credentials from any providers")]
    NoneFound,
    /// The web identity exchange needs the region.
    #[error(transparent)]
    Region(#[from] RegionMissing),
}

/// No region from the model, the environment, the endpoint or the profile.
#[derive(Debug, thiserror::Error)]
#[error("Region is missing")]
pub struct RegionMissing;

/// How a call authenticates.
pub(super) enum Auth {
    /// A Bedrock API key.
    Bearer(String),
    /// Access keys that sign the request.
    SigV4(Credentials),
}

fn home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// The sections of an INI file (`[name]` or `[profile name]`) with their keys.
fn read_ini(path: &PathBuf, config_file: bool) -> HashMap<String, HashMap<String, String>> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return HashMap::new();
    };
    let mut sections: HashMap<String, HashMap<String, String>> = HashMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let name = name.trim();
            let name = if config_file {
                name.strip_prefix("profile ").map(str::trim).unwrap_or(name)
            } else {
                name
            };
            current = Some(name.to_owned());
            continue;
        }
        if let (Some(section), Some((key, value))) = (&current, line.split_once('=')) {
            sections
                .entry(section.clone())
                .or_default()
                .insert(key.trim().to_owned(), value.trim().to_owned());
        }
    }
    sections
}

/// The profile's keys from both shared files (the credentials file wins).
fn profile(name: &str) -> HashMap<String, String> {
    let credentials = std::env::var_os("AWS_SHARED_CREDENTIALS_FILE")
        .map(PathBuf::from)
        .unwrap_or_else(|| home().join(".aws").join("credentials"));
    let config = std::env::var_os("AWS_CONFIG_FILE")
        .map(PathBuf::from)
        .unwrap_or_else(|| home().join(".aws").join("config"));
    let mut keys = read_ini(&config, true).remove(name).unwrap_or_default();
    keys.extend(
        read_ini(&credentials, false)
            .remove(name)
            .unwrap_or_default(),
    );
    keys
}

/// The profile a call uses: the one stored with its key, else `AWS_PROFILE`.
fn profile_name(request: &LlmRequest) -> (Option<String>, bool) {
    let stored = request.stored_variable("AWS_PROFILE");
    match stored {
        Some(name) => (Some(name), true),
        None => (crate::config::ambient::env("AWS_PROFILE"), false),
    }
}

/// Keys from a JSON document with `AccessKeyId`, `SecretAccessKey` and `SessionToken` (or
/// `Token`), as credential processes and the ECS endpoint give them.
fn keys_from_json(value: &Value) -> Option<Credentials> {
    let field = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    Some(Credentials {
        access_key_id: field("AccessKeyId")?,
        secret_access_key: field("SecretAccessKey")?,
        session_token: field("SessionToken").or_else(|| field("Token")),
    })
}

/// The call's credentials, or the error that stops it.
pub(super) async fn resolve(
    http: &reqwest::Client,
    request: &LlmRequest,
) -> Result<Auth, CredentialsError> {
    let skip_auth = stored_env(request, "AWS_BEDROCK_SKIP_AUTH").as_deref() == Some("1");
    if skip_auth {
        return Ok(Auth::SigV4(Credentials {
            access_key_id: "dummy-access-key".into(),
            secret_access_key: "dummy-secret-key".into(),
            session_token: None,
        }));
    }
    let bearer = request
        .api_key()
        .filter(|key| !(key.is_empty() || key.starts_with('<') && key.ends_with('>')))
        .or_else(|| stored_env(request, "AWS_BEARER_TOKEN_BEDROCK"));
    if let Some(token) = bearer {
        return Ok(Auth::Bearer(token));
    }
    let (profile_name, stored_profile) = profile_name(request);
    if !stored_profile
        && let (Some(id), Some(secret)) = (
            stored_env(request, "AWS_ACCESS_KEY_ID"),
            stored_env(request, "AWS_SECRET_ACCESS_KEY"),
        )
    {
        return Ok(Auth::SigV4(Credentials {
            access_key_id: id,
            secret_access_key: secret,
            session_token: stored_env(request, "AWS_SESSION_TOKEN"),
        }));
    }
    let name = profile_name.unwrap_or_else(|| "default".to_owned());
    let keys = profile(&name);
    if let (Some(id), Some(secret)) = (
        keys.get("aws_access_key_id"),
        keys.get("aws_secret_access_key"),
    ) {
        return Ok(Auth::SigV4(Credentials {
            access_key_id: id.clone(),
            secret_access_key: secret.clone(),
            session_token: keys.get("aws_session_token").cloned(),
        }));
    }
    if let Some(command) = keys.get("credential_process") {
        let output = tokio::process::Command::new("sh")
            .args(["-c", command])
            .output()
            .await
            .map_err(|source| CredentialsError::ProcessFailed {
                profile: name.clone(),
                source,
            })?;
        let value: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
        return keys_from_json(&value)
            .map(Auth::SigV4)
            .ok_or(CredentialsError::ProcessGaveNothing(name));
    }
    if let Some(token_file) = stored_env(request, "AWS_WEB_IDENTITY_TOKEN_FILE") {
        let (region, _) = region_and_endpoint(request)?;
        let credentials =
            super::web_identity::assume_role(http, request, &token_file, &region).await?;
        return Ok(Auth::SigV4(credentials));
    }
    let container = stored_env(request, "AWS_CONTAINER_CREDENTIALS_FULL_URI").or_else(|| {
        stored_env(request, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")
            .map(|path| format!("http://169.254.170.2{path}"))
    });
    if let Some(url) = container {
        let mut get = http.get(&url);
        if let Some(token) = stored_env(request, "AWS_CONTAINER_AUTHORIZATION_TOKEN") {
            get = get.header("authorization", token);
        }
        let value: Value = match get.send().await {
            Ok(response) => response.json().await.unwrap_or(Value::Null),
            Err(error) => return Err(CredentialsError::ContainerUnreachable(error)),
        };
        return keys_from_json(&value)
            .map(Auth::SigV4)
            .ok_or(CredentialsError::ContainerGaveNothing);
    }
    Err(CredentialsError::NoneFound)
}

/// The region of a standard Bedrock runtime host (`bedrock-runtime[-fips].<region>.amazonaws.com`).
pub(super) fn endpoint_region(base_url: &str) -> Option<String> {
    let url = reqwest::Url::parse(base_url).ok()?;
    let host = url.host_str()?.to_ascii_lowercase();
    let host = host
        .strip_suffix(".amazonaws.com")
        .or_else(|| host.strip_suffix(".amazonaws.com.cn"))?;
    let region = host
        .strip_prefix("bedrock-runtime-fips.")
        .or_else(|| host.strip_prefix("bedrock-runtime."))?;
    (!region.is_empty()
        && region
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-'))
    .then(|| region.to_owned())
}

/// The region, and the endpoint to post to.
pub(super) fn region_and_endpoint(request: &LlmRequest) -> Result<(String, String), RegionMissing> {
    let model = &request.model;
    let configured =
        stored_env(request, "AWS_REGION").or_else(|| stored_env(request, "AWS_DEFAULT_REGION"));
    let (profile_name, _) = profile_name(request);
    let ambient_profile = crate::config::ambient::env("AWS_PROFILE").is_some();
    let from_endpoint = endpoint_region(&model.base_url);
    let explicit = from_endpoint.is_none() || (configured.is_none() && !ambient_profile);
    let arn_region = model
        .id
        .strip_prefix("arn:aws")
        .and_then(|rest| rest.split(':').nth(2))
        .filter(|region| !region.is_empty())
        .map(str::to_owned);
    let region = arn_region
        .or(configured)
        .or_else(|| from_endpoint.clone().filter(|_| explicit))
        .or_else(|| (!ambient_profile).then(|| "us-east-1".to_owned()))
        .or_else(|| profile(&profile_name.unwrap_or_else(|| "default".into())).remove("region"))
        .ok_or(RegionMissing)?;
    let endpoint = if explicit && !model.base_url.is_empty() {
        model.base_url.trim_end_matches('/').to_owned()
    } else if let Some(url) = stored_env(request, "AWS_ENDPOINT_URL_BEDROCK_RUNTIME")
        .or_else(|| stored_env(request, "AWS_ENDPOINT_URL"))
    {
        url.trim_end_matches('/').to_owned()
    } else {
        format!("https://bedrock-runtime.{region}.amazonaws.com")
    };
    Ok((region, endpoint))
}
