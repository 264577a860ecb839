//! Built-in providers: the models known without any `models.json`, available once their key is
//! set (in the provider's environment variable, see `env_keys`, in `auth.json` or by
//! `--api-key`).
//!
//! The catalog, `builtin/`, holds the reference's built-in providers whose models all use a wire
//! format this agent speaks, in the reference's order, as facts taken from the reference's pi-ai
//! package by `agent/scripts/gen-builtin-catalog.mjs` (which says how to run it): a Rust table
//! of names, APIs and base URLs, and one JSON file of models per provider, parsed on first use so
//! that start-up only pays for the providers it looks at. A model names its own `api` and
//! `baseUrl` where they differ from its provider's. Everything a model has beyond the typed
//! fields (`thinkingLevelMap`, `compat`, `headers`) stays in [`Model::extra`], after `maxTokens`,
//! where the reference reports it; the request model moves it back into the typed fields (see
//! `ModelRegistry::resolve`).

use std::ops::Deref;
use std::sync::OnceLock;

use pi_rpc_protocol::model::{Model, ModelCost};
use serde::Deserialize;
use serde_json::{Map, Value};

mod catalog;

/// The model each provider starts with when nothing chooses one, in the reference's order of
/// preference (providers this agent leaves out included, as they never match).
pub const DEFAULT_MODELS: [(&str, &str); 40] = [
    ("amazon-bedrock", "us.anthropic.claude-opus-4-6-v1"),
    ("ant-ling", "Ring-2.6-1T"),
    ("anthropic", "claude-opus-4-8"),
    ("openai", "gpt-5.5"),
    ("azure-openai-responses", "gpt-5.4"),
    ("openai-codex", "gpt-5.5"),
    ("radius", "auto"),
    ("nvidia", "nvidia/nemotron-3-super-120b-a12b"),
    ("deepseek", "deepseek-v4-pro"),
    ("google", "gemini-3.1-pro-preview"),
    ("google-vertex", "gemini-3.1-pro-preview"),
    ("github-copilot", "gpt-5.4"),
    ("openrouter", "moonshotai/kimi-k2.6"),
    ("vercel-ai-gateway", "zai/glm-5.1"),
    ("xai", "grok-4.5"),
    ("groq", "openai/gpt-oss-120b"),
    ("cerebras", "zai-glm-4.7"),
    ("zai", "glm-5.1"),
    ("zai-coding-cn", "glm-5.1"),
    ("mistral", "devstral-medium-latest"),
    ("minimax", "MiniMax-M2.7"),
    ("minimax-cn", "MiniMax-M2.7"),
    ("moonshotai", "kimi-k2.6"),
    ("moonshotai-cn", "kimi-k2.6"),
    ("huggingface", "moonshotai/Kimi-K2.6"),
    ("fireworks", "accounts/fireworks/models/kimi-k2p6"),
    ("together", "moonshotai/Kimi-K2.6"),
    ("baseten", "zai-org/GLM-5.2"),
    ("opencode", "kimi-k2.6"),
    ("opencode-go", "kimi-k2.6"),
    ("kimi-coding", "kimi-for-coding"),
    ("cloudflare-workers-ai", "@cf/moonshotai/kimi-k2.6"),
    (
        "cloudflare-ai-gateway",
        "workers-ai/@cf/moonshotai/kimi-k2.6",
    ),
    ("qwen-token-plan", "qwen3.7-max"),
    ("qwen-token-plan-cn", "qwen3.7-max"),
    ("qwen-token-plan-individual", "qwen3.8-max"),
    ("xiaomi", "mimo-v2.5-pro"),
    ("xiaomi-token-plan-cn", "mimo-v2.5-pro"),
    ("xiaomi-token-plan-ams", "mimo-v2.5-pro"),
    ("xiaomi-token-plan-sgp", "mimo-v2.5-pro"),
];

/// The model `provider` starts with when nothing chooses one.
pub fn default_model(provider: &str) -> Option<&'static str> {
    DEFAULT_MODELS
        .iter()
        .find(|(name, _)| *name == provider)
        .map(|(_, id)| *id)
}

/// One built-in provider of the catalog; its models are parsed once, on first use.
#[derive(Debug)]
pub(super) struct BuiltinProvider {
    name: &'static str,
    api: &'static str,
    base_url: &'static str,
    models_json: &'static str,
    models: OnceLock<Vec<Model>>,
}

impl BuiltinProvider {
    const fn new(
        name: &'static str,
        api: &'static str,
        base_url: &'static str,
        models_json: &'static str,
    ) -> Self {
        Self {
            name,
            api,
            base_url,
            models_json,
            models: OnceLock::new(),
        }
    }

