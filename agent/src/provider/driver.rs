//! The HTTP exchange shared by the streaming wire formats: send the request, turn an error
//! status into the reference's error message, read the body through the [`SseDecoder`], hand
//! each event to the wire format, and end with exactly one `Done`.
//!
//! Error texts are those the reference's SDKs produce (Anthropic's and OpenAI's share them):
//! `<status> <body>` for an error status (`<status> status code (no body)` when the body is
//! empty; a JSON body re-serialised, or its top-level `message`), `Connection error.` when no
//! response came, `terminated` when the body broke off. Cancelling gives `Request aborted`
//! before the response headers and `This operation was aborted` after them.
//!
//! With settings `retry.provider.maxRetries` above 0, a failed request is sent again before
//! anything reaches the run, by the rules of [`retry`](super::retry).

use std::time::Duration;

use pi_rpc_protocol::message::StopReason;
use reqwest::header::HeaderMap;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::body::Outgoing;
use super::call::EventSender;
use super::json::js_key_order;
use super::partial::PartialMessage;
use super::retry::{AttemptError, Decision, decide};
use super::sse::{SseDecoder, SseEvent};
use super::stream_error::StreamError;
use super::{ProviderEvent, StreamOptions};

/// The most deltas one `Deltas` event carries.
const MAX_BURST: usize = 256;

/// Queued delta text from which a paced stream waits for its consumer (see [`Sink::pace`]).
const PACED_BYTES: usize = 1024 * 1024;

/// How long `Start` may wait for the first delta after the first read of the body.
const START_GRACE: Duration = Duration::from_millis(20);

/// The error when no response headers came in time.
const TIMED_OUT: &str = "Request timed out.";
/// The error when the body broke off or went idle too long.
const TERMINATED: &str = "terminated";

/// The abort message before the provider answered.
pub(crate) const ABORTED_BEFORE_RESPONSE: &str = "Request aborted";
/// The abort message while the answer streams.
pub(crate) const ABORTED_WHILE_STREAMING: &str = "This operation was aborted";

/// A wire format's part of a streamed exchange.
pub(crate) trait WireFormat: Send {
    /// Handles one decoded event: updates `partial` and queues its deltas. An error ends the
    /// message with `stopReason: "error"` and the error's text as `errorMessage`.
    fn on_event(
        &mut self,
        event: SseEvent,
        partial: &mut PartialMessage,
    ) -> Result<(), StreamError>;

    /// The body ended: checks that the stream was complete and sets the final stop reason.
    /// Deltas it queues are sent before the final message.
    fn on_end(&mut self, partial: &mut PartialMessage) -> Result<(), StreamError>;

    /// The caller cancelled while the answer streamed: returns the abort's error text, and may
    /// queue deltas (block ends) that the reference emits before it.
    fn on_abort(&mut self, _partial: &mut PartialMessage) -> String {
        ABORTED_WHILE_STREAMING.to_owned()
    }

    /// Whether the format reads the body itself ([`WireFormat::on_bytes`]) instead of as
    /// Server-Sent Events.
    fn reads_raw_body(&self) -> bool {
        false
    }

    /// One read of the body, for formats that [read it raw](WireFormat::reads_raw_body).
    fn on_bytes(
        &mut self,
        _bytes: &[u8],
        _partial: &mut PartialMessage,
    ) -> Result<(), StreamError> {
        Ok(())
    }

    /// The error text when no response came (`timed_out`: no headers within the idle timeout).
    fn connection_error(&self, timed_out: bool) -> String {
        if timed_out {
            TIMED_OUT.to_owned()
        } else {
            "Connection error.".to_owned()
        }
    }

    /// Whether the SDK's errors keep the response headers (`x-should-retry`, `retry-after`)
    /// and a request that got no response is retried (Anthropic's and OpenAI's; Google's
    /// errors have the status only, and a failed `fetch` is not retried).
    fn errors_keep_headers(&self) -> bool {
        true
    }

    /// Whether the SDK shows its caller the response's status and headers (the reference's
    /// `after_provider_response`); Google's does not.
    fn exposes_response(&self) -> bool {
        true
    }

