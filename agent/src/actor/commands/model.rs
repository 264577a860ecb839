//! The model and its thinking level: `get_available_models`, `set_model`, `cycle_model`,
//! `get_available_thinking_levels`, `set_thinking_level` and `cycle_thinking_level`; and the
//! switches themselves, which extensions' `setModel` / `setThinkingLevel` calls share.

use pi_rpc_protocol::command::{SetModelCommand, SetThinkingLevelCommand};
use pi_rpc_protocol::event::{Event, ThinkingLevelChangedEvent};
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use pi_rpc_protocol::response::{
    AvailableModels, AvailableThinkingLevels, CycleModelResult, ThinkingLevelResult,
};
use pi_rpc_protocol::{RequestId, Response};

use crate::actor::{State, log_store_error};
use crate::model_resolver::{
    DEFAULT_THINKING_LEVEL, ScopedModel, clamp_thinking_level, same_model,
};
use crate::release::Feature;

impl State {
    pub(super) fn get_available_models_command(&mut self, id: Option<RequestId>) {
        let models = AvailableModels {
            models: self.config.registry.available(),
        };
        self.respond(id, "get_available_models", &models);
    }

    pub(super) fn set_model_command(&mut self, id: Option<RequestId>, set: SetModelCommand) {
        let kind = "set_model";
        let available = self.config.registry.available();
        let found = available
            .into_iter()
            .find(|model| model.provider == set.provider && model.id == set.model_id);
        match found {
            Some(model) => {
                let previous = self.model.clone();
                self.switch_model(model.clone(), None);
                self.respond_after_model_select(id, kind, &model, previous.as_ref(), "set");
            }
            None => {
                let message = format!("Model not found: {}/{}", set.provider, set.model_id);
                self.write(Response::error(id, Some(kind), message));
            }
        }
    }

    /// Switches to the next model: of the `--models` scope when there is one, else of every
    /// available model. `data: null` when there is nothing to switch to.
    pub(super) fn cycle_model_command(&mut self, id: Option<RequestId>) {
        let available = self.config.registry.available();
        let is_scoped = !self.scoped_models.is_empty();
        let candidates: Vec<ScopedModel> = if is_scoped {
            self.scoped_models
                .iter()
                .filter(|scoped| available.iter().any(|m| same_model(m, &scoped.model)))
                .cloned()
                .collect()
        } else {
            available
                .into_iter()
                .map(|model| ScopedModel {
                    model,
                    thinking_level: None,
                })
                .collect()
        };
        if candidates.len() <= 1 {
            self.respond(id, "cycle_model", &serde_json::Value::Null);
            return;
        }
        let current = candidates
            .iter()
            .position(|scoped| {
                self.model
                    .as_ref()
                    .is_some_and(|model| same_model(&scoped.model, model))
            })
            .unwrap_or(0);
        let next = candidates[(current + 1) % candidates.len()].clone();
        let previous = self.model.clone();
        self.switch_model(next.model.clone(), next.thinking_level);
        let result = CycleModelResult {
            model: next.model,
            thinking_level: self.thinking_level,
            is_scoped,
        };
        self.respond_after_model_select(id, "cycle_model", &result, previous.as_ref(), "cycle");
    }

    pub(super) fn get_available_thinking_levels_command(&mut self, id: Option<RequestId>) {
        let levels = AvailableThinkingLevels {
            levels: self.thinking_levels(),
        };
        self.respond(id, "get_available_thinking_levels", &levels);
    }

    pub(super) fn set_thinking_level_command(
        &mut self,
        id: Option<RequestId>,
        set: SetThinkingLevelCommand,
    ) {
        let previous = self.change_thinking_level(set.level);
        self.answer_after_thinking_level_select(previous, id, "set_thinking_level", None);
    }

    pub(super) fn cycle_thinking_level_command(&mut self, id: Option<RequestId>) {
        let kind = "cycle_thinking_level";
        if !self.model_reasons() {
            self.respond(id, kind, &serde_json::Value::Null);
            return;
        }
        let levels = self.thinking_levels();
        let next = levels
            .iter()
            .position(|level| *level == self.thinking_level)
            .map_or(0, |index| (index + 1) % levels.len());
        let level = levels.get(next).copied().unwrap_or(ThinkingLevel::Off);
        let previous = self.change_thinking_level(level);
        let data = serde_json::to_value(ThinkingLevelResult { level }).ok();
        self.answer_after_thinking_level_select(previous, id, kind, data);
    }

    /// Sets the level, clamped to the model; announces and saves a change, and tells the
    /// `thinking_level_select` handlers without waiting for them.
    pub(in crate::actor) fn set_thinking_level(&mut self, level: ThinkingLevel) {
        if let Some(previous) = self.change_thinking_level(level) {
            self.announce_thinking_level_select(previous);
        }
    }

    /// Sets the level, clamped to the model; announces (`thinking_level_changed`) and saves a
    /// change: the level before it, `None` when the level stays.
    pub(in crate::actor) fn change_thinking_level(
        &mut self,
        level: ThinkingLevel,
    ) -> Option<ThinkingLevel> {
        let effective = match &self.model {
            Some(model) => clamp_thinking_level(model, level),
            None => ThinkingLevel::Off,
        };
        if effective == self.thinking_level {
            return None;
        }
        let previous = std::mem::replace(&mut self.thinking_level, effective);
        log_store_error(self.store.append_thinking_level_change(effective.as_str()));
        if self.model_reasons() || effective != ThinkingLevel::Off {
            self.config.settings.set_default_thinking_level(effective);
        }
        let event = Event::ThinkingLevelChanged(ThinkingLevelChangedEvent { level: effective });
        self.emit(event);
        self.send_model_state();
        Some(previous)
    }

    /// Switches to `model`, keeping the thinking level where the new model allows it.
    pub(in crate::actor) fn switch_model(
        &mut self,
        model: Model,
        explicit_level: Option<ThinkingLevel>,
    ) {
        let level = if let Some(level) = explicit_level {
            level
        } else if self.model_reasons() || self.release.has(Feature::ThinkingLevelKept) {
            self.thinking_level
        } else {
            self.config
                .settings
                .default_thinking_level()
                .unwrap_or(DEFAULT_THINKING_LEVEL)
        };
        self.config
            .settings
            .set_default_model(&model.provider, &model.id);
        log_store_error(self.store.append_model_change(&model.provider, &model.id));
        self.model = Some(model);
        self.set_thinking_level(level);
        self.send_model_state();
    }
}
