//! The ChatGPT Codex backend (`api: "openai-codex-responses"`), reached with a ChatGPT login.
//!
//! `POST {baseUrl}/codex/responses` (`https://chatgpt.com/backend-api` by default) with the
//! login's access token as a bearer, its `chatgpt-account-id`, `originator: pi`,
//! `OpenAI-Beta: responses=experimental` and the session as `session-id` /
//! `x-client-request-id`. The body is the Codex one (the system prompt as `instructions`,
//! `text.verbosity: "low"`, encrypted reasoning included, parallel tool calls); the answer is
//! read as Responses events the way the reference's Codex client maps them. The login is
//! refreshed by `login` when it is about to expire. pi-agent always uses this SSE transport,
//! which the reference falls back to when its WebSocket transport cannot connect.

mod login;

use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::body::{Outgoing, RequestBody};
use super::call::EventSender;
use super::driver::{drive, fail_early};
use super::openai_completions::bearer_headers;
use super::openai_responses::events::ResponsesEvents;
use super::openai_responses::request::{InputOptions, TOOL_CALL_ID_PROVIDERS};
use super::openai_responses::{BodyError, Flavor, request};
use super::partial::PartialMessage;
use super::{LlmRequest, StreamOptions};
use pi_rpc_protocol::model::ThinkingLevel;

/// The `api` value of models using this wire format.
pub const API: &str = "openai-codex-responses";

/// The backend used when the model has no base URL.
const DEFAULT_BASE_URL: &str = "https://chatgpt.com/backend-api";

/// The request URL for a base URL.
pub fn responses_url(base_url: &str) -> String {
    let raw = if base_url.trim().is_empty() {
        DEFAULT_BASE_URL
    } else {
        base_url
    };
    let base = raw.trim_end_matches('/');
    if base.ends_with("/codex/responses") {
        base.to_owned()
    } else if base.ends_with("/codex") {
        format!("{base}/responses")
    } else {
        format!("{base}/codex/responses")
    }
}

/// The input options of the Codex backend: the system prompt goes as `instructions`.
const CODEX_INPUT: InputOptions = InputOptions {
    tool_call_providers: TOOL_CALL_ID_PROVIDERS,
    include_system_prompt: false,
};

/// The request body (as a value, for tests: the request encodes it as it sends it).
pub fn request_body(request: &LlmRequest) -> Result<Value, BodyError> {
    let encoders = request::encoders(Arc::new(request.clone()), CODEX_INPUT);
    request::whole_body(body_skeleton(request), &encoders)
}

/// The body's fixed part, `input` a placeholder for the history.
fn body_skeleton(request: &LlmRequest) -> Map<String, Value> {
    let model = &request.model;
    let compat_flag = |key: &str| request::compat_bool(model, key);
    let instructions = if request.system_prompt.is_empty() {
        "You are a helpful assistant."
    } else {
        request.system_prompt.as_str()
    };
    let mut body = Map::new();
    body.insert("model".into(), json!(model.id));
    body.insert("store".into(), json!(false));
    body.insert("stream".into(), json!(true));
    body.insert("instructions".into(), json!(instructions));
    body.insert(request::INPUT.into(), Value::Null);
    body.insert("text".into(), json!({"verbosity": "low"}));
    body.insert("include".into(), json!(["reasoning.encrypted_content"]));
    if let Some(session) = request.cache_session() {
        let key: String = session.chars().take(64).collect();
        body.insert("prompt_cache_key".into(), json!(key));
    }
    body.insert("tool_choice".into(), json!("auto"));
    body.insert("parallel_tool_calls".into(), json!(true));
    if !request.tools.is_empty() {
        let strict = compat_flag("supportsStrictMode")
            .unwrap_or(true)
            .then_some(Value::Null);
        body.insert(
            "tools".into(),
            Value::Array(request::convert_tools(request, strict)),
        );
    }
    if request.thinking_level != ThinkingLevel::Off {
        let level = request.thinking_level.as_str();
        let effort = model
            .thinking_level_map
            .as_ref()
            .and_then(|map| map.get(level))
            .cloned()
            .unwrap_or_else(|| json!(level));
        if !effort.is_null() {
            body.insert(
                "reasoning".into(),
                json!({"effort": effort, "summary": "auto"}),
            );
        }
    }
    body
}

/// The client as the reference names it in `User-Agent`.
fn user_agent() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("pi ({} {arch})", std::env::consts::OS)
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
    let store = request
        .auth
        .as_ref()
        .ok()
        .and_then(|auth| auth.oauth_store.clone());
    let token = match store {
        Some(path) => match login::fresh_access_token(http, &path).await {
            Ok(token) => Some(token),
            Err(error) => return fail_early(partial, error.to_string(), tx).await,
        },
        None => request.api_key().filter(|key| !key.is_empty()),
    };
    let Some(token) = token else {
        let text = format!("No API key for provider: {}", request.model.provider);
        return fail_early(partial, text, tx).await;
    };
    let Some(account) = login::account_id(&token) else {
        return fail_early(partial, "Failed to extract accountId from token".into(), tx).await;
    };
    let header_changes = super::hooks::before_headers(&request).await;
    let request = Arc::new(request);
    let encoders = request::encoders(Arc::clone(&request), CODEX_INPUT);
    let skeleton = body_skeleton(&request);
    let body = match RequestBody::prepare(skeleton, request::INPUT, encoders).await {
        Ok(body) => body,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let mut extra = vec![
        ("chatgpt-account-id".to_owned(), account),
        ("originator".to_owned(), "pi".to_owned()),
        ("user-agent".to_owned(), user_agent()),
        (
            "openai-beta".to_owned(),
            "responses=experimental".to_owned(),
        ),
        ("accept".to_owned(), "text/event-stream".to_owned()),
    ];
    if let Some(session) = request.cache_session() {
        let session: String = session.chars().take(64).collect();
        extra.push(("session-id".to_owned(), session.clone()));
        extra.push(("x-client-request-id".to_owned(), session));
    }
    let headers = bearer_headers(&request, &token, extra)
        .and_then(|headers| super::hooks::apply_headers(header_changes.as_ref(), headers));
    let headers = match headers {
        Ok(headers) => headers,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let http_request = http
        .post(responses_url(&request.model.base_url))
        .headers(headers);
    let wire = ResponsesEvents::with_flavor(request.model.clone(), Flavor::Codex);
    let outgoing = Outgoing::new(http_request, body);
    drive(outgoing, partial, wire, options, cancel, tx).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_codex_path_is_added_once() {
        assert_eq!(
            responses_url(""),
            "https://chatgpt.com/backend-api/codex/responses"
        );
        assert_eq!(responses_url("http://h/x/"), "http://h/x/codex/responses");
        assert_eq!(responses_url("http://h/codex"), "http://h/codex/responses");
        assert_eq!(
            responses_url("http://h/codex/responses"),
            "http://h/codex/responses"
        );
    }
}
