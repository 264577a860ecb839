//! Models and thinking levels.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// How much the model reasons before answering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum ThinkingLevel {
    /// No reasoning.
    Off,
    /// The least reasoning.
    Minimal,
    /// Little reasoning.
    Low,
    /// The default for reasoning models.
    Medium,
    /// Much reasoning.
    High,
    /// More than high, on models that support it.
    Xhigh,
    /// The most, on models that support it.
    Max,
}

impl ThinkingLevel {
    /// Every level, in cycling order.
    pub const ALL: [ThinkingLevel; 7] = [
        ThinkingLevel::Off,
        ThinkingLevel::Minimal,
        ThinkingLevel::Low,
        ThinkingLevel::Medium,
        ThinkingLevel::High,
        ThinkingLevel::Xhigh,
        ThinkingLevel::Max,
    ];

    /// The level's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ThinkingLevel::Off => "off",
            ThinkingLevel::Minimal => "minimal",
            ThinkingLevel::Low => "low",
            ThinkingLevel::Medium => "medium",
            ThinkingLevel::High => "high",
            ThinkingLevel::Xhigh => "xhigh",
            ThinkingLevel::Max => "max",
        }
    }

    /// Parses a level's wire name.
    pub fn parse(text: &str) -> Option<ThinkingLevel> {
        ThinkingLevel::ALL
            .into_iter()
            .find(|level| level.as_str() == text)
    }
}

/// Price per million tokens.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ModelCost {
    /// Input tokens.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Cache reads.
    pub cache_read: f64,
    /// Cache writes.
    pub cache_write: f64,
    /// Tiered prices above input-token thresholds, kept as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiers: Option<Vec<Value>>,
}

/// A model as the reference reports it (`get_state`, `set_model`, `get_available_models`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Model {
    /// Model id as the provider knows it.
    pub id: String,
    /// Display name (the id when models.json gives none).
    pub name: String,
    /// Wire format: `anthropic-messages`, `openai-completions`, `openai-responses`,
    /// `google-generative-ai`, ...
    pub api: String,
    /// Provider name.
    pub provider: String,
    /// Base URL requests go to.
    pub base_url: String,
    /// Whether the model supports thinking levels.
    pub reasoning: bool,
    /// Provider-specific names of thinking levels (`null` hides a level).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_level_map: Option<Map<String, Value>>,
    /// Accepted input kinds: `text`, `image`.
    pub input: Vec<String>,
    /// Prices.
    pub cost: ModelCost,
    /// Context window in tokens.
    pub context_window: u64,
    /// Maximum output tokens.
    pub max_tokens: u64,
    /// Default sampling parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling_params: Option<Map<String, Value>>,
    /// Extra HTTP headers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<Map<String, Value>>,
    /// Provider compatibility switches, kept as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compat: Option<Map<String, Value>>,
    /// Fields this crate does not model, kept in order.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
