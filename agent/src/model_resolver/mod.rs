//! Choosing the model and thinking level: `--provider`/`--model` patterns (with `provider/id` and a
//! `:<thinking>` suffix), the settings' defaults, thinking levels per model and their clamping, as
//! the reference resolves them.

use pi_rpc_protocol::model::{Model, ModelCost, ThinkingLevel};
use serde_json::Value;

// The model each well-known provider starts with when nothing chooses one (and whose clone an
// unknown model id of that provider becomes).
use crate::config::ModelRegistry;
use crate::config::builtin::{
    DEFAULT_MODELS as PROVIDER_DEFAULT_MODELS, default_model as provider_default_model,
};

mod startup;

pub use startup::{Diagnostic, Startup, initial_model, scoped_choice, select_startup};

/// The thinking level used when nothing chooses one.
pub const DEFAULT_THINKING_LEVEL: ThinkingLevel = ThinkingLevel::Medium;

/// The placeholder the reference reports as the model when none is available.
pub fn unknown_model() -> Model {
    Model {
        id: "unknown".into(),
        name: "unknown".into(),
        api: "unknown".into(),
        provider: "unknown".into(),
        base_url: String::new(),
        reasoning: false,
        thinking_level_map: None,
        input: Vec::new(),
        cost: ModelCost::default(),
        context_window: 0,
        max_tokens: 0,
        sampling_params: None,
        headers: None,
        compat: None,
        extra: serde_json::Map::new(),
    }
}

/// The thinking levels `model` supports: `off` only without reasoning; `xhigh` and `max` only
/// when its `thinkingLevelMap` names them; a level mapped to `null` is hidden.
pub fn supported_thinking_levels(model: &Model) -> Vec<ThinkingLevel> {
    if !model.reasoning {
        return vec![ThinkingLevel::Off];
    }
    ThinkingLevel::ALL
        .into_iter()
        .filter(|level| {
            let mapped = thinking_level_map(model).and_then(|map| map.get(level.as_str()));
            match mapped {
                Some(Value::Null) => false,
                None => !matches!(level, ThinkingLevel::Xhigh | ThinkingLevel::Max),
                Some(_) => true,
            }
        })
        .collect()
}

/// The model's `thinkingLevelMap`, wherever it is kept (built-in models keep it in `extra`).
pub fn thinking_level_map(model: &Model) -> Option<&serde_json::Map<String, Value>> {
    model.thinking_level_map.as_ref().or_else(|| {
        model
            .extra
            .get("thinkingLevelMap")
            .and_then(Value::as_object)
    })
}

/// The nearest supported level: the level itself, else the next higher one, else the next lower.
pub fn clamp_thinking_level(model: &Model, level: ThinkingLevel) -> ThinkingLevel {
    let available = supported_thinking_levels(model);
    if available.contains(&level) {
        return level;
    }
    let index = ThinkingLevel::ALL
        .iter()
        .position(|candidate| *candidate == level)
        .unwrap_or(0);
    let higher = ThinkingLevel::ALL[index..]
        .iter()
        .find(|candidate| available.contains(candidate));
    let lower = ThinkingLevel::ALL[..index]
        .iter()
        .rev()
        .find(|candidate| available.contains(candidate));
    higher
        .or(lower)
        .copied()
        .or_else(|| available.first().copied())
        .unwrap_or(ThinkingLevel::Off)
}

/// The outcome of `--provider`/`--model`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CliModel {
    /// The model chosen.
    pub model: Option<Model>,
    /// A thinking level given as a `:<level>` suffix.
    pub thinking_level: Option<ThinkingLevel>,
    /// A warning to print.
    pub warning: Option<String>,
    /// An error that ends start-up.
    pub error: Option<String>,
}

fn is_alias(id: &str) -> bool {
    if id.ends_with("-latest") {
        return true;
    }
    let bytes = id.as_bytes();
    let dated = bytes.len() >= 9
        && bytes[bytes.len() - 9] == b'-'
        && bytes[bytes.len() - 8..].iter().all(u8::is_ascii_digit);
    !dated
}

