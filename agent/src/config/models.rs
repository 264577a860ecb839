//! The models the agent knows: custom providers from `models.json`, with their credentials from
//! `--api-key`, `auth.json`, the provider's `apiKey` and the usual environment variables.

use std::collections::HashMap;
use std::path::Path;

use pi_rpc_protocol::model::Model;
use serde_json::{Map, Value};

use super::values;

mod comments;
mod errors;
mod extension;
mod file;
mod request;

pub use extension::ExtensionProviderError;
pub use request::{RequestAuth, RequestAuthError, RequestModel};

/// One provider: its models and how to authenticate.
#[derive(Debug, Clone)]
pub(super) struct Provider {
    name: String,
    api_key: Option<String>,
    headers: Option<Map<String, Value>>,
    auth_header: bool,
    models: super::builtin::Models,
    model_headers: HashMap<String, Map<String, Value>>,
}

impl Provider {
    /// A built-in provider of the catalog (its key comes from its environment variables, see
    /// `env_keys`).
    fn builtin(provider: &'static super::builtin::BuiltinProvider) -> Self {
        Self {
            name: provider.name().to_owned(),
            api_key: None,
            headers: None,
            auth_header: false,
            models: super::builtin::Models::Builtin(provider),
            model_headers: HashMap::new(),
        }
    }
}

/// Every known model and the credentials to reach it.
#[derive(Debug, Clone, Default)]
pub struct ModelRegistry {
    providers: Vec<Provider>,
    stored: HashMap<String, super::stored::Stored>,
    runtime_keys: HashMap<String, String>,
    /// `auth.json`, where OAuth logins are refreshed.
    auth_path: Option<std::path::PathBuf>,
    /// What the extensions registered (`pi.registerProvider`), by provider.
    extension_layers: Vec<ExtensionLayer>,
}

/// The extensions' registrations of one provider, merged, and the provider below them (as built
/// in and `models.json` made it; none for a provider only the extensions define), which
/// unregistering restores.
#[derive(Debug, Clone)]
struct ExtensionLayer {
    name: String,
    config: Map<String, Value>,
    below: Option<Provider>,
}

impl ModelRegistry {
    /// Loads `models.json` and `auth.json` from the agent folder. Problems become warnings.
    pub fn load(agent_dir: &Path) -> (Self, Vec<String>) {
        let mut warnings = Vec::new();
        let providers = load_providers(
            super::builtin::catalog().map(Provider::builtin).collect(),
            &agent_dir.join("models.json"),
            &mut warnings,
        );
        let auth_path = agent_dir.join("auth.json");
        let stored = super::stored::load(&auth_path, &mut warnings);
        (
            Self {
                providers,
                stored,
                runtime_keys: HashMap::new(),
                auth_path: Some(auth_path),
                extension_layers: Vec::new(),
            },
            warnings,
        )
    }

    /// Every model, available or not, in configuration order.
    pub fn all_models(&self) -> impl Iterator<Item = &Model> {
        self.providers
            .iter()
            .flat_map(|provider| provider.models.iter())
    }

    /// Whether any provider has a model (without parsing a built-in catalog).
    pub fn has_models(&self) -> bool {
        self.providers
            .iter()
            .any(|provider| provider.models.has_any())
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
        // Only this provider's models: a built-in provider's are parsed on first use.
        self.provider(provider)?
            .models
            .iter()
            .find(|model| model.provider == provider && model.id == id)
    }

    /// The provider names, in configuration order (no built-in catalog is parsed for them).
    pub fn provider_names(&self) -> impl Iterator<Item = &str> {
        self.providers.iter().map(|provider| provider.name.as_str())
    }

    /// The models of provider `name` (none for an unknown one).
    pub fn provider_models(&self, name: &str) -> &[Model] {
        self.provider(name).map_or(&[], |provider| &provider.models)
    }

    /// Whether the provider name is known.
    pub fn has_provider(&self, name: &str) -> bool {
        self.providers.iter().any(|provider| provider.name == name)
    }

