//! The `bash` and `abort_bash` commands: a command runs in its own task while the session goes
//! on answering; its chunks come back as `bash_execution_update` events and its end as the
//! response. The `bashExecution` message joins the conversation at once when idle, or after
//! the run when a run is streaming (so that it never lands between a tool call and its result).

use pi_rpc_protocol::command::BashCommand;
use pi_rpc_protocol::event::{BashExecutionUpdateEvent, Event};
use pi_rpc_protocol::message::{AgentMessage, BashExecutionMessage};
use pi_rpc_protocol::response::BashResult;
use pi_rpc_protocol::{RequestId, Response};

use super::tasks::TaskKind;
use super::{Session, TaskEvent, log_store_error};
use crate::js::now_ms;
use crate::tools::shell::temp_dir;
use crate::user_bash::{UserBash, execute};

/// The end of a command.
#[derive(Debug)]
pub(super) struct BashDone {
    id: Option<RequestId>,
    command: String,
    exclude_from_context: Option<bool>,
    result: Result<BashResult, crate::user_bash::Error>,
}

impl Session {
    /// Starts the command; the response comes when it ends.
    pub(super) fn start_bash(&mut self, id: Option<RequestId>, bash: BashCommand) {
        self.start_bash_with(id, bash, None);
    }

    /// Starts the command, run by the `user_bash` operations of the extension event
    /// `operations` when given (else here); the response comes when it ends.
    pub(super) fn start_bash_with(
        &mut self,
        id: Option<RequestId>,
        bash: BashCommand,
        operations: Option<u64>,
    ) {
        let client = operations.and(super::extensions::host_client(&self.extensions));
        let task = self.tasks.start(TaskKind::Bash);
        let cancel = task.cancel_token();
        let events = task.sender();
        let spec = UserBash {
            command: bash.command.clone(),
            cwd: self.config.cwd.clone(),
            shell_path: self.config.settings.shell_path(),
            command_prefix: self.config.settings.shell_command_prefix(),
            agent_dir: Some(self.config.agent_dir.clone()),
            temp_dir: temp_dir(),
            cancel,
            env: self.config.settings.proxy_env(),
        };
        task.spawn(async move {
            let chunk_id = id.clone();
            let on_chunk = |delta| {
                let events = events.clone();
                let id = chunk_id.clone();
                async move {
                    // The session may be gone (end of input); then nobody reads the chunk.
                    let _ = events.send(TaskEvent::BashOutput { id, delta }).await;
                }
            };
            let result = match (client, operations) {
                (Some(client), Some(operations)) => {
                    client.run_user_bash(operations, spec, on_chunk).await
                }
                _ => execute(spec, on_chunk).await,
            };
            TaskEvent::BashDone(Box::new(BashDone {
                id,
                command: bash.command,
                exclude_from_context: bash.exclude_from_context,
                result,
            }))
        });
    }

    /// Kills every running command (each is still answered when it ends).
    pub(super) fn abort_bash(&mut self) {
        self.tasks.cancel(TaskKind::Bash);
    }

    pub(super) async fn on_bash_output(&mut self, id: Option<RequestId>, delta: String) {
        self.emit(Event::BashExecutionUpdate(BashExecutionUpdateEvent {
            id,
            delta,
        }))
        .await;
    }

    /// Answers a command that ended; `generation` is the session generation it started in.
    pub(super) async fn on_bash_done(&mut self, done: BashDone, generation: u64) {
        let BashDone {
            id,
            command,
            exclude_from_context,
            result,
        } = done;
        match result {
            Ok(result) => {
                // A command that outlived its session (replaced meanwhile, which killed it)
                // is answered but not recorded in the new one.
                if generation == self.tasks.generation() {
                    self.record_bash(command, &result, exclude_from_context);
                }
                self.respond(id, "bash", &result).await;
            }
            Err(error) => {
                self.write(&Response::error(id, Some("bash"), error.to_string()))
                    .await;
            }
        }
    }

    pub(super) fn record_bash(
        &mut self,
        command: String,
        result: &BashResult,
        exclude: Option<bool>,
    ) {
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
    pub(super) fn flush_pending_bash(&mut self) {
        for message in std::mem::take(&mut self.pending_bash) {
            log_store_error(self.store.append_message(message.clone()));
            self.messages.push(message);
        }
    }
}
