//! A client's `bash` command (and `abort_bash`): the extensions' `user_bash` handlers first,
//! which may answer it themselves or run it through their operations; the command then runs in
//! its own task while the actor goes on answering, its chunks written as
//! `bash_execution_update` events and its end as the answer. The `bashExecution` message joins
//! the conversation at once when idle, or after the run when a run streams (so that it never
//! lands between a tool call and its result).
//!
//! | state | input | next | what happens |
//! |---|---|---|---|
//! | requested | some extension handles `user_bash` | `UserBashHandlers` | the event goes to the host |
//! | requested | otherwise | `Running(local)` | a `Bash` task spawned |
//! | `UserBashHandlers` | a handler gave a `result` (or the host ended: none) | done | the result recorded as the command's run, and answered |
//! | `UserBashHandlers` | no result | `Running(local or the handler's operations)` | a `Bash` task spawned |
//! | `Running` | an output chunk | same | `bash_execution_update` |
//! | `Running` | `abort_bash`, a replacement's swap | same | the task cancelled (it still ends) |
//! | `Running` | the task ended | done | recorded (now, or after the run when one streams; not when the session generation changed since it started), then answered |
//! | `Running` | the task could not run | done | the error answered |

use pi_rpc_protocol::command::BashCommand;
use pi_rpc_protocol::event::{BashExecutionUpdateEvent, Event};
use pi_rpc_protocol::message::{AgentMessage, BashExecutionMessage};
use pi_rpc_protocol::response::BashResult;
use pi_rpc_protocol::{RequestId, Response};

use super::ids::{OpKey, OpRoute};
use crate::actor::extensions::host_client;
use crate::actor::outbox::Effect;
use crate::actor::tasks::TaskKind;
use crate::actor::{State, TaskEvent, log_store_error};
use crate::extensions::{HostEvent, UserBashResult};
use crate::js::now_ms;
use crate::shell_command::{UserBash, execute};
use crate::tools::shell::temp_dir;

/// Where a `bash` command is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ShellState {
    /// The `user_bash` handlers run.
    UserBashHandlers,
    /// Its task runs.
    Running,
}

/// A `bash` command in flight.
#[derive(Debug)]
pub(in crate::actor) struct ShellCommand {
    state: ShellState,
    id: Option<RequestId>,
    bash: BashCommand,
}

/// How a command's task ended: its result, or why it could not run.
pub(in crate::actor) type BashOutcome = Result<BashResult, crate::shell_command::Error>;

impl ShellCommand {
    /// Whether its `user_bash` handlers run (their `done` goes to it).
    fn in_handlers(&self) -> bool {
        self.state == ShellState::UserBashHandlers
    }

    /// Its task starts: the command line it runs.
    fn run(&mut self) -> String {
        self.state = ShellState::Running;
        self.bash.command.clone()
    }
}

impl State {
    /// `bash`: its `user_bash` handlers first, when there are some.
    pub(in crate::actor) fn user_bash(&mut self, id: Option<RequestId>, bash: BashCommand) {
        let key = self.ops.key();
        let event = HostEvent::UserBash {
            command: &bash.command,
            exclude_from_context: bash.exclude_from_context.unwrap_or(false),
            cwd: self.config.cwd.display().to_string(),
        };
        let handled = self.send_op_event(OpRoute::Bash(key), &event);
        let state = ShellState::UserBashHandlers;
        self.ops.bash.insert(key, ShellCommand { state, id, bash });
        if !handled {
            self.start_bash(key, None);
        }
    }

    /// The `user_bash` handlers are done: a handler's `result` answers the command (and is
    /// recorded as the command's run); else the command runs, through the handler's
    /// `operations` when it gave some.
    pub(in crate::actor) fn user_bash_handlers_done(
        &mut self,
        key: OpKey,
        decision: UserBashResult,
    ) {
        if !self
            .ops
            .bash
            .get(&key)
            .is_some_and(ShellCommand::in_handlers)
        {
            return;
        }
        let Some(answer) = decision.result else {
            self.start_bash(key, decision.operations);
            return;
        };
        let Some(command) = self.ops.bash.remove(&key) else {
            return;
        };
        match serde_json::from_value::<BashResult>(answer.clone()) {
            Ok(recorded) => {
                let bash = command.bash;
                self.record_bash(bash.command, &recorded, bash.exclude_from_context);
            }
            Err(error) => tracing::warn!(%error, "a user_bash result that cannot be recorded"),
        }
        self.respond(command.id, "bash", &answer);
    }

