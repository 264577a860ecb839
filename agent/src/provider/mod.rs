//! Model providers: one request to a model, streamed back as assistant-message events.
//!
//! [`stream`] takes an [`LlmRequest`] and returns a [`ProviderStream`] of [`ProviderEvent`]s: `Start` with
//! the message as it begins, `Delta`s (the reference's `message_update` events), and always one
//! final `Done` with the finished message, whose `stopReason` says how it ended (`stop`,
//! `length`, `toolUse`, `error`, `aborted`). Failures never surface any other way: an HTTP error
//! is a `Done` with `stopReason: "error"` and the reference's `errorMessage`, without `Start`.
//!
//! Layout, one module per concern:
//! - [`sse`]: the incremental Server-Sent Events decoder the SSE formats use;
//! - `driver`: the HTTP exchange (send, error bodies, reading the stream, cancellation) around a
//!   wire format's `driver::WireFormat` that turns decoded events into deltas;
//! - one module per wire format, each with its request body, headers and stream events:
//!   [`anthropic`] (`anthropic-messages`), [`openai_completions`] (`openai-completions`),
//!   [`openai_responses`] (`openai-responses`), [`google`] (`google-generative-ai`);
//! - [`transform`], [`options`], [`cost`], [`json`]: history preparation (one message at a
//!   time, [`transform::TransformState`]), token limits and thinking budgets, cost, and JSON
//!   repair / partial parsing, shared by every format;
//! - `body`: a body whose history is encoded from the typed messages while it is sent (in
//!   chunks, with its `Content-Length`), as the Anthropic and Chat Completions formats send theirs;
//! - [`replay`]: a recorded body read by a format's stream reader without HTTP.
//!
//! Adding a wire format: a module beside the others with a `run` that checks the key, builds the
//! body (after [`transform::transform_messages`] with the format's tool-id rule, limits from
//! [`options`]) and headers, and hands a `reqwest::RequestBuilder` plus its `driver::WireFormat`
//! (SSE event in, deltas on the shared partial message out, completeness check at the end) to
//! `driver::drive`; then one match arm in [`stream_with`] and one in [`replay::replay`]. `WireFormat` has defaults that a
//! format overrides where its SDK differs: the wording of HTTP errors (`status_error`; the
//! Anthropic SDK's by default), of connection failures (`connection_error`) and of an abort
//! mid-stream (`on_abort`, which may also end blocks first), and reading the body raw instead
//! of as SSE (`reads_raw_body` / `on_bytes`, for the Google SDK's own splitting).

pub mod anthropic;
pub mod azure;
pub mod bedrock;
mod body;
mod call;
mod cloudflare;
pub mod codex;
mod copilot;
pub mod cost;
mod driver;
pub mod failure;
pub mod google;
pub mod headers;
pub mod hooks;
pub mod json;
pub mod mistral;
pub mod openai_completions;
pub mod openai_responses;
pub mod options;
mod partial;
pub mod replay;
mod retry;
pub mod sse;
mod stream_error;
#[cfg(test)]
mod testing;
pub mod transform;
pub mod vertex;

use std::sync::Arc;

use pi_rpc_protocol::event::AssistantMessageEvent;
use pi_rpc_protocol::message::{AssistantMessage, StopReason};
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use tokio_util::sync::CancellationToken;

pub use crate::config::{
    DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_RETRY_DELAY, RequestAuth, RequestAuthError, StreamOptions,
};
pub use crate::store::SharedMessage;
pub use crate::tools::ToolDefinition;
pub(crate) use call::EventSender;
pub use call::ProviderStream;
pub use stream_error::StreamError;

/// One call of a model.
#[derive(Debug, Clone)]
pub struct LlmRequest {
    /// The model, with its wire format (`api`), base URL, headers, limits and prices.
    pub model: Model,
    /// What authenticates the call (the key, where its login is refreshed, the variables stored
    /// with it), or why it could not be resolved: the call then fails with that text at once,
    /// sending nothing, as the reference's does.
    pub auth: Result<RequestAuth, RequestAuthError>,
    /// The system prompt (sent as given; empty sends none).
    pub system_prompt: String,
    /// The conversation: user, assistant and tool-result messages (others are ignored), shared
    /// with the run that sends it. A message read from a session file may be held as its text
    /// only: a provider parses each one while it encodes it, and keeps none.
    pub messages: Vec<Arc<SharedMessage>>,
    /// The tools the model may call.
    pub tools: Vec<ToolDefinition>,
    /// How much the model should think.
    pub thinking_level: ThinkingLevel,
    /// The session, for providers that use it for cache affinity.
    pub session_id: Option<String>,
    /// Whether the provider may cache the prompt (the reference's `cacheRetention`).
    pub cache_retention: CacheRetention,
    /// Token budgets per thinking level from the settings (`thinkingBudgets`), replacing the
    /// defaults where a wire format sends a budget.
    pub thinking_budgets: crate::config::ThinkingBudgets,
    /// What later releases of pi changed about the request (the default is 0.84.1's).
    pub details: RequestDetails,
}

