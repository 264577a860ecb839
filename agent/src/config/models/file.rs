//! Reading `models.json` as the reference does: `//` comments and trailing commas allowed, the
//! whole file checked against the schema first (one bad entry drops every custom provider), then
//! each provider composed on top of the built-in one of the same name (a provider that cannot
//! be composed is dropped alone; a built-in one stays as built in).

use std::collections::HashMap;
use std::path::Path;

use pi_rpc_protocol::model::{Model, ModelCost};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::Provider;
use super::errors::{ModelsFileError, ProviderConfigError};

/// Context window of a models.json (or extension) model that gives none.
pub(super) const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
/// Output limit of a models.json (or extension) model that gives none.
pub(super) const DEFAULT_MAX_TOKENS: u64 = 16_384;

/// The compat objects merged key by key when both layers give one.
const NESTED_COMPAT_KEYS: [&str; 4] = [
    "openRouterRouting",
    "vercelGatewayRouting",
    "chatTemplateKwargs",
    "chatTemplateArgs",
];

/// The thinking levels a `thinkingLevelMap` may name.
const THINKING_LEVELS: [&str; 7] = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ProviderConfig {
    base_url: Option<String>,
    api_key: Option<String>,
    api: Option<String>,
    oauth: Option<String>,
    headers: Option<Map<String, Value>>,
    compat: Option<Map<String, Value>>,
    auth_header: Option<bool>,
    models: Option<Vec<ModelConfig>>,
    model_overrides: Option<Map<String, Value>>,
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
    input: Option<Vec<InputKind>>,
    cost: Option<ModelCost>,
    context_window: Option<f64>,
    max_tokens: Option<f64>,
    sampling_params: Option<Map<String, Value>>,
    headers: Option<Map<String, Value>>,
    compat: Option<Map<String, Value>>,
}

