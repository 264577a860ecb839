//! `bash` commands that an extension's `user_bash` handler runs through its own `operations`
//! (a remote shell, a sandbox): its `exec` runs in the extension host, whose output comes back
//! in pieces that pi-agent cleans, keeps and logs as it does a local command's output, so the
//! client sees the same `bash_execution_update` events and result.

use std::future::Future;

use base64::Engine;
use pi_rpc_protocol::response::BashResult;

use super::client::HostClient;
use super::protocol::{HostReply, ToHost};
use super::tools::HOST_GONE;
use crate::shell_command::{Error, RemoteOutput, UserBash};

impl HostClient {
    /// Runs `bash` with the operations that the `user_bash` handlers of the event `operations`
    /// gave (the host keeps them): each piece of output goes to `on_chunk`, cancelling `bash`
    /// aborts the operations' signal. An `exec` that throws fails the command with its message,
    /// unless it was cancelled.
    pub async fn run_user_bash<F, Fut>(
        &self,
        operations: u64,
        bash: UserBash,
        mut on_chunk: F,
    ) -> Result<BashResult, Error>
    where
        F: FnMut(String) -> Fut,
        Fut: Future<Output = ()>,
    {
        let mut output = RemoteOutput::new(bash.temp_dir.clone());
        let command = match &bash.command_prefix {
            Some(prefix) => format!("{prefix}\n{}", bash.command),
            None => bash.command.clone(),
        };
        let exec = |id| ToHost::BashExec {
            id,
            operations,
            command: &command,
            cwd: &bash.cwd,
        };
        let Ok((id, mut replies)) = self.open_stream(exec).await else {
            return Err(Error::Remote(HOST_GONE.into()));
        };
        let mut cancelled = false;
        loop {
            tokio::select! {
                reply = replies.recv() => match reply {
                    Some(HostReply::BashData { data }) => {
                        let text = output.push(&decode_data(&data));
                        on_chunk(text).await;
                    }
                    Some(HostReply::BashExit { exit_code, error }) => {
                        let cancelled = cancelled || bash.cancel.is_cancelled();
                        return match error {
                            Some(error) if !cancelled => Err(Error::Remote(error)),
                            _ => Ok(output.finish(exit_code, cancelled)),
                        };
                    }
                    Some(_) | None => return Err(Error::Remote(HOST_GONE.into())),
                },
                () = bash.cancel.cancelled(), if !cancelled => {
                    cancelled = true;
                    // A host that is gone ends the command through its replies.
                    let _ = self.send(&ToHost::BashAbort { id }).await;
                }
            }
        }
    }
}

/// The bytes of a piece of output (base64 on the host's protocol).
fn decode_data(data: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap_or_else(|_| data.as_bytes().to_vec())
}
