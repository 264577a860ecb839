//! The extensions' layer of a provider (`pi.registerProvider(name, config)`), composed as the
//! reference composes it on top of the provider as built in and as `models.json` made it: a
//! config without `models` keeps the models (with its `baseUrl`, when it gives one); one with
//! `models` replaces them all. Its `apiKey` and `authHeader` win over those below, its
//! `headers` are added to theirs.

use std::collections::HashMap;

use pi_rpc_protocol::model::Model;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::Provider;
use super::errors::ProviderConfigError;
use super::file::{DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_TOKENS};

/// Why a registration is refused (the registry is left as it was).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExtensionProviderError {
    /// The reference's composition errors (a model without `api` or `baseUrl`).
    #[error(transparent)]
    Compose(#[from] ProviderConfigError),
    /// A field of the config does not have the type pi gives it.
    #[error("Provider {provider}: invalid config: {reason}")]
    Config {
        /// The provider.
        provider: String,
        /// What is wrong, in serde's words.
        reason: String,
    },
    /// `streamSimple` without the `api` its calls are for.
    #[error("Provider {provider}: \"api\" is required when registering streamSimple.")]
    StreamWithoutApi {
        /// The provider.
        provider: String,
    },
    /// A model definition that is not an object with a text `id`, or whose fields do not have
    /// pi's types.
    #[error("Provider {provider}, model #{index}: {reason}")]
    Model {
        /// The provider.
        provider: String,
        /// Its place in `models`.
        index: usize,
        /// What is wrong.
        reason: String,
    },
}

/// The config-object form of `pi.registerProvider`, as the host sends it (what only runs in
/// JavaScript is left out there).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExtensionConfig {
    base_url: Option<String>,
    api_key: Option<String>,
    api: Option<String>,
    headers: Option<Map<String, Value>>,
    auth_header: Option<bool>,
    models: Option<Vec<Value>>,
}

/// The provider `name` with the extensions' `config` (the registrations merged) on top of
/// `below` (the provider as built in and `models.json` made it), when there is one.
pub(super) fn compose(
    name: &str,
    below: Option<&Provider>,
    config: &Map<String, Value>,
) -> Result<Provider, ExtensionProviderError> {
    // `null` is what JSON makes of a value the extension left undefined.
    let given: Map<String, Value> = config
        .iter()
        .filter(|(_, value)| !value.is_null())
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    let config: ExtensionConfig =
        serde_json::from_value(Value::Object(given)).map_err(|error| {
            ExtensionProviderError::Config {
                provider: name.to_owned(),
                reason: error.to_string(),
            }
        })?;
    let below_models: &[Model] = below.map_or(&[], |provider| &provider.models);
    let mut model_headers = HashMap::new();
    let models: Vec<Model> = match &config.models {
        None => below_models
            .iter()
            .map(|model| {
                let mut model = model.clone();
                if let Some(base_url) = &config.base_url {
                    model.base_url = base_url.clone();
                }
                model
            })
            .collect(),
        Some(definitions) => {
            let mut models = Vec::with_capacity(definitions.len());
            for (index, definition) in definitions.iter().enumerate() {
                let (model, headers) =
                    model_from_definition(name, index, definition, &config, below_models)?;
                if let Some(headers) = headers {
                    model_headers.insert(model.id.clone(), headers);
                }
                models.push(model);
            }
            models
        }
    };
    // Headers a layer below gave the models still there stay, under the extension's own.
    if let Some(below) = below {
        for model in &models {
            if let Some(headers) = below.model_headers.get(&model.id) {
                let mut merged = headers.clone();
                merged.extend(model_headers.remove(&model.id).unwrap_or_default());
                model_headers.insert(model.id.clone(), merged);
            }
        }
    }
    let headers = match (
        below.and_then(|provider| provider.headers.clone()),
        config.headers,
    ) {
        (Some(mut below), Some(own)) => {
            below.extend(own);
            Some(below)
        }
        (below, own) => own.or(below),
    };
    Ok(Provider {
        name: name.to_owned(),
        api_key: config
            .api_key
            .or_else(|| below.and_then(|provider| provider.api_key.clone())),
        headers,
        auth_header: config
            .auth_header
            .unwrap_or_else(|| below.is_some_and(|provider| provider.auth_header)),
        models: models.into(),
        model_headers,
    })
}

