//! Extensions (`-e path.ts`): pi's extensions are TypeScript modules that run in-process in the
//! reference. pi-agent runs them in one Node.js sidecar, the extension host (`host.mjs`,
//! embedded in the binary), started only when extensions are given. The agent and the host talk
//! in JSON lines over the host's stdin and stdout; `host.mjs` describes the messages.

mod bash;
mod discover;
mod node;
mod protocol;
mod run_hooks;
mod tool;
mod tools;

pub use discover::{Discovery, ExtensionFile, discover};
pub use node::{MIN_NODE, NODE_ENV, Node, find_node};
pub use protocol::{HelpFlag, HostMessage, OutgoingCustomMessage, RegisteredCommand};
pub use run_hooks::ExtensionRunHooks;
pub use tools::{RegisteredTool, ToolBridge};

use std::path::Path;
use std::process::Stdio;

use pi_rpc_protocol::command::ExtensionUiResponse;
use pi_rpc_protocol::json::to_vec as to_json;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::mpsc;

use protocol::ToHost;
use tools::{ToolCalls, ToolReply};

/// The extension host script, run with `node --input-type=module -e`: `host.mjs` with its
/// tools, UI and session parts appended (one module).
const HOST_SCRIPT: &str = concat!(
    include_str!("host.mjs"),
    "\n",
    include_str!("host_tools.mjs"),
    "\n",
    include_str!("host_ui.mjs"),
    "\n",
    include_str!("host_session.mjs")
);

/// Host messages waiting for the session.
const HOST_QUEUE: usize = 256;

/// Why extensions cannot be started.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No Node.js could be run.
    #[error(
        "extensions need Node.js {}.{} or newer, and `{program}` cannot be run ({source}); install it or name it with {NODE_ENV}",
        MIN_NODE.0,
        MIN_NODE.1
    )]
    NodeMissing {
        /// What was tried.
        program: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// The Node.js found cannot strip TypeScript types.
    #[error(
        "extensions need Node.js {}.{} or newer, but `{program}` is {version}; install a newer one or name it with {NODE_ENV}",
        MIN_NODE.0,
        MIN_NODE.1
    )]
    NodeTooOld {
        /// What was run.
        program: String,
        /// What it said.
        version: String,
    },
    /// An extension failed to load (worded as the reference words it).
    #[error("{0}")]
    Load(String),
    /// Command-line flags that no extension registered, or without their value: one line
    /// each, worded as the reference words them (the first line has no `Error: ` prefix, which
    /// the caller writes).
    #[error("{}", .0.join("\nError: "))]
    Flags(Vec<String>),
    /// The host ended or broke the protocol before reporting the extensions loaded.
    #[error("the extension host ended before loading the extensions")]
    HostEnded,
    /// Starting or talking to the host failed.
    #[error("extension host: {0}")]
    Io(#[from] std::io::Error),
    /// A message could not be encoded.
    #[error("extension host message: {0}")]
    Json(#[from] serde_json::Error),
}

/// A command-line flag pi-agent does not know, for the extensions (`--name`, `--name value`,
/// `--name=value`): its name and its value, if it has one.
pub type CliFlag = (String, Option<String>);

/// Starts the extension host for the extensions `discovery` finds, or nothing when there are
/// none: without extensions no Node.js is looked for or spawned. `flags` go to the extensions
/// that registered them; any other is an error, as in the reference.
pub async fn start(
    discovery: Discovery<'_>,
    flags: &[CliFlag],
    mode: UiMode,
    release: crate::release::RpcRelease,
) -> Result<Option<Host>, Error> {
    let files = discover(discovery)?;
    if files.is_empty() {
        if flags.is_empty() {
            return Ok(None);
        }
        let names: Vec<String> = flags.iter().map(|(name, _)| format!("--{name}")).collect();
        let plural = if names.len() == 1 { "" } else { "s" };
        return Err(Error::Flags(vec![format!(
            "Unknown option{plural}: {}",
            names.join(", ")
        )]));
    }
    let node = find_node()?;
    let ui_prompt_events = release.has(crate::release::Feature::UiPromptEvents);
    Host::start(&node, files, discovery.cwd, flags, mode, ui_prompt_events)
        .await
        .map(Some)
}

/// The flags the extensions `discovery` finds register, as `--help` lists them: their host is
/// started, loaded and stopped. None, and no Node.js looked for, without extensions.
pub async fn help_flags(discovery: Discovery<'_>, mode: UiMode) -> Result<Vec<HelpFlag>, Error> {
    let files = discover(discovery)?;
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let node = find_node()?;
    let host = Host::start(&node, files, discovery.cwd, &[], mode, false).await?;
    Ok(host.help_flags)
}

/// The mode the extensions are told they run in (`ctx.mode`). Only RPC mode has a client to
/// show the extension UI (`ctx.hasUI`); print and JSON modes give the extensions a UI that does
/// nothing and answers every dialog with its default, as the reference does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UiMode {
    /// `--mode rpc`.
    Rpc,
    /// `--print` with `--mode text`.
    Print,
    /// `--print` with `--mode json` (or `--mode json`).
    Json,
}

