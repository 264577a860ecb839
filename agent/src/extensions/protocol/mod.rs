//! The messages between the agent and the extension host (one JSON object per line each way;
//! `host.mjs` lists them): what the host says ([`HostMessage`], and [`HostReply`] to a request
//! of the agent), what the agent sends it ([`ToHost`]), the events it hands the extensions'
//! handlers ([`HostEvent`]) and what their handlers decide (`replies`).

mod events;
mod replies;

use std::path::Path;

use pi_rpc_protocol::command::ExtensionUiResponse;
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::CliFlag;
use crate::tools::ToolDefinition;

pub use events::{CompactionPreparation, HostEvent, TreePreparation};
pub use replies::{
    BeforeAgentStartResult, BeforeCompactResult, BeforeTreeResult, CancelResult, CompactionGiven,
    ContextResult, DiscoveredPath, DiscoveredResources, HostReply, InputResult,
    OutgoingCustomMessage, ProviderHeadersResult, ProviderRequestResult, ReplyValue, SetupResult,
    ToolCallDecision, UserBashResult,
};

/// A line from the host: the reply to a request of the agent (by the id the agent gave it), or
/// a message of its own.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum FromHost {
    /// A reply, routed by its id.
    Reply {
        /// The id the agent gave the request.
        id: u64,
        /// What the host replies.
        #[serde(flatten)]
        reply: HostReply,
    },
    /// A message for the session.
    Message(HostMessage),
}

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

/// A `pi.registerProvider(name, config)` call an extension's factory made, still queued when
/// the factories were done (pi applies them in order once the extensions are loaded).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderRegistration {
    /// The provider's name.
    pub name: String,
    /// Its config as the extension gave it (models.json's fields), as JSON.
    pub config: serde_json::Map<String, serde_json::Value>,
    /// The extension that registered it.
    pub extension_path: String,
}

/// The handler a late `pi.registerProvider` call came from, as an `extension_error` names it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderCallOrigin {
    /// The extension's file, or `command:<name>`.
    pub extension_path: String,
    /// The event, `command`, or `register_provider` outside any handler.
    pub event: String,
}

/// A tool an extension registered, as the host reports it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RegisteredTool {
    /// The name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    #[serde(default)]
    pub description: String,
    /// JSON schema of its arguments.
    #[serde(default)]
    pub parameters: Value,
    /// Its line in the system prompt's tool list (without one it is not listed).
    #[serde(default, rename = "promptSnippet")]
    pub prompt_snippet: Option<String>,
    /// What it adds to the system prompt's guidelines.
    #[serde(default, rename = "promptGuidelines")]
    pub prompt_guidelines: Vec<String>,
    /// The extension's file.
    pub path: String,
}

