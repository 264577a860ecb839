//! A client `prompt` from its arrival to its run: the extensions' `input` handlers (which may
//! handle it or rewrite it), then queued during a run, refused, or answered and run after the
//! `before_agent_start` handlers (which may add messages and set the run's system prompt).
//!
//! | state | input | next | what happens |
//! |---|---|---|---|
//! | received | the text names an extension command | (`extension_command.rs`) | |
//! | received | some extension handles `input` | `InputHandlers(prompt)` | `input` goes to the host |
//! | received | otherwise | accepted | |
//! | `InputHandlers` | `handled` | answered | `prompt` (handled) |
//! | `InputHandlers` | `transform`, `continue` (or the host ended) | accepted | the text and images as the handlers left them |
//! | accepted | the agent streams, `streamingBehavior` given | queued | steered or followed up; answered (queued) |
//! | accepted | the agent streams, none given | refused | `Agent is already processing...` |
//! | accepted | a manual compaction runs, or one a prompt started | refused | `PROMPT_WHILE_COMPACTING` |
//! | accepted | no credentials for the model | refused | `No API key found...` |
//! | accepted | the last answer is over the compaction threshold | compacting | the compaction keeps the prompt and answers and runs it once it ended (`compaction/auto.rs`) |
//! | accepted | some extension handles `before_agent_start` | `BeforeStartHandlers(prompts)` | the prompt with the `nextTurn` messages |
//! | accepted | otherwise | started | below |
//! | `BeforeStartHandlers` | done (or the host ended) | started | their messages after the prompts; their system prompt for the run |
//!
//! Started: answered (started), then the agent loop starts.

use std::collections::BTreeMap;

use pi_rpc_protocol::command::{PromptCommand, QueueMessageCommand, StreamingBehavior};
use pi_rpc_protocol::message::AgentMessage;
use pi_rpc_protocol::{RequestId, Response};

use super::ids::{OpKey, OpRoute};
use crate::actor::State;
use crate::actor::compaction::PROMPT_WHILE_COMPACTING;
use crate::actor::queue::user_message;
use crate::extensions::{BeforeAgentStartResult, HostEvent, InputResult};
use crate::release::Disposition;

/// The error of a prompt sent while a run is in progress without `streamingBehavior`.
const ALREADY_PROCESSING: &str = "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";

/// Where a prompt waits for extension handlers.
#[derive(Debug)]
enum PromptState {
    /// Its `input` handlers run.
    InputHandlers(PromptCommand),
    /// The `before_agent_start` handlers of the run it starts (with these messages) run.
    BeforeStartHandlers(Vec<AgentMessage>),
}

/// A prompt waiting for extension handlers, and the `prompt` it answers.
#[derive(Debug)]
pub(in crate::actor) struct PromptStart {
    id: Option<RequestId>,
    state: PromptState,
}

/// The prompts waiting for extension handlers, by key.
pub(in crate::actor) type PromptStarts = BTreeMap<OpKey, PromptStart>;

/// What an accepted prompt meets.
#[derive(Debug, Clone, Copy)]
struct Conditions {
    streaming: bool,
    compaction_blocks: bool,
    has_credentials: bool,
}

/// What becomes of an accepted prompt.
#[derive(Debug, PartialEq)]
enum Admission {
    /// Queued into the run in progress.
    Queued(StreamingBehavior),
    /// Refused with this error.
    Refused(Refusal),
    /// It runs (after the automatic compaction check).
    Runs,
}

/// Why a prompt is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    AlreadyProcessing,
    Compacting,
    NoCredentials,
}

/// Accepted: queued, refused or run, in the reference's order of checks.
fn admit(behavior: Option<StreamingBehavior>, conditions: Conditions) -> Admission {
    if conditions.streaming {
        return match behavior {
            Some(behavior) => Admission::Queued(behavior),
            None => Admission::Refused(Refusal::AlreadyProcessing),
        };
    }
    if conditions.compaction_blocks {
        return Admission::Refused(Refusal::Compacting);
    }
    if !conditions.has_credentials {
        return Admission::Refused(Refusal::NoCredentials);
    }
    Admission::Runs
}

/// The `input` handlers are done: the prompt as they left it, or `None` when they handled it.
fn after_input(mut prompt: PromptCommand, result: InputResult) -> Option<PromptCommand> {
    match result.action.as_deref() {
        Some("handled") => return None,
        Some("transform") => {
            if let Some(text) = result.text {
                prompt.message = text;
            }
            if let Some(images) = result.images {
                prompt.images = images;
            }
        }
        _ => {}
    }
    Some(prompt)
}

impl State {
    /// A client `prompt` arrives.
    pub(in crate::actor) fn begin_prompt(&mut self, id: Option<RequestId>, prompt: PromptCommand) {
        if self.run_extension_command(&id, &prompt.message) {
            return;
        }
        let key = self.ops.key();
        let event = HostEvent::Input {
            text: &prompt.message,
            images: prompt.images.as_deref(),
            source: "rpc",
            streaming_behavior: prompt.streaming_behavior.filter(|_| self.streaming),
        };
        if self.send_op_event(OpRoute::PromptInput(key), &event) {
            let state = PromptState::InputHandlers(prompt);
            self.ops.prompts.insert(key, PromptStart { id, state });
            return;
        }
        self.accept_prompt(id, prompt);
    }

    /// A prompt's `input` handlers are done (`result`: their decision, the default when the
    /// host ended).
    pub(in crate::actor) fn prompt_input_done(&mut self, key: OpKey, result: InputResult) {
        let Some(PromptStart {
            id,
            state: PromptState::InputHandlers(prompt),
        }) = self.ops.prompts.remove(&key)
        else {
            return;
        };
        match after_input(prompt, result) {
            Some(prompt) => self.accept_prompt(id, prompt),
            None => {
                let answer = self.release.accepted(id, "prompt", Disposition::Handled);
                self.write(answer);
            }
        }
    }

