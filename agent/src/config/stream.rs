//! What the settings say about a model call: its timeouts, the provider-level retries, the
//! thinking budgets and whether images are blocked. A model call takes them as they are; the
//! settings and their defaults are the reference's.

use std::time::Duration;

use pi_rpc_protocol::model::ThinkingLevel;
use serde_json::Value;

use super::Settings;

/// The reference's default `retry.provider.maxRetryDelayMs`.
pub const DEFAULT_MAX_RETRY_DELAY: Duration = Duration::from_secs(60);

/// The reference's default HTTP idle timeout.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// Transport settings of a model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamOptions {
    /// The longest wait for the response headers and between two reads of the body (the
    /// reference's `httpIdleTimeoutMs`, five minutes by default); `None` waits for ever. Waiting
    /// longer for headers fails with `Request timed out.`, for the body with `terminated`.
    pub idle_timeout: Option<Duration>,
    /// Settings `retry.provider.maxRetries` (default 0): how often a failed request is sent
    /// again (408, 409, 429, 5xx, no response) before the error reaches the run.
    pub max_retries: u32,
    /// Settings `retry.provider.maxRetryDelayMs` (default 60 s): a longer delay asked for by
    /// the provider fails the request at once; zero lifts the limit.
    pub max_retry_delay: Duration,
    /// Settings `retry.provider.timeoutMs`: the longest wait for the response headers (the
    /// idle timeout still applies when shorter); `None` leaves it to the idle timeout.
    pub request_timeout: Option<Duration>,
    /// Settings `thinkingBudgets`, copied into each request of a run.
    pub thinking_budgets: ThinkingBudgets,
    /// Settings `images.blockImages`: images in user messages and tool results are replaced by
    /// a text placeholder in what the model is sent (the session keeps them).
    pub block_images: bool,
    /// After a burst of deltas carrying a megabyte or more, the stream sends the provider's
    /// `ProviderEvent::Written` and reads on only once its consumer has written them out: a
    /// flood holds one long delta in memory at a time.
    pub paced: bool,
}

impl Default for StreamOptions {
    fn default() -> Self {
        Self {
            idle_timeout: Some(DEFAULT_IDLE_TIMEOUT),
            max_retries: 0,
            max_retry_delay: DEFAULT_MAX_RETRY_DELAY,
            request_timeout: None,
            thinking_budgets: ThinkingBudgets::default(),
            block_images: false,
            paced: false,
        }
    }
}

/// Token budgets per thinking level set by the settings' `thinkingBudgets` (`minimal`, `low`,
/// `medium`, `high`; xhigh and max use `high`, as the reference clamps them); a level without
/// one keeps the format's default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThinkingBudgets {
    /// Budgets for minimal, low, medium and high.
    pub levels: [Option<i64>; 4],
}

impl ThinkingBudgets {
    /// The custom budget for `level`, if one is set (none for off).
    pub fn get(&self, level: ThinkingLevel) -> Option<i64> {
        match level {
            ThinkingLevel::Off => None,
            ThinkingLevel::Minimal => self.levels[0],
            ThinkingLevel::Low => self.levels[1],
            ThinkingLevel::Medium => self.levels[2],
            ThinkingLevel::High | ThinkingLevel::Xhigh | ThinkingLevel::Max => self.levels[3],
        }
    }
}

impl Settings {
    /// What the settings change about a model call: `retry.provider.maxRetries` (default 0),
    /// `retry.provider.maxRetryDelayMs` (default 60000), `retry.provider.timeoutMs` (the wait
    /// for the response headers), `httpIdleTimeoutMs` (default 300000, 0 or `"disabled"`
    /// waits for ever), `thinkingBudgets` and `images.blockImages`.
    pub fn stream_options(&self) -> StreamOptions {
        let provider = self.get_nested("retry", "provider");
        let number = |key: &str| provider.and_then(|p| p.get(key)).and_then(Value::as_f64);
        let mut options = StreamOptions::default();
        if let Some(idle) = self.get("httpIdleTimeoutMs").and_then(parse_timeout_ms) {
            options.idle_timeout = (idle > 0).then(|| Duration::from_millis(idle));
        }
        if let Some(timeout) = number("timeoutMs").filter(|n| n.is_finite() && *n >= 0.0) {
            options.request_timeout = Some(Duration::from_millis(timeout as u64));
        }
        options.thinking_budgets = self.thinking_budgets();
        options.block_images = self.block_images();
        if let Some(retries) = number("maxRetries").filter(|n| n.is_finite() && *n > 0.0) {
            options.max_retries = retries.ceil().min(f64::from(u32::MAX)) as u32;
        }
        if let Some(delay) = number("maxRetryDelayMs").filter(|n| n.is_finite()) {
            options.max_retry_delay = Duration::from_millis(delay.max(0.0) as u64);
        }
        options
    }

    /// `thinkingBudgets`: token budgets for `minimal`, `low`, `medium` and `high` (whole
    /// numbers; anything else keeps the default of that level).
    pub fn thinking_budgets(&self) -> ThinkingBudgets {
        let mut budgets = ThinkingBudgets::default();
        for (slot, level) in budgets
            .levels
            .iter_mut()
            .zip(["minimal", "low", "medium", "high"])
        {
            *slot = self
                .get_nested("thinkingBudgets", level)
                .and_then(Value::as_i64);
        }
        budgets
    }
}

/// A timeout setting as the reference reads it: a non-negative number (floored) or a numeric
/// string, `"disabled"` meaning 0; anything else is not a timeout.
fn parse_timeout_ms(value: &Value) -> Option<u64> {
    match value {
        Value::String(text) => {
            let text = text.trim();
            if text.eq_ignore_ascii_case("disabled") {
                return Some(0);
            }
            if text.is_empty() {
                return None;
            }
            text.parse::<f64>()
                .ok()
                .and_then(|n| parse_timeout_ms(&Value::from(n)))
        }
        Value::Number(number) => number
            .as_f64()
            .filter(|n| n.is_finite() && *n >= 0.0)
            .map(|n| n.floor() as u64),
        _ => None,
    }
}