/// A message from the host.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HostMessage {
    /// The extensions are loaded: what those that loaded registered, and which failed.
    Loaded {
        /// Registered commands, in pi's order.
        commands: Vec<RegisteredCommand>,
        /// Registered tools, in registration order.
        #[serde(default)]
        tools: Vec<RegisteredTool>,
        /// Event types some extension handles.
        events: Vec<String>,
        /// On a reload: why some extensions failed to load again (the others are loaded).
        #[serde(default)]
        error: Option<String>,
        /// The flags the loaded extensions registered, in their order.
        #[serde(default)]
        flags: Vec<HelpFlag>,
        /// The providers the factories registered, in order, to apply before the start-up
        /// model is chosen.
        #[serde(default)]
        providers: Vec<ProviderRegistration>,
        /// At start-up: the extensions that failed to load, in load order, each in pi's words
        /// (`Failed to load extension "<path>": ...`); the others are loaded.
        #[serde(default, rename = "loadErrors")]
        load_errors: Vec<String>,
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
    /// `pi.registerProvider(name, config)` after loading (from a handler, a command or a
    /// tool): applied to the model registry at once.
    RegisterProvider {
        /// The registration.
        #[serde(flatten)]
        registration: ProviderRegistration,
        /// Where a refusal is reported: the handler the call came from, as its uncaught throw
        /// would be.
        origin: ProviderCallOrigin,
    },
    /// `pi.unregisterProvider(name)` after loading: the provider's registrations are taken back.
    UnregisterProvider {
        /// The provider's name.
        name: String,
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
        /// The token of its `setup` callback, if it has one (`session_setup` names it).
        #[serde(default)]
        setup: Option<String>,
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
    /// A command's `ctx.navigateTree(targetId, options)`: answered by a `reply` with this id
    /// (`{cancelled}`, or `{error}`) once the leaf moved and the `session_tree` handlers ran.
    NavigateTree {
        /// The host's id for the reply.
        id: String,
        /// The entry to go to.
        #[serde(rename = "targetId")]
        target_id: String,
        /// The options as the host read them.
        #[serde(flatten)]
        options: TreeOptions,
    },
    /// A command's `ctx.reload()`: answered by a `reply` with this id once the extensions are
    /// loaded afresh and started.
    ReloadRuntime {
        /// The host's id for the reply.
        id: String,
    },
    /// A runtime module's call of a built-in tool (`createReadTool(cwd).execute` & co):
    /// answered by a `reply` with this id, `{content, details}` or `{error}`.
    RunTool {
        /// The host's id for the reply.
        id: String,
        /// The built-in tool.
        name: String,
        /// Its arguments, as the extension gave them.
        #[serde(default)]
        params: Value,
        /// The folder the tool object was made for (the session's when absent).
        #[serde(default)]
        cwd: Option<std::path::PathBuf>,
    },
    /// `ctx.compact(options)`: a manual compaction, answered by a `reply` with this id
    /// (`{result}`, or `{error}`) once it ended.
    Compact {
        /// The host's id for the reply.
        id: String,
        /// What the summary should focus on.
        #[serde(default, rename = "customInstructions")]
        custom_instructions: Option<String>,
    },
    /// A provider call of pi-ai (`complete`, `stream`, the built-in apis) or of
    /// `ctx.modelRegistry.complete`: `model_stream`s, then a `reply` with this id (`{message}`).
    ModelCall {
        /// The host's id for the reply.
        id: String,
        /// pi-ai's `Model`.
        model: Value,
        /// pi-ai's `Context`.
        #[serde(default)]
        context: Value,
        /// pi-ai's stream options (as JSON).
        #[serde(default)]
        options: Value,
        /// A `*Simple` call.
        #[serde(default)]
        simple: bool,
        /// `ctx.modelRegistry.complete`: the registry's credentials.
        #[serde(default)]
        registry: bool,
    },
    /// The signal of the model call `id` aborted.
    ModelCallAbort {
        /// The call's id.
        id: String,
    },
    /// `ctx.modelRegistry.getApiKeyAndHeaders(model)` or `.getApiKeyForProvider(provider)`:
    /// answered by a `reply` with this id (`{ok, apiKey?, headers?, error?}`).
    ModelAuth {
        /// The host's id for the reply.
        id: String,
        /// The model (`getApiKeyAndHeaders`).
        #[serde(default)]
        model: Option<Value>,
        /// The provider (`getApiKeyForProvider`).
        #[serde(default)]
        provider: Option<String>,
    },
    /// `pi.setThinkingLevel(level)`.
    SetThinkingLevel {
        /// The level asked for (clamped to the model).
        level: pi_rpc_protocol::model::ThinkingLevel,
    },
    /// `pi.setSessionName(name)`: the session's display name (sanitised; empty clears it).
    SetSessionName {
        /// The name.
        name: String,
    },
    /// `pi.setLabel(entryId, label)`: a `label` entry on `target_id` (no label: cleared).
    SetLabel {
        /// The labelled entry.
        #[serde(rename = "targetId")]
        target_id: String,
        /// The label.
        #[serde(default)]
        label: Option<String>,
    },
    /// `ctx.shutdown()`: the agent exits after the command in hand, or after the next one.
    Shutdown {
        /// Whether the synchronous part of a command's handler asked (that command is the one).
        #[serde(default, rename = "duringCommand")]
        during_command: bool,
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
}

/// The options of `ctx.navigateTree` (each absent when not given as its type).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeOptions {
    /// Whether the branch left behind is summarised.
    #[serde(default)]
    pub summarize: bool,
    /// What the summary should focus on.
    #[serde(default)]
    pub custom_instructions: Option<String>,
    /// Whether `custom_instructions` replace the summary's task.
    #[serde(default)]
    pub replace_instructions: Option<bool>,
    /// A label for the summary entry (or, without a summary, the target).
    #[serde(default)]
    pub label: Option<String>,
}

/// A message to the host.
#[derive(Debug, Serialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub(super) enum ToHost<'a> {
    Init {
        cwd: &'a Path,
        extensions: &'a [&'a Path],
        flags: &'a [CliFlag],
        mode: super::UiMode,
        /// How the host's module loader finds what the extensions import.
        loader: Loader<'a>,
    },
    /// Run the handlers of `event`; `done` follows.
    Event {
        id: u64,
        event: &'a HostEvent<'a>,
    },
    /// Run the handlers whose answers change what follows (`tool_call`, `tool_result`,
    /// `context`, `session_before_compact`, provider hooks); `intercepted` follows.
    Intercept {
        id: u64,
        event: &'a HostEvent<'a>,
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
        /// The files to load now.
        extensions: &'a [&'a Path],
        /// Their TypeScript files' JavaScript.
        modules: &'a super::ModuleSources,
    },
    Tools {
        all: &'a [&'a str],
        active: &'a [&'a str],
        builtins: &'a [BuiltinTool<'a>],
        registered: &'a [&'a str],
        sources: Sources<'a>,
        flags: ToolFlags<'a>,
    },
    Streaming {
        value: bool,
    },
    /// What `pi.getCommands()` lists after the extensions' commands (`get_commands` entries).
    SlashCommands {
        commands: &'a [Value],
    },
    /// The model, the thinking level, the levels the model supports and the context usage; at
    /// start-up and reloads also every model, those with credentials (`provider/id`) and the
    /// providers with credentials.
    ModelState {
        model: &'a Model,
        thinking_level: ThinkingLevel,
        levels: &'a [ThinkingLevel],
        /// How full the model's context window is (`null`: unknown).
        context_usage: Option<&'a pi_rpc_protocol::response::ContextUsage>,
        #[serde(skip_serializing_if = "Option::is_none")]
        models: Option<&'a [&'a Model]>,
        #[serde(skip_serializing_if = "Option::is_none")]
        available: Option<&'a [String]>,
        /// The providers with credentials (with `models`).
        #[serde(skip_serializing_if = "Option::is_none")]
        configured: Option<&'a [&'a str]>,
    },
    /// A model call's progress (`model_calls.rs`): the message as it began, its usage, its
    /// deltas.
    ModelStream {
        id: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        start: Option<&'a pi_rpc_protocol::message::AgentMessage>,
        #[serde(skip_serializing_if = "Option::is_none")]
        usage: Option<&'a pi_rpc_protocol::usage::Usage>,
        #[serde(skip_serializing_if = "Option::is_none")]
        events: Option<&'a [pi_rpc_protocol::event::AssistantMessageEvent]>,
    },
    /// What `ctx.getContextUsage()` answers from now on (`null`: unknown).
    ContextUsage {
        usage: Option<&'a pi_rpc_protocol::response::ContextUsage>,
    },
    /// The answer to the host's call `id` (`pi.setModel`, `ctx.waitForIdle()`, ...).
    Reply {
        id: &'a str,
        value: &'a ReplyValue,
    },
    /// Run the registered tool `name`; `tool_update`s, then `tool_result`, follow.
    Tool {
        id: u64,
        tool_call_id: &'a str,
        name: &'a str,
        args: &'a Value,
    },
    /// Abort the signal of the tool call `id`.
    ToolAbort {
        id: u64,
    },
    /// Run `command` with the `user_bash` operations of the event `operations`; `bash_data`s,
    /// then `bash_exit`, follow.
    BashExec {
        id: u64,
        operations: u64,
        command: &'a str,
        cwd: &'a Path,
    },
    /// Abort the signal of the command `id`.
    BashAbort {
        id: u64,
    },
    /// Run the `streamSimple` of the extension provider `provider` for a model call;
    /// `provider_event`s, then `provider_done`, follow.
    ProviderStream {
        id: u64,
        provider: &'a str,
        model: &'a Model,
        context: &'a Value,
        options: &'a Value,
    },
    /// Abort the signal of the provider call `id`.
    ProviderStreamAbort {
        id: u64,
    },
    /// The key of a call of the extension provider `provider`, from the login `auth.json`
    /// stores for it (its `oauth.getApiKey`, after `refreshToken` when it expires soon);
    /// `provider_key` follows.
    ProviderAuth {
        id: u64,
        provider: &'a str,
        credential: &'a Value,
    },
}