    /// Registers the provider `name` of an extension (`pi.registerProvider(name, config)`) on
    /// top of the provider of that name, as the reference does: a second registration of a
    /// name merges its given fields over the first. A registration that cannot be composed on
    /// its own over the provider below (as the reference checks it, before merging) changes
    /// nothing.
    pub fn register_extension_provider(
        &mut self,
        name: &str,
        config: &Map<String, Value>,
    ) -> Result<(), ExtensionProviderError> {
        let layer = self.extension_layers.iter().position(|l| l.name == name);
        let (mut merged, below) = match layer {
            Some(index) => {
                let layer = &self.extension_layers[index];
                (layer.config.clone(), layer.below.clone())
            }
            None => (Map::new(), self.provider(name).cloned()),
        };
        let streams = config.get("streamSimple") == Some(&Value::Bool(true));
        if streams && !config.get("api").is_some_and(Value::is_string) {
            return Err(ExtensionProviderError::StreamWithoutApi {
                provider: name.to_owned(),
            });
        }
        extension::compose(name, below.as_ref(), config)?;
        merged.extend(
            config
                .iter()
                .map(|(key, value)| (key.clone(), value.clone())),
        );
        let provider = extension::compose(name, below.as_ref(), &merged)?;
        match self.providers.iter().position(|p| p.name == name) {
            Some(index) => self.providers[index] = provider,
            None => self.providers.push(provider),
        }
        match layer {
            Some(index) => self.extension_layers[index].config = merged,
            None => self.extension_layers.push(ExtensionLayer {
                name: name.to_owned(),
                config: merged,
                below,
            }),
        }
        Ok(())
    }

    /// The `api` whose calls of provider `provider`'s models an extension's `streamSimple`
    /// answers (as in the reference, only for the models of that `api`).
    pub fn extension_stream_api(&self, provider: &str) -> Option<&str> {
        let layer = self.extension_layers.iter().find(|l| l.name == provider)?;
        if layer.config.get("streamSimple") != Some(&Value::Bool(true)) {
            return None;
        }
        layer.config.get("api").and_then(Value::as_str)
    }

    /// Whether an extension registered provider `provider` with `oauth`.
    pub fn extension_oauth(&self, provider: &str) -> bool {
        self.extension_layers
            .iter()
            .any(|l| l.name == provider && l.config.get("oauth") == Some(&Value::Bool(true)))
    }

    /// The providers an extension registered with `oauth` whose login `auth.json` stores:
    /// their calls' key is the one its `getApiKey` makes of the login.
    pub fn extension_logins(&self) -> Vec<String> {
        self.extension_layers
            .iter()
            .map(|layer| layer.name.clone())
            .filter(|name| {
                self.extension_oauth(name)
                    && matches!(
                        self.stored.get(name),
                        Some(super::stored::Stored::ExtensionOAuth)
                    )
            })
            .collect()
    }

    /// `auth.json` (none for a registry not loaded from an agent folder).
    pub fn auth_path(&self) -> Option<&Path> {
        self.auth_path.as_deref()
    }

    /// The providers whose calls an extension's `streamSimple` answers, each with its `api`.
    pub fn extension_streams(&self) -> Vec<(String, String)> {
        self.extension_layers
            .iter()
            .filter_map(|layer| {
                let api = self.extension_stream_api(&layer.name)?;
                Some((layer.name.clone(), api.to_owned()))
            })
            .collect()
    }

    /// Takes back what the extensions registered for provider `name`: the provider is as built
    /// in and as `models.json` made it again, or gone when only extensions defined it.
    /// Nothing happens for a provider no extension registered.
    pub fn unregister_extension_provider(&mut self, name: &str) {
        let Some(index) = self.extension_layers.iter().position(|l| l.name == name) else {
            return;
        };
        let layer = self.extension_layers.remove(index);
        let place = self.providers.iter().position(|p| p.name == name);
        match (place, layer.below) {
            (Some(index), Some(below)) => self.providers[index] = below,
            (Some(index), None) => {
                self.providers.remove(index);
            }
            (None, _) => {}
        }
    }

    /// Takes back everything the extensions registered, the last registration first: the
    /// providers are as built in and as `models.json` made them.
    pub fn clear_extension_providers(&mut self) {
        while let Some(layer) = self.extension_layers.last() {
            let name = layer.name.clone();
            self.unregister_extension_provider(&name);
        }
    }

