//! The OpenAI Chat Completions wire format (`api: "openai-completions"`).
//!
//! `POST {baseUrl}/chat/completions` with the key as a bearer token and the model's own headers
//! (the session affinity headers when the model's compat asks for them). The body is built by
//! `request` (the reference's compat switches detected from the provider and base URL, then
//! overridden by the model's `compat`), the streamed chunks read by `events`. HTTP errors are
//! worded as the OpenAI SDK and the reference's error normalisation word them ([`status_error`]).

mod compat;
mod events;
pub(crate) mod history;
pub(crate) mod request;

use std::sync::Arc;

use reqwest::header::HeaderMap;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::body::{Encoders, Outgoing, RequestBody, whole_value};
use super::call::EventSender;
use super::driver::{drive, fail_early};
use super::headers::{HeaderError, header_map};
use super::json::{js_key_order, parse_strict};
use super::partial::PartialMessage;
use super::{LlmRequest, StreamOptions};
use compat::Compat;
use events::ChatEvents;
use history::ChatHistory;
use pi_rpc_protocol::model::Model;

/// The `api` value of models using this wire format.
pub const API: &str = "openai-completions";

/// The longest error body the reference shows before truncating it.
const MAX_ERROR_BODY_CHARS: usize = 4000;

/// The request URL for a base URL.
pub fn completions_url(base_url: &str) -> String {
    join_url(base_url, "chat/completions")
}

/// `{base}/{path}` as the OpenAI SDK joins them.
pub(crate) fn join_url(base_url: &str, path: &str) -> String {
    format!("{}/{path}", base_url.trim_end_matches('/'))
}

/// The JSON body sent for `request` (as a value, for tests: the request encodes it as it
/// sends it).
pub fn request_body(request: &LlmRequest) -> Value {
    let compat = Arc::new(Compat::of_request(request));
    let (skeleton, encoders) = body_parts(Arc::new(request.clone()), compat);
    whole_value(skeleton, MESSAGES, &encoders).unwrap_or(Value::Null)
}

/// The key of the history in the body.
const MESSAGES: &str = "messages";

