//! Built-in providers: the models known without any `models.json`, available once their key is
//! set (for Anthropic: `ANTHROPIC_API_KEY`, `auth.json` or `--api-key`).
//!
//! Built-in models carry `thinkingLevelMap` and `compat` in [`Model::extra`], after
//! `maxTokens`, which is where the reference reports them; the request model moves them back
//! into the typed fields (see `ModelRegistry::model_for_request`).

use pi_rpc_protocol::model::{Model, ModelCost};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::models::Provider;

/// The Anthropic Messages API.
const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";

/// Anthropic's models (ids, limits and prices per million tokens).
const ANTHROPIC_MODELS: &str = include_str!("builtin_anthropic.json");

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct CatalogModel {
    id: String,
    name: String,
    reasoning: bool,
    input: Vec<String>,
    cost: ModelCost,
    context_window: u64,
    max_tokens: u64,
    thinking_level_map: Option<Map<String, Value>>,
    compat: Option<Map<String, Value>>,
}

/// The built-in providers, in the order the reference lists them.
pub(super) fn providers() -> Vec<Provider> {
    let models = match serde_json::from_str::<Vec<CatalogModel>>(ANTHROPIC_MODELS) {
        Ok(models) => models,
        Err(error) => {
            tracing::error!(%error, "the built-in model catalog is broken");
            Vec::new()
        }
    };
    let models = models
        .into_iter()
        .map(|entry| {
            let mut extra = Map::new();
            if let Some(map) = entry.thinking_level_map {
                extra.insert("thinkingLevelMap".into(), Value::Object(map));
            }
            if let Some(compat) = entry.compat {
                extra.insert("compat".into(), Value::Object(compat));
            }
            Model {
                id: entry.id,
                name: entry.name,
                api: "anthropic-messages".into(),
                provider: "anthropic".into(),
                base_url: ANTHROPIC_BASE_URL.into(),
                reasoning: entry.reasoning,
                thinking_level_map: None,
                input: entry.input,
                cost: entry.cost,
                context_window: entry.context_window,
                max_tokens: entry.max_tokens,
                sampling_params: None,
                headers: None,
                compat: None,
                extra,
            }
        })
        .collect();
    vec![Provider::builtin("anthropic", "ANTHROPIC_API_KEY", models)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_parses_and_keeps_the_reference_key_order() {
        let providers = providers();
        assert_eq!(providers.len(), 1);
        let registry_models: Vec<&Model> = providers.iter().flat_map(|p| p.models()).collect();
        assert!(registry_models.len() >= 10);
        let sonnet = registry_models
            .iter()
            .find(|m| m.id == "claude-sonnet-4-6")
            .unwrap();
        let text = pi_rpc_protocol::json::to_string(sonnet).unwrap();
        assert_eq!(
            text,
            r#"{"id":"claude-sonnet-4-6","name":"Claude Sonnet 4.6","api":"anthropic-messages","provider":"anthropic","baseUrl":"https://api.anthropic.com","reasoning":true,"input":["text","image"],"cost":{"input":3,"output":15,"cacheRead":0.3,"cacheWrite":3.75},"contextWindow":1000000,"maxTokens":128000,"thinkingLevelMap":{"max":"max"},"compat":{"forceAdaptiveThinking":true,"supportsStrictTools":true}}"#
        );
    }
}
