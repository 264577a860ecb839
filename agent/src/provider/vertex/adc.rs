//! Google Application Default Credentials: the credentials file (`GOOGLE_APPLICATION_CREDENTIALS`,
//! else gcloud's `~/.config/gcloud/application_default_credentials.json`) exchanged for an
//! access token, as Google's auth library does:
//!
//! - `service_account`: a JWT (RS256, signed with the file's private key) asserting the
//!   account for the `cloud-platform` scope, posted to the file's `token_uri`
//!   (`grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`);
//! - `authorized_user` (`gcloud auth application-default login`): the refresh token posted
//!   with the client id and secret;
//! - `external_account_authorized_user` (workforce identity): the refresh token posted to the
//!   file's `token_url`, the client id and secret as HTTP basic auth.
//!
//! Tokens are kept per file until five minutes before they expire.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::{Value, json};

/// Google's token endpoint.
const GOOGLE_TOKEN_URL: &str = "https://oauth2.googleapis.com/token";
/// The workforce identity token endpoint.
const STS_TOKEN_URL: &str = "https://sts.googleapis.com/v1/oauthtoken";
/// The scope Vertex AI needs.
const SCOPE: &str = "https://www.googleapis.com/auth/cloud-platform";
/// A token this close to expiry is refreshed.
const REFRESH_MARGIN: Duration = Duration::from_secs(300);

