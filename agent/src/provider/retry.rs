//! Provider-level retries (settings `retry.provider.maxRetries`, off by default): the policy of
//! the reference's SDK layer, applied before the response headers are in. A failed request is
//! sent again when it is retryable: `x-should-retry: true|false` decides first, then no
//! response at all, 408, 409, 429 and 5xx are. The wait is what `retry-after-ms` or
//! `retry-after` (seconds or an HTTP date) ask for, failing at once when that is longer than
//! `retry.provider.maxRetryDelayMs`; without those headers it is 0.5 s doubling per retry up
//! to 8 s, less up to a quarter of random jitter. The run sees none of this: no events, just
//! the final answer or the last error.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

/// What the SDK knows about a failed attempt.
#[derive(Debug)]
pub(crate) struct AttemptError {
    /// The error text the run would see.
    pub(crate) text: String,
    /// The SDK's own message, when the format words `text` otherwise: a refused retry
    /// quotes it.
    pub(crate) sdk_text: Option<String>,
    /// The HTTP status; `None` when no response came.
    pub(crate) status: Option<u16>,
    /// The response headers, when the SDK's error keeps them.
    pub(crate) headers: Option<HeaderMap>,
}

/// What to do after a failed attempt.
#[derive(Debug, PartialEq)]
pub(crate) enum Decision {
    /// Give up with this error text.
    Fail(String),
    /// Wait this long, then send the request again.
    Retry(Duration),
}

/// Decides on a failed attempt, `retry_index` retries in (0 for the first failure), with
/// `retries_left` retries still allowed.
pub(crate) fn decide(
    error: AttemptError,
    retry_index: u32,
    retries_left: u32,
    max_delay: Duration,
) -> Decision {
    if retries_left == 0 || !retryable(&error) {
        return Decision::Fail(error.text);
    }
    match server_delay(error.headers.as_ref()) {
        Some(asked) if !max_delay.is_zero() && asked > max_delay.as_secs_f64() * 1000.0 => {
            Decision::Fail(format!(
                "Server requested {}s retry delay (max: {}s). {}",
                (asked / 1000.0).ceil(),
                (max_delay.as_secs_f64()).ceil(),
                error.sdk_text.as_deref().unwrap_or(&error.text)
            ))
        }
        // A negative or unreadable delay means no wait, as does one too long for a timer.
        Some(asked) if !(0.0..=f64::from(i32::MAX)).contains(&asked) => {
            Decision::Retry(Duration::ZERO)
        }
        Some(asked) => Decision::Retry(Duration::from_secs_f64(asked / 1000.0)),
        None => Decision::Retry(backoff(retry_index, jitter())),
    }
}

fn retryable(error: &AttemptError) -> bool {
    let should_retry = error
        .headers
        .as_ref()
        .and_then(|headers| headers.get("x-should-retry"))
        .and_then(|value| value.to_str().ok());
    match should_retry {
        Some("true") => return true,
        Some("false") => return false,
        _ => {}
    }
    match error.status {
        None => true,
        Some(status) => matches!(status, 408 | 409 | 429) || status >= 500,
    }
}

/// The delay in milliseconds the headers ask for (`NaN` turned into 0 for an unreadable date).
fn server_delay(headers: Option<&HeaderMap>) -> Option<f64> {
    let header = |name: &str| {
        headers
            .and_then(|headers| headers.get(name))
            .and_then(|value| value.to_str().ok())
            .filter(|value| !value.is_empty())
    };
    if let Some(ms) = header("retry-after-ms").and_then(parse_float) {
        return Some(ms);
    }
    let retry_after = header("retry-after")?;
    if let Some(seconds) = parse_float(retry_after) {
        return Some(seconds * 1000.0);
    }
    let delay = httpdate::parse_http_date(retry_after).ok().map(|when| {
        match when.duration_since(SystemTime::now()) {
            Ok(ahead) => ahead.as_secs_f64() * 1000.0,
            Err(past) => -past.duration().as_secs_f64() * 1000.0,
        }
    });
    Some(delay.unwrap_or(0.0))
}

/// JavaScript's `Number.parseFloat`: the longest leading decimal number, after leading
/// whitespace.
fn parse_float(text: &str) -> Option<f64> {
    let text = text.trim_start();
    let end = text
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || matches!(c, '.' | '+' | '-' | 'e' | 'E')))
        .map_or(text.len(), |(index, _)| index);
    (1..=end)
        .rev()
        .find_map(|len| text[..len].parse::<f64>().ok())
        .filter(|value| value.is_finite())
}

