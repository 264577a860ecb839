//! Provider-shaped error bodies: HTTP errors and in-band stream errors.

use bytes::Bytes;
use serde_json::{Value, json};

use super::{Ev, Format, Head, Step, json as js};
use crate::script::{Fault, HttpError};

/// The Anthropic error type and default message for an HTTP status.
fn anthropic_defaults(status: u16) -> (&'static str, &'static str) {
    match status {
        400 => ("invalid_request_error", "Invalid request"),
        401 => ("authentication_error", "invalid x-api-key"),
        403 => (
            "permission_error",
            "Your API key does not have permission to use the specified resource.",
        ),
        404 => ("not_found_error", "Not found"),
        413 => (
            "request_too_large",
            "Request exceeds the maximum allowed number of bytes.",
        ),
        429 => (
            "rate_limit_error",
            "Number of requests has exceeded your rate limit",
        ),
        529 => ("overloaded_error", "Overloaded"),
        _ => ("api_error", "Internal server error"),
    }
}

/// The OpenAI error type, code and default message for an HTTP status.
fn openai_defaults(status: u16) -> (&'static str, Option<&'static str>, &'static str) {
    match status {
        400 => ("invalid_request_error", None, "Invalid request"),
        401 => (
            "invalid_request_error",
            Some("invalid_api_key"),
            "Incorrect API key provided.",
        ),
        403 => (
            "invalid_request_error",
            Some("unsupported_country_region_territory"),
            "Country, region, or territory not supported",
        ),
        404 => (
            "invalid_request_error",
            Some("model_not_found"),
            "The model does not exist or you do not have access to it.",
        ),
        429 => (
            "requests",
            Some("rate_limit_exceeded"),
            "Rate limit reached for requests",
        ),
        503 => (
            "server_error",
            None,
            "The engine is currently overloaded, please try again later",
        ),
        _ => (
            "server_error",
            None,
            "The server had an error while processing your request. Sorry about that!",
        ),
    }
}

/// The Gemini status name and default message for an HTTP status.
fn gemini_defaults(status: u16) -> (&'static str, &'static str) {
    match status {
        400 => ("INVALID_ARGUMENT", "Request contains an invalid argument."),
        401 => (
            "UNAUTHENTICATED",
            "Request had invalid authentication credentials.",
        ),
        403 => (
            "PERMISSION_DENIED",
            "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
        ),
        404 => ("NOT_FOUND", "Requested entity was not found."),
        429 => (
            "RESOURCE_EXHAUSTED",
            "Resource has been exhausted (e.g. check quota).",
        ),
        503 => (
            "UNAVAILABLE",
            "The model is overloaded. Please try again later.",
        ),
        504 => (
            "DEADLINE_EXCEEDED",
            "Deadline expired before operation could complete.",
        ),
        _ => (
            "INTERNAL",
            "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
        ),
    }
}

/// The JSON error body a provider of `format` sends with `status`.
pub(crate) fn body(
    format: Format,
    index: usize,
    status: u16,
    kind: Option<&str>,
    message: Option<&str>,
) -> Value {
    match format {
        Format::Anthropic => {
            let (default_kind, default_message) = anthropic_defaults(status);
            json!({
                "type": "error",
                "error": {"type": kind.unwrap_or(default_kind), "message": message.unwrap_or(default_message)},
                "request_id": super::anthropic::request_id(index)
            })
        }
        Format::OpenAiChat | Format::OpenAiResponses => {
            let (default_kind, code, default_message) = openai_defaults(status);
            json!({
                "error": {
                    "message": message.unwrap_or(default_message),
                    "type": kind.unwrap_or(default_kind),
                    "param": null,
                    "code": code
                }
            })
        }
        Format::Gemini => {
            let (default_status, default_message) = gemini_defaults(status);
            json!({
                "error": {
                    "code": status,
                    "message": message.unwrap_or(default_message),
                    "status": kind.unwrap_or(default_status)
                }
            })
        }
    }
}

/// An error answer with a provider-shaped JSON body.
pub(crate) fn json_head(format: Format, index: usize, status: u16, message: &str) -> Head {
    let body = body(format, index, status, None, Some(message));
    Head::Respond {
        status,
        headers: vec![("content-type".to_owned(), "application/json".to_owned())],
        body: vec![Step::Write(Bytes::from(js(&body)))],
    }
}

/// The answer for a scripted HTTP error.
pub(crate) fn http_error(format: Format, index: usize, error: &HttpError) -> Head {
    let body = match &error.body {
        Some(Value::String(text)) => text.clone(),
        Some(other) => js(other),
        None => js(&body(
            format,
            index,
            error.status,
            error.kind.as_deref(),
            error.message.as_deref(),
        )),
    };
    let mut headers = Vec::new();
    if !body.is_empty() {
        headers.push(("content-type".to_owned(), "application/json".to_owned()));
    }
    if format == Format::Anthropic {
        headers.push(("request-id".to_owned(), super::anthropic::request_id(index)));
    }
    for (name, value) in &error.headers {
        headers.retain(|(existing, _)| !existing.eq_ignore_ascii_case(name));
        headers.push((name.clone(), value.clone()));
    }
    let body = if body.is_empty() {
        Vec::new()
    } else {
        vec![Step::Write(Bytes::from(body))]
    };
    Head::Respond {
        status: error.status,
        headers,
        body,
    }
}

/// The in-band error event a provider of `format` sends in a stream; `sequence` is the
/// Responses `sequence_number` it takes.
pub(crate) fn in_band(format: Format, index: usize, sequence: usize, fault: &Fault) -> Ev {
    let kind = fault.error_type.as_deref();
    let message = fault.message.as_deref();
    match format {
        Format::Anthropic => Ev::event(
            "error",
            js(&body(
                format,
                index,
                529,
                kind.or(Some("overloaded_error")),
                message.or(Some("Overloaded")),
            )),
        ),
        Format::OpenAiChat => Ev::data(
            "error",
            js(&json!({"error": {
                "message": message.unwrap_or("The server had an error while processing your request. Sorry about that!"),
                "type": kind.unwrap_or("server_error"),
                "param": null,
                "code": null
            }})),
        ),
        Format::OpenAiResponses => Ev::event(
            "error",
            js(&json!({
                "type": "error",
                "sequence_number": sequence,
                "code": kind.unwrap_or("server_error"),
                "message": message.unwrap_or("The server had an error while processing your request. Sorry about that!"),
                "param": null
            })),
        ),
        Format::Gemini => Ev::data("error", js(&body(format, index, 503, kind, message))),
    }
}
