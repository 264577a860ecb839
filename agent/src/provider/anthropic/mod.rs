//! The Anthropic Messages wire format (`api: "anthropic-messages"`).
//!
//! `POST {baseUrl}/v1/messages` with `anthropic-version: 2023-06-01`, the key in `x-api-key`
//! (a Claude subscription token, `sk-ant-oat...`, goes as a bearer token with Claude Code's
//! identity), `anthropic-beta: interleaved-thinking-2025-05-14` (not for adaptive-thinking
//! models) and the model's own headers last. The body is built by `request`, the streamed
//! answer read by `events`.

mod events;
mod history;
mod names;
pub(crate) mod request;

use std::sync::Arc;

use reqwest::header::HeaderMap;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::body::{Encoders, Outgoing, RequestBody, whole_value};
use super::call::EventSender;
use super::driver::{drive, fail_early};
use super::headers::{HeaderError, header_map};
use super::partial::PartialMessage;
use super::{LlmRequest, StreamOptions};
use events::AnthropicEvents;
use history::AnthropicHistory;
use pi_rpc_protocol::model::Model;
use request::{Compat, MESSAGES, body_skeleton, cache_control};

/// The `api` value of models using this wire format.
pub const API: &str = "anthropic-messages";

const INTERLEAVED_THINKING_BETA: &str = "interleaved-thinking-2025-05-14";
const FINE_GRAINED_TOOL_STREAMING_BETA: &str = "fine-grained-tool-streaming-2025-05-14";
const CLAUDE_CODE_VERSION: &str = "2.1.75";

/// The request URL for a base URL.
pub fn messages_url(base_url: &str) -> String {
    if base_url.ends_with('/') {
        format!("{base_url}v1/messages")
    } else {
        format!("{base_url}/v1/messages")
    }
}

/// The JSON body sent for `request` (as a value, for tests: the request encodes it as it
/// sends it): one-hour cache entries with
/// [`CacheRetention::Long`](super::CacheRetention::Long), no `cache_control` with caching off.
pub fn request_body(request: &LlmRequest) -> Value {
    let (skeleton, encoders) = body_parts(Arc::new(request.clone()));
    whole_value(skeleton, MESSAGES, &encoders).unwrap_or(Value::Null)
}

/// The body's fixed part and its history's encoders.
fn body_parts(request: Arc<LlmRequest>) -> (Map<String, Value>, Encoders) {
    let oauth = request.api_key().as_deref().is_some_and(is_oauth_token);
    let compat = Compat::of(&request.model);
    let cache_control = cache_control(compat, request.cache_retention);
    let skeleton = body_skeleton(&request, compat, cache_control.as_ref(), oauth);
    let encoders: Encoders = Arc::new(move || {
        Box::new(AnthropicHistory::new(
            Arc::clone(&request),
            compat,
            cache_control.clone(),
            oauth,
        ))
    });
    (skeleton, encoders)
}

/// Whether a key is a Claude subscription (OAuth) token.
fn is_oauth_token(key: &str) -> bool {
    key.contains("sk-ant-oat")
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
    if key.is_none() && !headers_authenticate(&request) {
        let text = format!("No API key for provider: {}", request.model.provider);
        return fail_early(partial, text, tx).await;
    }
    let oauth = key.as_deref().is_some_and(is_oauth_token);
    let compat = Compat::of(&request.model);
    let header_changes = super::hooks::before_headers(&request).await;
    let request = Arc::new(request);
    let (skeleton, encoders) = body_parts(Arc::clone(&request));
    let body = match RequestBody::prepare(skeleton, MESSAGES, encoders).await {
        Ok(body) => body,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let headers = build_headers(&request, key.as_deref(), oauth, compat)
        .and_then(|headers| super::hooks::apply_headers(header_changes.as_ref(), headers));
    let headers = match headers {
        Ok(headers) => headers,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let http_request = http
        .post(messages_url(&request.model.base_url))
        .headers(headers);
    let tool_names = oauth.then(|| {
        request
            .tools
            .iter()
            .map(|tool| tool.name.to_string())
            .collect()
    });
    let wire = AnthropicEvents::new(request.model.clone(), tool_names);
    let outgoing = Outgoing::new(http_request, body);
    drive(outgoing, partial, wire, options, cancel, tx).await;
}

/// The reader of a response for `model` (without OAuth tool-name mapping), for replays.
pub(super) fn wire(model: Model) -> AnthropicEvents {
    AnthropicEvents::new(model, None)
}

/// Whether the model's own headers authenticate the request.
fn headers_authenticate(request: &LlmRequest) -> bool {
    request.model.headers.as_ref().is_some_and(|headers| {
        headers.iter().any(|(name, value)| {
            matches!(
                name.to_ascii_lowercase().as_str(),
                "authorization" | "x-api-key" | "cf-aig-authorization"
            ) && value.as_str().is_some_and(|value| !value.trim().is_empty())
        })
    })
}

fn build_headers(
    request: &LlmRequest,
    key: Option<&str>,
    oauth: bool,
    compat: Compat,
) -> Result<HeaderMap, HeaderError> {
    let mut betas = Vec::new();
    if !request.tools.is_empty() && !compat.eager_tool_input_streaming {
        betas.push(FINE_GRAINED_TOOL_STREAMING_BETA);
    }
    if !compat.force_adaptive_thinking {
        betas.push(INTERLEAVED_THINKING_BETA);
    }
    let mut pairs: Vec<(String, String)> = vec![
        ("accept".into(), "application/json".into()),
        ("content-type".into(), "application/json".into()),
        ("anthropic-version".into(), "2023-06-01".into()),
        (
            "anthropic-dangerous-direct-browser-access".into(),
            "true".into(),
        ),
    ];
    match key {
        Some(key) if oauth => {
            pairs.push(("authorization".into(), format!("Bearer {key}")));
            let mut all = vec!["claude-code-20250219", "oauth-2025-04-20"];
            all.extend(&betas);
            pairs.push(("anthropic-beta".into(), all.join(",")));
            pairs.push((
                "user-agent".into(),
                format!("claude-cli/{CLAUDE_CODE_VERSION}"),
            ));
            pairs.push(("x-app".into(), "cli".into()));
        }
        _ => {
            if let Some(key) = key {
                pairs.push(("x-api-key".into(), key.to_owned()));
            }
            if !betas.is_empty() {
                pairs.push(("anthropic-beta".into(), betas.join(",")));
            }
            if compat.session_affinity_headers
                && let Some(session) = request.cache_session()
            {
                pairs.push(("x-session-affinity".into(), session.clone()));
            }
        }
    }
    for (name, value) in request.model.headers.iter().flatten() {
        if let Value::String(value) = value {
            pairs.push((name.clone(), value.clone()));
        }
    }
    let headers = header_map(pairs)?;
    Ok(headers)
}
