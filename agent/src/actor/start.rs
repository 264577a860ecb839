//! The model and thinking level a session starts with, each time one starts or is opened (at
//! start-up, `new_session`, `switch_session`, `fork`, `clone`), as the reference builds every
//! new runtime from the same command line: `--model` and `--thinking` win; otherwise a session
//! with messages gets back its own model (when it has credentials) and its own thinking level,
//! and a new one the model of the `--models` scope or the settings' default with the saved
//! `defaultThinkingLevel` (which `set_thinking_level` updates), not the level of the session
//! it replaces.

use std::borrow::Cow;

use pi_rpc_protocol::model::{Model, ThinkingLevel};

use super::{State, log_store_error};
use crate::model_resolver::{
    DEFAULT_THINKING_LEVEL, clamp_thinking_level, initial_model, scoped_choice, unknown_model,
};

/// What the command line fixed for every session of this process.
#[derive(Debug, Clone, Default)]
pub(super) struct CliStart {
    /// `--model`.
    pub(super) model: Option<Model>,
    /// `--thinking`, else the `--model` suffix.
    pub(super) thinking_level: Option<ThinkingLevel>,
}

impl State {
    /// Takes the session in the store as the current one: restores its messages, chooses the
    /// model and thinking level, and records them in a session that has no messages (and the
    /// level in one whose branch records none).
    pub(super) fn start_on_store(&mut self) {
        let context = self.store.build_context();
        let has_existing = !context.messages.is_empty();
        let has_thinking_entry = self.store.branch_has_thinking_level();
        let mut model = self.cli_start.model.clone();
        let mut level = self.cli_start.thinking_level;
        if model.is_none()
            && !has_existing
            && let Some(chosen) = scoped_choice(&self.scoped_models, &self.config)
        {
            level = level.or(chosen.thinking_level);
            model = Some(chosen.model.clone());
        }
        if model.is_none()
            && has_existing
            && let Some(wanted) = &context.model
        {
            model = self
                .config
                .registry
                .available()
                .into_iter()
                .find(|model| model.provider == wanted.provider && model.id == wanted.model_id);
        }
        let model = model.or_else(|| initial_model(&self.config));
        let default_level = self
            .config
            .settings
            .default_thinking_level()
            .unwrap_or(DEFAULT_THINKING_LEVEL);
        let level = level.unwrap_or_else(|| match has_existing && has_thinking_entry {
            true => ThinkingLevel::parse(&context.thinking_level).unwrap_or(default_level),
            false => default_level,
        });
        self.thinking_level = match &model {
            Some(model) => clamp_thinking_level(model, level),
            None => ThinkingLevel::Off,
        };
        self.model = model;
        if has_existing {
            self.messages = context.messages;
            if !has_thinking_entry {
                log_store_error(
                    self.store
                        .append_thinking_level_change(self.thinking_level.as_str()),
                );
            }
        } else {
            self.messages.clear();
            if let Some(model) = &self.model {
                log_store_error(self.store.append_model_change(&model.provider, &model.id));
            }
            log_store_error(
                self.store
                    .append_thinking_level_change(self.thinking_level.as_str()),
            );
        }
        self.session_name = self.store.session_name();
    }
}

impl State {
    /// The model as the records show it: the session's, or the reference's `unknown`
    /// placeholder when there is none (`get_state`, the extensions' model state, and the failed
    /// answer of a call made without a model: no provider speaks its api).
    pub(super) fn shown_model(&self) -> Cow<'_, Model> {
        match &self.model {
            Some(model) => Cow::Borrowed(model),
            None => Cow::Owned(unknown_model()),
        }
    }

    /// Whether the session's model reasons (no model does not).
    pub(super) fn model_reasons(&self) -> bool {
        self.model.as_ref().is_some_and(|model| model.reasoning)
    }

    /// The thinking levels the session's model supports (`off` alone without a model).
    pub(super) fn thinking_levels(&self) -> Vec<ThinkingLevel> {
        match &self.model {
            Some(model) => crate::model_resolver::supported_thinking_levels(model),
            None => vec![ThinkingLevel::Off],
        }
    }
}