/// One model of the extension's `models`: its fields as given, `api` and `baseUrl` from the
/// model, else the config, else the model below of that id (else the first one below), and pi's
/// defaults for fields pi requires but the definition leaves out; and its own headers.
fn model_from_definition(
    provider: &str,
    index: usize,
    definition: &Value,
    config: &ExtensionConfig,
    below_models: &[Model],
) -> Result<(Model, Option<Map<String, Value>>), ExtensionProviderError> {
    let invalid = |reason: String| ExtensionProviderError::Model {
        provider: provider.to_owned(),
        index,
        reason,
    };
    let mut fields = definition
        .as_object()
        .cloned()
        .ok_or_else(|| invalid("must be an object".into()))?;
    let id = fields
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("\"id\" must be a text".into()))?
        .to_owned();
    let defaults = below_models
        .iter()
        .find(|model| model.id == id)
        .or_else(|| below_models.first());
    let text = |key: &str| fields.get(key).and_then(Value::as_str).map(str::to_owned);
    let api = text("api")
        .or_else(|| config.api.clone())
        .or_else(|| defaults.map(|model| model.api.clone()))
        .ok_or_else(|| ProviderConfigError::NoApi {
            provider: provider.to_owned(),
            model: id.clone(),
        })?;
    let base_url = text("baseUrl")
        .or_else(|| config.base_url.clone())
        .or_else(|| defaults.map(|model| model.base_url.clone()))
        .ok_or_else(|| ProviderConfigError::NoBaseUrl(provider.to_owned()))?;
    let headers = match fields.remove("headers") {
        Some(Value::Object(headers)) => Some(headers),
        _ => None,
    };
    fields.insert("api".into(), api.into());
    fields.insert("provider".into(), provider.into());
    fields.insert("baseUrl".into(), base_url.into());
    fill_defaults(&mut fields, &id);
    let model: Model = serde_json::from_value(Value::Object(fields))
        .map_err(|error| invalid(error.to_string()))?;
    Ok((model, headers))
}

