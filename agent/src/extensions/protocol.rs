//! The messages between the agent and the extension host (one JSON object per line each way;
//! `host.mjs` lists them): what the host says ([`HostMessage`]) and what the agent sends it
//! ([`ToHost`]).

use std::path::Path;

use pi_rpc_protocol::command::ExtensionUiResponse;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::CliFlag;
use super::tools::RegisteredTool;

/// A command an extension registered.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RegisteredCommand {
    /// The name to invoke it with (`/name`).
    pub name: String,
    /// What it does.
    #[serde(default)]
    pub description: Option<String>,
    /// The extension's file.
    pub path: String,
}

/// A flag an extension registered, as `--help` lists it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct HelpFlag {
    /// `--name`, with ` <value>` when the flag takes a text.
    pub usage: String,
    /// Its description, else which extension registered it.
    pub description: String,
}

/// A message from the host.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HostMessage {
    /// The extensions are loaded (or `error` says why not).
    Loaded {
        /// Registered commands, in pi's order.
        commands: Vec<RegisteredCommand>,
        /// Registered tools, in registration order.
        #[serde(default)]
        tools: Vec<RegisteredTool>,
        /// Event types some extension handles.
        events: Vec<String>,
        /// Why loading failed.
        #[serde(default)]
        error: Option<String>,
        /// The flags the extensions registered, in their order.
        #[serde(default)]
        flags: Vec<HelpFlag>,
        /// At start-up: what is wrong with the command line's extension flags.
        #[serde(default, rename = "flagErrors")]
        flag_errors: Vec<String>,
    },
    /// An extension registered a command, tool or handler after loading: what all of them
    /// registered now.
    Registered {
        /// Registered commands, in pi's order.
        commands: Vec<RegisteredCommand>,
        /// Registered tools, in registration order.
        #[serde(default)]
        tools: Vec<RegisteredTool>,
        /// Event types some extension handles.
        events: Vec<String>,
    },
    /// An extension UI request without its `type`: `id`, `method`, then the method's fields.
    Ui {
        /// The request's fields, in the order to write them.
        request: serde_json::Map<String, Value>,
    },
    /// A handler threw.
    ExtensionError {
        /// The extension's file, or `command:<name>`.
        #[serde(rename = "extensionPath")]
        extension_path: String,
        /// The event (or `command`).
        event: String,
        /// The error's message.
        error: String,
    },
    /// `pi.appendEntry(customType, data)`.
    AppendEntry {
        /// The entry's kind.
        #[serde(rename = "customType")]
        custom_type: String,
        /// Its data.
        #[serde(default)]
        data: Option<Value>,
    },
    /// `pi.sendMessage(message, options)`: a custom message.
    SendMessage {
        /// `{customType, content, display, details}`.
        message: OutgoingCustomMessage,
        /// `steer` (the default), `followUp` or `nextTurn`.
        #[serde(default, rename = "deliverAs")]
        deliver_as: Option<String>,
        /// Whether an idle agent starts a run with it.
        #[serde(default, rename = "triggerTurn")]
        trigger_turn: bool,
    },
    /// `pi.setActiveTools(names)`: the tools to offer from now on (names of known tools only).
    SetActiveTools {
        /// The tool names, in the order given.
        names: Vec<String>,
    },
    /// `pi.setModel(model)`: answered by a `reply` with this id (true when the model is set).
    SetModel {
        /// The host's id for the reply.
        id: String,
        /// The model's provider.
        #[serde(default)]
        provider: String,
        /// The model's id.
        #[serde(default, rename = "modelId")]
        model_id: String,
    },
    /// `ctx.waitForIdle()`: answered by a `reply` with this id once the agent has settled.
    WaitForIdle {
        /// The host's id for the reply.
        id: String,
    },
    /// A command's `ctx.newSession(options)`: answered by a `reply` with this id (`{cancelled}`).
    NewSession {
        /// The host's id for the reply.
        id: String,
        /// The parent session file for the new session's header.
        #[serde(default, rename = "parentSession")]
        parent_session: Option<String>,
    },
    /// A command's `ctx.switchSession(path)` or `ctx.fork(entryId)`: answered by a `reply`
    /// with this id (`{cancelled}`, or `{error}`).
    Replace {
        /// The host's id for the reply.
        id: String,
        /// The session file to switch to (`switchSession`).
        #[serde(default, rename = "sessionPath")]
        session_path: Option<String>,
        /// The entry to fork at (`fork`).
        #[serde(default, rename = "entryId")]
        entry_id: Option<String>,
        /// `before` (the default) or `at` (`fork`).
        #[serde(default)]
        position: Option<String>,
    },
    /// A command's `ctx.reload()`: answered by a `reply` with this id once the extensions are
    /// loaded afresh and started.
    ReloadRuntime {
        /// The host's id for the reply.
        id: String,
    },
    /// `pi.setThinkingLevel(level)`.
    SetThinkingLevel {
        /// The level asked for (clamped to the model).
        level: pi_rpc_protocol::model::ThinkingLevel,
    },
    /// `pi.sendUserMessage(content, options)`: a user message, as if typed.
    SendUserMessage {
        /// The text blocks joined by newlines.
        text: String,
        /// The other blocks (images).
        #[serde(default)]
        images: Option<Vec<Value>>,
        /// `steer` or `followUp`, needed while the agent is busy.
        #[serde(default, rename = "deliverAs")]
        deliver_as: Option<String>,
    },
    /// The event or command with this id is fully handled.
    Done {
        /// The id the agent gave it.
        id: u64,
        /// What the handlers of `input` or `before_agent_start` decided.
        #[serde(default)]
        result: Option<Value>,
    },
    /// A partial result of the tool call with this id (routed to the call, not the session).
    ToolUpdate {
        /// The id the agent gave the call.
        id: u64,
        /// `{content, details}`.
        #[serde(rename = "partialResult")]
        partial_result: Value,
    },
    /// What `tool_call` or `tool_result` handlers made of a call (routed to the call).
    Intercepted {
        /// The id the agent gave the question.
        id: u64,
        /// Their answer.
        result: Value,
    },
    /// A piece of output of the `bash` command with this id, run by an extension's
    /// operations (routed to the command).
    BashData {
        /// The id the agent gave the command.
        id: u64,
        /// The bytes, in base64.
        data: String,
    },
    /// The end of that command (routed to the command).
    BashExit {
        /// The id the agent gave the command.
        id: u64,
        /// Its exit code, if it has one.
        #[serde(default, rename = "exitCode")]
        exit_code: Option<i64>,
        /// Why `exec` failed.
        #[serde(default)]
        error: Option<String>,
    },
    /// The end of the tool call with this id (routed to the call, not the session).
    ToolResult {
        /// The id the agent gave the call.
        id: u64,
        /// `{content, details}`.
        result: Value,
        /// Whether the tool threw.
        #[serde(rename = "isError")]
        is_error: bool,
    },
}

/// The message of `pi.sendMessage`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutgoingCustomMessage {
    /// The extension's kind of message.
    #[serde(default)]
    pub custom_type: String,
    /// A text or content blocks.
    #[serde(default)]
    pub content: Value,
    /// Whether a UI shows it.
    #[serde(default)]
    pub display: Option<bool>,
    /// Extension data.
    #[serde(default)]
    pub details: Option<Value>,
}

/// A message to the host.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum ToHost<'a> {
    Init {
        cwd: &'a Path,
        extensions: &'a [&'a Path],
        flags: &'a [CliFlag],
        mode: super::UiMode,
    },
    Event {
        id: u64,
        event: &'a Value,
    },
    Command {
        id: u64,
        name: &'a str,
        args: &'a str,
    },
    UiResponse {
        response: &'a ExtensionUiResponse,
    },
    Reload {
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        fresh: bool,
    },
    Tools {
        all: &'a [&'a str],
        active: &'a [&'a str],
        builtins: &'a [Value],
        registered: &'a [&'a str],
        sources: &'a serde_json::Map<String, Value>,
        flags: &'a Value,
    },
    Streaming {
        value: bool,
    },
}