    /// The SDK's own message for an error status (what a refused provider-level retry
    /// quotes), before the format words the error its own way.
    fn sdk_status_message(&self, status: u16, body: &str) -> String {
        status_error_message(status, body)
    }

    /// The error text for an HTTP error status with this body (and `content-type` header), as
    /// the format's SDK words it.
    fn status_error(&self, status: u16, _content_type: Option<&str>, body: &str) -> String {
        status_error_message(status, body)
    }

    /// A response came, success or error, before its body is read (the format may note its
    /// headers, and what an error should carry on the message).
    fn on_response(&mut self, _status: u16, _headers: &HeaderMap, _partial: &mut PartialMessage) {}

    /// Whether the format's SDK sends a failed request again by itself (whatever
    /// `retry.provider` says), and after how long: `retries` is how many it already sent again,
    /// `status` is `None` when no response came.
    fn sdk_retry_delay(
        &self,
        _retries: u32,
        _status: Option<u16>,
        _headers: Option<&HeaderMap>,
    ) -> Option<Duration> {
        None
    }

    /// The error text when the body broke off or went idle too long.
    fn body_broken(&mut self, _partial: &mut PartialMessage) -> String {
        TERMINATED.to_owned()
    }
}

/// How an exchange stopped early.
enum Failure {
    /// The provider or the stream failed.
    Error(String),
    /// The caller cancelled.
    Aborted(&'static str),
}

impl From<StreamError> for Failure {
    fn from(error: StreamError) -> Self {
        Failure::Error(error.to_string())
    }
}

/// Hands events to the reader while watching the cancellation token.
struct Sink {
    tx: EventSender,
    cancel: CancellationToken,
    /// The provider answered with a success status (so `Start` is due).
    accepted: bool,
    /// `Start` was sent.
    started: bool,
    /// [`StreamOptions::paced`].
    paced: bool,
    /// The usage last reported (in `Start` or `Usage`).
    usage: Option<pi_rpc_protocol::usage::Usage>,
}

impl Sink {
    async fn send(&self, event: ProviderEvent) -> Result<(), Failure> {
        tokio::select! {
            biased;
            () = self.cancel.cancelled() => Err(Failure::Aborted(ABORTED_WHILE_STREAMING)),
            () = self.tx.send(event) => Ok(()),
        }
    }

    /// Sends `Start` (once) with the message as it stands, then the queued deltas.
    async fn flush(&mut self, partial: &mut PartialMessage) -> Result<(), Failure> {
        if !self.started {
            self.started = true;
            self.usage = Some(partial.message.usage.clone());
            self.send(ProviderEvent::Start(partial.snapshot())).await?;
        }
        let events: Vec<_> = partial.take_events().collect();
        if events.is_empty() {
            return Ok(());
        }
        if self.usage.as_ref() != Some(&partial.message.usage) {
            self.usage = Some(partial.message.usage.clone());
            self.send(ProviderEvent::Usage(partial.message.usage.clone()))
                .await?;
        }
        // A long read is handed over in several bursts, so that each stays small.
        let mut events = events.into_iter();
        loop {
            let burst: Vec<_> = events.by_ref().take(MAX_BURST).collect();
            if burst.is_empty() {
                return Ok(());
            }
            self.send(ProviderEvent::Deltas(burst)).await?;
        }
    }

    /// With pacing, once `Start` is out and the queued deltas carry [`PACED_BYTES`] or more:
    /// sends them and waits until the consumer has written them, so that the next long one is
    /// not made (a long `text_end` copies its block) while this one is still in memory.
    async fn pace(&mut self, partial: &mut PartialMessage) -> Result<(), Failure> {
        if !self.paced || !self.started || partial.queued_text_bytes() < PACED_BYTES {
            return Ok(());
        }
        self.flush(partial).await?;
        let signal = super::WrittenSignal::default();
        self.send(ProviderEvent::Written(signal.clone())).await?;
        tokio::select! {
            biased;
            () = self.cancel.cancelled() => Err(Failure::Aborted(ABORTED_WHILE_STREAMING)),
            () = signal.wait() => Ok(()),
        }
    }

