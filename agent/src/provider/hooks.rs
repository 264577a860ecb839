//! Hooks around a model call, for extensions' `before_provider_request` (which may inspect or
//! replace the payload before it is sent) and `after_provider_response` (the status and headers
//! of the answer, before its body is read).
//!
//! The hooks of a call are those of the task that starts it: [`scope`] sets them for a run,
//! and [`stream_with`](super::stream_with) keeps them for the call, in whichever task polls
//! it. A call without hooks (no extension handles these events) pays nothing for them.
//!
//! `before_provider_headers` sees the model's configured headers (not the API key nor a
//! format's own headers), before the payload hook as in the reference; what the handlers leave
//! is applied over the headers the format built (a string sets, `null` or a removed name drops),
//! once per call: the provider's retries send the same request.
//!
//! What an extension sees as the payload is what the reference's SDK layer sees: the JSON body
//! for the Anthropic and OpenAI formats, and for Google the SDK's parameters (`{model, contents, config}`, the
//! system prompt a plain text, the generation settings inside `config`), turned back into the
//! body after the hook as the Google SDK turns them. Google's SDK exposes no response, so
//! `after_provider_response` never fires for it, as in the reference.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use reqwest::header::HeaderMap;
use serde_json::{Map, Value, json};

use super::headers::{HeaderError, header_map};

/// A boxed future of a hook.
pub type HookFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What runs around each model call of a run.
pub trait ProviderHooks: Send + Sync + std::fmt::Debug {
    /// Whether [`ProviderHooks::before_request`] does anything (else the payload is not
    /// prepared for it).
    fn wants_payload(&self) -> bool;

    /// The payload to send instead of `payload` (the same when nothing changes it).
    fn before_request(&self, payload: Value) -> HookFuture<'_, Value>;

    /// Whether [`ProviderHooks::after_response`] does anything.
    fn wants_response(&self) -> bool;

    /// A success status and the response headers (lower-case names, repeated ones joined by
    /// `, `), before the body is read.
    fn after_response(&self, status: u16, headers: Map<String, Value>) -> HookFuture<'_, ()>;

    /// Whether [`ProviderHooks::before_headers`] does anything.
    fn wants_headers(&self) -> bool;

    /// The configured headers as the hooks left them (a `null` value drops the header).
    fn before_headers(&self, headers: Map<String, Value>) -> HookFuture<'_, Map<String, Value>>;

    /// The call's events from elsewhere than a wire format (an extension provider's
    /// `streamSimple`), or `None` when the request goes to its wire format.
    fn custom_stream(
        &self,
        _request: &super::LlmRequest,
        _cancel: &tokio_util::sync::CancellationToken,
    ) -> Option<super::ProviderStream> {
        None
    }

    /// The call's key when something else than its configuration makes it (an extension
    /// provider's OAuth login), or the error the call fails with; `None` to keep the call's
    /// own credentials.
    fn login_key<'a>(
        &'a self,
        _request: &'a super::LlmRequest,
    ) -> Option<HookFuture<'a, Result<String, String>>> {
        None
    }
}

/// The configured headers of a call as the hooks left them, to apply over the headers built.
#[derive(Debug)]
pub(crate) struct HeaderChanges {
    given: Map<String, Value>,
    changed: Map<String, Value>,
}

/// Runs the hooks on the configured headers of `request` (the model's own); `None` when no
/// hook wants them.
pub(crate) async fn before_headers(request: &super::LlmRequest) -> Option<HeaderChanges> {
    let hooks = current().filter(|hooks| hooks.wants_headers())?;
    let given: Map<String, Value> = request
        .model
        .headers
        .iter()
        .flatten()
        .filter(|(_, value)| value.is_string())
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    let changed = hooks.before_headers(given.clone()).await;
    Some(HeaderChanges { given, changed })
}

/// `headers` with `changes` applied: a configured header the hooks removed, or a `null`, is
/// not sent; a string is set (over the format's own header of that name too).
pub(crate) fn apply_headers(
    changes: Option<&HeaderChanges>,
    mut headers: HeaderMap,
) -> Result<HeaderMap, HeaderError> {
    let Some(changes) = changes else {
        return Ok(headers);
    };
    for name in changes.given.keys() {
        if !changes.changed.contains_key(name) {
            headers.remove(name.as_str());
        }
    }
    let mut set = Vec::new();
    for (name, value) in &changes.changed {
        match value {
            Value::String(value) => set.push((name.clone(), value.clone())),
            Value::Null => {
                headers.remove(name.as_str());
            }
            _ => {}
        }
    }
    for (name, value) in header_map(set)? {
        if let Some(name) = name {
            headers.insert(name, value);
        }
    }
    Ok(headers)
}