    /// A prompt past the extensions' commands and `input` handlers: queued during a run,
    /// refused, or answered and run.
    fn accept_prompt(&mut self, id: Option<RequestId>, mut prompt: PromptCommand) {
        prompt.message = self.resources.expand(&prompt.message);
        let provider = self.model.as_ref().map(|model| model.provider.as_str());
        let conditions = Conditions {
            streaming: self.streaming,
            compaction_blocks: self.ops.compaction.blocks_prompts(),
            has_credentials: provider
                .is_some_and(|provider| self.config.registry.has_auth(provider)),
        };
        match admit(prompt.streaming_behavior, conditions) {
            Admission::Queued(behavior) => {
                let queued = QueueMessageCommand {
                    message: prompt.message,
                    images: prompt.images,
                };
                self.queue_message(queued, behavior);
                self.write(self.release.accepted(id, "prompt", Disposition::Queued));
            }
            Admission::Refused(refusal) => {
                let error = match refusal {
                    Refusal::AlreadyProcessing => ALREADY_PROCESSING.to_owned(),
                    Refusal::Compacting => PROMPT_WHILE_COMPACTING.to_owned(),
                    Refusal::NoCredentials => no_api_key_message(provider),
                };
                self.write(Response::error(id, Some("prompt"), error));
            }
            Admission::Runs => {
                let message = user_message(prompt.message, prompt.images);
                if self.compact_before_prompt(id.clone(), message.clone()) {
                    return;
                }
                let prompts = self.with_next_turn_messages(message);
                self.start_prompt_run(id, prompts);
            }
        }
    }

    /// Answers the prompt and starts its run, after the `before_agent_start` handlers when
    /// some extension has them.
    fn start_prompt_run(&mut self, id: Option<RequestId>, prompts: Vec<AgentMessage>) {
        let key = self.ops.key();
        if self.send_before_agent_start(OpRoute::PromptBeforeStart(key), &prompts) {
            let state = PromptState::BeforeStartHandlers(prompts);
            self.ops.prompts.insert(key, PromptStart { id, state });
            return;
        }
        self.write(self.release.accepted(id, "prompt", Disposition::Started));
        self.start_run(prompts, false);
    }

    /// The `before_agent_start` handlers of a prompt's run are done.
    pub(in crate::actor) fn prompt_before_start_done(
        &mut self,
        key: OpKey,
        result: BeforeAgentStartResult,
    ) {
        let Some(PromptStart {
            id,
            state: PromptState::BeforeStartHandlers(mut prompts),
        }) = self.ops.prompts.remove(&key)
        else {
            return;
        };
        self.apply_before_agent_start(&mut prompts, result);
        self.write(self.release.accepted(id, "prompt", Disposition::Started));
        self.start_run(prompts, false);
    }
}

/// The error of a prompt without credentials (`provider`: the model's, none without a model).
fn no_api_key_message(provider: Option<&str>) -> String {
    let display = provider.unwrap_or("the selected model");
    format!(
        "No API key found for {display}.\n\nGive one with --api-key, in auth.json, as the provider's apiKey in models.json, or in the provider's environment variable."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDLE: Conditions = Conditions {
        streaming: false,
        compaction_blocks: false,
        has_credentials: true,
    };

    #[test]
    fn during_a_run_a_prompt_is_queued_or_refused() {
        let streaming = Conditions {
            streaming: true,
            compaction_blocks: true,
            has_credentials: false,
        };
        let steer = Some(StreamingBehavior::Steer);
        assert_eq!(
            admit(steer, streaming),
            Admission::Queued(StreamingBehavior::Steer)
        );
        assert_eq!(
            admit(None, streaming),
            Admission::Refused(Refusal::AlreadyProcessing)
        );
    }

    #[test]
    fn an_idle_prompt_is_refused_while_compacting_then_without_credentials() {
        let compacting = Conditions {
            compaction_blocks: true,
            has_credentials: false,
            ..IDLE
        };
        assert_eq!(
            admit(None, compacting),
            Admission::Refused(Refusal::Compacting)
        );
        let no_key = Conditions {
            has_credentials: false,
            ..IDLE
        };
        let follow_up = Some(StreamingBehavior::FollowUp);
        assert_eq!(
            admit(follow_up, no_key),
            Admission::Refused(Refusal::NoCredentials)
        );
        assert_eq!(admit(follow_up, IDLE), Admission::Runs, "idle: it runs");
    }

    fn prompt(text: &str) -> PromptCommand {
        PromptCommand {
            message: text.into(),
            images: None,
            streaming_behavior: None,
        }
    }

    fn input(action: Option<&str>, text: Option<&str>) -> InputResult {
        InputResult {
            action: action.map(Into::into),
            text: text.map(Into::into),
            images: None,
        }
    }

    #[test]
    fn input_handlers_handle_transform_or_let_the_prompt_go_on() {
        assert!(after_input(prompt("hi"), input(Some("handled"), None)).is_none());
        let transformed = after_input(prompt("hi"), input(Some("transform"), Some("HI")));
        assert_eq!(transformed.map(|p| p.message).as_deref(), Some("HI"));
        let kept = after_input(prompt("hi"), input(Some("continue"), Some("ignored")));
        assert_eq!(kept.map(|p| p.message).as_deref(), Some("hi"));
        let none = after_input(prompt("hi"), InputResult::default());
        assert_eq!(none.map(|p| p.message).as_deref(), Some("hi"));
    }
}
