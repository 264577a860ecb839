//! Gemini on Google Vertex AI (`api: "google-vertex"`), as the reference reaches it through the
//! Google SDK in Vertex mode.
//!
//! With a key (`GOOGLE_CLOUD_API_KEY` or `auth.json`): `POST
//! https://aiplatform.googleapis.com/v1/publishers/google/models/{model}:streamGenerateContent?alt=sse`
//! with `x-goog-api-key`. Otherwise Application Default Credentials (see `adc`) with
//! `GOOGLE_CLOUD_PROJECT` (or `GCLOUD_PROJECT`) and `GOOGLE_CLOUD_LOCATION`: `POST
//! https://{location}-aiplatform.googleapis.com/v1/projects/{project}/locations/{location}/
//! publishers/google/models/{model}:streamGenerateContent?alt=sse` (`aiplatform.googleapis.com`
//! for `global`, `aiplatform.{us|eu}.rep.googleapis.com` for the multi-regions) with the access
//! token as a bearer. A model `baseUrl` without the `{location}` placeholder replaces the host
//! and stands for the collection: `{baseUrl}[/v1]/publishers/google/models/...`. The body and
//! the stream are Gemini's.

mod adc;

use std::path::PathBuf;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::call::EventSender;
use super::driver::{drive, fail_early};
use super::google::events::GeminiEvents;
use super::headers::header_map;
use super::partial::PartialMessage;
use super::{LlmRequest, ProviderEvent, StreamOptions, stored_env};

/// The `api` value of models using this wire format.
pub const API: &str = super::google::VERTEX_API;

/// The marker the reference's auth passes for Application Default Credentials.
const ADC_MARKER: &str = "gcp-vertex-credentials";

/// How a call authenticates.
enum Auth {
    /// A Vertex API key.
    Key(String),
    /// An access token from Application Default Credentials, for a project and location.
    Adc {
        project: String,
        location: String,
        credentials: PathBuf,
    },
}

/// The model `baseUrl` when it is a custom one (not the catalog's `{location}` template).
fn custom_base(base_url: &str) -> Option<&str> {
    let trimmed = base_url.trim();
    (!trimmed.is_empty() && !trimmed.contains("{location}")).then_some(trimmed)
}

/// Whether a URL's path already has an API version segment (`v1`, `v1beta1`).
fn includes_version(base: &str) -> bool {
    let path = reqwest::Url::parse(base)
        .map(|url| url.path().to_owned())
        .unwrap_or_else(|_| base.to_owned());
    path.split('/').any(|part| {
        let Some(rest) = part.strip_prefix('v') else {
            return false;
        };
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let tail = &rest[digits..];
        digits > 0
            && (tail.is_empty()
                || tail
                    .strip_prefix("beta")
                    .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit())))
    })
}

/// The streaming URL for the model `model_id`.
fn stream_url(base_url: &str, model_id: &str, auth: &Auth) -> String {
    let (base, collection) = match (custom_base(base_url), auth) {
        (Some(base), _) => (base.trim_end_matches('/').to_owned(), true),
        (None, Auth::Key(_)) => ("https://aiplatform.googleapis.com".to_owned(), true),
        (None, Auth::Adc { location, .. }) => {
            let host = match location.as_str() {
                "global" => "https://aiplatform.googleapis.com".to_owned(),
                "us" | "eu" => format!("https://aiplatform.{location}.rep.googleapis.com"),
                _ => format!("https://{location}-aiplatform.googleapis.com"),
            };
            (host, false)
        }
    };
    let mut url = base.clone();
    if !(custom_base(base_url).is_some() && includes_version(&base)) {
        url.push_str("/v1");
    }
    if let (
        false,
        Auth::Adc {
            project, location, ..
        },
    ) = (collection, auth)
    {
        url.push_str(&format!("/projects/{project}/locations/{location}"));
    }
    format!("{url}/publishers/google/models/{model_id}:streamGenerateContent?alt=sse")
}

/// What a Vertex call without an API key lacks; the call fails with this text.
#[derive(Debug, thiserror::Error)]
enum AuthError {
    #[error(
        "Vertex AI requires a project ID. Set GOOGLE_CLOUD_PROJECT/GCLOUD_PROJECT or pass project in options."
    )]
    NoProject,
    #[error(
        "Vertex AI requires a location. Set GOOGLE_CLOUD_LOCATION or pass location in options."
    )]
    NoLocation,
}