/// An exact `id` or `provider/id` match (case-insensitive); ambiguous bare ids match nothing.
pub fn find_exact_reference<'a>(reference: &str, models: &[&'a Model]) -> Option<&'a Model> {
    let trimmed = reference.trim();
    if trimmed.is_empty() {
        return None;
    }
    let lower = trimmed.to_lowercase();
    let canonical: Vec<&Model> = models
        .iter()
        .copied()
        .filter(|m| format!("{}/{}", m.provider, m.id).to_lowercase() == lower)
        .collect();
    match canonical.len() {
        1 => return Some(canonical[0]),
        n if n > 1 => return None,
        _ => {}
    }
    if let Some((provider, id)) = trimmed.split_once('/') {
        let (provider, id) = (provider.trim().to_lowercase(), id.trim().to_lowercase());
        if !provider.is_empty() && !id.is_empty() {
            let matches: Vec<&Model> = models
                .iter()
                .copied()
                .filter(|m| m.provider.to_lowercase() == provider && m.id.to_lowercase() == id)
                .collect();
            match matches.len() {
                1 => return Some(matches[0]),
                n if n > 1 => return None,
                _ => {}
            }
        }
    }
    let by_id: Vec<&Model> = models
        .iter()
        .copied()
        .filter(|m| m.id.to_lowercase() == lower)
        .collect();
    (by_id.len() == 1).then(|| by_id[0])
}

fn try_match<'a>(pattern: &str, models: &[&'a Model]) -> Option<&'a Model> {
    if let Some(exact) = find_exact_reference(pattern, models) {
        return Some(exact);
    }
    let lower = pattern.to_lowercase();
    let matches: Vec<&Model> = models
        .iter()
        .copied()
        .filter(|m| m.id.to_lowercase().contains(&lower) || m.name.to_lowercase().contains(&lower))
        .collect();
    let (mut aliases, mut dated): (Vec<&Model>, Vec<&Model>) =
        matches.into_iter().partition(|m| is_alias(&m.id));
    aliases.sort_by(|a, b| b.id.cmp(&a.id));
    dated.sort_by(|a, b| b.id.cmp(&a.id));
    aliases.first().or(dated.first()).copied()
}

struct PatternMatch<'a> {
    model: Option<&'a Model>,
    thinking_level: Option<ThinkingLevel>,
    warning: Option<String>,
}

/// Matches `pattern`, peeling `:<suffix>`es off from the right when the whole does not match.
fn parse_pattern<'a>(pattern: &str, models: &[&'a Model], allow_invalid: bool) -> PatternMatch<'a> {
    if let Some(model) = try_match(pattern, models) {
        return PatternMatch {
            model: Some(model),
            thinking_level: None,
            warning: None,
        };
    }
    let none = PatternMatch {
        model: None,
        thinking_level: None,
        warning: None,
    };
    let Some((prefix, suffix)) = pattern.rsplit_once(':') else {
        return none;
    };
    match ThinkingLevel::parse(suffix) {
        Some(level) => {
            let inner = parse_pattern(prefix, models, allow_invalid);
            if inner.model.is_some() {
                PatternMatch {
                    thinking_level: if inner.warning.is_some() {
                        None
                    } else {
                        Some(level)
                    },
                    ..inner
                }
            } else {
                inner
            }
        }
        None if !allow_invalid => none,
        None => {
            let inner = parse_pattern(prefix, models, allow_invalid);
            if inner.model.is_some() {
                PatternMatch {
                    model: inner.model,
                    thinking_level: None,
                    warning: Some(format!(
                        "Invalid thinking level \"{suffix}\" in pattern \"{pattern}\". Using default instead."
                    )),
                }
            } else {
                inner
            }
        }
    }
}

