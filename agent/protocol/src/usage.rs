//! Token usage and cost of model calls.

use serde::{Deserialize, Serialize};

/// Cost in dollars, per token class and in total.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UsageCost {
    /// Input tokens' cost.
    pub input: f64,
    /// Output tokens' cost.
    pub output: f64,
    /// Cache reads' cost.
    pub cache_read: f64,
    /// Cache writes' cost.
    pub cache_write: f64,
    /// Sum of the above.
    pub total: f64,
}

/// Token counts and cost of one model call (or a sum of calls).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Input tokens not read from cache.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from cache.
    pub cache_read: u64,
    /// Input tokens written to cache.
    pub cache_write: u64,
    /// Reasoning tokens, where the provider reports them separately (written before `totalTokens`, as the reference does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<u64>,
    /// input + output + cacheRead + cacheWrite.
    pub total_tokens: u64,
    /// Cost in dollars.
    pub cost: UsageCost,
    /// Tokens written to the one-hour cache (Anthropic; present once a stream reported usage).
    #[serde(
        rename = "cacheWrite1h",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_write_1h: Option<u64>,
}