    /// Sends `Start` if it is still due, then `Done`. The consumer always reads these.
    async fn finish(self, mut partial: PartialMessage, failure: Option<(StopReason, String)>) {
        if self.accepted && !self.started {
            self.tx.send(ProviderEvent::Start(partial.snapshot())).await;
        }
        // Only `WireFormat::on_abort` leaves deltas here: every other path sent them already.
        let events: Vec<_> = partial.take_events().collect();
        if !events.is_empty() {
            self.tx.send(ProviderEvent::Deltas(events)).await;
        }
        let message = match failure {
            None => partial.message,
            Some((stop_reason, text)) => partial.fail(stop_reason, text),
        };
        self.tx.send(ProviderEvent::Done(message)).await;
    }
}

/// Runs one exchange to its `Done` (`request`: a request builder with its body, or an
/// [`Outgoing`] with a body attached to each attempt).
pub(crate) async fn drive(
    request: impl Into<Outgoing>,
    mut partial: PartialMessage,
    mut wire: impl WireFormat,
    options: StreamOptions,
    cancel: CancellationToken,
    tx: EventSender,
) {
    let mut sink = Sink {
        tx,
        cancel,
        accepted: false,
        started: false,
        paced: options.paced,
        usage: None,
    };
    let outcome = exchange(request.into(), &mut partial, &mut wire, options, &mut sink).await;
    let failure = match outcome {
        Ok(()) => None,
        Err(Failure::Aborted(ABORTED_WHILE_STREAMING)) => {
            // Deltas not yet sent when the cancellation came are dropped; the format may end
            // its blocks and word the abort its own way.
            partial.drop_queued();
            let text = wire.on_abort(&mut partial);
            Some((StopReason::Aborted, text))
        }
        Err(Failure::Aborted(text)) => Some((StopReason::Aborted, text.to_owned())),
        Err(Failure::Error(text)) => Some((StopReason::Error, text)),
    };
    sink.finish(partial, failure).await;
}

/// Sends a `Done` for a request that failed before it could be sent.
pub(crate) async fn fail_early(partial: PartialMessage, text: String, tx: EventSender) {
    let done = partial.fail(StopReason::Error, text);
    tx.send(ProviderEvent::Done(done)).await;
}

async fn exchange(
    request: Outgoing,
    partial: &mut PartialMessage,
    wire: &mut impl WireFormat,
    options: StreamOptions,
    sink: &mut Sink,
) -> Result<(), Failure> {
    let idle = options.idle_timeout;
    let cancel = sink.cancel.clone();
    let mut response = send(request, wire, options, sink, partial).await?;
    sink.accepted = true;
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    let mut ready = None;
    let mut start_deadline = None;
    loop {
        let chunk = match ready.take() {
            Some(chunk) => Some(chunk),
            None => tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(Failure::Aborted(ABORTED_WHILE_STREAMING)),
                chunk = within(idle, response.chunk()) => chunk,
            },
        };
        let raw_read = match chunk {
            Some(Ok(Some(bytes))) if wire.reads_raw_body() => {
                Some(wire.on_bytes(&bytes, partial).map_err(Failure::from))
            }
            Some(Ok(Some(bytes))) => {
                decoder.feed(&bytes, &mut events);
                None
            }
            Some(Ok(None)) => break,
            Some(Err(_)) | None => return Err(Failure::Error(wire.body_broken(partial))),
        };
        let applied = match raw_read {
            Some(outcome) => outcome,
            None => apply_paced(&mut events, partial, wire, sink).await?,
        };
        if applied.is_ok() && !sink.started && partial.nothing_queued() {
            // Nothing to show yet. The reference serialises its `message_start` a moment after
            // the first bytes, by when the first block has usually arrived: `Start` waits for
            // the first delta, at most `START_GRACE` after the first read.
            let deadline =
                *start_deadline.get_or_insert_with(|| tokio::time::Instant::now() + START_GRACE);
            let next = tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(Failure::Aborted(ABORTED_WHILE_STREAMING)),
                next = tokio::time::timeout_at(deadline, response.chunk()) => next.ok(),
            };
            if let Some(next) = next {
                ready = Some(next);
                continue;
            }
        }
        sink.flush(partial).await?;
        applied?;
    }
    drop(response);
    decoder.finish(&mut events);
    let applied = apply(&mut events, partial, wire).map_err(Failure::from);
    sink.flush(partial).await?;
    applied?;
    let ended = wire.on_end(partial);
    sink.flush(partial).await?;
    ended.map_err(Failure::from)
}

