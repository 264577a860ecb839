//! Answers to each command, worded and ordered as the reference answers them.

use pi_rpc_protocol::command::{Command, PromptCommand, QueueMessageCommand, StreamingBehavior};
use pi_rpc_protocol::content::{AssistantContent, MessageContent, TextContent, UserContent};
use pi_rpc_protocol::event::{Event, SessionInfoChangedEvent, ThinkingLevelChangedEvent};
use pi_rpc_protocol::message::{AgentMessage, StopReason, UserMessage};
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use pi_rpc_protocol::response::{
    AvailableModels, AvailableThinkingLevels, CancelledResult, CycleModelResult, LastAssistantText,
    SessionState, ThinkingLevelResult,
};
use pi_rpc_protocol::{Request, RequestId, Response};
use serde::Serialize;

use super::answer::{MessagesJson, stream_answer};
use super::{Deferred, Session, log_store_error};
use crate::js::now_ms;
use crate::model_resolver::{
    DEFAULT_THINKING_LEVEL, ScopedModel, clamp_thinking_level, same_model,
};
use crate::release::{Disposition, Feature};

/// The error of a prompt sent while a run is in progress without `streamingBehavior`.
const ALREADY_PROCESSING: &str = "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";

impl Session {
    pub(super) async fn handle_command(&mut self, request: Request) {
        let Request { id, command } = request;
        let kind = command.type_name();
        match command {
            Command::Prompt(prompt) => self.prompt(id, prompt).await,
            Command::Steer(mut queued) => {
                queued.message = self.resources.expand(&queued.message);
                self.queue_message(queued, StreamingBehavior::Steer).await;
                self.answer_queued(id, kind).await;
            }
            Command::FollowUp(mut queued) => {
                queued.message = self.resources.expand(&queued.message);
                self.queue_message(queued, StreamingBehavior::FollowUp)
                    .await;
                self.answer_queued(id, kind).await;
            }
            Command::Abort(_) => {
                if self.release.has(Feature::AbortCancelsCompaction) {
                    self.cancel_manual_compaction().await;
                }
                if self.stop_activity() {
                    self.deferred.push(Deferred::Abort(id));
                } else {
                    self.write(&Response::ok(id, kind)).await;
                }
            }
            Command::NewSession(new_session) => {
                let then =
                    super::waiting::AfterShutdown::NewSession(id, new_session.parent_session);
                self.begin_replacement(then).await;
            }
            Command::GetEntries(get) => {
                let streamed = match self.store.entries_json(get.since.as_deref()) {
                    Ok(pieces) => Ok(stream_answer(&mut self.out, id.clone(), kind, pieces).await),
                    Err(error) => Err(error),
                };
                self.after_streamed(id, kind, streamed).await;
            }
            Command::GetTree(_) => {
                let streamed = match self.store.tree_pieces() {
                    Ok(pieces) => Ok(stream_answer(&mut self.out, id.clone(), kind, pieces).await),
                    Err(error) => Err(error),
                };
                self.after_streamed(id, kind, streamed).await;
            }
            Command::GetForkMessages(_) => {
                let pieces = self.store.fork_messages_json();
                let streamed = stream_answer(&mut self.out, id.clone(), kind, pieces).await;
                self.after_streamed(id, kind, Ok(streamed)).await;
            }
            Command::AbortRetry(_) => {
                // As in the reference, the retry ends before the answer and the agent settles
                // after it.
                let waiting = self.tasks.forget(super::tasks::TaskKind::RetryWait);
                if waiting {
                    self.end_cancelled_retry().await;
                }
                self.write(&Response::ok(id, kind)).await;
                if waiting {
                    self.continue_or_settle().await;
                }
            }
            Command::SetAutoRetry(set) => {
                self.config.settings.set_retry_enabled(set.enabled);
                self.write(&Response::ok(id, kind)).await;
            }
            Command::GetState(_) => {
                let state = self.state();
                self.respond(id, kind, &state).await;
            }
            Command::GetMessages(_) => {
                let pieces = MessagesJson::new(&self.messages);
                let streamed = stream_answer(&mut self.out, id.clone(), kind, pieces).await;
                self.after_streamed(id, kind, Ok(streamed)).await;
            }
            Command::GetAvailableModels(_) => {
                let models = AvailableModels {
                    models: self.config.registry.available(),
                };
                self.respond(id, kind, &models).await;
            }
            Command::GetAvailableThinkingLevels(_) => {
                let levels = AvailableThinkingLevels {
                    levels: self.thinking_levels(),
                };
                self.respond(id, kind, &levels).await;
            }
            Command::SetThinkingLevel(set) => {
                self.set_thinking_level(set.level).await;
                self.write(&Response::ok(id, kind)).await;
            }
            Command::CycleThinkingLevel(_) => {
                if !self.model_reasons() {
                    self.respond(id, kind, &serde_json::Value::Null).await;
                    return;
                }
                let levels = self.thinking_levels();
                let next = levels
                    .iter()
                    .position(|level| *level == self.thinking_level)
                    .map_or(0, |index| (index + 1) % levels.len());
                let level = levels.get(next).copied().unwrap_or(ThinkingLevel::Off);
                self.set_thinking_level(level).await;
                self.respond(id, kind, &ThinkingLevelResult { level }).await;
            }
            Command::SetModel(set) => {
                let available = self.config.registry.available();
                let found = available
                    .into_iter()
                    .find(|model| model.provider == set.provider && model.id == set.model_id);
                match found {
                    Some(model) => {
                        let previous = self.model.clone();
                        self.switch_model(model.clone(), None).await;
                        self.respond_after_model_select(id, kind, &model, previous.as_ref(), "set")
                            .await;
                    }
                    None => {
                        let message = format!("Model not found: {}/{}", set.provider, set.model_id);
                        self.write(&Response::error(id, Some(kind), message)).await;
                    }
                }
            }
            Command::CycleModel(_) => self.cycle_model(id).await,
            Command::SetSteeringMode(set) => {
                self.steering_mode = set.mode;
                self.config.settings.set_steering_mode(set.mode);
                self.write(&Response::ok(id, kind)).await;
            }
            Command::SetFollowUpMode(set) => {
                self.follow_up_mode = set.mode;
                self.config.settings.set_follow_up_mode(set.mode);
                self.write(&Response::ok(id, kind)).await;
            }
            Command::Compact(compact) => {
                self.compact_command(id, compact.custom_instructions).await;
            }
            Command::SetAutoCompaction(set) => {
                self.config.settings.set_compaction_enabled(set.enabled);
                self.auto_compaction = self.config.settings.compaction_enabled();
                self.write(&Response::ok(id, kind)).await;
            }
            Command::GetLastAssistantText(_) => {
                let text = LastAssistantText {
                    text: self.last_assistant_text(),
                };
                self.respond(id, kind, &text).await;
            }
            Command::SwitchSession(switch) => {
                let replacement = super::waiting::Replacement::Switch(switch.session_path);
                self.request_replacement(id, replacement).await;
            }
            Command::Fork(fork) => {
                let replacement = super::waiting::Replacement::Fork(fork.entry_id);
                self.request_replacement(id, replacement).await;
            }
            Command::Clone(_) => {
                self.request_replacement(id, super::waiting::Replacement::Clone)
                    .await;
            }
            Command::GetSessionStats(_) => {
                let stats = self.session_stats();
                self.respond(id, kind, &stats).await;
            }
            Command::ExportHtml(export) => {
                let system_prompt = self.system_prompt();
                let tools = self.active_tools();
                let written = crate::export_html::export(
                    &self.store,
                    &system_prompt,
                    &tools,
                    export.output_path.as_deref(),
                );
                match written {
                    Ok(path) => {
                        let result = pi_rpc_protocol::response::ExportHtmlResult { path };
                        self.respond(id, kind, &result).await;
                    }
                    Err(error) => {
                        self.write(&Response::error(id, Some(kind), error.to_string()))
                            .await;
                    }
                }
            }
            Command::GetCommands(_) => {
                let extension_commands = self.extension_commands();
                let builtin = self.builtin_commands.clone();
                let commands =
                    super::stats::commands_data(extension_commands, builtin, &self.resources);
                self.respond(id, kind, &commands).await;
            }
            Command::ClearQueue(_) => self.clear_queue(id).await,
            Command::Bash(bash) => self.user_bash(id, bash).await,
            Command::AbortBash(_) => {
                self.abort_bash();
                self.write(&Response::ok(id, kind)).await;
            }
            Command::SetSessionName(set) => {
                let name = crate::session::sanitize_name(&set.name);
                let name = name.as_str();
                if name.is_empty() {
                    let response = Response::error(id, Some(kind), "Session name cannot be empty");
                    self.write(&response).await;
                    return;
                }
                self.session_name = Some(name.to_owned());
                log_store_error(self.store.append_session_info(name));
                let event = Event::SessionInfoChanged(SessionInfoChangedEvent {
                    name: Some(name.to_owned()),
                });
                self.emit(event).await;
                self.write(&Response::ok(id, kind)).await;
            }
        }
    }

