//! Messages extensions add to the conversation (`pi.sendMessage`, `pi.sendUserMessage`) and
//! the prompt's `input` and `before_agent_start` events, whose handlers may rewrite, handle or
//! extend a prompt before it runs.

use pi_rpc_protocol::command::PromptCommand;
use pi_rpc_protocol::content::{MessageContent, TaggedImage, TextContent, UserContent};
use pi_rpc_protocol::event::{Event, MessageEvent};
use pi_rpc_protocol::message::{AgentMessage, CustomMessage, UserMessage};
use pi_rpc_protocol::{RequestId, Response};
use serde_json::Value;

use super::{Pending, Session, Triggered, handles_event, log_store_error};
use crate::extensions::OutgoingCustomMessage;

impl Session {
    /// Starts the run of the user messages a command sent, now that it is answered.
    pub(super) fn start_after_command(&mut self) {
        let Some(ext) = &mut self.extensions else {
            return;
        };
        let messages = std::mem::take(&mut ext.after_command);
        let mut messages = messages.into_iter();
        let Some(first) = messages.next() else {
            return;
        };
        if self.streaming {
            self.follow_up_queue.push_back(first);
        } else {
            self.start_run(vec![first], false);
        }
        // Later ones wait for the first to finish, as queued follow-ups do.
        self.follow_up_queue.extend(messages);
    }

    /// Whether an extension command is running (its prompt not answered yet).
    pub(super) fn command_running(&self) -> bool {
        self.extensions.as_ref().is_some_and(|ext| {
            ext.pending
                .values()
                .any(|pending| matches!(pending, Pending::Command(_)))
        })
    }

    /// `pi.sendMessage`: a `nextTurn` message waits for the next prompt; during a run the
    /// message steers (or follows up); an idle agent starts a run with it (`triggerTurn`) or
    /// adds it to the conversation, announced by `message_start` and `message_end`.
    pub(super) async fn extension_custom_message(
        &mut self,
        message: OutgoingCustomMessage,
        deliver_as: Option<&str>,
        trigger_turn: bool,
    ) {
        let agent_message = AgentMessage::Custom(custom_message(message));
        if deliver_as == Some("nextTurn") {
            if let Some(ext) = &mut self.extensions {
                ext.next_turn.push(agent_message);
            }
        } else if self.streaming {
            if deliver_as == Some("followUp") {
                self.follow_up_queue.push_back(agent_message);
            } else {
                self.steering_queue.push_back(agent_message);
            }
        } else if trigger_turn {
            let during_command = self.command_running();
            self.start_run(vec![agent_message], false);
            if let Some(ext) = &mut self.extensions
                && during_command
            {
                ext.triggered = Triggered::BeforeStart;
            }
        } else {
            self.emit(Event::MessageStart(MessageEvent {
                message: agent_message.clone(),
            }))
            .await;
            self.emit(Event::MessageEnd(MessageEvent {
                message: agent_message.clone(),
            }))
            .await;
            self.record_custom_message(&agent_message);
            self.messages.push(agent_message);
        }
    }

    /// `pi.sendUserMessage`: during a run it is queued as a steering or follow-up message (as
    /// `deliverAs` says); else it starts a run, after the command that sent it is answered.
    pub(super) async fn extension_user_message(
        &mut self,
        text: String,
        images: Option<Vec<Value>>,
        deliver_as: Option<&str>,
    ) {
        let mut content = vec![UserContent::Text(TextContent::new(text.clone()))];
        for image in images.into_iter().flatten() {
            if let Ok(TaggedImage::Image(image)) = serde_json::from_value(image) {
                content.push(UserContent::Image(image));
            }
        }
        let message = AgentMessage::User(UserMessage {
            content: MessageContent::Blocks(content),
            timestamp: crate::now_ms(),
            extra: Default::default(),
        });
        if self.streaming {
            match deliver_as {
                Some("followUp") => {
                    self.follow_up_texts.push(text);
                    self.emit_queue_update().await;
                    self.follow_up_queue.push_back(message);
                }
                Some(_) => {
                    self.steering_texts.push(text);
                    self.emit_queue_update().await;
                    self.steering_queue.push_back(message);
                }
                None => tracing::warn!(
                    "an extension sent a user message during a run without deliverAs; dropped"
                ),
            }
            return;
        }
        if self.command_running() {
            if let Some(ext) = &mut self.extensions {
                ext.after_command.push(message);
            }
        } else {
            self.start_run(vec![message], false);
        }
    }

    /// A prompt's `input` event: its handlers may transform the text or handle it themselves.
    /// The prompt is handed back when no extension handles `input`; else it goes on (with
    /// [`Session::accept_prompt`]) once they are done.
    pub(in crate::rpc::session) async fn extension_input(
        &mut self,
        id: Option<RequestId>,
        prompt: PromptCommand,
    ) -> Option<(Option<RequestId>, PromptCommand)> {
        if !handles_event(&self.extensions, "input") {
            return Some((id, prompt));
        }
        let mut event = serde_json::Map::new();
        event.insert("type".into(), "input".into());
        event.insert("text".into(), prompt.message.clone().into());
        if let Some(images) = &prompt.images {
            event.insert(
                "images".into(),
                serde_json::to_value(images).unwrap_or_default(),
            );
        }
        event.insert("source".into(), "rpc".into());
        if self.streaming
            && let Some(behavior) = &prompt.streaming_behavior
        {
            event.insert(
                "streamingBehavior".into(),
                serde_json::to_value(behavior).unwrap_or_default(),
            );
        }
        let pending = Pending::Input(id.clone(), prompt.clone());
        if self.send_event(pending, &Value::Object(event)).await {
            None
        } else {
            Some((id, prompt))
        }
    }