/// Why there is no access token, in the words the reference shows; the call fails with it.
#[derive(Debug, thiserror::Error)]
pub enum AdcError {
    /// The credentials file cannot be read.
    #[error("Could not load the default credentials from {}: {source}", .path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The credentials file is not JSON.
    #[error("Invalid credentials file {}: {source}", .path.display())]
    Invalid {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// A credentials `type` Google's library does not exchange here.
    #[error("The credentials file {} has an unsupported type: {kind}", .path.display())]
    UnsupportedType { path: PathBuf, kind: String },
    /// The service account's `private_key` is not a PEM block.
    #[error("The service account's private key is not PEM")]
    KeyNotPem,
    /// The service account's private key is not an RSA PKCS#8 key.
    #[error("The service account's private key is not usable: {0}")]
    KeyUnusable(ring::error::KeyRejected),
    /// Signing the assertion failed.
    #[error("Could not sign the service account's assertion")]
    SigningFailed,
    /// The token endpoint could not be reached.
    #[error("Could not refresh access token: {0}")]
    Unreachable(#[source] reqwest::Error),
    /// The token endpoint refused, worded as Google's library words it for the type.
    #[error("{0}")]
    Refused(String),
}

/// An access token and when it stops being used.
#[derive(Clone)]
struct Cached {
    token: String,
    quota_project: Option<String>,
    until: Instant,
}

fn cache() -> &'static Mutex<HashMap<PathBuf, Cached>> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Cached>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// An access token from the credentials file at `path`, and the quota project the file names.
pub(super) async fn access_token(
    http: &reqwest::Client,
    path: &Path,
) -> Result<(String, Option<String>), AdcError> {
    let cached = cache()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(path)
        .cloned();
    if let Some(cached) = cached.filter(|c| c.until > Instant::now()) {
        return Ok((cached.token, cached.quota_project));
    }
    let text = std::fs::read_to_string(path).map_err(|source| AdcError::Unreadable {
        path: path.to_owned(),
        source,
    })?;
    let file: Value = serde_json::from_str(&text).map_err(|source| AdcError::Invalid {
        path: path.to_owned(),
        source,
    })?;
    let field = |key: &str| file.get(key).and_then(Value::as_str).unwrap_or_default();
    let request = match field("type") {
        "service_account" => {
            let token_uri = Some(field("token_uri"))
                .filter(|uri| !uri.is_empty())
                .unwrap_or(GOOGLE_TOKEN_URL);
            let assertion = service_account_assertion(&file, token_uri)?;
            http.post(token_uri).form(&[
                ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"),
                ("assertion", assertion.as_str()),
            ])
        }
        "authorized_user" => {
            let token_uri = Some(field("token_uri"))
                .filter(|uri| !uri.is_empty())
                .unwrap_or(GOOGLE_TOKEN_URL);
            http.post(token_uri).form(&[
                ("client_id", field("client_id")),
                ("client_secret", field("client_secret")),
                ("refresh_token", field("refresh_token")),
                ("grant_type", "refresh_token"),
            ])
        }
        "external_account_authorized_user" => {
            let token_url = Some(field("token_url"))
                .filter(|url| !url.is_empty())
                .unwrap_or(STS_TOKEN_URL);
            http.post(token_url)
                .basic_auth(field("client_id"), Some(field("client_secret")))
                .form(&[
                    ("grant_type", "refresh_token"),
                    ("refresh_token", field("refresh_token")),
                ])
        }
        other => {
            return Err(AdcError::UnsupportedType {
                path: path.to_owned(),
                kind: other.to_owned(),
            });
        }
    };
    let response = request.send().await.map_err(AdcError::Unreachable)?;
    let status = response.status();
    let body: Value = response.json().await.unwrap_or(Value::Null);
    let token = body.get("access_token").and_then(Value::as_str);
    let (true, Some(token)) = (status.is_success(), token) else {
        return Err(AdcError::Refused(refusal(
            field("type"),
            &body,
            status.as_u16(),
        )));
    };
    let lifetime = body
        .get("expires_in")
        .and_then(Value::as_u64)
        .unwrap_or(3600);
    let quota_project = file
        .get("quota_project_id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let cached = Cached {
        token: token.to_owned(),
        quota_project: quota_project.clone(),
        until: Instant::now() + Duration::from_secs(lifetime).saturating_sub(REFRESH_MARGIN),
    };
    cache()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(path.to_path_buf(), cached);
    Ok((token.to_owned(), quota_project))
}

/// A refused exchange as Google's auth library words it for the credentials' type: `Error code
/// <error>: <description>` for workforce identity, `<error>: <description>` for a service
/// account, `<error>` for a user's refresh token.
fn refusal(kind: &str, body: &Value, status: u16) -> String {
    let text = |key: &str| body.get(key).and_then(Value::as_str);
    let Some(error) = text("error") else {
        return format!("Request failed with status code {status}");
    };
    match kind {
        "external_account_authorized_user" => {
            let mut message = format!("Error code {error}");
            if let Some(description) = text("error_description") {
                message.push_str(&format!(": {description}"));
            }
            if let Some(uri) = text("error_uri") {
                message.push_str(&format!(" - {uri}"));
            }
            message
        }
        "service_account" => format!(
            "{error}: {}",
            text("error_description").unwrap_or("undefined")
        ),
        _ => error.to_owned(),
    }
}

/// The signed JWT a service account exchanges for a token.
fn service_account_assertion(file: &Value, audience: &str) -> Result<String, AdcError> {
    let field = |key: &str| file.get(key).and_then(Value::as_str).unwrap_or_default();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mut header = json!({"alg": "RS256", "typ": "JWT"});
    if !field("private_key_id").is_empty() {
        header["kid"] = json!(field("private_key_id"));
    }
    let claims = json!({
        "iss": field("client_email"),
        "scope": SCOPE,
        "aud": audience,
        "exp": now + 3600,
        "iat": now,
    });
    let signing_input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let der = pem_body(field("private_key"))?;
    let key = ring::signature::RsaKeyPair::from_pkcs8(&der).map_err(AdcError::KeyUnusable)?;
    let mut signature = vec![0; key.public().modulus_len()];
    key.sign(
        &ring::signature::RSA_PKCS1_SHA256,
        &ring::rand::SystemRandom::new(),
        signing_input.as_bytes(),
        &mut signature,
    )
    .map_err(|_| AdcError::SigningFailed)?;
    Ok(format!(
        "{signing_input}.{}",
        URL_SAFE_NO_PAD.encode(signature)
    ))
}

/// The DER bytes of a PEM block.
fn pem_body(pem: &str) -> Result<Vec<u8>, AdcError> {
    let base64: String = pem
        .lines()
        .filter(|line| !line.starts_with("-----"))
        .flat_map(|line| line.chars().filter(|c| !c.is_whitespace()))
        .collect();
    STANDARD.decode(base64).map_err(|_| AdcError::KeyNotPem)
}