    /// Cancels the run and any retry wait; true when the agent was busy, so that an answer
    /// must wait for `agent_settled`.
    pub(super) fn stop_activity(&mut self) -> bool {
        self.tasks.cancel(super::tasks::TaskKind::RetryWait);
        self.tasks.cancel(super::tasks::TaskKind::AgentLoop);
        self.streaming
    }

    pub(super) async fn respond<T: Serialize>(
        &mut self,
        id: Option<RequestId>,
        kind: &str,
        data: &T,
    ) {
        let response = match Response::with_data(id.clone(), kind, data) {
            Ok(response) => response,
            Err(error) => {
                Response::error(id, Some(kind), format!("cannot encode the result: {error}"))
            }
        };
        self.write(&response).await;
    }

    fn state(&self) -> SessionState {
        SessionState {
            model: Some(self.shown_model().into_owned()),
            thinking_level: self.thinking_level,
            is_streaming: self.streaming,
            is_compacting: self.compaction.is_active(),
            steering_mode: self.steering_mode,
            follow_up_mode: self.follow_up_mode,
            session_file: self
                .store
                .session_file()
                .map(|path| path.to_string_lossy().into_owned()),
            session_id: self.store.session_id().to_owned(),
            session_name: self.session_name.clone(),
            auto_compaction_enabled: self.auto_compaction,
            message_count: self.messages.len() as u64,
            pending_message_count: (self.steering_texts.len() + self.follow_up_texts.len()) as u64,
        }
    }