tokio::task_local! {
    static HOOKS: Option<Arc<dyn ProviderHooks>>;
}

/// Runs `future` (a run) with `hooks` around its model calls.
pub async fn scope<F: Future>(hooks: Option<Arc<dyn ProviderHooks>>, future: F) -> F::Output {
    HOOKS.scope(hooks, future).await
}

/// The hooks of the current task.
pub(crate) fn current() -> Option<Arc<dyn ProviderHooks>> {
    HOOKS.try_with(Clone::clone).ok().flatten()
}

/// Whether the hooks of the current task want to see (and may replace) the payload.
pub(crate) fn wants_payload() -> bool {
    current().is_some_and(|hooks| hooks.wants_payload())
}

/// The JSON body to send for the Anthropic and OpenAI formats (`body` as built, or as the
/// hooks replaced it).
pub(crate) async fn before_request(body: Value) -> Value {
    match current().filter(|hooks| hooks.wants_payload()) {
        Some(hooks) => hooks.before_request(body).await,
        None => body,
    }
}

/// The Google body to send for `request`: the hooks see the SDK's parameters.
pub(crate) async fn before_google_request(request: &super::LlmRequest, body: Value) -> Value {
    let Some(hooks) = current().filter(|hooks| hooks.wants_payload()) else {
        return body;
    };
    let continuation_off = request.details.google_automatic_continuation_off;
    let params = google_params(&request.model.id, body, continuation_off);
    google_body(hooks.before_request(params).await)
}

/// Tells the hooks about a success response, before its body is read.
pub(crate) async fn after_response(response: &reqwest::Response) {
    let Some(hooks) = current().filter(|hooks| hooks.wants_response()) else {
        return;
    };
    let mut headers = Map::new();
    for (name, value) in response.headers() {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        match headers.get_mut(name.as_str()) {
            Some(Value::String(joined)) => {
                joined.push_str(", ");
                joined.push_str(&value);
            }
            _ => {
                headers.insert(name.as_str().to_owned(), Value::String(value));
            }
        }
    }
    hooks
        .after_response(response.status().as_u16(), headers)
        .await;
}

/// The Google SDK's parameters for a body: `{model, contents, config}`, `config` holding the
/// generation settings, the system prompt as text, the tools and the tool settings, then (with
/// `continuation_off`) `automaticContinuation: false`.
fn google_params(model_id: &str, body: Value, continuation_off: bool) -> Value {
    let Value::Object(mut body) = body else {
        return body;
    };
    let mut config = Map::new();
    if let Some(Value::Object(generation)) = body.shift_remove("generationConfig") {
        config.extend(generation);
    }
    if let Some(system) = body.shift_remove("systemInstruction") {
        config.insert("systemInstruction".into(), system_text(system));
    }
    for key in ["tools", "toolConfig"] {
        if let Some(value) = body.shift_remove(key) {
            config.insert(key.into(), value);
        }
    }
    if continuation_off {
        config.insert(AUTOMATIC_CONTINUATION.into(), false.into());
    }
    // The SDK has the generation settings first, then the system prompt and tools, then the
    // thinking settings.
    if let Some(thinking) = config.shift_remove("thinkingConfig") {
        config.insert("thinkingConfig".into(), thinking);
    }
    let contents = body.shift_remove("contents").unwrap_or_else(|| json!([]));
    let mut params = Map::new();
    params.insert("model".into(), model_id.into());
    params.insert("contents".into(), contents);
    params.insert("config".into(), Value::Object(config));
    params.extend(body);
    Value::Object(params)
}

/// The SDK's switch for resuming a stream that ended early, read by the SDK and never sent.
const AUTOMATIC_CONTINUATION: &str = "automaticContinuation";

/// The system instruction's text (the SDK takes a text; ours is sent as one text part).
fn system_text(system: Value) -> Value {
    let parts = system.get("parts").and_then(Value::as_array);
    match parts.map(|parts| parts.as_slice()) {
        Some([part]) => part.get("text").cloned().unwrap_or(system),
        _ => system,
    }
}