/// The running extension host with its extensions loaded.
#[derive(Debug)]
pub struct Host {
    // Killed when dropped: the host ends with the agent.
    _child: Child,
    /// Lines for the host's stdin, written by one task (runs write tool calls too).
    writer: mpsc::Sender<Vec<u8>>,
    messages: mpsc::Receiver<HostMessage>,
    tool_bridge: ToolBridge,
    /// Registered commands, in pi's order.
    pub commands: Vec<RegisteredCommand>,
    /// Event types some extension handles.
    pub events: Vec<String>,
    /// The loaded files.
    pub files: Vec<ExtensionFile>,
    /// The flags the extensions registered when they were first loaded, for `--help`.
    pub help_flags: Vec<HelpFlag>,
}

impl Host {
    /// Starts the host with `node`, loads `files`, hands them `flags` and the `mode`, and waits
    /// until they are loaded.
    pub async fn start(
        node: &Node,
        files: Vec<ExtensionFile>,
        cwd: &Path,
        flags: &[CliFlag],
        mode: UiMode,
        ui_prompt_events: bool,
    ) -> Result<Self, Error> {
        let mut child = tokio::process::Command::new(&node.program)
            .args([
                node.typescript_flag(),
                "--no-warnings",
                "--input-type=module",
                "-e",
                HOST_SCRIPT,
            ])
            .current_dir(cwd)
            // `ctx.ui` dialogs tell the handlers `ui_prompt_start` / `ui_prompt_end` (0.84.4).
            .env(
                "PI_AGENT_UI_PROMPT_EVENTS",
                if ui_prompt_events { "1" } else { "0" },
            )
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(Error::HostEnded);
        };
        let (tx, mut messages) = mpsc::channel(HOST_QUEUE);
        let tool_calls = ToolCalls::default();
        tokio::spawn(read_messages(stdout, tx, tool_calls.clone()));
        let (writer, lines) = mpsc::channel(HOST_QUEUE);
        tokio::spawn(write_lines(stdin, lines));
        let tool_bridge = ToolBridge::new(writer.clone(), tool_calls);
        let mut host = Self {
            _child: child,
            writer,
            messages: mpsc::channel(1).1,
            tool_bridge,
            commands: Vec::new(),
            events: Vec::new(),
            files,
            help_flags: Vec::new(),
        };
        let extensions: Vec<&Path> = host.files.iter().map(|file| file.path.as_path()).collect();
        let init = to_json(&ToHost::Init {
            cwd,
            extensions: &extensions,
            flags,
            mode,
        })?;
        host.send_line(init).await?;
        match messages.recv().await {
            Some(HostMessage::Loaded {
                error: Some(error), ..
            }) => Err(Error::Load(error)),
            Some(HostMessage::Loaded { flag_errors, .. }) if !flag_errors.is_empty() => {
                Err(Error::Flags(flag_errors))
            }
            Some(HostMessage::Loaded {
                commands,
                tools,
                events,
                flags,
                ..
            }) => {
                host.loaded(commands, &tools, events);
                host.help_flags = flags;
                host.messages = messages;
                Ok(host)
            }
            _ => Err(Error::HostEnded),
        }
    }

    /// Takes what the extensions registered when they were (re)loaded.
    pub fn loaded(
        &mut self,
        commands: Vec<RegisteredCommand>,
        tools: &[RegisteredTool],
        events: Vec<String>,
    ) {
        self.tool_bridge.update(tools, &events);
        self.commands = commands;
        self.events = events;
    }

    /// Loads the extensions afresh for a replaced session (their factories run again with new
    /// state; the modules are not evaluated again); a `Loaded` message follows, to hand to
    /// [`Host::loaded`].
    pub async fn reload(&mut self) -> Result<(), Error> {
        self.send(&ToHost::Reload { fresh: false }).await
    }

    /// As [`Host::reload`], and the extensions' modules are evaluated afresh (`ctx.reload()`).
    pub async fn reload_fresh(&mut self) -> Result<(), Error> {
        self.send(&ToHost::Reload { fresh: true }).await
    }

    /// Tells the host which tools the agent may offer (`all`, built-in and extension ones, in
    /// order), which it offers (`active`), the built-in definitions and every extension tool
    /// it knows of and the tool flags (`{tools, noTools, exclude}`), for `pi.getActiveTools` /
    /// `pi.getAllTools` and the tools registered before the agent hears of them.
    pub async fn tools_state(
        &mut self,
        all: &[&str],
        active: &[&str],
        builtins: &[Value],
        registered: &[&str],
        flags: &Value,
    ) -> Result<(), Error> {
        let sources: serde_json::Map<String, Value> = self
            .files
            .iter()
            .map(|file| {
                (
                    file.path.to_string_lossy().into_owned(),
                    file.source_info.clone(),
                )
            })
            .collect();
        self.send(&ToHost::Tools {
            all,
            active,
            builtins,
            registered,
            sources: &sources,
            flags,
        })
        .await
    }

    /// Sends the host a message the session composed (`model_state`, `reply`).
    pub async fn send_value(&mut self, message: &Value) -> Result<(), Error> {
        self.send_line(to_json(message)?).await
    }

    /// Tells the host whether the agent runs now (without waiting: runs start from sync code).
    pub fn set_streaming(&self, value: bool) {
        match to_json(&ToHost::Streaming { value }) {
            Ok(mut line) => {
                line.push(b'\n');
                if self.writer.try_send(line).is_err() {
                    tracing::warn!("cannot tell the extension host that the agent runs");
                }
            }
            Err(error) => tracing::error!(%error, "cannot encode a message for the extension host"),
        }
    }

    /// Whether some extension handles events of `kind`.
    pub fn handles(&self, kind: &str) -> bool {
        self.events.iter().any(|event| event == kind)
    }

    /// The registered command invoked as `/name`.
    pub fn command(&self, name: &str) -> Option<&RegisteredCommand> {
        self.commands.iter().find(|command| command.name == name)
    }

    /// The tools extensions registered and their handlers around tool calls and model calls,
    /// to hand to a run (it sees later registrations too).
    pub fn tool_bridge(&self) -> ToolBridge {
        self.tool_bridge.clone()
    }

    /// The next message; `None` once the host has ended.
    pub async fn recv(&mut self) -> Option<HostMessage> {
        self.messages.recv().await
    }

    /// Runs the handlers of `event` (an event record); `Done { id }` follows.
    pub async fn emit(&mut self, id: u64, event: &Value) -> Result<(), Error> {
        self.send(&ToHost::Event { id, event }).await
    }

    /// Runs the command `name`; `Done { id }` follows.
    pub async fn run_command(&mut self, id: u64, name: &str, args: &str) -> Result<(), Error> {
        self.send(&ToHost::Command { id, name, args }).await
    }

    /// Hands a client's answer to the dialog it answers (the host ignores unknown ids).
    pub async fn answer(&mut self, response: &ExtensionUiResponse) -> Result<(), Error> {
        self.send(&ToHost::UiResponse { response }).await
    }

    /// The `sourceInfo` of the extension loaded from `path`.
    pub fn source_info(&self, path: &str) -> Value {
        self.files
            .iter()
            .find(|file| file.path.as_os_str() == path)
            .map(|file| file.source_info.clone())
            .unwrap_or(Value::Null)
    }

    async fn send(&mut self, message: &ToHost<'_>) -> Result<(), Error> {
        self.send_line(to_json(message)?).await
    }

    async fn send_line(&mut self, mut line: Vec<u8>) -> Result<(), Error> {
        line.push(b'\n');
        self.writer.send(line).await.map_err(|_| {
            std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the extension host ended")
        })?;
        Ok(())
    }
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
            tracing::error!(%error, "cannot write to the extension host");
            return;
        }
    }
}

async fn read_messages(
    stdout: ChildStdout,
    messages: mpsc::Sender<HostMessage>,
    tool_calls: ToolCalls,
) {
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
        match pi_rpc_protocol::surrogates::from_str::<HostMessage>(&line) {
            Ok(HostMessage::ToolUpdate { id, partial_result }) => {
                tool_calls.deliver(id, ToolReply::Update(partial_result));
            }
            Ok(HostMessage::ToolResult {
                id,
                result,
                is_error,
            }) => tool_calls.deliver(id, ToolReply::Result { result, is_error }),
            Ok(HostMessage::Intercepted { id, result }) => {
                tool_calls.deliver(id, ToolReply::Intercepted(result));
            }
            Ok(HostMessage::BashData { id, data }) => {
                tool_calls.deliver(id, ToolReply::BashData(bash::decode_data(&data)));
            }
            Ok(HostMessage::BashExit {
                id,
                exit_code,
                error,
            }) => tool_calls.deliver(id, ToolReply::BashExit { exit_code, error }),
            Ok(message) => {
                if messages.send(message).await.is_err() {
                    break;
                }
            }
            Err(error) => {
                tracing::warn!(%error, line, "unreadable message from the extension host")
            }
        }
    }
    tool_calls.fail_all();
}