/// A session the host's mirror (`ctx.sessionManager`) starts again from: its header, its id
/// and its places (`session_file`: none when it is not written to disk).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MirroredSession<'a> {
    /// The header line.
    pub header: &'a serde_json::Map<String, Value>,
    /// The session id.
    pub session_id: &'a str,
    /// The session's working folder.
    pub cwd: &'a Path,
    /// The folder new sessions go to (empty for a session kept in memory).
    pub session_dir: &'a Path,
    /// The session file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_file: Option<&'a Path>,
}

/// Where each extension file comes from (`sourceInfo`), by its path, in load order.
#[derive(Debug)]
pub(super) struct Sources<'a>(pub(super) &'a [super::ExtensionFile]);

impl Serialize for Sources<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(
            self.0
                .iter()
                .map(|file| (file.path.to_string_lossy(), &file.source_info)),
        )
    }
}

/// A built-in tool as `pi.getAllTools` reports it: its definition, and the guidelines it brings
/// to the system prompt (a tool without any has no `promptGuidelines`, as in the reference).
#[derive(Debug, Serialize)]
pub(super) struct BuiltinTool<'a> {
    #[serde(flatten)]
    pub(super) definition: &'a ToolDefinition,
    #[serde(rename = "promptGuidelines", skip_serializing_if = "Option::is_none")]
    pub(super) prompt_guidelines: Option<&'static [&'static str]>,
}

/// The tool flags of the command line, for `pi.getAllTools` / `pi.setActiveTools`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolFlags<'a> {
    pub(super) tools: &'a Option<Vec<String>>,
    pub(super) no_tools: bool,
    pub(super) exclude: &'a [String],
}

#[cfg(test)]
mod tests;

/// What the host's module loader is given: the runtime modules pi's packages resolve to (their
/// folder, or their texts), the extensions' TypeScript made JavaScript, and this binary, to
/// transpile a file not sent.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Loader<'a> {
    /// The folder of the runtime modules' files (runtime.rs), else (it cannot be written)
    /// `runtime`: file name to JavaScript.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_dir: Option<&'a Path>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<super::RuntimeModules>,
    /// Canonical path to JavaScript (or the error).
    pub modules: &'a super::ModuleSources,
    /// The executable that transpiles on demand.
    pub agent: &'a Path,
    /// The pi release the runtime modules report (`VERSION`).
    pub version: &'a str,
    /// The agent folder (`getAgentDir()`).
    pub agent_dir: &'a Path,
}
