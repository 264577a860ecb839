//! A running extension command (a `prompt` whose text is `/name args` of a registered command)
//! and what waits for its answer: the user messages it sent (`pi.sendUserMessage`), whose runs
//! start after the answer, their errors, reported after it, and a turn it triggered
//! (`pi.sendMessage(.., {triggerTurn})`), which the answer goes into, as in the reference.
//!
//! | state | input | next | what happens |
//! |---|---|---|---|
//! | (prompt `/name`) | the host takes the command | `Running` | its handlers run, even during a run |
//! | `Running` | done, no user message's `before_agent_start` handlers run | answered | below |
//! | `Running` | done, some do | `AwaitingUserMessages` | |
//! | `AwaitingUserMessages` | the last of them done | answered | below |
//!
//! Answered: the `prompt` response (or, when a turn it triggered has not emitted `agent_start`
//! yet, kept for it), then the errors of the user messages it sent, then the first of their
//! runs (during a run: follow-ups), the later ones as follow-ups. While any command runs, a
//! user message an extension sends joins those runs and its errors wait too.
//!
//! A user message an extension sends while the agent is idle:
//!
//! | state | input | next | what happens |
//! |---|---|---|---|
//! | sent | some extension handles `before_agent_start` | `UserMessage(prompts)` | the event goes to the host |
//! | sent | otherwise | (as done) | |
//! | `UserMessage(prompts)` | the handlers are done (or the host ended) | done | their messages and system prompt applied; the run starts (or waits for a running command's answer) |
//!
//! The turn a running command triggers (`TriggeredTurn`):
//!
//! | state | input | next | what happens |
//! |---|---|---|---|
//! | `None` | `triggerTurn` while a command runs | `BeforeStart(None)` | the run starts |
//! | `BeforeStart(None)` | the command is answered | `BeforeStart(Some(answer))` | the answer waits |
//! | `BeforeStart(Some(answer))` | `agent_start` written (after its handlers) | `None` | the answer is written |
//! | `BeforeStart(None)` | `agent_start` written | `AfterStart` | loop events wait |
//! | `AfterStart` | the command is answered | `None` | the answer is written; loop events go on |

use std::collections::BTreeMap;

use pi_rpc_protocol::RequestId;
use pi_rpc_protocol::event::Event;
use pi_rpc_protocol::message::AgentMessage;

use super::gates::Gates;
use super::ids::{OpKey, OpRoute};
use crate::actor::State;
use crate::extensions::BeforeAgentStartResult;
use crate::release::Disposition;

/// Where a running command is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CommandState {
    /// Its handlers run.
    Running,
    /// Done; the `before_agent_start` handlers of user messages still run.
    AwaitingUserMessages,
}

/// One running command: the `prompt` it answers and where it is.
#[derive(Debug)]
struct RunningCommand {
    id: Option<RequestId>,
    state: CommandState,
}

/// The turn a running command triggered.
#[derive(Debug, Default, Clone, PartialEq)]
enum TriggeredTurn {
    /// No such turn.
    #[default]
    None,
    /// Started; its `agent_start` has not been written (the command's answer, once given,
    /// waits for it).
    BeforeStart(Option<Option<RequestId>>),
    /// Its `agent_start` is written; the rest of the turn waits for the command's answer.
    AfterStart,
}

/// The extension commands in flight and what waits for their answers.
#[derive(Debug, Default)]
pub(in crate::actor) struct ExtensionCommands {
    running: BTreeMap<OpKey, RunningCommand>,
    /// Extension user messages whose `before_agent_start` handlers run.
    user_messages: BTreeMap<OpKey, Vec<AgentMessage>>,
    /// The runs of user messages sent while a command ran (each the prompts of one run).
    after_answer: Vec<Vec<AgentMessage>>,
    /// Errors of user messages sent while a command ran.
    errors_after_answer: Vec<Event>,
    triggered: TriggeredTurn,
}

impl ExtensionCommands {
    /// Whether an extension command is running (its prompt not answered yet).
    pub(in crate::actor) fn running(&self) -> bool {
        !self.running.is_empty()
    }

    /// A session replacement: the runs a command's user messages left go with the session.
    pub(in crate::actor) fn forget_session(&mut self) {
        self.after_answer.clear();
    }

    /// No loop events between a triggered turn's `agent_start` and its command's answer.
    pub(in crate::actor) fn gates(&self) -> Gates {
        Gates {
            lines: true,
            loop_events: self.triggered != TriggeredTurn::AfterStart,
        }
    }

    /// Whether a triggered turn's `agent_start` is still to come.
    pub(in crate::actor) fn awaits_agent_start(&self) -> bool {
        matches!(self.triggered, TriggeredTurn::BeforeStart(_))
    }

