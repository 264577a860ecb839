//! The one client of the extension host: it owns the writer to the host's stdin, the one
//! counter of request ids and the one table of requests waiting for a reply. Every request the
//! agent makes (an event for the handlers, a command, a tool call, an intercepted event, a
//! `bash` command run by an extension's operations) takes its id from the counter; the reader
//! of the host's stdout routes each reply by its id:
//!
//! - to the session actor ([`Route::Actor`]), through the channel that carries the host's other
//!   messages, so that the actor sees a reply after everything the host sent before it (a
//!   handler's UI requests and errors come before its event's `done`), as the host sent them;
//! - to a oneshot (an intercepted event: one answer), or to a stream (a tool call's partial
//!   results and result, a command's output and exit).
//!
//! The host's other messages (UI requests, `pi.sendMessage`, registrations, host calls) go to
//! the actor in order. When the host ends, every waiting request ends: oneshots and streams
//! close, and the actor's channel closes after the last message.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

use pi_rpc_protocol::json::to_vec as to_json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::{mpsc, oneshot};

use super::protocol::{FromHost, HostMessage, HostReply, RegisteredTool, ToHost};
use super::registry::Registry;
use crate::system_prompt::ToolPrompt;
use crate::tools::ToolDefinition;

/// Lines waiting for the host's stdin, and host messages waiting for the actor.
const HOST_QUEUE: usize = 256;

/// Why a message could not be sent to the host.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// The host has ended (or its stdin is closed).
    #[error("the extension host ended")]
    Gone,
    /// The message could not be encoded.
    #[error("extension host message: {0}")]
    Encode(#[from] serde_json::Error),
}

/// What the host says to the session actor, in the order it said it.
#[derive(Debug)]
pub enum HostInput {
    /// A message that answers no request of the agent.
    Message(HostMessage),
    /// The reply to the actor's request `id` (an event's or a command's `done`).
    Reply(u64, HostReply),
}

/// Where the reply to a request goes.
#[derive(Debug)]
enum ReplyTo {
    /// To the session actor, in order with the host's other messages.
    Actor,
    /// One reply, to a oneshot.
    Once(oneshot::Sender<HostReply>),
    /// Replies until the final one, to a stream.
    Stream(mpsc::UnboundedSender<HostReply>),
}

/// The requests waiting for a reply, by id.
#[derive(Debug, Default)]
struct Waiting {
    /// The host has ended: nothing more will be answered.
    closed: bool,
    replies: HashMap<u64, ReplyTo>,
}

/// The client; cheap to clone (the actor, runs and `bash` commands each hold one).
#[derive(Debug, Clone)]
pub struct HostClient {
    writer: mpsc::Sender<Vec<u8>>,
    waiting: Arc<Mutex<Waiting>>,
    next_id: Arc<AtomicU64>,
    /// What the extensions registered and the tools the session offers, shared by every
    /// clone: a run sees a tool registered, or a choice made, during it from its next turn on,
    /// as in the reference.
    registry: Arc<RwLock<Registry>>,
}

impl HostClient {
    /// A client of the host whose stdin and stdout these are; the host's messages for the
    /// actor come out of the receiver.
    pub(super) fn start(
        stdin: ChildStdin,
        stdout: ChildStdout,
    ) -> (Self, mpsc::Receiver<HostInput>) {
        let (writer, lines) = mpsc::channel(HOST_QUEUE);
        tokio::spawn(write_lines(stdin, lines));
        let client = Self {
            writer,
            waiting: Arc::default(),
            next_id: Arc::new(AtomicU64::new(0)),
            registry: Arc::default(),
        };
        let (actor, messages) = mpsc::channel(HOST_QUEUE);
        tokio::spawn(read_messages(stdout, actor, client.clone()));
        (client, messages)
    }

    fn waiting(&self) -> MutexGuard<'_, Waiting> {
        // A panic while holding the lock leaves the table itself sound.
        self.waiting
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Sends a message that wants no reply.
    pub(super) async fn send(&self, message: &ToHost<'_>) -> Result<(), SendError> {
        self.send_line(encode(message)?).await
    }

    /// Sends an encoded line ([`HostClient::actor_request`], [`encode`]).
    pub(super) async fn send_line(&self, line: Vec<u8>) -> Result<(), SendError> {
        self.writer.send(line).await.map_err(|_| SendError::Gone)
    }