    /// Spawns the command's task, run by the `user_bash` operations of the extension event
    /// `operations` when given (else here); the answer comes when it ends.
    fn start_bash(&mut self, key: OpKey, operations: Option<u64>) {
        let Some(command) = self.ops.bash.get_mut(&key) else {
            return;
        };
        let text = command.run();
        let client = operations.and(host_client(&self.extensions));
        let task = self.tasks.start(TaskKind::Bash);
        let cancel = task.cancel_token();
        let events = task.sender();
        let spec = UserBash {
            command: text,
            cwd: self.config.cwd.clone(),
            shell_path: self.config.settings.shell_path(),
            command_prefix: self.config.settings.shell_command_prefix(),
            agent_dir: Some(self.config.agent_dir.clone()),
            temp_dir: temp_dir(),
            cancel,
            env: self.config.settings.proxy_env(),
        };
        let launch = task.launch(async move {
            let on_chunk = |delta| {
                let events = events.clone();
                async move {
                    // The session may be gone (end of input); then nobody reads the chunk.
                    let _ = events.send(TaskEvent::BashOutput { key, delta }).await;
                }
            };
            let outcome = match (client, operations) {
                (Some(client), Some(operations)) => {
                    client.run_user_bash(operations, spec, on_chunk).await
                }
                _ => execute(spec, on_chunk).await,
            };
            TaskEvent::BashDone(key, Box::new(outcome))
        });
        self.outbox.push(Effect::Spawn(launch));
    }

    /// Kills every running command (each is still answered when it ends).
    pub(in crate::actor) fn abort_bash(&mut self) {
        self.tasks.cancel(TaskKind::Bash);
    }

    pub(in crate::actor) fn on_bash_output(&mut self, key: OpKey, delta: String) {
        let Some(command) = self.ops.bash.get(&key) else {
            return;
        };
        let id = command.id.clone();
        self.emit(Event::BashExecutionUpdate(BashExecutionUpdateEvent {
            id,
            delta,
        }));
    }

    /// Answers a command whose task ended; `generation` is the session generation the task
    /// started in.
    pub(in crate::actor) fn on_bash_done(
        &mut self,
        key: OpKey,
        outcome: BashOutcome,
        generation: u64,
    ) {
        let Some(command) = self.ops.bash.remove(&key) else {
            return;
        };
        match outcome {
            Ok(result) => {
                // A command that outlived its session (replaced meanwhile, which killed it)
                // is answered but not recorded in the new one.
                if generation == self.tasks.generation() {
                    let bash = command.bash;
                    self.record_bash(bash.command, &result, bash.exclude_from_context);
                }
                self.respond(command.id, "bash", &result);
            }
            Err(error) => {
                let answer = Response::error(command.id, Some("bash"), error.to_string());
                self.write(answer);
            }
        }
    }

    fn record_bash(&mut self, command: String, result: &BashResult, exclude: Option<bool>) {
        let message = AgentMessage::BashExecution(BashExecutionMessage {
            command,
            output: result.output.clone(),
            exit_code: result.exit_code,
            cancelled: result.cancelled,
            truncated: result.truncated,
            full_output_path: result.full_output_path.clone(),
            timestamp: now_ms(),
            exclude_from_context: exclude,
            extra: Default::default(),
        });
        if self.streaming {
            self.pending_bash.push(message);
        } else {
            log_store_error(self.store.append_message(message.clone()));
            self.messages.push(message);
        }
    }

    /// Adds the commands that ended during a run, after it.
    pub(in crate::actor) fn flush_pending_bash(&mut self) {
        for message in std::mem::take(&mut self.pending_bash) {
            log_store_error(self.store.append_message(message.clone()));
            self.messages.push(message);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_leaves_its_handlers_when_its_task_starts() {
        let bash = serde_json::from_value(serde_json::json!({"command": "ls -a"})).unwrap();
        let mut command = ShellCommand {
            state: ShellState::UserBashHandlers,
            id: None,
            bash,
        };
        assert!(command.in_handlers());
        assert_eq!(command.run(), "ls -a");
        assert!(!command.in_handlers(), "a late `done` is not its");
    }
}
