//! `prompt`: an extension command (`/name args`) runs; else, past the extensions' `input`
//! handlers, the prompt is queued during a run (with `streamingBehavior`) or answered and run.

use pi_rpc_protocol::command::{PromptCommand, QueueMessageCommand};
use pi_rpc_protocol::content::{MessageContent, TaggedImage, TextContent, UserContent};
use pi_rpc_protocol::message::{AgentMessage, UserMessage};
use pi_rpc_protocol::{RequestId, Response};

use crate::js::now_ms;
use crate::release::Disposition;
use crate::rpc::session::Session;

/// The error of a prompt sent while a run is in progress without `streamingBehavior`.
const ALREADY_PROCESSING: &str = "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";

impl Session {
    pub(super) async fn prompt_command(&mut self, id: Option<RequestId>, prompt: PromptCommand) {
        if self.run_extension_command(&id, &prompt.message).await {
            return;
        }
        if let Some((id, prompt)) = self.extension_input(id, prompt).await {
            self.accept_prompt(id, prompt).await;
        }
    }

    /// A prompt past the extensions' commands and `input` handlers: queued during a run, else
    /// answered and run.
    pub(in crate::rpc::session) async fn accept_prompt(
        &mut self,
        id: Option<RequestId>,
        mut prompt: PromptCommand,
    ) {
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
        if self.ops.compaction.blocks_prompts() {
            let error = crate::rpc::session::compaction::PROMPT_WHILE_COMPACTING;
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
}

/// A user message with the prompt's text first, then its images.
pub(super) fn user_message(text: String, images: Option<Vec<TaggedImage>>) -> AgentMessage {
    let mut content = vec![UserContent::Text(TextContent::new(text))];
    for TaggedImage::Image(image) in images.into_iter().flatten() {
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