    /// A running command triggered a turn: its answer goes into that turn.
    fn trigger_turn(&mut self) {
        self.triggered = TriggeredTurn::BeforeStart(None);
    }

    fn start(&mut self, key: OpKey, id: Option<RequestId>) {
        let state = CommandState::Running;
        self.running.insert(key, RunningCommand { id, state });
    }

    /// The command's handlers are done: its answer when it is to be given now.
    fn done(&mut self, key: OpKey) -> Option<Option<RequestId>> {
        if self.user_messages.is_empty() {
            return self.running.remove(&key).map(|command| command.id);
        }
        if let Some(command) = self.running.get_mut(&key) {
            command.state = CommandState::AwaitingUserMessages;
        }
        None
    }

    /// A user message's `before_agent_start` handlers are done: its prompts, and the answers
    /// of the commands that waited for the last of them.
    fn user_message_started(
        &mut self,
        key: OpKey,
    ) -> (Option<Vec<AgentMessage>>, Vec<Option<RequestId>>) {
        let prompts = self.user_messages.remove(&key);
        if !self.user_messages.is_empty() {
            return (prompts, Vec::new());
        }
        let waiting: Vec<OpKey> = self
            .running
            .iter()
            .filter(|(_, command)| command.state == CommandState::AwaitingUserMessages)
            .map(|(key, _)| *key)
            .collect();
        let answers = waiting
            .into_iter()
            .filter_map(|key| self.running.remove(&key).map(|command| command.id))
            .collect();
        (prompts, answers)
    }

    /// A command is answered: the answer to write now (`None`: it waits for the triggered
    /// turn's `agent_start`).
    fn answer(&mut self, id: Option<RequestId>) -> Option<Option<RequestId>> {
        match &self.triggered {
            TriggeredTurn::BeforeStart(_) => {
                self.triggered = TriggeredTurn::BeforeStart(Some(id));
                None
            }
            TriggeredTurn::AfterStart | TriggeredTurn::None => {
                self.triggered = TriggeredTurn::None;
                Some(id)
            }
        }
    }

    /// The triggered turn's `agent_start` is written: the answer that waited for it.
    fn agent_started(&mut self) -> Option<Option<RequestId>> {
        match std::mem::take(&mut self.triggered) {
            TriggeredTurn::BeforeStart(Some(id)) => Some(id),
            TriggeredTurn::BeforeStart(None) => {
                self.triggered = TriggeredTurn::AfterStart;
                None
            }
            other => {
                self.triggered = other;
                None
            }
        }
    }
}

impl State {
    /// A prompt `/name args` naming an extension command runs it, even during a run; the
    /// prompt is answered once the command is done. False when no such command exists.
    pub(in crate::actor) fn run_extension_command(
        &mut self,
        id: &Option<RequestId>,
        text: &str,
    ) -> bool {
        let key = self.ops.key();
        if !self.send_extension_command(OpRoute::Command(key), text) {
            return false;
        }
        self.ops.commands.start(key, id.clone());
        true
    }

    /// The command's handlers are done: answered, unless user messages it sent still start.
    pub(in crate::actor) fn extension_command_done(&mut self, key: OpKey) {
        if let Some(id) = self.ops.commands.done(key) {
            self.answer_extension_command(id);
        }
    }

    /// Answers an extension command that is done, then reports what waited for its answer.
    fn answer_extension_command(&mut self, id: Option<RequestId>) {
        if let Some(id) = self.ops.commands.answer(id) {
            if self.hold_answer_for_shutdown(&id) {
                return;
            }
            let answer = self.release.accepted(id, "prompt", Disposition::Handled);
            self.write(answer);
        }
        for error in std::mem::take(&mut self.ops.commands.errors_after_answer) {
            self.emit(error);
        }
        let mut runs = std::mem::take(&mut self.ops.commands.after_answer).into_iter();
        let Some(first) = runs.next() else {
            return;
        };
        if self.streaming {
            self.follow_up_queue.extend(first);
        } else {
            self.start_run(first, false);
        }
        // Later ones wait for the first to finish, as queued follow-ups do.
        self.follow_up_queue.extend(runs.flatten());
    }

    /// A turn an extension triggered (`pi.sendMessage(.., {triggerTurn})`) started while the
    /// agent was idle: a running command's answer goes into it.
    pub(in crate::actor) fn turn_triggered(&mut self, during_command: bool) {
        if during_command {
            self.ops.commands.trigger_turn();
        }
    }

    /// After a run's `agent_start`: the command that triggered the run is answered now, or the
    /// rest of the run waits for its answer.
    pub(in crate::actor) fn after_triggered_start(&mut self) {
        if let Some(id) = self.ops.commands.agent_started() {
            if self.hold_answer_for_shutdown(&id) {
                return;
            }
            let answer = self.release.accepted(id, "prompt", Disposition::Handled);
            self.write(answer);
        }
    }

