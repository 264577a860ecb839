//! `bash` commands that an extension's `user_bash` handler runs through its own `operations`
//! (a remote shell, a sandbox): its `exec` runs in the extension host, whose output comes back
//! in pieces that pi-agent cleans, keeps and logs as it does a local command's output, so the
//! client sees the same `bash_execution_update` events and result.

use std::future::Future;
use std::sync::atomic::Ordering;

use base64::Engine;
use pi_rpc_protocol::response::BashResult;
use serde_json::json;
use tokio::sync::mpsc;

use super::tools::{HOST_GONE, ToolBridge, ToolReply};
use crate::user_bash::{Error, RemoteOutput, UserBash};

impl ToolBridge {
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
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, mut replies) = mpsc::unbounded_channel();
        self.calls.insert(id, tx);
        let command = match &bash.command_prefix {
            Some(prefix) => format!("{prefix}\n{}", bash.command),
            None => bash.command.clone(),
        };
        let exec = json!({
            "type": "bash_exec",
            "id": id,
            "operations": operations,
            "command": command,
            "cwd": bash.cwd,
        });
        if !self.send(&exec).await {
            self.calls.remove(id);
            return Err(Error::Remote(HOST_GONE.into()));
        }
        let mut cancelled = false;
        loop {
            tokio::select! {
                reply = replies.recv() => match reply {
                    Some(ToolReply::BashData(bytes)) => {
                        let text = output.push(&bytes);
                        on_chunk(text).await;
                    }
                    Some(ToolReply::BashExit { exit_code, error }) => {
                        let cancelled = cancelled || bash.cancel.is_cancelled();
                        return match error {
                            Some(error) if !cancelled => Err(Error::Remote(error)),
                            _ => Ok(output.finish(exit_code, cancelled)),
                        };
                    }
                    Some(_) => {}
                    None => return Err(Error::Remote(HOST_GONE.into())),
                },
                () = bash.cancel.cancelled(), if !cancelled => {
                    cancelled = true;
                    self.send(&json!({"type": "bash_abort", "id": id})).await;
                }
            }
        }
    }
}

/// The bytes of a piece of output (base64 on the host's protocol).
pub(super) fn decode_data(data: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap_or_else(|_| data.as_bytes().to_vec())
}