/// One entry of `modelOverrides`: every field optional, `cost` partial.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ModelOverride {
    name: Option<String>,
    reasoning: Option<bool>,
    thinking_level_map: Option<Map<String, Value>>,
    input: Option<Vec<InputKind>>,
    cost: Option<PartialCost>,
    context_window: Option<f64>,
    max_tokens: Option<f64>,
    sampling_params: Option<Map<String, Value>>,
    headers: Option<Map<String, Value>>,
    compat: Option<Map<String, Value>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PartialCost {
    input: Option<f64>,
    output: Option<f64>,
    cache_read: Option<f64>,
    cache_write: Option<f64>,
    tiers: Option<Vec<Value>>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum InputKind {
    Text,
    Image,
}

impl InputKind {
    fn name(self) -> String {
        match self {
            Self::Text => "text".into(),
            Self::Image => "image".into(),
        }
    }
}

/// `models.json` read and checked: its providers in file order, or the reason the whole file
/// was rejected. A missing file is an empty list.
pub(super) fn read(path: &Path) -> Result<Vec<(String, ProviderConfig)>, ModelsFileError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(ModelsFileError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let value: Value =
        serde_json::from_str(&super::comments::strip_json_comments(&text)).map_err(|source| {
            ModelsFileError::Parse {
                path: path.to_path_buf(),
                source,
            }
        })?;
    check(value).map_err(|problems| ModelsFileError::Schema {
        path: path.to_path_buf(),
        problems,
    })
}

/// The schema check of the whole file; every problem found, each as `path: message`.
fn check(value: Value) -> Result<Vec<(String, ProviderConfig)>, Vec<String>> {
    let Value::Object(mut root) = value else {
        return Err(vec!["root: must be an object".into()]);
    };
    let providers = match root.remove("providers") {
        Some(Value::Object(providers)) => providers,
        Some(_) => return Err(vec!["providers: must be an object".into()]),
        None => return Err(vec!["providers: is required".into()]),
    };
    let mut problems = Vec::new();
    let mut configs = Vec::new();
    for (name, value) in providers {
        let path = format!("providers.{name}");
        check_provider_shape(&path, &value, &mut problems);
        match serde_json::from_value::<ProviderConfig>(value) {
            Ok(config) => configs.push((name, config)),
            Err(error) => problems.push(format!("{path}: {error}")),
        }
    }
    if problems.is_empty() {
        Ok(configs)
    } else {
        Err(problems)
    }
}

/// What serde's types do not check: non-empty texts, string header values, the level map's
/// values, compat and cost shapes, and the `modelOverrides` entries.
fn check_provider_shape(path: &str, value: &Value, problems: &mut Vec<String>) {
    let Some(provider) = value.as_object() else {
        return;
    };
    for key in ["name", "baseUrl", "apiKey", "api"] {
        non_empty(path, provider, key, problems);
    }
    if let Some(oauth) = provider.get("oauth")
        && oauth != "radius"
    {
        problems.push(format!("{path}.oauth: must be \"radius\""));
    }
    check_headers(path, provider, problems);
    check_compat(path, provider, problems);
    if let Some(Value::Array(models)) = provider.get("models") {
        for (index, model) in models.iter().enumerate() {
            let path = format!("{path}.models.{index}");
            let Some(model) = model.as_object() else {
                continue;
            };
            for key in ["id", "name", "api", "baseUrl"] {
                non_empty(&path, model, key, problems);
            }
            check_model_shape(&path, model, problems);
        }
    }
    match provider.get("modelOverrides") {
        None => {}
        Some(Value::Object(overrides)) => {
            for (id, entry) in overrides {
                let path = format!("{path}.modelOverrides.{id}");
                let Some(entry) = entry.as_object() else {
                    problems.push(format!("{path}: must be an object"));
                    continue;
                };
                non_empty(&path, entry, "name", problems);
                check_model_shape(&path, entry, problems);
                if let Err(error) =
                    serde_json::from_value::<ModelOverride>(Value::Object(entry.clone()))
                {
                    problems.push(format!("{path}: {error}"));
                }
            }
        }
        Some(_) => problems.push(format!("{path}.modelOverrides: must be an object")),
    }
}

fn check_model_shape(path: &str, model: &Map<String, Value>, problems: &mut Vec<String>) {
    check_headers(path, model, problems);
    check_compat(path, model, problems);
    if let Some(Value::Object(map)) = model.get("thinkingLevelMap") {
        for level in THINKING_LEVELS {
            if let Some(value) = map.get(level)
                && !(value.is_string() || value.is_null())
            {
                problems.push(format!(
                    "{path}.thinkingLevelMap.{level}: must be a string or null"
                ));
            }
        }
    }
    if let Some(Value::Array(tiers)) = model.get("cost").and_then(|cost| cost.get("tiers")) {
        for (index, tier) in tiers.iter().enumerate() {
            for key in [
                "inputTokensAbove",
                "input",
                "output",
                "cacheRead",
                "cacheWrite",
            ] {
                if !tier.get(key).is_some_and(Value::is_number) {
                    problems.push(format!("{path}.cost.tiers.{index}.{key}: must be a number"));
                }
            }
        }
    }
}

fn non_empty(path: &str, object: &Map<String, Value>, key: &str, problems: &mut Vec<String>) {
    if object.get(key).and_then(Value::as_str) == Some("") {
        problems.push(format!("{path}.{key}: must not be empty"));
    }
}

fn check_headers(path: &str, object: &Map<String, Value>, problems: &mut Vec<String>) {
    match object.get("headers") {
        None => {}
        Some(Value::Object(headers)) => {
            for (name, value) in headers {
                if !value.is_string() {
                    problems.push(format!("{path}.headers.{name}: must be a string"));
                }
            }
        }
        Some(_) => problems.push(format!("{path}.headers: must be an object")),
    }
}

/// `compat` is one of three open objects (Chat Completions, Responses, Anthropic), so only a
/// switch every one of them knows is typed for sure.
fn check_compat(path: &str, object: &Map<String, Value>, problems: &mut Vec<String>) {
    match object.get("compat") {
        None => {}
        Some(Value::Object(compat)) => {
            if let Some(value) = compat.get("supportsLongCacheRetention")
                && !value.is_boolean()
            {
                problems.push(format!(
                    "{path}.compat.supportsLongCacheRetention: must be a boolean"
                ));
            }
        }
        Some(_) => problems.push(format!("{path}.compat: must be an object")),
    }
}

/// A model of the provider being composed, and whether it is a built-in one (whose fields
/// after `maxTokens` live in `extra`, in the reference's key order).
struct Entry {
    model: Model,
    builtin: bool,
}

/// The provider `name` from its `models.json` entry, on top of the built-in provider `base` of
/// the same name when there is one; the reference's composition errors otherwise.
pub(super) fn compose(
    name: &str,
    config: ProviderConfig,
    base: Option<&Provider>,
) -> Result<Provider, ProviderConfigError> {
    if config.oauth.is_some() && config.base_url.is_none() {
        return Err(ProviderConfigError::OAuthWithoutBaseUrl(name.to_owned()));
    }
    let overrides = parse_overrides(config.model_overrides.as_ref());
    let nothing_given = config.models.as_ref().is_none_or(Vec::is_empty)
        && config.base_url.is_none()
        && config.headers.is_none()
        && config.compat.is_none()
        && overrides.is_empty()
        && config.api_key.is_none()
        && config.oauth.is_none()
        && config.auth_header.is_none();
    if nothing_given {
        return Err(ProviderConfigError::NothingGiven(name.to_owned()));
    }
    let mut entries: Vec<Entry> = base
        .map(|base| {
            base.models
                .iter()
                .map(|model| {
                    let mut model = model.clone();
                    if let Some(base_url) = &config.base_url {
                        model.base_url = base_url.clone();
                    }
                    if let Some(compat) = &config.compat {
                        let merged = merge_compat(get_field(&model, "compat", true), Some(compat));
                        set_field(&mut model, "compat", merged, true);
                    }
                    Entry {
                        model,
                        builtin: true,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let mut model_headers: HashMap<String, Map<String, Value>> = HashMap::new();
    for definition in config.models.iter().flatten() {
        let existing = entries.iter().position(|e| e.model.id == definition.id);
        let defaults = existing
            .or((!entries.is_empty()).then_some(0))
            .map(|i| &entries[i].model);
        let model = model_from_json(name, definition, &config, defaults)?;
        let entry = Entry {
            model,
            builtin: false,
        };
        match existing {
            Some(index) => entries[index] = entry,
            None => entries.push(entry),
        }
    }
    let mut models = Vec::with_capacity(entries.len());
    for mut entry in entries {
        let id = entry.model.id.clone();
        let mut headers = Map::new();
        if let Some(headers_of_override) = overrides.get(&id).and_then(|o| o.headers.as_ref()) {
            headers.extend(headers_of_override.clone());
        }
        let definition = config.models.iter().flatten().find(|d| d.id == id);
        if let Some(own) = definition.and_then(|d| d.headers.as_ref()) {
            headers.extend(own.clone());
        }
        if !headers.is_empty() {
            model_headers.insert(id.clone(), headers);
        }
        if let Some(model_override) = overrides.get(&id) {
            apply_override(&mut entry, model_override);
        }
        models.push(entry.model);
    }
    Ok(Provider {
        name: name.to_owned(),
        api_key: config.api_key,
        headers: config.headers,
        auth_header: config.auth_header.unwrap_or(false),
        models: models.into(),
        model_headers,
    })
}

fn parse_overrides(raw: Option<&Map<String, Value>>) -> HashMap<String, ModelOverride> {
    raw.into_iter()
        .flatten()
        .filter_map(|(id, value)| {
            serde_json::from_value::<ModelOverride>(value.clone())
                .ok()
                .map(|entry| (id.clone(), entry))
        })
        .collect()
}

fn model_from_json(
    provider: &str,
    definition: &ModelConfig,
    config: &ProviderConfig,
    defaults: Option<&Model>,
) -> Result<Model, ProviderConfigError> {
    let id = &definition.id;
    let model_error =
        |make: fn(String, String) -> ProviderConfigError| make(provider.to_owned(), id.clone());
    let api = definition
        .api
        .clone()
        .or_else(|| config.api.clone())
        .or_else(|| defaults.map(|model| model.api.clone()))
        .ok_or_else(|| {
            model_error(|provider, model| ProviderConfigError::NoApi { provider, model })
        })?;
    let base_url = definition
        .base_url
        .clone()
        .or_else(|| config.base_url.clone())
        .or_else(|| defaults.map(|model| model.base_url.clone()))
        .ok_or_else(|| ProviderConfigError::NoBaseUrl(provider.to_owned()))?;
    let context_window =
        positive(definition.context_window, DEFAULT_CONTEXT_WINDOW).ok_or_else(|| {
            model_error(
                |provider, model| ProviderConfigError::InvalidContextWindow { provider, model },
            )
        })?;
    let max_tokens = positive(definition.max_tokens, DEFAULT_MAX_TOKENS).ok_or_else(|| {
        model_error(|provider, model| ProviderConfigError::InvalidMaxTokens { provider, model })
    })?;
    Ok(Model {
        id: id.clone(),
        name: definition.name.clone().unwrap_or_else(|| id.clone()),
        api,
        provider: provider.to_owned(),
        base_url,
        reasoning: definition.reasoning.unwrap_or(false),
        thinking_level_map: definition.thinking_level_map.clone(),
        input: definition
            .input
            .as_ref()
            .map_or_else(|| vec!["text".to_owned()], |kinds| names(kinds)),
        cost: definition.cost.clone().unwrap_or_default(),
        context_window,
        max_tokens,
        sampling_params: definition.sampling_params.clone(),
        headers: None,
        compat: merge_compat(config.compat.clone(), definition.compat.as_ref()),
        extra: Map::new(),
    })
}

fn names(kinds: &[InputKind]) -> Vec<String> {
    kinds.iter().map(|kind| kind.name()).collect()
}

fn positive(value: Option<f64>, default: u64) -> Option<u64> {
    match value {
        None => Some(default),
        Some(number) if number > 0.0 && number.is_finite() => Some(number as u64),
        Some(_) => None,
    }
}

/// The reference's compat merge: the override's keys win, and the routing and chat-template
/// objects are merged key by key.
pub(super) fn merge_compat(
    base: Option<Map<String, Value>>,
    overrides: Option<&Map<String, Value>>,
) -> Option<Map<String, Value>> {
    let Some(overrides) = overrides else {
        return base;
    };
    let mut merged = base.clone().unwrap_or_default();
    for (key, value) in overrides {
        merged.insert(key.clone(), value.clone());
    }
    for key in NESTED_COMPAT_KEYS {
        let below = base.as_ref().and_then(|base| base.get(key));
        let above = overrides.get(key);
        if below.is_some_and(Value::is_object) || above.is_some_and(Value::is_object) {
            let mut nested = Map::new();
            for layer in [below, above].into_iter().flatten() {
                if let Value::Object(map) = layer {
                    nested.extend(map.clone());
                }
            }
            merged.insert(key.to_owned(), Value::Object(nested));
        }
    }
    Some(merged)
}

/// `thinkingLevelMap`, `samplingParams` or `compat` of a model, wherever it is kept.
fn get_field(model: &Model, key: &str, builtin: bool) -> Option<Map<String, Value>> {
    if builtin {
        return model.extra.get(key).and_then(Value::as_object).cloned();
    }
    match key {
        "thinkingLevelMap" => model.thinking_level_map.clone(),
        "samplingParams" => model.sampling_params.clone(),
        _ => model.compat.clone(),
    }
}

/// Sets one of those fields: built-in models keep them in `extra`, where a new key goes last
/// as in the reference's object spread.
fn set_field(model: &mut Model, key: &str, value: Option<Map<String, Value>>, builtin: bool) {
    if builtin {
        match value {
            Some(map) => {
                model.extra.insert(key.to_owned(), Value::Object(map));
            }
            None => {
                model.extra.shift_remove(key);
            }
        }
        return;
    }
    match key {
        "thinkingLevelMap" => model.thinking_level_map = value,
        "samplingParams" => model.sampling_params = value,
        _ => model.compat = value,
    }
}

fn merged_map(
    base: Option<Map<String, Value>>,
    overrides: &Map<String, Value>,
) -> Map<String, Value> {
    let mut merged = base.unwrap_or_default();
    for (key, value) in overrides {
        merged.insert(key.clone(), value.clone());
    }
    merged
}

fn apply_override(entry: &mut Entry, given: &ModelOverride) {
    let builtin = entry.builtin;
    let model = &mut entry.model;
    if let Some(name) = &given.name {
        model.name = name.clone();
    }
    if let Some(reasoning) = given.reasoning {
        model.reasoning = reasoning;
    }
    if let Some(map) = &given.thinking_level_map {
        let merged = merged_map(get_field(model, "thinkingLevelMap", builtin), map);
        set_field(model, "thinkingLevelMap", Some(merged), builtin);
    }
    if let Some(kinds) = &given.input {
        model.input = names(kinds);
    }
    if let Some(cost) = &given.cost {
        let old = &model.cost;
        model.cost = ModelCost {
            input: cost.input.unwrap_or(old.input),
            output: cost.output.unwrap_or(old.output),
            cache_read: cost.cache_read.unwrap_or(old.cache_read),
            cache_write: cost.cache_write.unwrap_or(old.cache_write),
            tiers: cost.tiers.clone().or_else(|| old.tiers.clone()),
        };
    }
    if let Some(window) = given.context_window {
        model.context_window = window.max(0.0) as u64;
    }
    if let Some(max_tokens) = given.max_tokens {
        model.max_tokens = max_tokens.max(0.0) as u64;
    }
    if let Some(params) = &given.sampling_params {
        let merged = merged_map(get_field(model, "samplingParams", builtin), params);
        set_field(model, "samplingParams", Some(merged), builtin);
    }
    if given.compat.is_some() {
        let merged = merge_compat(get_field(model, "compat", builtin), given.compat.as_ref());
        set_field(model, "compat", merged, builtin);
    }
}
