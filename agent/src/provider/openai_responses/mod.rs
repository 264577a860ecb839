//! The OpenAI Responses wire format (`api: "openai-responses"`).
//!
//! `POST {baseUrl}/responses` with the key as a bearer token, the session headers
//! (`session_id`, from 1.5.2 `session-id`, and `x-client-request-id`, or OpenRouter's
//! `x-session-id`) when there is a session, and the model's own headers. The body is built by `request`, the streamed events
//! read by `events`. HTTP errors read `OpenAI API error (<status>): <detail>`.

mod codex;
mod codex_status;
pub(crate) mod events;
mod history;
pub(crate) mod request;
mod terminal;

pub use request::BodyError;

use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::body::{Outgoing, RequestBody};
use super::call::EventSender;
use super::driver::{drive, fail_early};
use super::json::{js_key_order, parse_strict};
use super::openai_completions::{
    bearer_headers, headers_authenticate, join_url, js_truthy, sdk_error_message,
};
use super::partial::PartialMessage;
use super::{LlmRequest, StreamOptions};
use events::ResponsesEvents;
use pi_rpc_protocol::model::Model;

/// Which service a Responses stream comes from: their end-of-stream and error texts differ,
/// and the Codex backend's client maps its events first (`error` and `response.failed` fail
/// with their own wording; `response.done` and `response.incomplete` end the stream like
/// `response.completed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// OpenAI's Responses API (and the providers that speak it).
    OpenAi,
    /// Azure OpenAI.
    Azure,
    /// The ChatGPT Codex backend.
    Codex,
}

/// The `api` value of models using this wire format.
pub const API: &str = "openai-responses";

/// The request URL for a base URL.
pub fn responses_url(base_url: &str) -> String {
    join_url(base_url, "responses")
}

/// The JSON body sent for `request` (as a value, for tests: the request encodes it as it
/// sends it), or the error that stops the request before it is sent.
pub fn request_body(request: &LlmRequest) -> Result<Value, BodyError> {
    let skeleton = request::body_skeleton(request);
    request::whole_body(
        skeleton,
        &request::openai_encoders(Arc::new(request.clone())),
    )
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
    let key = request.api_key().filter(|key| !key.is_empty());
    if key.is_none() && !headers_authenticate(&request, &["authorization", "cf-aig-authorization"])
    {
        let text = format!("No API key for provider: {}", request.model.provider);
        return fail_early(partial, text, tx).await;
    }
    let header_changes = super::hooks::before_headers(&request).await;
    let request = Arc::new(request);
    let skeleton = request::body_skeleton(&request);
    let encoders = request::openai_encoders(Arc::clone(&request));
    let body = match RequestBody::prepare(skeleton, request::INPUT, encoders).await {
        Ok(body) => body,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let mut extra = Vec::new();
    if let Some(session) = request.cache_session() {
        let format = match request
            .model
            .compat
            .as_ref()
            .and_then(|compat| compat.get("sessionAffinityFormat"))
            .and_then(Value::as_str)
        {
            Some(format) => format,
            None if request.model.provider == "openrouter"
                || request.model.base_url.contains("openrouter.ai") =>
            {
                "openrouter"
            }
            None => "openai",
        };
        if format == "openrouter" {
            extra.push(("x-session-id".to_owned(), session.clone()));
        } else {
            if format == "openai" {
                let name = if request.details.responses_session_header_dashed {
                    "session-id"
                } else {
                    "session_id"
                };
                extra.push((name.to_owned(), session.clone()));
            }
            extra.push(("x-client-request-id".to_owned(), session.clone()));
        }
    }
    let headers = bearer_headers(&request, key.as_deref().unwrap_or("unused"), extra)
        .and_then(|headers| super::hooks::apply_headers(header_changes.as_ref(), headers));
    let headers = match headers {
        Ok(headers) => headers,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let http_request = http
        .post(responses_url(&request.model.base_url))
        .headers(headers);
    let wire = wire(request.model.clone());
    let outgoing = Outgoing::new(http_request, body);
    drive(outgoing, partial, wire, options, cancel, tx).await;
}

/// The error text for an HTTP error status: `OpenAI API error (<status>): ` and the `error`
/// member of the body as JSON when it is a non-empty object, else the SDK's message.
pub fn status_error(status: u16, body: &str) -> String {
    status_error_with("OpenAI API error", status, body)
}

/// [`status_error`] with another prefix (Azure's `Azure OpenAI API error`).
pub(crate) fn status_error_with(prefix: &str, status: u16, body: &str) -> String {
    let parsed = parse_strict(body).ok().filter(js_truthy);
    let (error, raw_text) = match &parsed {
        Some(json) => (json.get("error").cloned(), None),
        None => (None, Some(body)),
    };
    let sdk_message = sdk_error_message(Some(status), error.as_ref(), raw_text);
    let detail = match &error {
        Some(Value::Object(map)) if !map.is_empty() => {
            let mut object = Value::Object(map.clone());
            js_key_order(&mut object);
            let json = pi_rpc_protocol::json::to_string(&object).unwrap_or_default();
            if sdk_message.contains(&json) {
                sdk_message
            } else {
                json
            }
        }
        _ => sdk_message,
    };
    format!("{prefix} ({status}): {detail}")
}

/// The reader of a response for `model`.
pub(super) fn wire(model: Model) -> ResponsesEvents {
    ResponsesEvents::new(model)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_statuses_carry_the_prefix() {
        assert_eq!(
            status_error(500, ""),
            "OpenAI API error (500): 500 status code (no body)"
        );
        assert_eq!(
            status_error(429, r#"{"error":{"message":"Slow","code":null}}"#),
            r#"OpenAI API error (429): {"message":"Slow","code":null}"#
        );
        assert_eq!(
            status_error(502, "Bad gateway"),
            "OpenAI API error (502): 502 Bad gateway"
        );
    }
}
