//! Azure OpenAI Responses (`api: "azure-openai-responses"`).
//!
//! The Responses API of an Azure OpenAI resource: `POST {base}/responses?api-version=<v>` with
//! the key in `api-key`. The base URL is `AZURE_OPENAI_BASE_URL`, else
//! `https://<AZURE_OPENAI_RESOURCE_NAME>.openai.azure.com/openai/v1`, else the model's
//! `baseUrl`; an Azure host's bare or `/openai` path becomes `/openai/v1`. The API version is
//! `AZURE_OPENAI_API_VERSION` (default `v1`); the body's `model` is the deployment, from
//! `AZURE_OPENAI_DEPLOYMENT_NAME_MAP` (`model=deployment,...`) or the model id. The body is the
//! Responses body with Azure's differences (no cache retention, `strict: false` on tools unless
//! the model's compat says otherwise); the stream is read as Responses. Errors read `Azure
//! OpenAI API error (<status>): ...`.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::body::{Outgoing, RequestBody};
use super::call::EventSender;
use super::driver::{drive, fail_early};
use super::openai_completions::bearer_headers;
use super::openai_responses::events::ResponsesEvents;
use super::openai_responses::request::InputOptions;
use super::openai_responses::{BodyError, Flavor, request};
use super::options::{clamp_to_context, estimate_context_tokens};
use super::partial::PartialMessage;
use super::{LlmRequest, StreamOptions};
use crate::config::ambient::env;

/// The `api` value of models using this wire format.
pub const API: &str = "azure-openai-responses";

/// Providers whose `call|item` tool-call ids Azure keeps.
const AZURE_TOOL_CALL_PROVIDERS: &[&str] = &["openai", "openai-codex", "opencode", API];

/// The smallest `max_output_tokens` sent.
const MIN_OUTPUT_TOKENS: i64 = 16;

/// Why an Azure call has no base URL; the call fails with this text before it is sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BaseUrlError {
    /// No base URL in the environment nor the model.
    #[error(
        "Azure OpenAI base URL is required. Set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME, or pass azureBaseUrl, azureResourceName, or model.baseUrl."
    )]
    Missing,
    /// The base URL given is not a URL.
    #[error("Invalid Azure OpenAI base URL: {0}")]
    Invalid(String),
}

/// The base URL and API version, or the reference's error when there is no base URL.
pub fn resolve_base_url(model_base_url: &str) -> Result<(String, String), BaseUrlError> {
    let version = env("AZURE_OPENAI_API_VERSION").unwrap_or_else(|| "v1".to_owned());
    let base = env("AZURE_OPENAI_BASE_URL")
        .map(|url| url.trim().to_owned())
        .or_else(|| {
            env("AZURE_OPENAI_RESOURCE_NAME")
                .map(|name| format!("https://{name}.openai.azure.com/openai/v1"))
        })
        .or_else(|| Some(model_base_url.to_owned()).filter(|url| !url.is_empty()))
        .ok_or(BaseUrlError::Missing)?;
    Ok((normalize_base_url(&base)?, version))
}