    /// Sets the key given by `--api-key` for one provider, for this process only.
    pub fn set_runtime_key(&mut self, provider: &str, key: String) {
        self.runtime_keys.insert(provider.to_owned(), key);
    }

    /// Whether a key for `provider` is configured (without running commands).
    pub fn has_auth(&self, provider: &str) -> bool {
        if self.runtime_keys.contains_key(provider) {
            return true;
        }
        let stored = self.stored.get(provider);
        let empty = Map::new();
        let stored_env = stored.and_then(|s| s.env()).unwrap_or(&empty);
        let stored_key = stored.and_then(|s| s.key()).is_some();
        if matches!(stored, Some(super::stored::Stored::OAuth { .. })) {
            return true;
        }
        if matches!(stored, Some(super::stored::Stored::ExtensionOAuth))
            && self.extension_oauth(provider)
        {
            return true;
        }
        let key_variable = super::env_keys::configured(provider);
        if let Some(configured) =
            super::ambient::configured(provider, stored_env, stored_key || key_variable)
        {
            return configured;
        }
        if stored_key {
            return true;
        }
        match self.provider(provider).and_then(|p| p.api_key.as_deref()) {
            Some(config) => values::is_configured(config),
            None => key_variable,
        }
    }

    /// The API key in `provider`'s environment variables (what pi-ai's own calls use without
    /// an `apiKey` option).
    pub fn environment_api_key(provider: &str) -> Option<String> {
        super::env_keys::api_key(provider)
    }

    /// The API key for `provider`, resolved now.
    pub fn api_key(&self, provider: &str) -> Option<String> {
        if let Some(key) = self.runtime_keys.get(provider) {
            return Some(key.clone());
        }
        if let Some(key) = self.stored.get(provider).and_then(|s| s.key()) {
            return Some(key.to_owned());
        }
        match self.provider(provider).and_then(|p| p.api_key.as_deref()) {
            Some(config) => values::resolve(config),
            None => super::env_keys::api_key(provider),
        }
    }

    /// The model as one call sends it and what authenticates the call, each value resolved
    /// once: a `!command` key runs once a call, as the reference resolves it once a request (and
    /// not again for [`Self::api_key`]). A value that cannot be resolved (a missing variable, a
    /// failing command) is the call's error, with the reference's text.
    pub fn resolve(&self, model: &Model) -> RequestModel {
        let mut request_model = model.clone();
        // Built-in models keep these in `extra` to report them in the reference's key order.
        if let Some(Value::Object(map)) = request_model.extra.remove("thinkingLevelMap") {
            request_model.thinking_level_map = Some(map);
        }
        if let Some(Value::Object(map)) = request_model.extra.remove("samplingParams") {
            request_model.sampling_params = Some(map);
        }
        if let Some(Value::Object(map)) = request_model.extra.remove("compat") {
            request_model.compat = Some(map);
        }
        let builtin_headers = match request_model.extra.remove("headers") {
            Some(Value::Object(map)) => map,
            _ => Map::new(),
        };
        let mut auth = RequestAuth::default();
        match self.stored.get(&model.provider) {
            Some(super::stored::Stored::OAuth { .. }) => auth.oauth_store = self.auth_path.clone(),
            Some(super::stored::Stored::ApiKey { env, .. }) => auth.stored_env = env.clone(),
            _ => {}
        }
        let Some(provider) = self.provider(&model.provider) else {
            auth.api_key = self.api_key(&model.provider);
            return RequestModel {
                model: request_model,
                auth: Ok(auth),
            };
        };
        let auth = self.request_headers(provider, model).map(|(headers, key)| {
            let mut all = builtin_headers;
            all.extend(headers);
            if !all.is_empty() {
                request_model.headers = Some(all);
            }
            auth.api_key = key;
            auth
        });
        RequestModel {
            model: request_model,
            auth,
        }
    }