/// The body the Google SDK sends for its parameters: `contents`, then the system instruction
/// (a text becomes `{parts: [{text}], role: "user"}`), tools and tool settings from `config`, the
/// rest of `config` (but the abort signal, HTTP options and automatic continuation, which the
/// SDK keeps to itself) as `generationConfig`.
fn google_body(params: Value) -> Value {
    let Value::Object(mut params) = params else {
        return params;
    };
    let mut body = Map::new();
    if let Some(contents) = params.shift_remove("contents") {
        body.insert("contents".into(), contents);
    }
    let mut config = match params.shift_remove("config") {
        Some(Value::Object(config)) => config,
        _ => Map::new(),
    };
    if let Some(system) = config.shift_remove("systemInstruction") {
        let system = match system {
            Value::String(text) => json!({"parts": [{"text": text}], "role": "user"}),
            other => other,
        };
        body.insert("systemInstruction".into(), system);
    }
    for key in ["tools", "toolConfig"] {
        if let Some(value) = config.shift_remove(key) {
            body.insert(key.into(), value);
        }
    }
    for sdk_only in ["abortSignal", "httpOptions", AUTOMATIC_CONTINUATION] {
        config.shift_remove(sdk_only);
    }
    if !config.is_empty() {
        body.insert("generationConfig".into(), Value::Object(config));
    }
    Value::Object(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys of the SDK parameters' `config`, in order.
    fn config_keys(params: &Value) -> Vec<&String> {
        params["config"]
            .as_object()
            .map_or(Vec::new(), |config| config.keys().collect())
    }

    #[test]
    fn header_changes_set_override_and_drop_over_the_built_headers() {
        let given = json!({"x-configured": "c", "x-dropped": "d", "x-removed": "r"});
        let changed =
            json!({"x-configured": "o", "x-dropped": null, "x-added": "a", "accept": null});
        let changes = HeaderChanges {
            given: given.as_object().cloned().unwrap_or_default(),
            changed: changed.as_object().cloned().unwrap_or_default(),
        };
        let built = header_map(vec![
            ("accept".into(), "application/json".into()),
            ("x-api-key".into(), "k".into()),
            ("x-configured".into(), "c".into()),
            ("x-dropped".into(), "d".into()),
            ("x-removed".into(), "r".into()),
        ])
        .unwrap();
        let headers = apply_headers(Some(&changes), built).unwrap();
        let mut pairs: Vec<(&str, &str)> = headers
            .iter()
            .map(|(name, value)| (name.as_str(), value.to_str().unwrap_or_default()))
            .collect();
        pairs.sort_unstable();
        assert_eq!(
            pairs,
            [("x-added", "a"), ("x-api-key", "k"), ("x-configured", "o")]
        );
    }

    #[test]
    fn google_bodies_become_sdk_parameters_and_back() {
        let body = json!({
            "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
            "systemInstruction": {"parts": [{"text": "Be brief"}], "role": "user"},
            "tools": [{"functionDeclarations": []}],
            "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
            "generationConfig": {"maxOutputTokens": 100, "thinkingConfig": {"includeThoughts": true}},
        });
        let params = google_params("gemini-x", body.clone(), false);
        assert_eq!(
            params,
            json!({
                "model": "gemini-x",
                "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
                "config": {
                    "maxOutputTokens": 100,
                    "systemInstruction": "Be brief",
                    "tools": [{"functionDeclarations": []}],
                    "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
                    "thinkingConfig": {"includeThoughts": true},
                },
            })
        );
        assert_eq!(
            config_keys(&params),
            [
                "maxOutputTokens",
                "systemInstruction",
                "tools",
                "toolConfig",
                "thinkingConfig"
            ]
        );
        assert_eq!(google_body(params), body);
    }

    #[test]
    fn from_1_6_0_google_parameters_turn_automatic_continuation_off_but_never_send_it() {
        let body = json!({
            "contents": [],
            "tools": [{"functionDeclarations": []}],
            "generationConfig": {"maxOutputTokens": 100, "thinkingConfig": {"includeThoughts": true}},
        });
        let params = google_params("gemini-x", body.clone(), true);
        assert_eq!(
            config_keys(&params),
            [
                "maxOutputTokens",
                "tools",
                "automaticContinuation",
                "thinkingConfig"
            ]
        );
        assert_eq!(params["config"]["automaticContinuation"], json!(false));
        assert_eq!(google_body(params), body);
    }

    #[test]
    fn a_google_hook_may_set_generation_settings_and_drop_the_system_prompt() {
        let params = json!({
            "model": "gemini-x",
            "contents": [],
            "config": {"temperature": 0.25, "abortSignal": {}},
        });
        assert_eq!(
            google_body(params),
            json!({"contents": [], "generationConfig": {"temperature": 0.25}})
        );
    }
}
