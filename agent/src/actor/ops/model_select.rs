//! A model change whose answer waits for the `model_select` handlers, as in the reference:
//! the `set_model` and `cycle_model` commands (answered with their data) and an extension's
//! `pi.setModel` (its call resolved `true`); and a thinking level change from the client
//! (`set_thinking_level`, `cycle_thinking_level`) whose answer waits for the
//! `thinking_level_select` handlers, as pi runs them before it answers. A change that comes with
//! a model change tells them without waiting (`model_select` follows and is waited for). The
//! `set_session_name` command's answer likewise waits for the `session_info_changed` handlers.
//!
//! | state | input | next | what happens |
//! |---|---|---|---|
//! | changed | the model is the one it was, or no extension handles `model_select` | answered | at once |
//! | changed | otherwise | `Handlers` | `model_select` goes to the host (source `set` or `cycle`) |
//! | `Handlers` | the handlers are done (or the host ended) | answered | the command's answer, or the call resolved `true` |

use pi_rpc_protocol::model::{Model, ThinkingLevel};
use pi_rpc_protocol::{RequestId, Response};
use serde_json::Value;

use super::ids::{OpKey, OpRoute};
use crate::actor::State;
use crate::actor::extensions::handles_event;
use crate::extensions::HostEvent;
use crate::model_resolver::same_model;

/// What a model change whose `model_select` handlers run answers once they are done.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::actor) enum AfterModelSelect {
    /// The client's command (its id and name), answered with its data.
    Respond(Option<RequestId>, &'static str, Value),
    /// An extension's `pi.setModel` (the host's reply id), resolved `true`.
    ResolveSetModel(String),
    /// The client's thinking level command (its id and name), answered with its data, if any.
    Acknowledge(Option<RequestId>, &'static str, Option<Value>),
}

impl State {
    /// Answers `set_model` or `cycle_model` (`source` `set` or `cycle`) with `data`, after the
    /// `model_select` handlers when the model changed from `previous`.
    pub(in crate::actor) fn respond_after_model_select<T: serde::Serialize>(
        &mut self,
        id: Option<RequestId>,
        command: &'static str,
        data: &T,
        previous: Option<&Model>,
        source: &'static str,
    ) {
        match self.announce_model_select(previous, source) {
            Some(key) => {
                let data = serde_json::to_value(data).unwrap_or(Value::Null);
                let after = AfterModelSelect::Respond(id, command, data);
                self.ops.model_selects.insert(key, after);
            }
            None => self.respond(id, command, data),
        }
    }

    /// Resolves an extension's `pi.setModel` (its reply id) `true`, after the `model_select`
    /// handlers (source `set`) when the model changed from `previous`.
    pub(in crate::actor) fn resolve_after_model_select(
        &mut self,
        reply: String,
        previous: Option<&Model>,
    ) {
        match self.announce_model_select(previous, "set") {
            Some(key) => {
                let after = AfterModelSelect::ResolveSetModel(reply);
                self.ops.model_selects.insert(key, after);
            }
            None => self.reply_to_host(&reply, true),
        }
    }

    /// The `model_select` handlers of the change `key` are done (or the host ended).
    pub(in crate::actor) fn model_select_done(&mut self, key: OpKey) {
        match self.ops.model_selects.remove(&key) {
            Some(AfterModelSelect::Respond(id, command, data)) => {
                self.respond(id, command, &data);
            }
            Some(AfterModelSelect::ResolveSetModel(reply)) => self.reply_to_host(&reply, true),
            Some(AfterModelSelect::Acknowledge(id, command, data)) => {
                self.acknowledge(id, command, data.as_ref());
            }
            None => {}
        }
    }

    /// Answers the thinking level command `command` (with `data`, if any), after the
    /// `thinking_level_select` handlers when the level changed from `previous`.
    pub(in crate::actor) fn answer_after_thinking_level_select(
        &mut self,
        previous: Option<ThinkingLevel>,
        id: Option<RequestId>,
        command: &'static str,
        data: Option<Value>,
    ) {
        match previous.and_then(|previous| self.announce_thinking_level_select(previous)) {
            Some(key) => {
                let after = AfterModelSelect::Acknowledge(id, command, data);
                self.ops.model_selects.insert(key, after);
            }
            None => self.acknowledge(id, command, data.as_ref()),
        }
    }

    /// Sends `thinking_level_select` (the level now, and `previous`) to its handlers when some
    /// extension handles it: the key of the change that waits for them.
    pub(in crate::actor) fn announce_thinking_level_select(
        &mut self,
        previous: ThinkingLevel,
    ) -> Option<OpKey> {
        let event = HostEvent::ThinkingLevelSelect {
            level: self.thinking_level,
            previous_level: previous,
        };
        let key = self.ops.key();
        self.send_op_event(OpRoute::ThinkingLevelSelect(key), &event)
            .then_some(key)
    }

    /// Answers `set_session_name` after the `session_info_changed` handlers (of the name now),
    /// when some extension handles it.
    pub(in crate::actor) fn answer_after_session_info_changed(&mut self, id: Option<RequestId>) {
        let name = self.session_name.clone();
        let event = HostEvent::SessionInfoChanged {
            name: name.as_deref(),
        };
        let key = self.ops.key();
        if self.send_op_event(OpRoute::SessionInfoChanged(key), &event) {
            let after = AfterModelSelect::Acknowledge(id, "set_session_name", None);
            self.ops.model_selects.insert(key, after);
        } else {
            self.acknowledge(id, "set_session_name", None);
        }
    }

    fn acknowledge(&mut self, id: Option<RequestId>, command: &'static str, data: Option<&Value>) {
        match data {
            Some(data) => self.respond(id, command, data),
            None => self.write(Response::ok(id, command)),
        }
    }

    /// Sends `model_select` to its handlers when the model changed from `previous` and some
    /// extension handles it: the key of the change that waits for them.
    fn announce_model_select(
        &mut self,
        previous: Option<&Model>,
        source: &'static str,
    ) -> Option<OpKey> {
        let model = self.model.as_ref()?;
        let changed = previous.is_none_or(|previous| !same_model(previous, model));
        if !changed || !handles_event(&self.extensions, "model_select") {
            return None;
        }
        let event = HostEvent::ModelSelect {
            model: Box::new(model.clone()),
            previous_model: previous.cloned().map(Box::new),
            source,
        };
        let key = self.ops.key();
        self.send_op_event(OpRoute::ModelSelect(key), &event)
            .then_some(key)
    }
}
