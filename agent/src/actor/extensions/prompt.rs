//! Messages extensions add to the conversation (`pi.sendMessage`, `pi.sendUserMessage`) and the
//! `before_agent_start` event, whose handlers may extend a run's prompts and set its system
//! prompt (the operations that wait for them: `ops/prompt_start.rs`,
//! `ops/extension_command.rs`).

use pi_rpc_protocol::content::{MessageContent, TaggedImage, TextContent, UserContent};
use pi_rpc_protocol::event::{Event, ExtensionErrorEvent, MessageEvent};
use pi_rpc_protocol::message::{AgentMessage, CustomMessage, UserMessage};
use serde_json::Value;

use super::{State, handles_event, log_store_error};
use crate::actor::ops::ids::OpRoute;
use crate::extensions::{BeforeAgentStartResult, HostEvent, OutgoingCustomMessage};

impl State {
    /// `pi.sendMessage`: a `nextTurn` message waits for the next prompt; during a run the
    /// message steers (or follows up); an idle agent starts a run with it (`triggerTurn`) or
    /// adds it to the conversation, announced by `message_start` and `message_end`.
    pub(super) fn extension_custom_message(
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
            let during_command = self.ops.commands.running();
            self.start_run(vec![agent_message], false);
            self.turn_triggered(during_command);
        } else {
            self.emit(Event::MessageStart(MessageEvent {
                message: agent_message.clone(),
            }));
            self.emit(Event::MessageEnd(MessageEvent {
                message: agent_message.clone(),
            }));
            self.record_custom_message(&agent_message);
            self.messages.push(agent_message);
        }
    }

    /// `pi.sendUserMessage`, after its `input` handlers (run by the host): during a run it is
    /// queued as a steering or follow-up message (as `deliverAs` says; without it the message
    /// fails as the reference fails it); else its run starts after the `before_agent_start`
    /// handlers, and after the answer of the command that sent it.
    pub(super) fn extension_user_message(
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
            timestamp: crate::js::now_ms(),
            extra: Default::default(),
        });
        if self.streaming {
            match deliver_as {
                Some("followUp") => {
                    self.follow_up_texts.push(text);
                    self.emit_queue_update();
                    self.follow_up_queue.push_back(message);
                }
                Some(_) => {
                    self.steering_texts.push(text);
                    self.emit_queue_update();
                    self.steering_queue.push_back(message);
                }
                None => self.user_message_failed(BUSY),
            }
            return;
        }
        self.begin_user_message_run(vec![message]);
    }

    /// An extension's user message cannot be delivered: an `extension_error`, after the answer
    /// of the command that sent it (as the reference's asynchronous failure comes).
    fn user_message_failed(&mut self, error: &str) {
        let event = Event::ExtensionError(ExtensionErrorEvent {
            extension_path: "<runtime>".into(),
            event: "send_user_message".into(),
            error: error.into(),
        });
        self.report_after_command(event);
    }

    /// Sends the `before_agent_start` event of a run that starts with `prompts` when some live
    /// extension handles it, its handlers' `done` to go to the operation `route`; false when
    /// nothing waits for them.
    pub(in crate::actor) fn send_before_agent_start(
        &mut self,
        route: OpRoute,
        prompts: &[AgentMessage],
    ) -> bool {
        handles_event(&self.extensions, "before_agent_start")
            && self.send_op_event(route, &self.before_agent_start_event(prompts))
    }

    /// The `before_agent_start` event of a run that starts with `prompts`.
    fn before_agent_start_event<'a>(&self, prompts: &'a [AgentMessage]) -> HostEvent<'a> {
        let (prompt, images) = prompt_text_and_images(prompts);
        HostEvent::BeforeAgentStart {
            prompt,
            images,
            system_prompt: self.system_prompt(),
        }
    }

    /// What the `before_agent_start` handlers decided: messages after the prompts, and the
    /// system prompt of the run.
    pub(in crate::actor) fn apply_before_agent_start(
        &mut self,
        prompts: &mut Vec<AgentMessage>,
        result: BeforeAgentStartResult,
    ) {
        prompts.extend(
            result
                .messages
                .into_iter()
                .map(|message| AgentMessage::Custom(custom_message(message))),
        );
        if let Some(ext) = &mut self.extensions {
            ext.system_prompt = result.system_prompt;
        }
    }

    /// The system prompt `before_agent_start` handlers set for the run starting now.
    pub(in crate::actor) fn take_extension_system_prompt(&mut self) -> Option<String> {
        self.extensions.as_mut()?.system_prompt.take()
    }

    /// The prompt's messages: `message`, then the extensions' `nextTurn` messages.
    pub(in crate::actor) fn with_next_turn_messages(
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
    pub(in crate::actor) fn record_custom_message(&mut self, message: &AgentMessage) {
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

/// Why a user message an extension sends during a run without `deliverAs` fails (the
/// reference's words).
const BUSY: &str = "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";

/// The custom message an extension sent, as it joins the conversation.
fn custom_message(message: OutgoingCustomMessage) -> CustomMessage {
    CustomMessage {
        custom_type: message.custom_type,
        content: serde_json::from_value::<MessageContent>(message.content)
            .unwrap_or(MessageContent::Blocks(Vec::new())),
        display: message.display,
        details: message.details,
        timestamp: crate::js::now_ms(),
        extra: Default::default(),
    }
}

/// The text and images of a prompt's user message (its first message).
fn prompt_text_and_images(
    prompts: &[AgentMessage],
) -> (std::borrow::Cow<'_, str>, Option<Vec<&UserContent>>) {
    let Some(AgentMessage::User(user)) = prompts.first() else {
        return (std::borrow::Cow::Borrowed(""), None);
    };
    let text = crate::actor::queue::content_text(&user.content);
    let images: Vec<&UserContent> = match &user.content {
        MessageContent::Blocks(blocks) => blocks
            .iter()
            .filter(|block| matches!(block, UserContent::Image(_)))
            .collect(),
        MessageContent::Text(_) => Vec::new(),
    };
    (text.into(), (!images.is_empty()).then_some(images))
}