/// Resolves `--model` (and `--provider`) as the reference's `resolveCliModel` does.
pub fn resolve_cli_model(
    cli_provider: Option<&str>,
    cli_model: &str,
    cli_thinking: Option<ThinkingLevel>,
    registry: &ModelRegistry,
) -> CliModel {
    // Every model only where the search needs it: a built-in provider's catalog is parsed on
    // first use, and `--provider` with an exact match needs that provider's models alone.
    let cache = std::cell::OnceCell::new();
    let all = || cache.get_or_init(|| registry.all_models().collect::<Vec<&Model>>());
    if !registry.has_models() {
        return CliModel {
            error: Some(
                "No models available. Check your installation or add models to models.json.".into(),
            ),
            ..CliModel::default()
        };
    }
    let canonical_provider = |name: &str| {
        registry
            .provider_names()
            .find(|p| p.eq_ignore_ascii_case(name) && !registry.provider_models(p).is_empty())
            .map(str::to_owned)
    };
    let mut provider = cli_provider.and_then(canonical_provider);
    if let Some(name) = cli_provider
        && provider.is_none()
    {
        return CliModel {
            error: Some(format!(
                "Unknown provider \"{name}\". Use --list-models to see available providers/models."
            )),
            ..CliModel::default()
        };
    }
    let mut pattern = cli_model.to_owned();
    let mut inferred_provider = false;
    if provider.is_none()
        && let Some((maybe_provider, rest)) = cli_model.split_once('/')
        && let Some(name) = canonical_provider(maybe_provider)
    {
        provider = Some(name);
        pattern = rest.to_owned();
        inferred_provider = true;
    }
    let lower = cli_model.to_lowercase();
    if provider.is_none() {
        let exact: Vec<&Model> = all()
            .iter()
            .copied()
            .filter(|m| {
                m.id.to_lowercase() == lower
                    || format!("{}/{}", m.provider, m.id).to_lowercase() == lower
            })
            .collect();
        if exact.len() == 1 {
            return found(exact[0].clone());
        }
        if exact.len() > 1 {
            let authenticated: Vec<&Model> = exact
                .iter()
                .copied()
                .filter(|m| registry.has_auth(&m.provider))
                .collect();
            if authenticated.len() == 1 {
                return found(authenticated[0].clone());
            }
            let mut names: Vec<String> = exact
                .iter()
                .map(|m| format!("{}/{}", m.provider, m.id))
                .collect();
            names.sort();
            let hint = if authenticated.is_empty() {
                "No matching provider is authenticated."
            } else {
                "More than one matching provider is authenticated."
            };
            return CliModel {
                error: Some(format!(
                    "Model \"{cli_model}\" is ambiguous across providers: {}. {hint} Use --provider or provider/model.",
                    names.join(", ")
                )),
                ..CliModel::default()
            };
        }
    }
    if let (Some(_), Some(name)) = (cli_provider, provider.as_deref()) {
        let prefix = format!("{name}/").to_lowercase();
        if lower.starts_with(&prefix) {
            pattern = cli_model[prefix.len()..].to_owned();
        }
    }
    let candidates: Vec<&Model> = match provider.as_deref() {
        Some(name) => registry.provider_models(name).iter().collect(),
        None => all().clone(),
    };
    let matched = parse_pattern(&pattern, &candidates, false);
    if let Some(model) = matched.model {
        if inferred_provider && !registry.has_auth(&model.provider) {
            let others: Vec<&Model> = all()
                .iter()
                .copied()
                .filter(|m| {
                    m.id.to_lowercase() == lower
                        && registry.has_auth(&m.provider)
                        && !same_model(m, model)
                })
                .collect();
            if others.len() == 1 {
                return found(others[0].clone());
            }
        }
        return CliModel {
            model: Some(model.clone()),
            thinking_level: matched.thinking_level,
            warning: matched.warning,
            error: None,
        };
    }
    if inferred_provider {
        if let Some(exact) = all().iter().find(|m| {
            m.id.to_lowercase() == lower
                || format!("{}/{}", m.provider, m.id).to_lowercase() == lower
        }) {
            return found((*exact).clone());
        }
        let fallback = parse_pattern(cli_model, all(), false);
        if let Some(model) = fallback.model {
            return CliModel {
                model: Some(model.clone()),
                thinking_level: fallback.thinking_level,
                warning: fallback.warning,
                error: None,
            };
        }
    }
    if let Some(name) = provider.as_deref() {
        let mut fallback_id = pattern.clone();
        let mut fallback_thinking = None;
        if cli_thinking.is_none()
            && let Some((prefix, suffix)) = pattern.rsplit_once(':')
            && let Some(level) = ThinkingLevel::parse(suffix)
        {
            fallback_id = prefix.to_owned();
            fallback_thinking = Some(level);
        }
        let default_id = provider_default_model(name);
        let models = registry.provider_models(name);
        let base = default_id
            .and_then(|id| models.iter().find(|m| m.id == id))
            .or_else(|| models.first());
        if let Some(base) = base {
            let mut model = (*base).clone();
            model.id = fallback_id.clone();
            model.name = fallback_id.clone();
            if cli_thinking
                .or(fallback_thinking)
                .is_some_and(|level| level != ThinkingLevel::Off)
            {
                model.reasoning = true;
            }
            let message = format!(
                "Model \"{fallback_id}\" not found for provider \"{name}\". Using custom model id."
            );
            let warning = match matched.warning {
                Some(previous) => format!("{previous} {message}"),
                None => message,
            };
            return CliModel {
                model: Some(model),
                thinking_level: fallback_thinking,
                warning: Some(warning),
                error: None,
            };
        }
    }
    let display = match provider {
        Some(name) => format!("{name}/{pattern}"),
        None => cli_model.to_owned(),
    };
    CliModel {
        warning: matched.warning,
        error: Some(format!(
            "Model \"{display}\" not found. Use --list-models to see available models."
        )),
        ..CliModel::default()
    }
}