    /// The provider's headers, `Authorization` when `authHeader` asks for it, then the model's
    /// own headers (which win), each value resolved, and the API key; the reference's error
    /// otherwise.
    fn request_headers(
        &self,
        provider: &Provider,
        model: &Model,
    ) -> Result<(Map<String, Value>, Option<String>), RequestAuthError> {
        let name = &provider.name;
        let auth_failed = |source: values::ResolveError| RequestAuthError::Provider {
            provider: name.clone(),
            source,
        };
        let mut headers = Map::new();
        let stored_key = self.stored.get(name).and_then(|s| s.key()).is_some();
        let key = if self.runtime_keys.contains_key(name) || stored_key {
            self.api_key(name)
        } else {
            match provider.api_key.as_deref() {
                Some(config) => Some(
                    values::resolve_or_error(config, &format!("API key for provider \"{name}\""))
                        .map_err(auth_failed)?,
                ),
                None => {
                    if let Some(token) = super::env_keys::anthropic_bearer_token(name) {
                        headers.insert("Authorization".into(), format!("Bearer {token}").into());
                    }
                    super::env_keys::api_key(name)
                }
            }
        };
        for (header, value) in provider.headers.iter().flatten() {
            let raw = value.as_str().unwrap_or_default();
            let description = format!("provider \"{name}\" header \"{header}\"");
            let resolved = values::resolve_or_error(raw, &description).map_err(auth_failed)?;
            headers.insert(header.clone(), Value::from(resolved));
        }
        if provider.auth_header {
            let key = key
                .as_deref()
                .ok_or_else(|| RequestAuthError::NoKeyForHeader(name.clone()))?;
            headers.insert("Authorization".into(), Value::from(format!("Bearer {key}")));
        }
        for (header, value) in provider.model_headers.get(&model.id).into_iter().flatten() {
            let raw = value.as_str().unwrap_or_default();
            let description = format!("model \"{name}/{}\" header \"{header}\"", model.id);
            let resolved = values::resolve_or_error(raw, &description)
                .map_err(RequestAuthError::ModelHeader)?;
            headers.insert(header.clone(), Value::from(resolved));
        }
        Ok((headers, key))
    }

    fn provider(&self, name: &str) -> Option<&Provider> {
        self.providers.iter().find(|provider| provider.name == name)
    }
}

/// The built-in providers, then those of `models.json`; a `models.json` provider named like a
/// built-in one changes it (base URL, key, headers, compat, overrides; models replaced by id or
/// added). A file that fails the schema check adds nothing; a provider that cannot be composed
/// is left out (a built-in one stays as built in).
fn load_providers(
    builtin: Vec<Provider>,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Vec<Provider> {
    let mut providers = builtin;
    let configs = match file::read(path) {
        Ok(configs) => configs,
        Err(error) => {
            warnings.push(error.to_string());
            return providers;
        }
    };
    for (name, config) in configs {
        let existing = providers.iter().position(|p| p.name == name);
        let base = existing.map(|index| &providers[index]);
        match file::compose(&name, config, base) {
            Ok(provider) => match existing {
                Some(index) => providers[index] = provider,
                None => providers.push(provider),
            },
            Err(error) => warnings.push(format!("Provider \"{name}\": {error}")),
        }
    }
    providers
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

    #[test]
    fn a_command_key_runs_once_for_the_model_and_key_of_a_call() {
        let dir = tempfile::tempdir().unwrap();
        let runs = dir.path().join("runs");
        let models = serde_json::json!({"providers": {"cmd": {
            "baseUrl": "http://127.0.0.1:1", "api": "openai-completions", "authHeader": true,
            "apiKey": format!("!echo run >> '{}'; echo the-key", runs.display()),
            "models": [{"id": "m"}]}}});
        std::fs::write(dir.path().join("models.json"), models.to_string()).unwrap();
        let (registry, warnings) = ModelRegistry::load(dir.path());
        assert!(warnings.is_empty(), "{warnings:?}");
        let model = registry.find("cmd", "m").unwrap().clone();
        let request = registry.resolve(&model);
        assert_eq!(request.auth.unwrap().api_key.as_deref(), Some("the-key"));
        let headers = request.model.headers.unwrap();
        assert_eq!(headers["Authorization"], "Bearer the-key");
        assert_eq!(std::fs::read_to_string(&runs).unwrap(), "run\n");
    }
}
