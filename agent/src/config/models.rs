//! The models the agent knows: custom providers from `models.json`, with their credentials from
//! `--api-key`, `auth.json`, the provider's `apiKey` and the usual environment variables.

use std::collections::HashMap;
use std::path::Path;

use pi_rpc_protocol::model::{Model, ModelCost};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::values;

/// Context window of a models.json model that gives none.
const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
/// Output limit of a models.json model that gives none.
const DEFAULT_MAX_TOKENS: u64 = 16_384;

/// Environment variables holding the API key of well-known providers.
const PROVIDER_ENV_KEYS: [(&str, &str); 4] = [
    ("anthropic", "ANTHROPIC_API_KEY"),
    ("openai", "OPENAI_API_KEY"),
    ("google", "GEMINI_API_KEY"),
    ("openrouter", "OPENROUTER_API_KEY"),
];

#[derive(Debug, Deserialize)]
struct ModelsFile {
    #[serde(default)]
    providers: Map<String, Value>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ProviderConfig {
    base_url: Option<String>,
    api: Option<String>,
    api_key: Option<String>,
    headers: Option<Map<String, Value>>,
    #[serde(default)]
    auth_header: bool,
    compat: Option<Map<String, Value>>,
    #[serde(default)]
    models: Vec<ModelConfig>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ModelConfig {
    id: String,
    name: Option<String>,
    api: Option<String>,
    base_url: Option<String>,
    reasoning: Option<bool>,
    thinking_level_map: Option<Map<String, Value>>,
    input: Option<Vec<String>>,
    cost: Option<ModelCost>,
    context_window: Option<f64>,
    max_tokens: Option<f64>,
    sampling_params: Option<Map<String, Value>>,
    headers: Option<Map<String, Value>>,
    compat: Option<Map<String, Value>>,
}

/// One provider: its models and how to authenticate.
#[derive(Debug, Clone)]
pub(super) struct Provider {
    name: String,
    /// The environment variable holding the key of a built-in provider.
    env_key: Option<&'static str>,
    api_key: Option<String>,
    headers: Option<Map<String, Value>>,
    auth_header: bool,
    models: Vec<Model>,
    model_headers: HashMap<String, Map<String, Value>>,
}

impl Provider {
    /// The provider's models.
    #[cfg(test)]
    pub(super) fn models(&self) -> &[Model] {
        &self.models
    }

    /// A built-in provider whose key is in the environment variable `env_key`.
    pub(super) fn builtin(name: &str, env_key: &'static str, models: Vec<Model>) -> Self {
        Self {
            name: name.to_owned(),
            env_key: Some(env_key),
            api_key: None,
            headers: None,
            auth_header: false,
            models,
            model_headers: HashMap::new(),
        }
    }
}

/// Every known model and the credentials to reach it.
#[derive(Debug, Clone, Default)]
pub struct ModelRegistry {
    providers: Vec<Provider>,
    stored_keys: HashMap<String, String>,
    runtime_keys: HashMap<String, String>,
}

impl ModelRegistry {
    /// Loads `models.json` and `auth.json` from the agent folder. Problems become warnings.
    pub fn load(agent_dir: &Path) -> (Self, Vec<String>) {
        let mut warnings = Vec::new();
        let providers = load_providers(
            super::builtin::providers(),
            &agent_dir.join("models.json"),
            &mut warnings,
        );
        let stored_keys = load_auth(&agent_dir.join("auth.json"), &mut warnings);
        (
            Self {
                providers,
                stored_keys,
                runtime_keys: HashMap::new(),
            },
            warnings,
        )
    }

    /// Every model, available or not, in configuration order.
    pub fn all_models(&self) -> impl Iterator<Item = &Model> {
        self.providers.iter().flat_map(|provider| &provider.models)
    }

    /// Models whose provider has credentials (`get_available_models`).
    pub fn available(&self) -> Vec<Model> {
        self.providers
            .iter()
            .filter(|provider| self.has_auth(&provider.name))
            .flat_map(|provider| provider.models.iter().cloned())
            .collect()
    }

    /// The model `provider`/`id`, available or not.
    pub fn find(&self, provider: &str, id: &str) -> Option<&Model> {
        self.all_models()
            .find(|model| model.provider == provider && model.id == id)
    }

    /// Whether the provider name is known.
    pub fn has_provider(&self, name: &str) -> bool {
        self.providers.iter().any(|provider| provider.name == name)
    }

    /// Sets the key given by `--api-key` for one provider, for this process only.
    pub fn set_runtime_key(&mut self, provider: &str, key: String) {
        self.runtime_keys.insert(provider.to_owned(), key);
    }

    /// Whether a key for `provider` is configured (without running commands).
    pub fn has_auth(&self, provider: &str) -> bool {
        if self.runtime_keys.contains_key(provider) || self.stored_keys.contains_key(provider) {
            return true;
        }
        match self.provider(provider).and_then(|p| p.api_key.as_deref()) {
            Some(config) => values::is_configured(config),
            None => self.env_key(provider).is_some(),
        }
    }

    /// The API key for `provider`, resolved now.
    pub fn api_key(&self, provider: &str) -> Option<String> {
        if let Some(key) = self.runtime_keys.get(provider) {
            return Some(key.clone());
        }
        if let Some(key) = self.stored_keys.get(provider) {
            return Some(key.clone());
        }
        match self.provider(provider).and_then(|p| p.api_key.as_deref()) {
            Some(config) => values::resolve(config),
            None => self.env_key(provider),
        }
    }

    /// The model as the provider module needs it: the reported model plus the resolved extra
    /// headers of its provider and of the model itself.
    pub fn model_for_request(&self, model: &Model) -> Model {
        let mut request_model = model.clone();
        // Built-in models keep these two in `extra` to report them in the reference's key order.
        if let Some(Value::Object(map)) = request_model.extra.remove("thinkingLevelMap") {
            request_model.thinking_level_map = Some(map);
        }
        if let Some(Value::Object(map)) = request_model.extra.remove("compat") {
            request_model.compat = Some(map);
        }
        let Some(provider) = self.provider(&model.provider) else {
            return request_model;
        };
        let mut headers = Map::new();
        let raw = provider
            .headers
            .iter()
            .chain(provider.model_headers.get(&model.id));
        for map in raw {
            for (name, value) in map {
                if let Some(resolved) = value.as_str().and_then(values::resolve) {
                    headers.insert(name.clone(), Value::from(resolved));
                }
            }
        }
        if provider.auth_header
            && let Some(key) = self.api_key(&model.provider)
        {
            headers.insert("Authorization".into(), Value::from(format!("Bearer {key}")));
        }
        if !headers.is_empty() {
            request_model.headers = Some(headers);
        }
        request_model
    }

    fn provider(&self, name: &str) -> Option<&Provider> {
        self.providers.iter().find(|provider| provider.name == name)
    }

    /// The key in the provider's usual environment variable.
    fn env_key(&self, provider: &str) -> Option<String> {
        let variable = self
            .provider(provider)
            .and_then(|p| p.env_key)
            .or_else(|| {
                PROVIDER_ENV_KEYS
                    .iter()
                    .find(|(name, _)| *name == provider)
                    .map(|(_, variable)| *variable)
            })?;
        std::env::var(variable).ok().filter(|key| !key.is_empty())
    }
}

/// The built-in providers, then those of `models.json`; a `models.json` provider named like a
/// built-in one changes it (base URL, key, headers; models replaced by id or added).
fn load_providers(
    builtin: Vec<Provider>,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Vec<Provider> {
    let mut providers = builtin;
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return providers,
        Err(error) => {
            warnings.push(format!(
                "Failed to load models.json: {error}\n\nFile: {}",
                path.display()
            ));
            return providers;
        }
    };
    let file: ModelsFile = match serde_json::from_str(&text) {
        Ok(file) => file,
        Err(error) => {
            warnings.push(format!(
                "Failed to parse models.json: {error}\n\nFile: {}",
                path.display()
            ));
            return providers;
        }
    };
    for (name, value) in file.providers {
        let config = match serde_json::from_value::<ProviderConfig>(value) {
            Ok(config) => config,
            Err(error) => {
                warnings.push(format!(
                    "Invalid models.json schema: provider {name}: {error}\n\nFile: {}",
                    path.display()
                ));
                continue;
            }
        };
        let existing = providers.iter().position(|p| p.name == name);
        let base = existing.map(|index| &providers[index]);
        match build_provider(&name, config, base) {
            Ok(provider) => match existing {
                Some(index) => providers[index] = provider,
                None => providers.push(provider),
            },
            Err(message) => warnings.push(message),
        }
    }
    providers
}

/// A provider from its `models.json` entry, on top of the built-in provider `base` of the same
/// name when there is one.
fn build_provider(
    name: &str,
    config: ProviderConfig,
    base: Option<&Provider>,
) -> Result<Provider, String> {
    let mut models: Vec<Model> = base.map(|base| base.models.clone()).unwrap_or_default();
    if let Some(base_url) = &config.base_url {
        for model in &mut models {
            model.base_url = base_url.clone();
        }
    }
    let mut model_headers = HashMap::new();
    for definition in config.models {
        let existing = models.iter().position(|model| model.id == definition.id);
        let defaults = existing
            .or((!models.is_empty()).then_some(0))
            .map(|i| &models[i]);
        let api = definition
            .api
            .or_else(|| config.api.clone())
            .or_else(|| defaults.map(|model| model.api.clone()))
            .ok_or_else(|| {
                format!(
                    "Provider {name}, model {}: no \"api\" specified. Set at provider or model level.",
                    definition.id
                )
            })?;
        let base_url = definition
            .base_url
            .or_else(|| config.base_url.clone())
            .or_else(|| defaults.map(|model| model.base_url.clone()))
            .ok_or_else(|| {
                format!("Provider {name}: \"baseUrl\" is required when defining custom models.")
            })?;
        let context_window = positive(definition.context_window, DEFAULT_CONTEXT_WINDOW)
            .ok_or_else(|| {
                format!(
                    "Provider {name}, model {}: invalid contextWindow",
                    definition.id
                )
            })?;
        let max_tokens = positive(definition.max_tokens, DEFAULT_MAX_TOKENS).ok_or_else(|| {
            format!(
                "Provider {name}, model {}: invalid maxTokens",
                definition.id
            )
        })?;
        if let Some(headers) = definition.headers {
            model_headers.insert(definition.id.clone(), headers);
        }
        let compat = match (config.compat.clone(), definition.compat) {
            (Some(mut base), Some(overrides)) => {
                base.extend(overrides);
                Some(base)
            }
            (base, overrides) => overrides.or(base),
        };
        let model = Model {
            name: definition.name.unwrap_or_else(|| definition.id.clone()),
            id: definition.id,
            api,
            provider: name.to_owned(),
            base_url,
            reasoning: definition.reasoning.unwrap_or(false),
            thinking_level_map: definition.thinking_level_map,
            input: definition.input.unwrap_or_else(|| vec!["text".to_owned()]),
            cost: definition.cost.unwrap_or_default(),
            context_window,
            max_tokens,
            sampling_params: definition.sampling_params,
            headers: None,
            compat,
            extra: Map::new(),
        };
        match existing {
            Some(index) => models[index] = model,
            None => models.push(model),
        }
    }
    Ok(Provider {
        name: name.to_owned(),
        env_key: base.and_then(|base| base.env_key),
        api_key: config.api_key,
        headers: config.headers,
        auth_header: config.auth_header,
        models,
        model_headers,
    })
}

fn positive(value: Option<f64>, default: u64) -> Option<u64> {
    match value {
        None => Some(default),
        Some(number) if number > 0.0 && number.is_finite() => Some(number as u64),
        Some(_) => None,
    }
}

fn load_auth(path: &Path, warnings: &mut Vec<String>) -> HashMap<String, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return HashMap::new(),
        Err(error) => {
            warnings.push(format!("cannot read {}: {error}", path.display()));
            return HashMap::new();
        }
    };
    let Ok(Value::Object(entries)) = serde_json::from_str::<Value>(&text) else {
        warnings.push(format!("{} is not a JSON object", path.display()));
        return HashMap::new();
    };
    entries
        .into_iter()
        .filter_map(|(provider, credential)| {
            let is_api_key = credential.get("type").and_then(Value::as_str) == Some("api_key");
            let key = credential.get("key").and_then(Value::as_str)?;
            (is_api_key && !key.is_empty()).then(|| (provider, key.to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_json_fills_in_the_reference_defaults() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("models.json"),
            r#"{"providers":{"mock":{"baseUrl":"http://127.0.0.1:1","api":"anthropic-messages","apiKey":"k",
                "models":[{"id":"m1","reasoning":true},{"id":"m2","name":"Two","contextWindow":1000,"maxTokens":10}]},
                "nokey":{"baseUrl":"http://x","api":"anthropic-messages","apiKey":"$PI_AGENT_TEST_UNSET_VARIABLE","models":[{"id":"z"}]}}}"#,
        )
        .unwrap();
        let (registry, warnings) = ModelRegistry::load(dir.path());
        assert!(warnings.is_empty(), "{warnings:?}");
        let m1 = serde_json::to_value(registry.find("mock", "m1").unwrap()).unwrap();
        assert_eq!(
            m1,
            serde_json::json!({"id":"m1","name":"m1","api":"anthropic-messages","provider":"mock",
                "baseUrl":"http://127.0.0.1:1","reasoning":true,"input":["text"],
                "cost":{"input":0.0,"output":0.0,"cacheRead":0.0,"cacheWrite":0.0},
                "contextWindow":128000,"maxTokens":16384})
        );
        let available: Vec<String> = registry.available().into_iter().map(|m| m.id).collect();
        assert_eq!(available, ["m1", "m2"]);
        assert_eq!(registry.api_key("mock").as_deref(), Some("k"));
        assert!(!registry.has_auth("nokey"));
    }
}