/// Details of a request that later releases of pi changed; the default is what 0.84.1 sends,
/// and the release spoken sets them ([`RequestDetails::for_release`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RequestDetails {
    /// Chat Completions: by default only OpenAI's own API (provider `openai` or a base URL at
    /// `api.openai.com`) gets the system prompt of a reasoning model as `developer`, every
    /// other host as `system` (1.6.0). Before, every host but the non-standard ones and
    /// OpenRouter (bar its `anthropic/` and `openai/` models) got `developer`.
    pub developer_role_for_openai_only: bool,
    /// Google: the SDK parameters `before_provider_request` handlers see carry
    /// `config.automaticContinuation: false` (1.6.0), an SDK switch that is never sent.
    pub google_automatic_continuation_off: bool,
    /// OpenAI Responses: the session header is `session-id`, not `session_id` (1.5.2).
    pub responses_session_header_dashed: bool,
}

impl RequestDetails {
    /// The details the given release sends.
    pub fn for_release(release: crate::release::RpcRelease) -> Self {
        use crate::release::Feature;
        Self {
            developer_role_for_openai_only: release.has(Feature::DeveloperRoleForOpenAiOnly),
            google_automatic_continuation_off: release.has(Feature::GoogleAutomaticContinuationOff),
            responses_session_header_dashed: release.has(Feature::ResponsesSessionHeaderDashed),
        }
    }
}

/// Whether, and for how long, a request may use the provider's prompt cache (the reference's
/// `cacheRetention`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CacheRetention {
    /// The provider's default entries (the reference's `"short"`).
    #[default]
    Short,
    /// Longer entries where the model supports them (the reference's `"long"`, which
    /// `PI_CACHE_RETENTION=long` selects: one hour on Anthropic and Bedrock, `24h` on OpenAI's
    /// APIs); the wire formats whose SDK ignores that variable cache as with [`Self::Short`].
    Long,
    /// No cache markers and no session affinity (headers, `prompt_cache_key`): the prompt is
    /// never sent again, as for compaction's summaries (the reference's `"none"`).
    Off,
}

impl CacheRetention {
    /// The variable that asks for [`CacheRetention::Long`].
    const VARIABLE: &str = "PI_CACHE_RETENTION";

    /// The retention of a run's calls: [`CacheRetention::Long`] when `PI_CACHE_RETENTION` is
    /// `long`, read as the reference reads it in every wire format that has it (the value
    /// stored with the provider's `auth.json` key unless empty, else the environment's).
    pub fn configured(auth: &Result<RequestAuth, RequestAuthError>) -> Self {
        let value = stored_variable(auth, Self::VARIABLE)
            .filter(|value| !value.is_empty())
            .map(str::to_owned)
            .or_else(|| crate::config::ambient::env(Self::VARIABLE));
        if value.as_deref() == Some("long") {
            Self::Long
        } else {
            Self::Short
        }
    }
}

/// What a provider stream reports.
#[derive(Debug, Clone, PartialEq)]
pub enum ProviderEvent {
    /// The provider accepted the request. The message is a snapshot of the message as the
    /// reference's late-serialised `message_start` typically shows it: taken when the first
    /// delta is ready (at most 20 ms after the first bytes of the body; at the end when the body
    /// brought none), so it usually holds the response id, the first usage report and the first
    /// block, with the reference's streaming scratch fields (`index`, and `partialJson` on tool
    /// calls). Never sent when the request itself failed.
    Start(AssistantMessage),
    /// The message's cumulative usage changed (sent before the deltas it comes with).
    Usage(pi_rpc_protocol::usage::Usage),
    /// Streaming deltas, in the reference's `message_update` order: every delta that one read
    /// of the body completed (at most 256), handed over as one burst.
    Deltas(Vec<AssistantMessageEvent>),
    /// The final message; always the last event.
    Done(AssistantMessage),
    /// Only with [`StreamOptions::paced`]: the deltas before this carry a megabyte or more, and
    /// the stream waits until the consumer calls [`WrittenSignal::written`] (or goes away).
    Written(WrittenSignal),
}

/// How a consumer tells a paced stream that the deltas before it are written out.
#[derive(Debug, Clone, Default)]
pub struct WrittenSignal(Arc<tokio::sync::Notify>);

impl WrittenSignal {
    /// The deltas are written: the stream reads on.
    pub fn written(&self) {
        self.0.notify_one();
    }

    async fn wait(&self) {
        self.0.notified().await;
    }
}