/// Sends the request until it gets a success status, retrying as
/// [`retry`](super::retry) says while `options.max_retries` allow; the error of the last
/// attempt otherwise.
async fn send(
    mut request: Outgoing,
    wire: &mut impl WireFormat,
    options: StreamOptions,
    sink: &Sink,
    partial: &mut PartialMessage,
) -> Result<reqwest::Response, Failure> {
    let idle = options.idle_timeout;
    let headers_limit = match (options.request_timeout, idle) {
        (Some(request), Some(idle)) => Some(request.min(idle)),
        (request, idle) => request.or(idle),
    };
    let cancel = &sink.cancel;
    let mut retry_index = 0;
    let mut sdk_retries = 0;
    loop {
        if cancel.is_cancelled() {
            return Err(Failure::Aborted(ABORTED_BEFORE_RESPONSE));
        }
        let retries_left = options.max_retries.saturating_sub(retry_index);
        let may_retry = retries_left > 0 || wire.sdk_retry_delay(0, None, None).is_some();
        let Some(current) = request.attempt(may_retry) else {
            return Err(Failure::Error(wire.connection_error(false)));
        };
        let sent = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(Failure::Aborted(ABORTED_BEFORE_RESPONSE)),
            sent = within(headers_limit, current.send()) => sent,
        };
        let error = match sent {
            Some(Ok(response)) if response.status().is_success() => {
                wire.on_response(response.status().as_u16(), response.headers(), partial);
                if wire.exposes_response() {
                    super::hooks::after_response(&response).await;
                }
                return Ok(response);
            }
            Some(Ok(response)) => {
                let status = response.status().as_u16();
                let headers = response.headers().clone();
                wire.on_response(status, &headers, partial);
                let content_type = headers
                    .get(reqwest::header::CONTENT_TYPE)
                    .and_then(|value| value.to_str().ok())
                    .map(str::to_owned);
                let body = tokio::select! {
                    biased;
                    () = cancel.cancelled() => return Err(Failure::Aborted(ABORTED_BEFORE_RESPONSE)),
                        body = within(idle, response.bytes()) => body,
                };
                let text = match body {
                    Some(Ok(bytes)) => decode_body(&bytes),
                    _ => TERMINATED.to_owned(),
                };
                AttemptError {
                    text: wire.status_error(status, content_type.as_deref(), &text),
                    sdk_text: Some(wire.sdk_status_message(status, &text)),
                    status: Some(status),
                    headers: wire.errors_keep_headers().then_some(headers),
                }
            }
            Some(Err(error)) => {
                let text = wire.connection_error(error.is_timeout());
                if !wire.errors_keep_headers() {
                    return Err(Failure::Error(text));
                }
                AttemptError {
                    text,
                    sdk_text: None,
                    status: None,
                    headers: None,
                }
            }
            None if !wire.errors_keep_headers() => {
                return Err(Failure::Error(TIMED_OUT.to_owned()));
            }
            None => AttemptError {
                text: TIMED_OUT.to_owned(),
                sdk_text: None,
                status: None,
                headers: None,
            },
        };
        let sdk_delay = wire.sdk_retry_delay(sdk_retries, error.status, error.headers.as_ref());
        if let Some(delay) = sdk_delay.filter(|_| request.can_repeat()) {
            tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(Failure::Aborted(ABORTED_BEFORE_RESPONSE)),
                () = tokio::time::sleep(delay) => {}
            }
            sdk_retries += 1;
            continue;
        }
        if !request.can_repeat() {
            return Err(Failure::Error(error.text));
        }
        match decide(error, retry_index, retries_left, options.max_retry_delay) {
            Decision::Fail(text) => return Err(Failure::Error(text)),
            Decision::Retry(delay) => {
                tokio::select! {
                    biased;
                    () = cancel.cancelled() => return Err(Failure::Aborted(ABORTED_BEFORE_RESPONSE)),
                        () = tokio::time::sleep(delay) => {}
                }
            }
        }
        retry_index += 1;
    }
}

