//! The `bash` and `abort_bash` commands: a command runs in its own task while the session goes
//! on answering; its chunks come back as `bash_execution_update` events and its end as the
//! response. The `bashExecution` message joins the conversation at once when idle, or after
//! the run when a run is streaming (so that it never lands between a tool call and its result).

use pi_rpc_protocol::command::BashCommand;
use pi_rpc_protocol::event::{BashExecutionUpdateEvent, Event};
use pi_rpc_protocol::message::{AgentMessage, BashExecutionMessage};
use pi_rpc_protocol::response::BashResult;
use pi_rpc_protocol::{RequestId, Response};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::{Session, log_store_error};
use crate::js::now_ms;
use crate::tools::shell::temp_dir;
use crate::user_bash::{UserBash, execute};

/// What a running command reports to the session.
#[derive(Debug)]
pub(super) enum BashMessage {
    /// A chunk of output.
    Update {
        id: Option<RequestId>,
        delta: String,
    },
    /// The command ended (or could not start).
    Done(Box<BashDone>),
}

/// The end of a command.
#[derive(Debug)]
pub(super) struct BashDone {
    id: Option<RequestId>,
    serial: u64,
    /// The session generation the command started in.
    generation: u64,
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
        let cancel = CancellationToken::new();
        self.bash_serial += 1;
        let serial = self.bash_serial;
        let generation = self.session_generation;
        self.bash_running.push((serial, cancel.clone()));
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
        let tx = self.bash_tx.clone();
        tokio::spawn(async move {
            let chunk_tx = tx.clone();
            let chunk_id = id.clone();
            let on_chunk = |delta| {
                let tx = chunk_tx.clone();
                let id = chunk_id.clone();
                async move {
                    // The session may be gone (end of input); then nobody reads the chunk.
                    let _ = tx.send(BashMessage::Update { id, delta }).await;
                }
            };
            let result = match (client, operations) {
                (Some(client), Some(operations)) => {
                    client.run_user_bash(operations, spec, on_chunk).await
                }
                _ => execute(spec, on_chunk).await,
            };
            let done = BashDone {
                id,
                serial,
                generation,
                command: bash.command,
                exclude_from_context: bash.exclude_from_context,
                result,
            };
            let _ = tx.send(BashMessage::Done(Box::new(done))).await;
        });
    }

    /// Kills every running command.
    pub(super) fn abort_bash(&mut self) {
        for (_, cancel) in &self.bash_running {
            cancel.cancel();
        }
    }

    pub(super) async fn on_bash_message(&mut self, message: BashMessage) {
        match message {
            BashMessage::Update { id, delta } => {
                self.emit(Event::BashExecutionUpdate(BashExecutionUpdateEvent {
                    id,
                    delta,
                }))
                .await;
            }
            BashMessage::Done(done) => {
                let BashDone {
                    id,
                    serial,
                    generation,
                    command,
                    exclude_from_context,
                    result,
                } = *done;
                self.bash_running.retain(|(running, _)| *running != serial);
                match result {
                    Ok(result) => {
                        // A command that outlived its session (replaced meanwhile, which
                        // killed it) is answered but not recorded in the new one.
                        if generation == self.session_generation {
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

/// The channel running commands report on.
pub(super) fn channel() -> (mpsc::Sender<BashMessage>, mpsc::Receiver<BashMessage>) {
    mpsc::channel(256)
}