impl PartialEq for WrittenSignal {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A model call: its events, as a stream that runs the call in the task that reads it.
///
/// Nothing is sent before the stream is first polled. Cancelling `cancel` closes the HTTP
/// stream at once and ends with `Done` (`stopReason: "aborted"`, the content streamed so far).
/// Dropping the stream stops the call too.
pub fn stream(
    http: &reqwest::Client,
    request: LlmRequest,
    cancel: CancellationToken,
) -> ProviderStream {
    stream_with(http, request, StreamOptions::default(), cancel)
}

/// [`stream`] with explicit transport settings.
pub fn stream_with(
    http: &reqwest::Client,
    request: LlmRequest,
    options: StreamOptions,
    cancel: CancellationToken,
) -> ProviderStream {
    let http = http.clone();
    // The call keeps the hooks of the run that starts it, whoever polls it.
    let hooks = hooks::current();
    ProviderStream::new(move |tx| {
        hooks::scope(hooks.clone(), async move {
            let mut request = request;
            let login_key = match hooks.as_ref().and_then(|hooks| hooks.login_key(&request)) {
                Some(key) => Some(key.await),
                None => None,
            };
            if let Some(key) = login_key {
                match key {
                    Ok(key) => {
                        let mut auth = request.auth.clone().unwrap_or_default();
                        auth.api_key = Some(key);
                        request.auth = Ok(auth);
                    }
                    Err(error) => {
                        let done = partial::PartialMessage::new(&request.model)
                            .fail(StopReason::Error, error);
                        tx.send(ProviderEvent::Done(done)).await;
                        return;
                    }
                }
            }
            if let Err(error) = &request.auth {
                let done = partial::PartialMessage::new(&request.model)
                    .fail(StopReason::Error, error.to_string());
                tx.send(ProviderEvent::Done(done)).await;
                return;
            }
            // An extension provider's own stream answers instead of a wire format.
            if let Some(mut custom) = hooks.and_then(|hooks| hooks.custom_stream(&request, &cancel))
            {
                while let Some(event) = custom.recv().await {
                    tx.send(event).await;
                }
                return;
            }
            copilot::prepare(&mut request);
            cloudflare::prepare(&mut request);
            match request.model.api.as_str() {
                anthropic::API => anthropic::run(&http, request, options, cancel, tx).await,
                openai_completions::API => {
                    openai_completions::run(&http, request, options, cancel, tx).await;
                }
                google::API => google::run(&http, request, options, cancel, tx).await,
                openai_responses::API => {
                    openai_responses::run(&http, request, options, cancel, tx).await;
                }
                azure::API => azure::run(&http, request, options, cancel, tx).await,
                mistral::API => mistral::run(&http, request, options, cancel, tx).await,
                vertex::API => vertex::run(&http, request, options, cancel, tx).await,
                bedrock::API => bedrock::run(&http, request, options, cancel, tx).await,
                codex::API => codex::run(&http, request, options, cancel, tx).await,
                other => {
                    let message = format!("No API provider registered for api: {other}");
                    let done = partial::PartialMessage::new(&request.model)
                        .fail(StopReason::Error, message);
                    tx.send(ProviderEvent::Done(done)).await;
                }
            }
        })
    })
}

impl LlmRequest {
    /// The session to route and cache by: none when caching is off.
    pub fn cache_session(&self) -> Option<&String> {
        self.session_id
            .as_ref()
            .filter(|_| self.cache_retention != CacheRetention::Off)
    }

    /// The key for the provider; `None` when the model's headers carry the authentication (or
    /// the credentials could not be resolved, which fails the call before any wire format runs).
    pub fn api_key(&self) -> Option<String> {
        self.auth.as_ref().ok()?.api_key.clone()
    }

    /// Takes the key out (a format that sends it as a header instead).
    pub(crate) fn take_api_key(&mut self) -> Option<String> {
        self.auth.as_mut().ok()?.api_key.take()
    }

    /// A variable stored with the provider's `auth.json` key.
    pub(crate) fn stored_variable(&self, name: &str) -> Option<String> {
        stored_variable(&self.auth, name).map(str::to_owned)
    }
}

/// A variable stored with the provider's `auth.json` key.
fn stored_variable<'a>(
    auth: &'a Result<RequestAuth, RequestAuthError>,
    name: &str,
) -> Option<&'a str> {
    let stored = &auth.as_ref().ok()?.stored_env;
    stored.get(name).and_then(serde_json::Value::as_str)
}

/// A variable for the call: the value stored with the provider's `auth.json` key, else the
/// environment's.
pub(crate) fn stored_env(request: &LlmRequest, name: &str) -> Option<String> {
    request
        .stored_variable(name)
        .or_else(|| crate::config::ambient::env(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(value: &str) -> Result<RequestAuth, RequestAuthError> {
        let mut auth = RequestAuth::default();
        auth.stored_env
            .insert(CacheRetention::VARIABLE.into(), value.into());
        Ok(auth)
    }

    #[test]
    fn a_retention_stored_with_the_key_comes_before_the_environment() {
        assert_eq!(
            CacheRetention::configured(&stored("long")),
            CacheRetention::Long
        );
        assert_eq!(
            CacheRetention::configured(&stored("short")),
            CacheRetention::Short
        );
        assert_eq!(
            CacheRetention::configured(&stored("LONG")),
            CacheRetention::Short
        );
    }
}
