//! The start-up choice of model and thinking level, from the flags and the settings.

use pi_rpc_protocol::model::{Model, ThinkingLevel};

use super::*;
use crate::config::Config;

/// A message for stderr at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Diagnostic {
    /// Printed as `Warning: ...`; start-up goes on.
    Warning(String),
    /// Printed as `Error: ...`; start-up fails with exit code 1.
    Error(String),
}

/// The model and thinking level a new session starts with.
#[derive(Debug, Clone)]
pub struct Startup {
    /// The model; `None` when none is available.
    pub model: Option<Model>,
    /// The effective thinking level.
    pub thinking_level: ThinkingLevel,
    /// What to print on stderr.
    pub diagnostics: Vec<Diagnostic>,
    /// The models `cycle_model` walks (`--models`), empty for every available model.
    pub scoped_models: Vec<ScopedModel>,
    /// The model `--model` chose: every session this process starts or opens uses it.
    pub cli_model: Option<Model>,
    /// The thinking level `--thinking` (else the `--model` suffix) chose, for every session.
    pub cli_thinking_level: Option<ThinkingLevel>,
}

/// Chooses the start-up model and thinking level from the flags and the configuration, and
/// records `--api-key` for the chosen provider.
pub fn select_startup(
    cli_provider: Option<&str>,
    cli_model: Option<&str>,
    cli_thinking: Option<ThinkingLevel>,
    cli_api_key: Option<&str>,
    cli_models: Option<&str>,
    config: &mut Config,
) -> Startup {
    let mut diagnostics = Vec::new();
    let patterns: Option<Vec<String>> = cli_models
        .map(|list| list.split(',').map(|p| p.trim().to_owned()).collect())
        .or_else(|| config.settings.enabled_models());
    let scoped_models = match patterns.filter(|patterns| !patterns.is_empty()) {
        Some(patterns) => {
            let (scoped, warnings) = resolve_model_scope(&patterns, &config.registry.available());
            diagnostics.extend(warnings.into_iter().map(Diagnostic::Warning));
            scoped
        }
        None => Vec::new(),
    };
    let thinking = cli_thinking;
    let mut model = None;
    let mut level = thinking;
    if let Some(pattern) = cli_model {
        let resolved = resolve_cli_model(cli_provider, pattern, thinking, &config.registry);
        if let Some(warning) = resolved.warning {
            diagnostics.push(Diagnostic::Warning(warning));
        }
        if let Some(error) = resolved.error {
            diagnostics.push(Diagnostic::Error(error));
        }
        if let Some(found) = resolved.model {
            if thinking.is_none() {
                level = resolved.thinking_level;
            }
            model = Some(found);
        }
    }
    let cli_model = model.clone();
    let cli_thinking_level = level;
    if model.is_none()
        && let Some(chosen) = scoped_choice(&scoped_models, config)
    {
        if thinking.is_none() && chosen.thinking_level.is_some() {
            level = chosen.thinking_level;
        }
        model = Some(chosen.model.clone());
    }
    if let Some(key) = cli_api_key {
        match &model {
            Some(chosen) => config.registry.set_runtime_key(&chosen.provider, key.to_owned()),
            None => diagnostics.push(Diagnostic::Error(
                "--api-key requires a model to be specified via --model, --provider/--model, or --models"
                    .into(),
            )),
        }
    }
    if model.is_none() {
        model = initial_model(config);
    }
    let level = level
        .or_else(|| config.settings.default_thinking_level())
        .unwrap_or(DEFAULT_THINKING_LEVEL);
    match model {
        Some(model) => Startup {
            thinking_level: clamp_thinking_level(&model, level),
            model: Some(model),
            diagnostics,
            scoped_models,
            cli_model,
            cli_thinking_level,
        },
        None => Startup {
            model: None,
            thinking_level: ThinkingLevel::Off,
            diagnostics,
            scoped_models,
            cli_model,
            cli_thinking_level,
        },
    }
}

/// The model of the `--models` scope a session without messages starts with when `--model`
/// chose none: the saved default model when it is in the scope, else the scope's first.
pub fn scoped_choice<'a>(scoped: &'a [ScopedModel], config: &Config) -> Option<&'a ScopedModel> {
    let saved = match (
        config.settings.default_provider(),
        config.settings.default_model(),
    ) {
        (Some(provider), Some(id)) => config.registry.find(provider, id).cloned(),
        _ => None,
    };
    saved
        .and_then(|saved| scoped.iter().find(|s| same_model(&s.model, &saved)))
        .or(scoped.first())
}

/// The settings' default model when it has credentials, else the first available model.
pub fn initial_model(config: &Config) -> Option<Model> {
    if let (Some(provider), Some(id)) = (
        config.settings.default_provider(),
        config.settings.default_model(),
    ) && let Some(model) = config.registry.find(provider, id)
        && config.registry.has_auth(provider)
    {
        return Some(model.clone());
    }
    let available = config.registry.available();
    let preferred = PROVIDER_DEFAULT_MODELS.iter().find_map(|(provider, id)| {
        available
            .iter()
            .find(|m| m.provider == *provider && m.id == *id)
    });
    preferred.or(available.first()).cloned()
}