    /// Makes the request `build` makes with a new id, its reply going `to`: the id and the
    /// line to send.
    fn register<'m>(
        &self,
        to: ReplyTo,
        build: impl FnOnce(u64) -> ToHost<'m>,
    ) -> Result<(u64, Vec<u8>), SendError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let line = encode(&build(id))?;
        let mut waiting = self.waiting();
        if waiting.closed {
            return Err(SendError::Gone);
        }
        waiting.replies.insert(id, to);
        Ok((id, line))
    }

    /// Sends the request `build` makes with a new id, its reply going `to`; the id.
    async fn request<'m>(
        &self,
        to: ReplyTo,
        build: impl FnOnce(u64) -> ToHost<'m>,
    ) -> Result<u64, SendError> {
        let (id, line) = self.register(to, build)?;
        if let Err(error) = self.send_line(line).await {
            self.forget(id);
            return Err(error);
        }
        Ok(id)
    }

    /// A request of the session actor, made now and sent later ([`HostClient::send_line`];
    /// [`HostClient::forget`] it should that fail): its id, with which its reply comes to the
    /// actor as [`HostInput::Reply`], and its line.
    pub(super) fn actor_request<'m>(
        &self,
        build: impl FnOnce(u64) -> ToHost<'m>,
    ) -> Result<(u64, Vec<u8>), SendError> {
        self.register(ReplyTo::Actor, build)
    }

    /// A request answered once; the reply comes to the receiver (which errs if the host ends).
    pub(super) async fn ask<'m>(
        &self,
        build: impl FnOnce(u64) -> ToHost<'m>,
    ) -> Result<oneshot::Receiver<HostReply>, SendError> {
        let (tx, rx) = oneshot::channel();
        self.request(ReplyTo::Once(tx), build).await?;
        Ok(rx)
    }

    /// A request answered by several replies until a final one ([`HostReply::is_final`]):
    /// its id (to abort it with) and the replies.
    pub(super) async fn open_stream<'m>(
        &self,
        build: impl FnOnce(u64) -> ToHost<'m>,
    ) -> Result<(u64, mpsc::UnboundedReceiver<HostReply>), SendError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let id = self.request(ReplyTo::Stream(tx), build).await?;
        Ok((id, rx))
    }

    /// Stops waiting for the replies to `id`.
    pub(super) fn forget(&self, id: u64) {
        self.waiting().replies.remove(&id);
    }

    /// Where the reply to `id` goes (its final reply ends the wait).
    fn route(&self, id: u64, reply: &HostReply) -> Option<ReplyTo> {
        let mut waiting = self.waiting();
        match waiting.replies.get(&id)? {
            ReplyTo::Stream(tx) if !reply.is_final() => Some(ReplyTo::Stream(tx.clone())),
            _ => waiting.replies.remove(&id),
        }
    }

    fn registry(&self) -> RwLockReadGuard<'_, Registry> {
        // A panic while holding the lock leaves the registry itself sound.
        self.registry
            .read()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn registry_mut(&self) -> RwLockWriteGuard<'_, Registry> {
        self.registry
            .write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Takes what the extensions registered now (every clone sees it).
    pub(super) fn update(&self, tools: &[RegisteredTool], events: &[String]) {
        self.registry_mut().update(tools, events);
    }

    /// The tools the session offers from now on (the tool flags' choice, or the one
    /// `pi.setActiveTools` made): every clone sees it, so a run offers them from its next turn.
    pub fn select_tools(&self, selection: crate::tools::ToolSelection) {
        self.registry_mut().select(selection);
    }

    /// The tools the session offers now, once it said ([`HostClient::select_tools`]).
    pub fn tool_selection(&self) -> Option<crate::tools::ToolSelection> {
        self.registry().selection().cloned()
    }

    /// Counts the registry's updates: a run's system prompt is built anew once it changed.
    pub(super) fn registry_version(&self) -> u64 {
        self.registry().version()
    }

    /// Whether some extension handles events of `kind`.
    pub fn handles(&self, kind: &str) -> bool {
        self.registry().handles(kind)
    }

    /// The registered tools as the model sees them, in registration order.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.registry().definitions().to_vec()
    }

    /// What the registered tools add to the system prompt, in registration order.
    pub fn prompts(&self) -> Vec<ToolPrompt> {
        self.registry().prompts().to_vec()
    }

    /// The host ended: every waiting request ends, and no new one is taken.
    fn close(&self) {
        let mut waiting = self.waiting();
        waiting.closed = true;
        waiting.replies.clear();
    }
}

/// A message as the line the host reads.
pub(super) fn encode(message: &ToHost<'_>) -> Result<Vec<u8>, SendError> {
    let mut line = to_json(message)?;
    line.push(b'\n');
    Ok(line)
}