/// An Azure host's bare, `/openai` or `/openai/v1/responses` path becomes `/openai/v1`;
/// trailing slashes go.
fn normalize_base_url(base: &str) -> Result<String, BaseUrlError> {
    let trimmed = base.trim().trim_end_matches('/');
    let mut url =
        reqwest::Url::parse(trimmed).map_err(|_| BaseUrlError::Invalid(base.to_owned()))?;
    let host = url.host_str().unwrap_or_default().to_owned();
    let azure_host = [
        ".openai.azure.com",
        ".cognitiveservices.azure.com",
        ".ai.azure.com",
    ]
    .iter()
    .any(|suffix| host.ends_with(suffix));
    let path = url.path().trim_end_matches('/').to_owned();
    if azure_host && matches!(path.as_str(), "" | "/openai" | "/openai/v1/responses") {
        url.set_path("/openai/v1");
        url.set_query(None);
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

/// The deployment serving `model_id`.
pub fn deployment_name(model_id: &str) -> String {
    env("AZURE_OPENAI_DEPLOYMENT_NAME_MAP")
        .and_then(|map| {
            map.split(',').find_map(|entry| {
                let (model, deployment) = entry.trim().split_once('=')?;
                let (model, deployment) = (model.trim(), deployment.trim());
                (model == model_id && !deployment.is_empty()).then(|| deployment.to_owned())
            })
        })
        .unwrap_or_else(|| model_id.to_owned())
}

/// The input options of Azure OpenAI.
const AZURE_INPUT: InputOptions = InputOptions {
    tool_call_providers: AZURE_TOOL_CALL_PROVIDERS,
    include_system_prompt: true,
};

/// The request body (the deployment as `model`; as a value, for tests: the request encodes it
/// as it sends it).
pub fn request_body(request: &LlmRequest) -> Result<Value, BodyError> {
    let encoders = request::encoders(Arc::new(request.clone()), AZURE_INPUT);
    request::whole_body(body_skeleton(request), &encoders)
}

/// The body's fixed part, `input` a placeholder for the history.
fn body_skeleton(request: &LlmRequest) -> Map<String, Value> {
    let model = &request.model;
    let mut body = Map::new();
    body.insert("model".into(), json!(deployment_name(&model.id)));
    body.insert(request::INPUT.into(), Value::Null);
    body.insert("stream".into(), json!(true));
    if let Some(session) = &request.session_id {
        let key: String = session.chars().take(64).collect();
        body.insert("prompt_cache_key".into(), json!(key));
    }
    body.insert("store".into(), json!(false));
    let max_tokens = clamp_to_context(
        model,
        estimate_context_tokens(request),
        model.max_tokens as i64,
    );
    if max_tokens != 0 {
        body.insert(
            "max_output_tokens".into(),
            json!(max_tokens.max(MIN_OUTPUT_TOKENS)),
        );
    }
    if !request.tools.is_empty() {
        let strict = request::compat_bool(model, "supportsStrictMode").unwrap_or(true);
        let tools = request::convert_tools(request, strict.then_some(Value::Bool(false)));
        body.insert("tools".into(), Value::Array(tools));
    }
    request::insert_reasoning(request, &mut body);
    if let Some(params) = &model.sampling_params {
        for (key, value) in params {
            body.insert(key.clone(), value.clone());
        }
    }
    body
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
    let (base, version) = match resolve_base_url(&request.model.base_url) {
        Ok(resolved) => resolved,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let header_changes = super::hooks::before_headers(&request).await;
    let request = Arc::new(request);
    let encoders = request::encoders(Arc::clone(&request), AZURE_INPUT);
    let skeleton = body_skeleton(&request);
    let body = match RequestBody::prepare(skeleton, request::INPUT, encoders).await {
        Ok(body) => body,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let headers = bearer_headers(&request, &key, vec![("api-key".into(), key.clone())])
        .map(|mut headers| {
            headers.remove(reqwest::header::AUTHORIZATION);
            headers
        })
        .and_then(|headers| super::hooks::apply_headers(header_changes.as_ref(), headers));
    let headers = match headers {
        Ok(headers) => headers,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let http_request = http
        .post(format!("{base}/responses"))
        .query(&[("api-version", version)])
        .headers(headers);
    let wire = ResponsesEvents::with_flavor(request.model.clone(), Flavor::Azure);
    let outgoing = Outgoing::new(http_request, body);
    drive(outgoing, partial, wire, options, cancel, tx).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn azure_hosts_get_the_v1_path_and_other_urls_stay() {
        assert_eq!(
            normalize_base_url("https://r.openai.azure.com/").unwrap(),
            "https://r.openai.azure.com/openai/v1"
        );
        assert_eq!(
            normalize_base_url("https://r.cognitiveservices.azure.com/openai").unwrap(),
            "https://r.cognitiveservices.azure.com/openai/v1"
        );
        assert_eq!(
            normalize_base_url("http://127.0.0.1:9/openai/v1/").unwrap(),
            "http://127.0.0.1:9/openai/v1"
        );
        assert_eq!(
            normalize_base_url("not a url").unwrap_err().to_string(),
            "Invalid Azure OpenAI base URL: not a url"
        );
    }
}