    /// The provider's name.
    pub(super) fn name(&self) -> &'static str {
        self.name
    }

    fn models(&self) -> &[Model] {
        self.models.get_or_init(|| self.parse())
    }

    fn parse(&self) -> Vec<Model> {
        let entries = match serde_json::from_str::<Vec<CatalogModel>>(self.models_json) {
            Ok(entries) => entries,
            Err(error) => {
                tracing::error!(%error, provider = self.name, "the built-in model catalog is broken");
                Vec::new()
            }
        };
        entries
            .into_iter()
            .map(|entry| Model {
                id: entry.id,
                name: entry.name,
                api: entry.api.unwrap_or_else(|| self.api.to_owned()),
                provider: self.name.to_owned(),
                base_url: entry.base_url.unwrap_or_else(|| self.base_url.to_owned()),
                reasoning: entry.reasoning,
                thinking_level_map: None,
                input: entry.input,
                cost: entry.cost,
                context_window: entry.context_window,
                max_tokens: entry.max_tokens,
                sampling_params: None,
                headers: None,
                compat: None,
                extra: entry.extra,
            })
            .collect()
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CatalogModel {
    id: String,
    name: String,
    api: Option<String>,
    base_url: Option<String>,
    reasoning: bool,
    input: Vec<String>,
    cost: ModelCost,
    context_window: u64,
    max_tokens: u64,
    /// `thinkingLevelMap`, `compat`, `headers`, in the reference's order.
    #[serde(flatten)]
    extra: Map<String, Value>,
}

/// A provider's models: given (by `models.json`), or those of a built-in provider, parsed on
/// first use.
#[derive(Debug, Clone)]
pub(super) enum Models {
    /// Models composed from `models.json`.
    Given(Vec<Model>),
    /// The models of a built-in provider.
    Builtin(&'static BuiltinProvider),
}

impl Deref for Models {
    type Target = [Model];

    fn deref(&self) -> &[Model] {
        match self {
            Self::Given(models) => models,
            Self::Builtin(provider) => provider.models(),
        }
    }
}

impl Models {
    /// Whether there is a model, known without parsing a built-in catalog (each holds models,
    /// as a test proves).
    pub(super) fn has_any(&self) -> bool {
        match self {
            Self::Given(models) => !models.is_empty(),
            Self::Builtin(_) => true,
        }
    }
}

impl From<Vec<Model>> for Models {
    fn from(models: Vec<Model>) -> Self {
        Self::Given(models)
    }
}

/// The names of the built-in providers, in the order the reference lists them.
pub fn provider_names() -> impl Iterator<Item = &'static str> {
    catalog::PROVIDERS.iter().map(|provider| provider.name)
}

/// The built-in providers, in the order the reference lists them.
pub(super) fn catalog() -> impl Iterator<Item = &'static BuiltinProvider> {
    catalog::PROVIDERS.iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_parses_and_keeps_the_reference_key_order() {
        assert_eq!(catalog().count(), 39);
        let registry_models: Vec<&Model> = catalog().flat_map(|p| p.models()).collect();
        assert_eq!(registry_models.len(), 1220);
        let sonnet = registry_models
            .iter()
            .find(|m| m.provider == "anthropic" && m.id == "claude-sonnet-4-6")
            .unwrap();
        let text = pi_rpc_protocol::json::to_string(sonnet).unwrap();
        assert_eq!(
            text,
            r#"{"id":"claude-sonnet-4-6","name":"Claude Sonnet 4.6","api":"anthropic-messages","provider":"anthropic","baseUrl":"https://api.anthropic.com","reasoning":true,"input":["text","image"],"cost":{"input":3,"output":15,"cacheRead":0.3,"cacheWrite":3.75},"contextWindow":1000000,"maxTokens":128000,"thinkingLevelMap":{"max":"max"},"compat":{"forceAdaptiveThinking":true,"supportsStrictTools":true}}"#
        );
    }

    #[test]
    fn every_built_in_provider_has_models() {
        for provider in catalog() {
            assert!(
                Models::Builtin(provider).has_any() && !provider.models().is_empty(),
                "{}",
                provider.name()
            );
        }
    }

    #[test]
    fn every_default_model_is_in_the_catalog_but_the_reference_s_two_stale_ones() {
        // The reference names `glm-5.1` for both Z.AI providers, which do not list it: it then
        // starts with their first model, as we do.
        let mut missing = Vec::new();
        for provider in catalog() {
            let Some(id) = default_model(provider.name()) else {
                panic!("{} has no default model", provider.name());
            };
            if !provider.models().iter().any(|m| m.id == id) {
                missing.push(format!("{}/{id}", provider.name()));
            }
        }
        assert_eq!(missing, ["zai/glm-5.1", "zai-coding-cn/glm-5.1"]);
    }
}