/// Hands decoded events to the wire format, stopping at the first failure.
pub(super) fn apply(
    events: &mut Vec<SseEvent>,
    partial: &mut PartialMessage,
    wire: &mut impl WireFormat,
) -> Result<(), StreamError> {
    let mut outcome = Ok(());
    for event in events.drain(..) {
        if let Err(error) = wire.on_event(event, partial) {
            outcome = Err(error);
            break;
        }
    }
    events.clear();
    outcome
}

/// [`apply`], pausing after each event that leaves long deltas queued until they are written
/// ([`Sink::pace`]).
async fn apply_paced(
    events: &mut Vec<SseEvent>,
    partial: &mut PartialMessage,
    wire: &mut impl WireFormat,
    sink: &mut Sink,
) -> Result<Result<(), Failure>, Failure> {
    if !sink.paced {
        return Ok(apply(events, partial, wire).map_err(Failure::from));
    }
    let mut outcome = Ok(());
    for event in std::mem::take(events) {
        if outcome.is_ok() {
            outcome = wire.on_event(event, partial).map_err(Failure::from);
            if outcome.is_ok() {
                sink.pace(partial).await?;
            }
        }
    }
    Ok(outcome)
}

/// `future`'s output, or `None` when `limit` passed first.
async fn within<F: Future>(limit: Option<Duration>, future: F) -> Option<F::Output> {
    match limit {
        Some(limit) => tokio::time::timeout(limit, future).await.ok(),
        None => Some(future.await),
    }
}

/// The text of an error body as `fetch`'s `text()` gives it.
fn decode_body(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

/// The SDKs' message for an error status: the status, then the body's top-level `message`, or
/// the body re-serialised when it is other JSON, or the raw body text.
pub(crate) fn status_error_message(status: u16, body: &str) -> String {
    let parsed = serde_json::from_str::<Value>(body)
        .ok()
        .filter(crate::js::truthy);
    let detail = match parsed {
        Some(mut json) => match json
            .get("message")
            .filter(|message| crate::js::truthy(message))
        {
            Some(Value::String(message)) => message.clone(),
            Some(message) => {
                let mut message = message.clone();
                js_key_order(&mut message);
                pi_rpc_protocol::json::to_string(&message).unwrap_or_default()
            }
            None => {
                js_key_order(&mut json);
                pi_rpc_protocol::json::to_string(&json).unwrap_or_default()
            }
        },
        None => body.to_owned(),
    };
    if detail.is_empty() {
        format!("{status} status code (no body)")
    } else {
        format!("{status} {detail}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_statuses_are_worded_like_the_sdk() {
        let body = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        assert_eq!(status_error_message(529, body), format!("529 {body}"));
        assert_eq!(
            status_error_message(400, "{ \"type\" : \"error\", \"n\": 1.0 }"),
            r#"400 {"type":"error","n":1}"#
        );
        assert_eq!(status_error_message(529, ""), "529 status code (no body)");
        assert_eq!(status_error_message(502, "Bad gateway"), "502 Bad gateway");
        assert_eq!(
            status_error_message(404, r#"{"message":"nope"}"#),
            "404 nope"
        );
        assert_eq!(
            status_error_message(404, r#"{"message":{"b":1}}"#),
            r#"404 {"b":1}"#
        );
        assert_eq!(status_error_message(500, "null"), "500 null");
        assert_eq!(status_error_message(500, "0"), "500 0");
    }
}