/// Writes the lines for the host, in the order sent, until the host or the agent goes.
async fn write_lines(mut stdin: ChildStdin, mut lines: mpsc::Receiver<Vec<u8>>) {
    while let Some(line) = lines.recv().await {
        if let Err(error) = async {
            stdin.write_all(&line).await?;
            stdin.flush().await
        }
        .await
        {
            // A host that is gone (it ended, or the agent stops it as it exits) is reported by
            // the reader, which sees its output end; any other failure is worth a line.
            if error.kind() == std::io::ErrorKind::BrokenPipe {
                tracing::debug!(%error, "the extension host is gone");
            } else {
                tracing::error!(%error, "cannot write to the extension host");
            }
            return;
        }
    }
}

/// Reads the host's messages: replies go where their id says, the rest to the actor.
async fn read_messages(stdout: ChildStdout, actor: mpsc::Sender<HostInput>, client: HostClient) {
    let mut lines = BufReader::new(stdout).lines();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(error) => {
                tracing::error!(%error, "cannot read the extension host's output");
                break;
            }
        };
        let input = match pi_rpc_protocol::surrogates::from_str::<FromHost>(&line) {
            Ok(FromHost::Reply { id, reply }) => match client.route(id, &reply) {
                Some(ReplyTo::Actor) => HostInput::Reply(id, reply),
                Some(ReplyTo::Once(tx)) => {
                    // The asker may have gone (a cancelled run); then the reply is not needed.
                    let _ = tx.send(reply);
                    continue;
                }
                Some(ReplyTo::Stream(tx)) => {
                    let _ = tx.send(reply);
                    continue;
                }
                None => {
                    tracing::debug!(id, "a reply nothing waits for");
                    continue;
                }
            },
            Ok(FromHost::Message(message)) => HostInput::Message(message),
            Err(error) => {
                tracing::warn!(%error, line, "unreadable message from the extension host");
                continue;
            }
        };
        if actor.send(input).await.is_err() {
            break;
        }
    }
    client.close();
}

#[cfg(all(test, unix))]
mod tests {
    use std::process::Stdio;

    use super::*;
    use crate::extensions::protocol::HostEvent;

    /// A host (a shell script) that reads the agent's three requests, then answers them out of
    /// order, with a message of its own between the answers, and ends.
    const SCRIPT: &str = r#"read a; read b; read c
printf '%s\n' \
  '{"type":"tool_update","id":2,"partialResult":{"content":[]}}' \
  '{"type":"extension_error","extensionPath":"x.ts","event":"input","error":"boom"}' \
  '{"type":"done","id":0}' \
  '{"type":"intercepted","id":1,"result":{"block":true}}' \
  '{"type":"tool_result","id":2,"result":{"content":[]},"isError":false}'
"#;

    #[tokio::test]
    async fn replies_go_where_their_ids_say_and_the_actor_s_come_in_the_host_s_order() {
        let mut host = tokio::process::Command::new("sh")
            .args(["-c", SCRIPT])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let (stdin, stdout) = (host.stdin.take().unwrap(), host.stdout.take().unwrap());
        let (client, mut actor) = HostClient::start(stdin, stdout);
        let event = HostEvent::AgentSettled;
        let (asked, line) = client
            .actor_request(|id| ToHost::Event { id, event: &event })
            .unwrap();
        assert_eq!(asked, 0);
        client.send_line(line).await.unwrap();
        let intercepted = client
            .ask(|id| ToHost::Intercept { id, event: &event })
            .await
            .unwrap();
        let args = serde_json::Value::Null;
        let call = |id| ToHost::Tool {
            id,
            tool_call_id: "call",
            name: "tool",
            args: &args,
        };
        let (id, mut tool_replies) = client.open_stream(call).await.unwrap();
        assert_eq!(id, 2);

        assert!(matches!(
            tool_replies.recv().await,
            Some(HostReply::ToolUpdate { .. })
        ));
        assert!(matches!(
            tool_replies.recv().await,
            Some(HostReply::ToolResult {
                is_error: false,
                ..
            })
        ));
        assert_eq!(tool_replies.recv().await, None);
        assert!(matches!(
            intercepted.await,
            Ok(HostReply::Intercepted { .. })
        ));
        assert!(matches!(
            actor.recv().await,
            Some(HostInput::Message(HostMessage::ExtensionError { .. }))
        ));
        assert!(matches!(
            actor.recv().await,
            Some(HostInput::Reply(0, HostReply::Done { result: None }))
        ));
        // The host ended: the actor's channel closes, and no request is taken any more.
        assert!(actor.recv().await.is_none());
        let late = client.ask(|id| ToHost::Intercept { id, event: &event });
        assert!(matches!(late.await, Err(SendError::Gone)));
    }
}