    /// An extension's user message while the agent is idle: its run starts after its
    /// `before_agent_start` handlers, and after the answer of a command that runs.
    pub(in crate::actor) fn begin_user_message_run(&mut self, prompts: Vec<AgentMessage>) {
        let key = self.ops.key();
        if self.send_before_agent_start(OpRoute::UserMessage(key), &prompts) {
            self.ops.commands.user_messages.insert(key, prompts);
            return;
        }
        self.start_user_message_run(prompts);
    }

    /// The `before_agent_start` handlers of an extension's user message are done.
    pub(in crate::actor) fn user_message_before_start_done(
        &mut self,
        key: OpKey,
        result: BeforeAgentStartResult,
    ) {
        let (prompts, answers) = self.ops.commands.user_message_started(key);
        if let Some(mut prompts) = prompts {
            self.apply_before_agent_start(&mut prompts, result);
            self.start_user_message_run(prompts);
        }
        for id in answers {
            self.answer_extension_command(id);
        }
    }

    /// Starts the run of an extension's user message, or keeps it for after the answer of the
    /// command that sent it.
    fn start_user_message_run(&mut self, prompts: Vec<AgentMessage>) {
        if self.ops.commands.running() {
            self.ops.commands.after_answer.push(prompts);
        } else if self.streaming {
            self.follow_up_queue.extend(prompts);
        } else {
            self.start_run(prompts, false);
        }
    }

    /// The `extension_error` of an extension's user message that cannot be delivered: after the
    /// answer of a running command (as the reference's asynchronous failure comes).
    pub(in crate::actor) fn report_after_command(&mut self, error: Event) {
        if self.ops.commands.running() {
            self.ops.commands.errors_after_answer.push(error);
            return;
        }
        self.emit(error);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u32) -> Option<RequestId> {
        Some(RequestId::String(format!("req-{n}")))
    }

    #[test]
    fn a_command_is_answered_when_done_unless_user_messages_start() {
        let mut commands = ExtensionCommands::default();
        commands.start(OpKey(1), id(1));
        assert!(commands.running());
        assert_eq!(commands.done(OpKey(1)), Some(id(1)));
        assert!(!commands.running());

        commands.start(OpKey(2), id(2));
        commands.user_messages.insert(OpKey(3), Vec::new());
        assert_eq!(commands.done(OpKey(2)), None, "waits for the user message");
        assert!(commands.running(), "still running: its messages wait");
        let (prompts, answers) = commands.user_message_started(OpKey(3));
        assert!(prompts.is_some());
        assert_eq!(answers, [id(2)]);
        assert!(!commands.running());
    }

    #[test]
    fn only_the_last_user_message_releases_the_waiting_commands() {
        let mut commands = ExtensionCommands::default();
        commands.start(OpKey(1), id(1));
        commands.start(OpKey(2), id(2));
        commands.user_messages.insert(OpKey(3), Vec::new());
        commands.user_messages.insert(OpKey(4), Vec::new());
        assert_eq!(commands.done(OpKey(1)), None);
        let (_, answers) = commands.user_message_started(OpKey(3));
        assert!(answers.is_empty());
        let (_, answers) = commands.user_message_started(OpKey(4));
        assert_eq!(answers, [id(1)], "the one still running is not answered");
        assert!(commands.running());
    }

    #[test]
    fn a_triggered_turn_takes_the_answer_after_its_agent_start() {
        let mut commands = ExtensionCommands::default();
        commands.trigger_turn();
        assert!(commands.awaits_agent_start());
        assert_eq!(commands.answer(id(1)), None, "kept for agent_start");
        assert_eq!(commands.gates(), Gates::OPEN);
        assert_eq!(commands.agent_started(), Some(id(1)));
        assert_eq!(commands.triggered, TriggeredTurn::None);
    }

    #[test]
    fn a_triggered_turn_waits_for_the_answer_after_its_agent_start() {
        let mut commands = ExtensionCommands::default();
        commands.trigger_turn();
        assert_eq!(commands.agent_started(), None);
        assert!(!commands.gates().loop_events, "the rest of the turn waits");
        assert!(commands.gates().lines);
        assert_eq!(commands.answer(id(1)), Some(id(1)));
        assert_eq!(commands.gates(), Gates::OPEN);
    }

    #[test]
    fn agent_start_without_a_triggered_turn_changes_nothing() {
        let mut commands = ExtensionCommands::default();
        assert_eq!(commands.agent_started(), None);
        assert_eq!(commands.triggered, TriggeredTurn::None);
        assert_eq!(commands.answer(id(1)), Some(id(1)));
    }
}