    async fn prompt(&mut self, id: Option<RequestId>, prompt: PromptCommand) {
        if self.run_extension_command(&id, &prompt.message).await {
            return;
        }
        if let Some((id, prompt)) = self.extension_input(id, prompt).await {
            self.accept_prompt(id, prompt).await;
        }
    }

    /// A prompt past the extensions' commands and `input` handlers: queued during a run, else
    /// answered and run.
    pub(super) async fn accept_prompt(&mut self, id: Option<RequestId>, mut prompt: PromptCommand) {
        prompt.message = self.resources.expand(&prompt.message);
        if self.streaming {
            let Some(behavior) = prompt.streaming_behavior else {
                self.write(&Response::error(id, Some("prompt"), ALREADY_PROCESSING))
                    .await;
                return;
            };
            let queued = QueueMessageCommand {
                message: prompt.message,
                images: prompt.images,
            };
            self.queue_message(queued, behavior).await;
            self.write(&self.release.accepted(id, "prompt", Disposition::Queued))
                .await;
            return;
        }
        if self.compaction.blocks_prompts() {
            let error = super::compaction::PROMPT_WHILE_COMPACTING;
            self.write(&Response::error(id, Some("prompt"), error))
                .await;
            return;
        }
        let provider = self.model.as_ref().map(|model| model.provider.as_str());
        if !provider.is_some_and(|provider| self.config.registry.has_auth(provider)) {
            let message = no_api_key_message(provider);
            self.write(&Response::error(id, Some("prompt"), message))
                .await;
            return;
        }
        let message = user_message(prompt.message, prompt.images);
        if self
            .compact_before_prompt(id.clone(), message.clone())
            .await
        {
            return;
        }
        let prompts = self.with_next_turn_messages(message);
        self.start_prompt_run(id, prompts).await;
    }

    async fn queue_message(&mut self, queued: QueueMessageCommand, behavior: StreamingBehavior) {
        let text = queued.message.clone();
        let message = user_message(queued.message, queued.images);
        match behavior {
            StreamingBehavior::Steer => {
                self.steering_texts.push(text);
                self.emit_queue_update().await;
                self.steering_queue.push_back(message);
            }
            StreamingBehavior::FollowUp => {
                self.follow_up_texts.push(text);
                self.emit_queue_update().await;
                self.follow_up_queue.push_back(message);
            }
        }
    }

