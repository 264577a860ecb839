//! The Google Gemini wire format (`api: "google-generative-ai"`).
//!
//! `POST {baseUrl}/models/{model}:streamGenerateContent?alt=sse` with the key in
//! `x-goog-api-key` and the model's own headers. The body is built by `request`; the answer is
//! read by `events` the way the Google SDK reads it (its own splitting of the body, not an SSE
//! parser). Errors are worded as the Google SDK words them: an HTTP error is its JSON body (a
//! body that is not JSON is wrapped as `{"error":{"message","code","status"}}`), a connection
//! failure `fetch failed`.

pub(crate) mod events;
mod history;
pub(crate) mod request;

use std::sync::Arc;

use reqwest::header::HeaderMap;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::body::{Encoders, Outgoing, RequestBody, whole_value};
use super::call::EventSender;
use super::driver::{drive, fail_early};
use super::headers::{HeaderError, header_map};
use super::partial::PartialMessage;
use super::{LlmRequest, StreamOptions};
use events::GeminiEvents;
use pi_rpc_protocol::model::Model;

/// The `api` value of models using this wire format.
pub const API: &str = "google-generative-ai";

/// The `api` value of Vertex AI's Gemini models (`vertex::API`), whose requests and streams
/// differ from the Gemini API's in a few places.
pub const VERTEX_API: &str = "google-vertex";

/// The request URL for a base URL and model id.
pub fn stream_url(base_url: &str, model_id: &str) -> String {
    format!(
        "{}/models/{model_id}:streamGenerateContent?alt=sse",
        base_url.trim_end_matches('/')
    )
}

/// The JSON body sent for `request` (as a value, for tests: the request encodes it as it
/// sends it).
pub fn request_body(request: &LlmRequest) -> Value {
    let encoders = encoders(Arc::new(request.clone()));
    whole_value(
        request::body_skeleton(request),
        request::CONTENTS,
        &encoders,
    )
    .unwrap_or(Value::Null)
}

fn encoders(request: Arc<LlmRequest>) -> Encoders {
    Arc::new(move || Box::new(history::GeminiHistory::new(Arc::clone(&request))))
}

/// The body to send for `request` (Gemini's and Vertex's), encoded as it is sent; the
/// `before_provider_request` handlers see the SDK's parameters.
pub(crate) async fn prepare_body(request: &Arc<LlmRequest>) -> serde_json::Result<RequestBody> {
    let skeleton = request::body_skeleton(request);
    let encoders = encoders(Arc::clone(request));
    RequestBody::prepare_with(skeleton, request::CONTENTS, encoders, |body| {
        super::hooks::before_google_request(request, body)
    })
    .await
}

/// Builds and sends the request, then streams the answer into `tx`.
pub(crate) async fn run(
    http: &reqwest::Client,
    request: LlmRequest,
    options: StreamOptions,
    cancel: CancellationToken,
    tx: EventSender,
) {
    let mut partial = PartialMessage::new(&request.model);
    partial.message.api = API.to_owned();
    let Some(key) = request.api_key().filter(|key| !key.is_empty()) else {
        let text = format!("No API key for provider: {}", request.model.provider);
        return fail_early(partial, text, tx).await;
    };
    let header_changes = super::hooks::before_headers(&request).await;
    let request = Arc::new(request);
    let body = match prepare_body(&request).await {
        Ok(body) => body,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let headers = build_headers(&request, &key)
        .and_then(|headers| super::hooks::apply_headers(header_changes.as_ref(), headers));
    let headers = match headers {
        Ok(headers) => headers,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let http_request = http
        .post(stream_url(&request.model.base_url, &request.model.id))
        .headers(headers);
    let wire = wire(request.model.clone());
    let outgoing = Outgoing::new(http_request, body);
    drive(outgoing, partial, wire, options, cancel, tx).await;
}

fn build_headers(request: &LlmRequest, key: &str) -> Result<HeaderMap, HeaderError> {
    let mut pairs: Vec<(String, String)> = vec![
        ("content-type".into(), "application/json".into()),
        ("x-goog-api-key".into(), key.to_owned()),
    ];
    for (name, value) in request.model.headers.iter().flatten() {
        if let Value::String(value) = value {
            pairs.push((name.clone(), value.clone()));
        }
    }
    let headers = header_map(pairs)?;
    Ok(headers)
}
/// The reader of a response for `model`.
pub(super) fn wire(model: Model) -> GeminiEvents {
    GeminiEvents::new(model)
}
