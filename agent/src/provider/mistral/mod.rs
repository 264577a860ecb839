//! Mistral (`api: "mistral-conversations"`), as the reference reaches it through the Mistral
//! SDK's chat stream.
//!
//! `POST {baseUrl}/v1/chat/completions` with the key as a bearer token, `accept:
//! text/event-stream`, the session as `x-affinity` (for Mistral's prefix cache, unless the
//! model's headers set one) and the model's own headers. The body is built by `request`, the
//! chunks read by `events`. An error status reads `Mistral API error (<status>): <body>`.

mod events;
pub mod request;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

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
    let body = super::hooks::before_request(request::build_body(&request)).await;
    let body = match pi_rpc_protocol::json::to_vec(&body) {
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
        .headers(headers)
        .body(body);
    let wire = MistralEvents::new(request.model);
    drive(http_request, partial, wire, options, cancel, tx).await;
}