/// The call's authentication, or the reference's error for a missing project or location.
fn resolve_auth(request: &LlmRequest) -> Result<Auth, AuthError> {
    let key = request.api_key();
    let key = key
        .as_deref()
        .map(str::trim)
        .filter(|key| !key.is_empty() && *key != ADC_MARKER)
        .filter(|key| !(key.starts_with('<') && key.ends_with('>')));
    if let Some(key) = key {
        return Ok(Auth::Key(key.to_owned()));
    }
    let project = stored_env(request, "GOOGLE_CLOUD_PROJECT")
        .or_else(|| stored_env(request, "GCLOUD_PROJECT"))
        .ok_or(AuthError::NoProject)?;
    let location = stored_env(request, "GOOGLE_CLOUD_LOCATION").ok_or(AuthError::NoLocation)?;
    let credentials = stored_env(request, "GOOGLE_APPLICATION_CREDENTIALS")
        .map(PathBuf::from)
        .unwrap_or_else(crate::config::ambient::default_adc_path);
    Ok(Auth::Adc {
        project,
        location,
        credentials,
    })
}

/// Builds and sends the request, then streams the answer into `tx`.
pub(crate) async fn run(
    http: &reqwest::Client,
    request: LlmRequest,
    options: StreamOptions,
    cancel: CancellationToken,
    tx: EventSender,
) {
    let partial = PartialMessage::new(&request.model);
    let auth = match resolve_auth(&request) {
        Ok(auth) => auth,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let header_changes = super::hooks::before_headers(&request).await;
    let request = std::sync::Arc::new(request);
    let body = match super::google::prepare_body(&request).await {
        Ok(body) => body,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let mut pairs: Vec<(String, String)> = vec![("content-type".into(), "application/json".into())];
    match &auth {
        Auth::Key(key) => pairs.push(("x-goog-api-key".into(), key.clone())),
        Auth::Adc { credentials, .. } => {
            let token = tokio::select! {
                biased;
                () = cancel.cancelled() => {
                    let done = partial.fail(pi_rpc_protocol::message::StopReason::Aborted, super::driver::ABORTED_BEFORE_RESPONSE.to_owned());
                    tx.send(ProviderEvent::Done(done)).await;
                    return;
                }
                token = adc::access_token(http, credentials) => token,
            };
            match token {
                Ok((token, quota_project)) => {
                    pairs.push(("authorization".into(), format!("Bearer {token}")));
                    if let Some(project) = quota_project {
                        pairs.push(("x-goog-user-project".into(), project));
                    }
                }
                Err(error) => return fail_early(partial, error.to_string(), tx).await,
            }
        }
    }
    for (name, value) in request.model.headers.iter().flatten() {
        if let Value::String(value) = value {
            pairs.push((name.clone(), value.clone()));
        }
    }
    let headers = header_map(pairs)
        .and_then(|headers| super::hooks::apply_headers(header_changes.as_ref(), headers));
    let headers = match headers {
        Ok(headers) => headers,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let url = stream_url(&request.model.base_url, &request.model.id, &auth);
    let http_request = http.post(url).headers(headers);
    let wire = GeminiEvents::new(request.model.clone());
    let outgoing = super::body::Outgoing::new(http_request, body);
    drive(outgoing, partial, wire, options, cancel, tx).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adc(location: &str) -> Auth {
        Auth::Adc {
            project: "p".into(),
            location: location.into(),
            credentials: PathBuf::new(),
        }
    }

    #[test]
    fn urls_follow_the_google_sdk_in_vertex_mode() {
        let template = "https://{location}-aiplatform.googleapis.com";
        assert_eq!(
            stream_url(template, "g", &Auth::Key("k".into())),
            "https://aiplatform.googleapis.com/v1/publishers/google/models/g:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            stream_url(template, "g", &adc("us-central1")),
            "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google/models/g:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            stream_url(template, "g", &adc("global")),
            "https://aiplatform.googleapis.com/v1/projects/p/locations/global/publishers/google/models/g:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            stream_url(template, "g", &adc("eu")),
            "https://aiplatform.eu.rep.googleapis.com/v1/projects/p/locations/eu/publishers/google/models/g:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            stream_url("http://127.0.0.1:9/", "g", &adc("us-central1")),
            "http://127.0.0.1:9/v1/publishers/google/models/g:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            stream_url("http://127.0.0.1:9/v1beta1", "g", &Auth::Key("k".into())),
            "http://127.0.0.1:9/v1beta1/publishers/google/models/g:streamGenerateContent?alt=sse"
        );
    }
}
