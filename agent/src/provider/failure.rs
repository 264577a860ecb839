//! What a failed answer says, as the reference's model layer reads its error text: whether the
//! context window overflowed (which compaction handles), and whether the failure looks
//! transient (overload, rate limits, 5xx statuses, broken connections, timeouts) and so worth
//! another attempt, account limits excepted. The session's automatic retry and compaction's
//! summary calls both decide with these.

use std::sync::LazyLock;

use pi_rpc_protocol::message::{AssistantMessage, StopReason};
use regex::{Regex, RegexBuilder};

/// Error texts that mean a transient failure worth another attempt.
const RETRYABLE: &[&str] = &[
    "overloaded",
    "rate.?limit",
    "too many requests",
    "429",
    "500",
    "502",
    "503",
    "504",
    "524",
    "service.?unavailable",
    "server.?error",
    "internal.?error",
    "provider.?returned.?error",
    "network.?error",
    "connection.?error",
    "connection.?refused",
    "connection.?lost",
    "other side closed",
    "fetch failed",
    "getaddrinfo",
    "ENOTFOUND",
    "EAI_AGAIN",
    "upstream.?connect",
    "reset before headers",
    "socket hang up",
    "socket connection was closed",
    "timed? out",
    "timeout",
    "terminated",
    "websocket.?closed",
    "websocket.?error",
    "ended without",
    "stream ended before message_stop",
    "stream ended before a terminal response event",
    "http2 request did not get a response",
    "retry delay",
    "you can retry your request",
    "try your request again",
    "please retry your request",
    "ResourceExhausted",
];

/// Account and billing limits: retrying cannot help.
const ACCOUNT_LIMITS: &[&str] = &[
    "GoUsageLimitError",
    "FreeUsageLimitError",
    "Monthly usage limit reached",
    "available balance",
    "insufficient_quota",
    "out of budget",
    "quota exceeded",
    "billing",
];

/// Errors that say the conversation no longer fits the model's context window.
const OVERFLOW: &[&str] = &[
    r"prompt is too long",
    r"request_too_large",
    r"input is too long for requested model",
    r"exceeds the context window",
    r"exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))",
    r"input token count.*exceeds the maximum",
    r"maximum prompt length is \d+",
    r"reduce the length of the messages",
    r"maximum context length is \d+ tokens",
    r"exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?",
    r"input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)",
    r"exceeds the limit of \d+",
    r"exceeds the available context size",
    r"greater than the context length",
    r"context window exceeds limit",
    r"exceeded model token limit",
    r"too large for model with \d+ maximum context length",
    r"prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?",
    r"model_context_window_exceeded",
    r"prompt too long; exceeded (?:max )?context length",
    r"range of input length should be",
    r"context[_ ]length[_ ]exceeded",
    r"too many tokens",
    r"token limit exceeded",
    r"^4(?:00|13)\s*(?:status code)?\s*\(no body\)",
];

/// Errors that mention limits without being about the context window.
const NOT_OVERFLOW: &[&str] = &[
    r"^(Throttling error|Service unavailable):",
    r"rate limit",
    r"too many requests",
];

fn any_of(patterns: &[&str]) -> Option<Regex> {
    let joined = patterns.join("|");
    match RegexBuilder::new(&joined).case_insensitive(true).build() {
        Ok(regex) => Some(regex),
        Err(error) => {
            tracing::error!(%error, "a built-in error pattern does not compile");
            None
        }
    }
}

static RETRYABLE_RE: LazyLock<Option<Regex>> = LazyLock::new(|| any_of(RETRYABLE));
static ACCOUNT_LIMITS_RE: LazyLock<Option<Regex>> = LazyLock::new(|| any_of(ACCOUNT_LIMITS));
static OVERFLOW_RE: LazyLock<Option<Regex>> = LazyLock::new(|| any_of(OVERFLOW));
static NOT_OVERFLOW_RE: LazyLock<Option<Regex>> = LazyLock::new(|| any_of(NOT_OVERFLOW));

fn matches(regex: &LazyLock<Option<Regex>>, text: &str) -> bool {
    regex.as_ref().is_some_and(|regex| regex.is_match(text))
}

/// Whether the message reports that the context window overflowed.
pub fn is_context_overflow(message: &AssistantMessage, context_window: u64) -> bool {
    if message.stop_reason == StopReason::Error
        && let Some(error) = &message.error_message
        && !matches(&NOT_OVERFLOW_RE, error)
        && matches(&OVERFLOW_RE, error)
    {
        return true;
    }
    let input = message.usage.input + message.usage.cache_read;
    if context_window > 0 && message.stop_reason == StopReason::Stop && input > context_window {
        return true;
    }
    context_window > 0
        && message.stop_reason == StopReason::Length
        && message.usage.output == 0
        && input as f64 >= context_window as f64 * 0.99
}

/// Whether a failed message is retried automatically.
pub fn is_retryable(message: &AssistantMessage, context_window: u64) -> bool {
    !is_context_overflow(message, context_window) && is_transient(message)
}

/// Whether a message failed in a way that looks transient (overflow not excluded: a
/// summarisation call retries on these alone).
pub fn is_transient(message: &AssistantMessage) -> bool {
    if message.stop_reason != StopReason::Error {
        return false;
    }
    let Some(error) = message.error_message.as_deref().filter(|e| !e.is_empty()) else {
        return false;
    };
    !matches(&ACCOUNT_LIMITS_RE, error) && matches(&RETRYABLE_RE, error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(error: &str) -> AssistantMessage {
        AssistantMessage {
            content: Vec::new(),
            api: "anthropic-messages".into(),
            provider: "mock".into(),
            model: "m".into(),
            response_model: None,
            usage: Default::default(),
            stop_reason: StopReason::Error,
            timestamp: 0,
            response_id: None,
            raw_stop_reason: None,
            error_message: Some(error.into()),
            extra: Default::default(),
        }
    }

    #[test]
    fn transient_errors_are_retried_and_others_are_not() {
        assert!(is_retryable(
            &failed(r#"529 {"type":"error","error":{"type":"overloaded_error"}}"#),
            0
        ));
        assert!(is_retryable(&failed("Rate-limit reached"), 0));
        assert!(is_retryable(&failed("socket hang up"), 0));
        assert!(!is_retryable(&failed("400 invalid request"), 0));
        assert!(!is_retryable(&failed("429 insufficient_quota"), 0));
        assert!(!is_retryable(
            &failed("500 prompt is too long: 300000 tokens"),
            0
        ));
        let mut aborted = failed("This operation was aborted");
        aborted.stop_reason = StopReason::Aborted;
        assert!(!is_retryable(&aborted, 0));
    }
}