    /// Switches to the next model: of the `--models` scope when there is one, else of every
    /// available model. `data: null` when there is nothing to switch to.
    async fn cycle_model(&mut self, id: Option<RequestId>) {
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
            self.respond(id, "cycle_model", &serde_json::Value::Null)
                .await;
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
        self.switch_model(next.model.clone(), next.thinking_level)
            .await;
        let result = CycleModelResult {
            model: next.model,
            thinking_level: self.thinking_level,
            is_scoped,
        };
        self.respond_after_model_select(id, "cycle_model", &result, previous.as_ref(), "cycle")
            .await;
    }

    /// Sets the level, clamped to the model; announces and saves a change.
    pub(super) async fn set_thinking_level(&mut self, level: ThinkingLevel) {
        let effective = match &self.model {
            Some(model) => clamp_thinking_level(model, level),
            None => ThinkingLevel::Off,
        };
        if effective == self.thinking_level {
            return;
        }
        self.thinking_level = effective;
        log_store_error(self.store.append_thinking_level_change(effective.as_str()));
        if self.model_reasons() || effective != ThinkingLevel::Off {
            self.config.settings.set_default_thinking_level(effective);
        }
        let event = Event::ThinkingLevelChanged(ThinkingLevelChangedEvent { level: effective });
        self.emit(event).await;
        self.send_model_state().await;
    }

    /// Switches to `model`, keeping the thinking level where the new model allows it.
    pub(super) async fn switch_model(
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
        self.set_thinking_level(level).await;
        self.send_model_state().await;
    }

    fn last_assistant_text(&self) -> Option<String> {
        let last = self
            .messages
            .iter()
            .rev()
            .find_map(|message| match message {
                AgentMessage::Assistant(assistant)
                    if !(assistant.stop_reason == StopReason::Aborted
                        && assistant.content.is_empty()) =>
                {
                    Some(assistant)
                }
                _ => None,
            })?;
        let text: String = last
            .content
            .iter()
            .filter_map(|block| match block {
                AssistantContent::Text(text) => Some(text.text.as_str()),
                _ => None,
            })
            .collect();
        let trimmed = text.trim();
        (!trimmed.is_empty()).then(|| trimmed.to_owned())
    }

    pub(super) async fn finish_new_session(
        &mut self,
        id: Option<RequestId>,
        parent_session: Option<String>,
    ) {
        let then = super::waiting::AfterShutdown::NewSession(id.clone(), parent_session.clone());
        if self.shutdown_for_extensions(then, "new").await {
            return;
        }
        let previous = self.store.session_file();
        self.tasks.new_generation();
        self.abort_bash();
        self.pending_bash.clear();
        self.messages.clear();
        self.steering_texts.clear();
        self.follow_up_texts.clear();
        self.steering_queue.clear();
        self.follow_up_queue.clear();
        self.session_name = None;
        match self.take_prepared_session() {
            Some(prepared) => self.store = prepared.store,
            None => {
                self.store.new_session(parent_session.as_deref());
            }
        }
        self.start_on_store();
        let result = CancelledResult { cancelled: false };
        self.respond_replaced(id, "new_session", &result, "new", previous)
            .await;
    }
}

/// A user message with the prompt's text first, then its images.
fn user_message(
    text: String,
    images: Option<Vec<pi_rpc_protocol::content::TaggedImage>>,
) -> AgentMessage {
    let mut content = vec![UserContent::Text(TextContent::new(text))];
    for pi_rpc_protocol::content::TaggedImage::Image(image) in images.into_iter().flatten() {
        content.push(UserContent::Image(image));
    }
    AgentMessage::User(UserMessage {
        content: MessageContent::Blocks(content),
        timestamp: now_ms(),
        extra: Default::default(),
    })
}

/// The error of a prompt without credentials (`provider`: the model's, none without a model).
fn no_api_key_message(provider: Option<&str>) -> String {
    let display = provider.unwrap_or("the selected model");
    format!(
        "No API key found for {display}.\n\nGive one with --api-key, in auth.json, as the provider's apiKey in models.json, or in the provider's environment variable."
    )
}