/// The body's fixed part and its history's encoders.
fn body_parts(request: Arc<LlmRequest>, compat: Arc<Compat>) -> (Map<String, Value>, Encoders) {
    let (skeleton, cache_control) = request::body_skeleton(&request, &compat);
    let marking = cache_control.map(|cache_control| {
        let history = ChatHistory::new(Arc::clone(&request), Arc::clone(&compat), None);
        (cache_control, history.last_markable())
    });
    let encoders: Encoders = Arc::new(move || {
        Box::new(ChatHistory::new(
            Arc::clone(&request),
            Arc::clone(&compat),
            marking.clone(),
        ))
    });
    (skeleton, encoders)
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
    let compat = Arc::new(Compat::of_request(&request));
    let header_changes = super::hooks::before_headers(&request).await;
    let request = Arc::new(request);
    let (skeleton, encoders) = body_parts(Arc::clone(&request), Arc::clone(&compat));
    let body = match RequestBody::prepare(skeleton, MESSAGES, encoders).await {
        Ok(body) => body,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let mut extra = Vec::new();
    if compat.session_affinity_headers
        && let Some(session) = request.cache_session()
    {
        if compat.openrouter_affinity {
            extra.push(("x-session-id".to_owned(), session.clone()));
        } else {
            if compat.affinity_session_id {
                extra.push(("session_id".to_owned(), session.clone()));
            }
            extra.push(("x-client-request-id".to_owned(), session.clone()));
            extra.push(("x-session-affinity".to_owned(), session.clone()));
        }
    }
    let headers = bearer_headers(&request, key.as_deref().unwrap_or("unused"), extra)
        .and_then(|headers| super::hooks::apply_headers(header_changes.as_ref(), headers));
    let headers = match headers {
        Ok(headers) => headers,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let http_request = http
        .post(completions_url(&request.model.base_url))
        .headers(headers);
    let wire = ChatEvents::new(request.model.clone(), compat.finish_reason);
    let outgoing = Outgoing::new(http_request, body);
    drive(outgoing, partial, wire, options, cancel, tx).await;
}

/// Whether one of the model's own headers named in `names` carries a non-blank value.
pub(crate) fn headers_authenticate(request: &LlmRequest, names: &[&str]) -> bool {
    request.model.headers.as_ref().is_some_and(|headers| {
        headers.iter().any(|(name, value)| {
            names.contains(&name.to_ascii_lowercase().as_str())
                && value.as_str().is_some_and(|value| !value.trim().is_empty())
        })
    })
}

/// The OpenAI SDK's headers: JSON both ways, the key as a bearer token, then `extra` and the
/// model's own headers (later ones replace earlier ones).
pub(crate) fn bearer_headers(
    request: &LlmRequest,
    key: &str,
    extra: Vec<(String, String)>,
) -> Result<HeaderMap, HeaderError> {
    let mut pairs: Vec<(String, String)> = vec![
        ("accept".into(), "application/json".into()),
        ("content-type".into(), "application/json".into()),
        ("authorization".into(), format!("Bearer {key}")),
    ];
    pairs.extend(extra);
    for (name, value) in request.model.headers.iter().flatten() {
        match value {
            Value::String(value) => pairs.push((name.clone(), value.clone())),
            // A null header removes the one set before (a gateway's own auth replaces ours).
            Value::Null => pairs.retain(|(existing, _)| !existing.eq_ignore_ascii_case(name)),
            _ => {}
        }
    }
    let headers = header_map(pairs)?;
    Ok(headers)
}

/// The error text for an HTTP error status, as the reference shows the OpenAI SDK's error.
///
/// The SDK's message is `<status> <error.message>` (or the `error` member re-serialised, the
/// raw text of a body that is not JSON, `<status> status code (no body)`); when the body's
/// `error` member is a non-empty object the reference shows `<status>: <that object as JSON>`
/// instead, followed by `error.metadata.raw` on its own line when the text lacks it.
pub fn status_error(status: u16, body: &str) -> String {
    let parsed = parse_strict(body).ok().filter(js_truthy);
    let (error, raw_text) = match &parsed {
        Some(json) => (json.get("error").cloned(), None),
        None => (None, Some(body)),
    };
    let sdk_message = sdk_error_message(Some(status), error.as_ref(), raw_text);
    let mut text = match &error {
        Some(Value::Object(map)) if !map.is_empty() => {
            let mut object = Value::Object(map.clone());
            js_key_order(&mut object);
            let json = pi_rpc_protocol::json::to_string(&object).unwrap_or_default();
            let json = truncate_js(json.trim(), MAX_ERROR_BODY_CHARS);
            if json.is_empty() || sdk_message.contains(&json) {
                sdk_message
            } else {
                format!("{status}: {json}")
            }
        }
        _ => sdk_message,
    };
    append_metadata_raw(&mut text, error.as_ref());
    text
}

/// The OpenAI SDK's `APIError` message for an error status and its body, before the provider
/// words it its own way.
pub(crate) fn sdk_status_message(status: u16, body: &str) -> String {
    let parsed = parse_strict(body).ok().filter(js_truthy);
    match &parsed {
        Some(json) => sdk_error_message(Some(status), json.get("error"), None),
        None => sdk_error_message(Some(status), None, Some(body)),
    }
}

/// The OpenAI SDK's `APIError` message for a status, an `error` member and a fallback text.
pub(crate) fn sdk_error_message(
    status: Option<u16>,
    error: Option<&Value>,
    fallback: Option<&str>,
) -> String {
    let message = error
        .and_then(|error| error.get("message"))
        .filter(|m| js_truthy(m));
    let text = match (message, error) {
        (Some(Value::String(text)), _) => Some(text.clone()),
        (Some(other), _) => Some(crate::js::stringify(other)),
        (None, Some(error)) if !error.is_null() => Some(crate::js::stringify(error)),
        _ => fallback.map(str::to_owned),
    }
    .filter(|text| !text.is_empty());
    match (status, text) {
        (Some(status), Some(text)) => format!("{status} {text}"),
        (Some(status), None) => format!("{status} status code (no body)"),
        (None, Some(text)) => text,
        (None, None) => "(no status code or body)".to_owned(),
    }
}

/// Appends `error.metadata.raw` (OpenRouter's upstream detail) on its own line when the text
/// does not already hold it.
pub(crate) fn append_metadata_raw(text: &mut String, error: Option<&Value>) {
    let Some(raw) = error.and_then(|error| error.pointer("/metadata/raw")) else {
        return;
    };
    if !js_truthy(raw) {
        return;
    }
    let raw = match raw {
        Value::String(raw) => raw.clone(),
        Value::Object(_) => "[object Object]".to_owned(),
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::String(text) => text.clone(),
                Value::Null => String::new(),
                other => crate::js::stringify(other),
            })
            .collect::<Vec<_>>()
            .join(","),
        other => crate::js::stringify(other),
    };
    if !text.contains(&raw) {
        text.push('\n');
        text.push_str(&raw);
    }
}

/// Cuts a text to `max` UTF-16 units with the reference's marker.
fn truncate_js(text: &str, max: usize) -> String {
    let length = crate::js::utf16_len(text);
    if length <= max {
        return text.to_owned();
    }
    let mut units = 0;
    let mut end = 0;
    for (at, ch) in text.char_indices() {
        if units + ch.len_utf16() > max {
            break;
        }
        units += ch.len_utf16();
        end = at + ch.len_utf8();
    }
    format!("{}... [truncated {} chars]", &text[..end], length - units)
}

pub(crate) use crate::js::truthy as js_truthy;

/// The reader of a response for `model`.
pub(super) fn wire(model: Model) -> ChatEvents {
    let expects_finish_reason = Compat::of(&model).finish_reason;
    ChatEvents::new(model, expects_finish_reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_statuses_are_worded_like_the_reference() {
        let body = r#"{"error":{"message":"Slow down","type":"rate_limit_error","param":null,"code":null}}"#;
        assert_eq!(
            status_error(429, body),
            r#"429: {"message":"Slow down","type":"rate_limit_error","param":null,"code":null}"#
        );
        assert_eq!(status_error(500, ""), "500 status code (no body)");
        assert_eq!(status_error(502, "Bad gateway"), "502 Bad gateway");
        assert_eq!(
            status_error(404, r#"{"message":"nope"}"#),
            "404 status code (no body)"
        );
        assert_eq!(status_error(400, r#"{"error":"boom"}"#), r#"400 "boom""#);
        assert_eq!(status_error(500, "null"), "500 null");
        assert_eq!(
            status_error(
                400,
                r#"{"error":{"message":"Provider returned error","metadata":{"raw":"upstream"}}}"#
            ),
            "400: {\"message\":\"Provider returned error\",\"metadata\":{\"raw\":\"upstream\"}}"
        );
    }
}