/// pi's defaults for what a model must have (its docs require them; the reference would fail
/// later without them).
fn fill_defaults(fields: &mut Map<String, Value>, id: &str) {
    let defaults = [
        ("name", Value::from(id)),
        ("reasoning", Value::from(false)),
        ("input", Value::from(vec!["text"])),
        (
            "cost",
            serde_json::json!({"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}),
        ),
        ("contextWindow", Value::from(DEFAULT_CONTEXT_WINDOW)),
        ("maxTokens", Value::from(DEFAULT_MAX_TOKENS)),
    ];
    for (key, value) in defaults {
        let missing = fields.get(key).is_none_or(Value::is_null);
        if missing {
            fields.insert(key.to_owned(), value);
        }
    }
    // JavaScript numbers: a token count with a fraction counts its whole tokens.
    for key in ["contextWindow", "maxTokens"] {
        if let Some(number) = fields.get(key).and_then(Value::as_f64)
            && number.is_finite()
            && number >= 0.0
            && number.fract() != 0.0
        {
            fields.insert(key.to_owned(), Value::from(number as u64));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::ModelRegistry;
    use super::*;

    /// A registry with `models.json` holding `providers`.
    fn registry(providers: Value) -> ModelRegistry {
        let dir = tempfile::tempdir().unwrap();
        let file = json!({ "providers": providers });
        std::fs::write(dir.path().join("models.json"), file.to_string()).unwrap();
        let (registry, warnings) = ModelRegistry::load(dir.path());
        assert!(warnings.is_empty(), "{warnings:?}");
        registry
    }

    fn config(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    fn mock_provider() -> Value {
        json!({"mock": {"baseUrl": "http://127.0.0.1:1", "api": "anthropic-messages",
            "apiKey": "mock-key", "headers": {"x-file": "f", "x-both": "file"},
            "models": [{"id": "m1", "headers": {"x-model-file": "1"}}, {"id": "m2"}]}})
    }

    fn ids(registry: &ModelRegistry) -> Vec<String> {
        registry
            .all_models()
            .filter(|model| !crate::config::builtin::catalog().any(|b| b.name() == model.provider))
            .map(|model| format!("{}/{}", model.provider, model.id))
            .collect()
    }

    #[test]
    fn a_new_provider_gets_its_models_with_pi_defaults_after_the_others() {
        let mut registry = registry(mock_provider());
        let given = config(
            json!({"name": "Proxy", "baseUrl": "http://proxy", "apiKey": "!echo cmd-key",
            "api": "openai-completions", "authHeader": true, "headers": {"x-proxy": "on"},
            "models": [{"id": "p1", "reasoning": true, "contextWindow": 1000.7, "headers": {"x-model": "p1"},
                "compat": {"supportsStore": false}, "custom": 1}]}),
        );
        registry
            .register_extension_provider("proxy", &given)
            .unwrap();
        assert_eq!(ids(&registry), ["mock/m1", "mock/m2", "proxy/p1"]);
        let model = registry.find("proxy", "p1").unwrap().clone();
        assert_eq!(
            serde_json::to_value(&model).unwrap(),
            json!({"id": "p1", "name": "p1", "api": "openai-completions", "provider": "proxy",
                "baseUrl": "http://proxy", "reasoning": true, "input": ["text"],
                "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0},
                "contextWindow": 1000, "maxTokens": 16384, "compat": {"supportsStore": false},
                "custom": 1})
        );
        assert!(registry.has_auth("proxy"));
        let request = registry.resolve(&model);
        assert_eq!(request.auth.unwrap().api_key.as_deref(), Some("cmd-key"));
        let headers = request.model.headers.unwrap();
        assert_eq!(headers["Authorization"], "Bearer cmd-key");
        assert_eq!(headers["x-proxy"], "on");
        assert_eq!(headers["x-model"], "p1");
    }

    #[test]
    fn a_stream_simple_provider_names_its_api_and_is_taken_back_with_it() {
        let mut registry = registry(mock_provider());
        let no_api = config(json!({"baseUrl": "http://echo", "streamSimple": true,
            "models": [{"id": "e1", "api": "echo-api"}]}));
        let refused = registry.register_extension_provider("echo", &no_api);
        assert_eq!(
            refused.unwrap_err().to_string(),
            "Provider echo: \"api\" is required when registering streamSimple."
        );
        let given = config(json!({"baseUrl": "http://echo", "api": "echo-api",
            "streamSimple": true, "oauth": true, "models": [{"id": "e1"}]}));
        registry
            .register_extension_provider("echo", &given)
            .unwrap();
        assert_eq!(
            registry.extension_streams(),
            [("echo".to_owned(), "echo-api".to_owned())]
        );
        assert!(registry.extension_oauth("echo"));
        // No login is stored: the key is not the extension's to make.
        assert!(registry.extension_logins().is_empty());
        registry.unregister_extension_provider("echo");
        assert!(registry.extension_streams().is_empty());
        assert!(!registry.extension_oauth("echo"));
    }

    #[test]
    fn an_override_without_models_keeps_them_and_unregistering_restores_the_provider() {
        let mut registry = registry(mock_provider());
        let given =
            config(json!({"baseUrl": "http://gateway", "headers": {"x-both": "extension"}}));
        registry
            .register_extension_provider("mock", &given)
            .unwrap();
        assert_eq!(ids(&registry), ["mock/m1", "mock/m2"]);
        let model = registry.find("mock", "m1").unwrap().clone();
        assert_eq!(model.base_url, "http://gateway");
        let request = registry.resolve(&model);
        assert_eq!(request.auth.unwrap().api_key.as_deref(), Some("mock-key"));
        let headers = request.model.headers.unwrap();
        assert_eq!(headers["x-file"], "f");
        assert_eq!(headers["x-both"], "extension");
        assert_eq!(headers["x-model-file"], "1");
        registry.unregister_extension_provider("mock");
        let model = registry.find("mock", "m1").unwrap().clone();
        assert_eq!(model.base_url, "http://127.0.0.1:1");
        let headers = registry.resolve(&model).model.headers.unwrap();
        assert_eq!(headers["x-both"], "file");
        // Unregistering what no extension registered changes nothing.
        registry.unregister_extension_provider("mock");
        assert_eq!(ids(&registry), ["mock/m1", "mock/m2"]);
    }

    #[test]
    fn a_second_registration_merges_its_fields_over_the_first() {
        let mut registry = registry(json!({}));
        let first = config(
            json!({"baseUrl": "http://one", "apiKey": "k1", "api": "anthropic-messages",
            "models": [{"id": "a"}, {"id": "b"}]}),
        );
        registry
            .register_extension_provider("proxy", &first)
            .unwrap();
        let second = config(json!({"baseUrl": "http://two", "apiKey": null}));
        registry
            .register_extension_provider("proxy", &second)
            .unwrap();
        assert_eq!(ids(&registry), ["proxy/a", "proxy/b"]);
        assert_eq!(registry.find("proxy", "b").unwrap().base_url, "http://two");
        assert!(
            !registry.has_auth("proxy"),
            "a null apiKey leaves the provider without one"
        );
        // Unregistering a provider only extensions defined removes it.
        registry.unregister_extension_provider("proxy");
        assert!(ids(&registry).is_empty());
        assert!(!registry.has_provider("proxy"));
    }

    #[test]
    fn a_registration_that_cannot_be_composed_changes_nothing() {
        let mut registry = registry(mock_provider());
        let no_api = config(json!({"baseUrl": "http://x", "models": [{"id": "z"}]}));
        assert_eq!(
            registry.register_extension_provider("new", &no_api),
            Err(ExtensionProviderError::Compose(
                ProviderConfigError::NoApi {
                    provider: "new".into(),
                    model: "z".into()
                }
            ))
        );
        let no_base_url = config(json!({"api": "anthropic-messages", "models": [{"id": "z"}]}));
        let error = registry
            .register_extension_provider("new", &no_base_url)
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "Provider new: \"baseUrl\" is required when defining custom models."
        );
        let bad_type = config(json!({"baseUrl": 5}));
        assert!(matches!(
            registry.register_extension_provider("mock", &bad_type),
            Err(ExtensionProviderError::Config { .. })
        ));
        assert!(!registry.has_provider("new"));
        assert_eq!(
            registry.find("mock", "m1").unwrap().base_url,
            "http://127.0.0.1:1"
        );
    }

    #[test]
    fn a_second_registration_is_checked_on_its_own_before_it_merges() {
        let mut registry = registry(mock_provider());
        let first = config(json!({"baseUrl": "http://one", "apiKey": "k",
            "api": "anthropic-messages", "models": [{"id": "a"}]}));
        registry
            .register_extension_provider("proxy", &first)
            .unwrap();
        // Valid merged over the first, but not alone (models without a baseUrl): refused.
        let again = config(json!({"apiKey": "k", "api": "anthropic-messages",
            "models": [{"id": "b"}]}));
        assert!(matches!(
            registry.register_extension_provider("proxy", &again),
            Err(ExtensionProviderError::Compose(
                ProviderConfigError::NoBaseUrl(_)
            ))
        ));
        assert_eq!(registry.find("proxy", "a").unwrap().base_url, "http://one");
        assert!(registry.find("proxy", "b").is_none());
    }

    #[test]
    fn clearing_takes_back_every_registration_as_the_files_made_the_registry() {
        let mut registry = registry(mock_provider());
        let over = config(json!({"baseUrl": "http://over"}));
        registry.register_extension_provider("mock", &over).unwrap();
        let proxy = config(json!({"baseUrl": "http://one", "apiKey": "k",
            "api": "anthropic-messages", "models": [{"id": "a"}]}));
        registry
            .register_extension_provider("proxy", &proxy)
            .unwrap();
        registry.register_extension_provider("mock", &over).unwrap();
        registry.clear_extension_providers();
        assert_eq!(ids(&registry), ["mock/m1", "mock/m2"]);
        assert_eq!(
            registry.find("mock", "m1").unwrap().base_url,
            "http://127.0.0.1:1"
        );
    }

    #[test]
    fn models_of_an_existing_provider_take_their_api_from_the_model_below() {
        let mut registry = registry(mock_provider());
        let given = config(json!({"models": [{"id": "m2", "name": "Two"}, {"id": "m3"}]}));
        registry
            .register_extension_provider("mock", &given)
            .unwrap();
        assert_eq!(ids(&registry), ["mock/m2", "mock/m3"]);
        let m3 = registry.find("mock", "m3").unwrap();
        assert_eq!(
            (m3.api.as_str(), m3.base_url.as_str()),
            ("anthropic-messages", "http://127.0.0.1:1")
        );
        assert_eq!(registry.find("mock", "m2").unwrap().name, "Two");
    }
}
