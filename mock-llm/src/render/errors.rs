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

/// The Bedrock (AWS JSON) error type and default message for an HTTP status.
fn bedrock_defaults(status: u16) -> (&'static str, &'static str) {
    match status {
        400 => (
            "ValidationException",
            "Malformed input request, please reformat your input and try again.",
        ),
        403 => (
            "AccessDeniedException",
            "You don't have access to the model with the specified model ID.",
        ),
        404 => (
            "ResourceNotFoundException",
            "Could not resolve the foundation model from the provided model identifier.",
        ),
        408 => (
            "ModelTimeoutException",
            "Model has timed out in processing the request. Try your request again.",
        ),
        424 => ("ModelErrorException", "The model returned an error."),
        429 => (
            "ThrottlingException",
            "Too many requests, please wait before trying again.",
        ),
        503 => (
            "ServiceUnavailableException",
            "Bedrock is unable to process your request.",
        ),
        _ => (
            "InternalServerException",
            "The server encountered an internal error while processing the request.",
        ),
    }
}

/// The Mistral error type and default message for an HTTP status.
fn mistral_defaults(status: u16) -> (&'static str, &'static str) {
    match status {
        400 => ("invalid_request_error", "Invalid request"),
        401 => ("authentication_error", "Unauthorized"),
        404 => ("invalid_model", "Invalid model"),
        422 => ("invalid_request_error", "Unprocessable entity"),
        429 => ("rate_limited", "Requests rate limit exceeded"),
        503 => ("service_unavailable", "Service unavailable"),
        _ => ("internal_server_error", "Internal server error"),
    }
}

/// The Codex backend's error type and default message for an HTTP status.
fn codex_defaults(status: u16) -> (&'static str, &'static str) {
    match status {
        401 => (
            "invalid_request_error",
            "Your authentication token has expired. Please try signing in again.",
        ),
        429 => ("usage_limit_reached", "The usage limit has been reached"),
        _ => {
            let (kind, _, message) = openai_defaults(status);
            (kind, message)
        }
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
        Format::AzureResponses => {
            let (_, _, default_message) = openai_defaults(status);
            let code = status.to_string();
            json!({
                "error": {
                    "code": kind.unwrap_or(&code),
                    "message": message.unwrap_or(default_message)
                }
            })
        }
        Format::CodexResponses => {
            let (default_kind, default_message) = codex_defaults(status);
            let kind = kind.unwrap_or(default_kind);
            let mut error = json!({"type": kind, "message": message.unwrap_or(default_message)});
            if kind == "usage_limit_reached" {
                // A reset time in the past, so that clients' "try again in" reads the same
                // whenever the test runs.
                error["plan_type"] = json!("plus");
                error["resets_at"] = json!(super::chat::CREATED);
            }
            json!({"error": error})
        }
        Format::Gemini | Format::Vertex => {
            let (default_status, default_message) = gemini_defaults(status);
            json!({
                "error": {
                    "code": status,
                    "message": message.unwrap_or(default_message),
                    "status": kind.unwrap_or(default_status)
                }
            })
        }
        Format::Mistral => {
            let (default_kind, default_message) = mistral_defaults(status);
            json!({
                "object": "error",
                "message": message.unwrap_or(default_message),
                "type": kind.unwrap_or(default_kind),
                "param": null,
                "code": status.to_string()
            })
        }
        Format::Bedrock => {
            let (_, default_message) = bedrock_defaults(status);
            json!({"message": message.unwrap_or(default_message)})
        }
    }
}

/// The headers a provider of `format` sends with an error (`content-type` aside): Anthropic's
/// request id, Bedrock's error type and request id.
fn error_headers(
    format: Format,
    index: usize,
    status: u16,
    kind: Option<&str>,
) -> Vec<(String, String)> {
    match format {
        Format::Anthropic => vec![("request-id".to_owned(), super::anthropic::request_id(index))],
        Format::Bedrock => {
            let kind = kind.unwrap_or(bedrock_defaults(status).0);
            vec![
                (
                    "x-amzn-errortype".to_owned(),
                    format!("{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"),
                ),
                (
                    "x-amzn-requestid".to_owned(),
                    super::bedrock::request_id(index),
                ),
            ]
        }
        _ => Vec::new(),
    }
}

/// An error answer with a provider-shaped JSON body; `kind` is the provider's error type where
/// the server names one (Bedrock's `x-amzn-errortype`).
pub(crate) fn json_head(
    format: Format,
    index: usize,
    status: u16,
    kind: Option<&str>,
    message: &str,
) -> Head {
    let body = body(format, index, status, kind, Some(message));
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    headers.extend(error_headers(format, index, status, kind));
    Head::Respond {
        status,
        headers,
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
    headers.extend(error_headers(
        format,
        index,
        error.status,
        error.kind.as_deref(),
    ));
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
    let server_error = "The server had an error while processing your request. Sorry about that!";
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
                "message": message.unwrap_or(server_error),
                "type": kind.unwrap_or("server_error"),
                "param": null,
                "code": null
            }})),
        ),
        Format::OpenAiResponses | Format::AzureResponses | Format::CodexResponses => Ev::event(
            "error",
            js(&json!({
                "type": "error",
                "sequence_number": sequence,
                "code": kind.unwrap_or("server_error"),
                "message": message.unwrap_or(server_error),
                "param": null
            })),
        ),
        Format::Gemini | Format::Vertex => {
            Ev::data("error", js(&body(format, index, 503, kind, message)))
        }
        Format::Mistral => Ev::data("error", js(&body(format, index, 503, kind, message))),
        Format::Bedrock => Ev::Frame {
            tag: "exception".to_owned(),
            kind: super::bedrock::FrameKind::Exception(
                kind.unwrap_or("serviceUnavailableException").to_owned(),
            ),
            payload: js(&json!({
                "message": message.unwrap_or("Bedrock is unable to process your request.")
            })),
        },
    }
}
