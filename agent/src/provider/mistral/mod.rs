//! Mistral (`api: "mistral-conversations"`), as the reference reaches it through the Mistral
//! SDK's chat stream.
//!
//! `POST {baseUrl}/v1/chat/completions` with the key as a bearer token, `accept:
//! text/event-stream`, the session as `x-affinity` (for Mistral's prefix cache, unless the
//! model's headers set one) and the model's own headers. The body is built by `request`, the
//! chunks read by `events`. An error status reads `Mistral API error (<status>): <body>`.

mod events;
mod history;
mod request;
mod schema;

use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::body::{Encoders, Outgoing, RequestBody, whole_value};
use super::call::EventSender;
use super::driver::{drive, fail_early};
use super::openai_completions::bearer_headers;
use super::partial::PartialMessage;
use super::{LlmRequest, StreamOptions};
use events::MistralEvents;

/// The `api` value of models using this wire format.
pub const API: &str = "mistral-conversations";

/// The request URL for a base URL.
pub fn chat_url(base_url: &str) -> String {
    format!("{}/v1/chat/completions", base_url.trim_end_matches('/'))
}

/// The JSON body sent for `request` (as a value, for tests: the request encodes it as it
/// sends it).
pub fn request_body(request: &LlmRequest) -> Value {
    let encoders = encoders(Arc::new(request.clone()));
    whole_value(
        request::body_skeleton(request),
        request::MESSAGES,
        &encoders,
    )
    .unwrap_or(Value::Null)
}

fn encoders(request: Arc<LlmRequest>) -> Encoders {
    Arc::new(move || Box::new(history::MistralHistory::new(Arc::clone(&request))))
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
    let Some(key) = request.api_key().filter(|key| !key.is_empty()) else {
        let text = format!("No API key for provider: {}", request.model.provider);
        return fail_early(partial, text, tx).await;
    };
    let header_changes = super::hooks::before_headers(&request).await;
    let request = Arc::new(request);
    let skeleton = request::body_skeleton(&request);
    let encoders = encoders(Arc::clone(&request));
    let body = match RequestBody::prepare(skeleton, request::MESSAGES, encoders).await {
        Ok(body) => body,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let affinity_set = request.model.headers.as_ref().is_some_and(|headers| {
        headers
            .get("x-affinity")
            .is_some_and(|value| matches!(value, Value::String(v) if !v.is_empty()))
    });
    let mut extra = vec![("accept".to_owned(), "text/event-stream".to_owned())];
    if let Some(session) = request.cache_session().filter(|_| !affinity_set) {
        extra.push(("x-affinity".to_owned(), session.clone()));
    }
    let headers = bearer_headers(&request, &key, extra)
        .and_then(|headers| super::hooks::apply_headers(header_changes.as_ref(), headers));
    let headers = match headers {
        Ok(headers) => headers,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let http_request = http
        .post(chat_url(&request.model.base_url))
        .headers(headers);
    let wire = MistralEvents::new(request.model.clone());
    let outgoing = Outgoing::new(http_request, body);
    drive(outgoing, partial, wire, options, cancel, tx).await;
}