    pub(super) async fn after_input(
        &mut self,
        id: Option<RequestId>,
        mut prompt: PromptCommand,
        result: Option<Value>,
    ) {
        let result = result.unwrap_or(Value::Null);
        match result.get("action").and_then(Value::as_str) {
            Some("handled") => {
                self.write(&Response::ok(id, "prompt")).await;
                return;
            }
            Some("transform") => {
                if let Some(text) = result.get("text").and_then(Value::as_str) {
                    prompt.message = text.to_owned();
                }
                if let Some(images) = result.get("images") {
                    prompt.images = serde_json::from_value(images.clone()).ok();
                }
            }
            _ => {}
        }
        self.accept_prompt(id, prompt).await;
    }

    /// Answers the prompt and starts its run, after the `before_agent_start` handlers (which
    /// may add messages and change the system prompt of this run) when there are some.
    pub(in crate::rpc::session) async fn start_prompt_run(
        &mut self,
        id: Option<RequestId>,
        prompts: Vec<AgentMessage>,
    ) {
        if handles_event(&self.extensions, "before_agent_start") {
            let (text, images) = prompt_text_and_images(&prompts);
            let mut event = serde_json::Map::new();
            event.insert("type".into(), "before_agent_start".into());
            event.insert("prompt".into(), text.into());
            if let Some(images) = images {
                event.insert("images".into(), images);
            }
            event.insert(
                "systemPrompt".into(),
                self.resources.system_prompt(&self.config.cwd).into(),
            );
            let pending = Pending::BeforeStart(id.clone(), prompts.clone());
            if self.send_event(pending, &Value::Object(event)).await {
                return;
            }
        }
        self.write(&Response::ok(id, "prompt")).await;
        self.start_run(prompts, false);
    }

    pub(super) async fn after_before_agent_start(
        &mut self,
        id: Option<RequestId>,
        mut prompts: Vec<AgentMessage>,
        result: Option<Value>,
    ) {
        let result = result.unwrap_or(Value::Null);
        for message in result
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Ok(message) = serde_json::from_value::<OutgoingCustomMessage>(message.clone()) {
                prompts.push(AgentMessage::Custom(custom_message(message)));
            }
        }
        if let Some(ext) = &mut self.extensions {
            ext.system_prompt = result
                .get("systemPrompt")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        self.write(&Response::ok(id, "prompt")).await;
        self.start_run(prompts, false);
    }

    /// The system prompt `before_agent_start` handlers set for the run starting now.
    pub(in crate::rpc::session) fn take_extension_system_prompt(&mut self) -> Option<String> {
        self.extensions.as_mut()?.system_prompt.take()
    }

    /// The prompt's messages: `message`, then the extensions' `nextTurn` messages.
    pub(in crate::rpc::session) fn with_next_turn_messages(
        &mut self,
        message: AgentMessage,
    ) -> Vec<AgentMessage> {
        let mut messages = vec![message];
        if let Some(ext) = &mut self.extensions {
            messages.append(&mut ext.next_turn);
        }
        messages
    }

    /// Keeps an extension's custom message in the session file (`custom_message`).
    pub(in crate::rpc::session) fn record_custom_message(&mut self, message: &AgentMessage) {
        let AgentMessage::Custom(custom) = message else {
            return;
        };
        let content = serde_json::to_value(&custom.content).unwrap_or(Value::Null);
        log_store_error(self.store.append_custom_message_entry(
            &custom.custom_type,
            content,
            custom.display,
            custom.details.clone(),
        ));
    }
}

/// The custom message an extension sent, as it joins the conversation.
fn custom_message(message: OutgoingCustomMessage) -> CustomMessage {
    CustomMessage {
        custom_type: message.custom_type,
        content: serde_json::from_value::<MessageContent>(message.content)
            .unwrap_or(MessageContent::Blocks(Vec::new())),
        display: message.display.unwrap_or(false),
        details: message.details,
        timestamp: crate::now_ms(),
        extra: Default::default(),
    }
}

/// The text and images of a prompt's user message (its first message).
fn prompt_text_and_images(prompts: &[AgentMessage]) -> (String, Option<Value>) {
    let Some(AgentMessage::User(user)) = prompts.first() else {
        return (String::new(), None);
    };
    let text = crate::rpc::session::content_text(&user.content);
    let images: Vec<Value> = match &user.content {
        MessageContent::Blocks(blocks) => blocks
            .iter()
            .filter(|block| matches!(block, UserContent::Image(_)))
            .filter_map(|block| serde_json::to_value(block).ok())
            .collect(),
        MessageContent::Text(_) => Vec::new(),
    };
    (text, (!images.is_empty()).then_some(Value::Array(images)))
}