/// `min(0.5 s * 2^index, 8 s)`, less `jitter` (0..1) times a quarter.
fn backoff(retry_index: u32, jitter: f64) -> Duration {
    let base = (0.5 * 2f64.powi(retry_index.min(16) as i32)).min(8.0);
    Duration::from_secs_f64(base * (1.0 - jitter * 0.25))
}

/// A number in `0..1`, different on each call.
fn jitter() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos()),
    );
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(status: Option<u16>, headers: &[(&'static str, &str)]) -> AttemptError {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            map.insert(*name, value.parse().unwrap());
        }
        AttemptError {
            text: "429 slow down".into(),
            sdk_text: None,
            status,
            headers: Some(map),
        }
    }

    const MAX: Duration = Duration::from_secs(60);

    #[test]
    fn statuses_408_409_429_5xx_and_no_response_are_retried_unless_the_header_says_no() {
        for status in [Some(408), Some(409), Some(429), Some(500), Some(529), None] {
            assert!(matches!(
                decide(error(status, &[]), 0, 1, MAX),
                Decision::Retry(_)
            ));
        }
        for status in [400, 401, 404, 413] {
            assert_eq!(
                decide(error(Some(status), &[]), 0, 1, MAX),
                Decision::Fail("429 slow down".into())
            );
        }
        assert!(matches!(
            decide(error(Some(400), &[("x-should-retry", "true")]), 0, 1, MAX),
            Decision::Retry(_)
        ));
        assert!(matches!(
            decide(error(Some(503), &[("x-should-retry", "false")]), 0, 1, MAX),
            Decision::Fail(_)
        ));
        assert!(matches!(
            decide(error(Some(503), &[]), 0, 0, MAX),
            Decision::Fail(_)
        ));
    }

    #[test]
    fn server_delays_come_from_retry_after_ms_then_retry_after() {
        let retry = |headers: &[(&'static str, &str)]| decide(error(Some(429), headers), 3, 1, MAX);
        assert_eq!(
            retry(&[("retry-after-ms", "250"), ("retry-after", "9")]),
            Decision::Retry(Duration::from_millis(250))
        );
        assert_eq!(
            retry(&[("retry-after", "1.5")]),
            Decision::Retry(Duration::from_millis(1500))
        );
        assert_eq!(
            retry(&[("retry-after", "-3")]),
            Decision::Retry(Duration::ZERO)
        );
        assert_eq!(
            retry(&[("retry-after", "soon")]),
            Decision::Retry(Duration::ZERO)
        );
        let past = httpdate::fmt_http_date(SystemTime::now() - Duration::from_secs(30));
        assert_eq!(
            retry(&[("retry-after", &past)]),
            Decision::Retry(Duration::ZERO)
        );
    }

    #[test]
    fn a_delay_over_the_limit_fails_at_once_unless_the_limit_is_zero() {
        assert_eq!(
            decide(error(Some(429), &[("retry-after", "61")]), 0, 2, MAX),
            Decision::Fail("Server requested 61s retry delay (max: 60s). 429 slow down".into())
        );
        assert_eq!(
            decide(
                error(Some(429), &[("retry-after-ms", "1500")]),
                0,
                2,
                Duration::from_millis(1000)
            ),
            Decision::Fail("Server requested 2s retry delay (max: 1s). 429 slow down".into())
        );
        assert_eq!(
            decide(
                error(Some(429), &[("retry-after", "61")]),
                0,
                2,
                Duration::ZERO
            ),
            Decision::Retry(Duration::from_secs(61))
        );
    }

    #[test]
    fn backoff_doubles_from_half_a_second_to_eight_with_up_to_a_quarter_off() {
        assert_eq!(backoff(0, 0.0), Duration::from_millis(500));
        assert_eq!(backoff(2, 0.0), Duration::from_secs(2));
        assert_eq!(backoff(5, 0.0), Duration::from_secs(8));
        assert_eq!(backoff(1, 1.0), Duration::from_millis(750));
        for _ in 0..100 {
            let value = jitter();
            assert!((0.0..1.0).contains(&value));
        }
    }

    #[test]
    fn parse_float_reads_a_leading_number_like_javascript() {
        assert_eq!(parse_float(" 2.5s"), Some(2.5));
        assert_eq!(parse_float("1e3"), Some(1000.0));
        assert_eq!(parse_float("abc"), None);
        assert_eq!(parse_float(""), None);
    }
}