fn found(model: Model) -> CliModel {
    CliModel {
        model: Some(model),
        ..CliModel::default()
    }
}

/// Whether two models are the same provider and id.
pub fn same_model(a: &Model, b: &Model) -> bool {
    a.id == b.id && a.provider == b.provider
}

/// A model `cycle_model` may switch to, with the thinking level its pattern gave.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopedModel {
    /// The model.
    pub model: Model,
    /// The level of a `:<thinking>` suffix; `None` keeps the session's level.
    pub thinking_level: Option<ThinkingLevel>,
}

/// Whether `text` matches the glob `pattern` (`*` any run, `?` one character), ignoring case.
fn glob_matches(pattern: &str, text: &str) -> bool {
    let pattern: Vec<char> = pattern.to_lowercase().chars().collect();
    let text: Vec<char> = text.to_lowercase().chars().collect();
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == '?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((star_p, star_t)) = star {
            p = star_p + 1;
            t = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

/// Resolves `--models` (or the settings' `enabledModels`) against the available models, as
/// the reference's model scope: globs over `provider/id` and `id`, else the usual patterns.
/// Patterns matching nothing are warned about.
pub fn resolve_model_scope(
    patterns: &[String],
    available: &[Model],
) -> (Vec<ScopedModel>, Vec<String>) {
    let refs: Vec<&Model> = available.iter().collect();
    let mut scoped: Vec<ScopedModel> = Vec::new();
    let mut warnings = Vec::new();
    let add = |scoped: &mut Vec<ScopedModel>, model: &Model, level: Option<ThinkingLevel>| {
        if !scoped.iter().any(|entry| same_model(&entry.model, model)) {
            scoped.push(ScopedModel {
                model: model.clone(),
                thinking_level: level,
            });
        }
    };
    for pattern in patterns.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
        if pattern.contains(['*', '?', '[']) {
            let (glob, level) = match pattern.rsplit_once(':') {
                Some((glob, suffix)) if ThinkingLevel::parse(suffix).is_some() => {
                    (glob, ThinkingLevel::parse(suffix))
                }
                _ => (pattern, None),
            };
            if let Some(exact) = find_exact_reference(glob, &refs) {
                add(&mut scoped, exact, level);
                continue;
            }
            let matching: Vec<&Model> = refs
                .iter()
                .copied()
                .filter(|m| {
                    glob_matches(glob, &format!("{}/{}", m.provider, m.id))
                        || glob_matches(glob, &m.id)
                })
                .collect();
            if matching.is_empty() {
                warnings.push(format!("No models match pattern \"{pattern}\""));
            }
            for model in matching {
                add(&mut scoped, model, level);
            }
            continue;
        }
        let parsed = parse_pattern(pattern, &refs, true);
        if let Some(warning) = parsed.warning {
            warnings.push(warning);
        }
        match parsed.model {
            Some(model) => add(&mut scoped, model, parsed.thinking_level),
            None => warnings.push(format!("No models match pattern \"{pattern}\"")),
        }
    }
    (scoped, warnings)
}

#[cfg(test)]
mod tests;
