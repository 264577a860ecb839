//! Extensions (`-e path.ts`): pi's extensions are TypeScript modules that run in-process in the
//! reference. pi-agent runs them in one Node.js sidecar, the extension host (`host.mjs`,
//! embedded in the binary), started only when extensions are given. The agent and the host talk
//! in JSON lines over the host's stdin and stdout; `host.mjs` describes the messages.

mod bash;
mod builtin_calls;
mod client;
mod discover;
mod intercept;
mod model_calls;
mod modules;
mod node;
mod problems;
mod protocol;
mod provider_login;
mod provider_stream;
mod providers;
mod registry;
mod run_hooks;
mod runtime;
mod tool;
mod tools;
mod transpile;

pub use builtin_calls::ToolCallReply;
pub use client::{HostClient, HostInput, SendError};
use discover::missing_cli_paths;
pub use discover::{Discovery, ExtensionFile, Places, discover};
pub use model_calls::{
    ModelCall, ModelCallError, ModelCallReply, RunningCalls, model_auth, provider_key,
};
pub use modules::{ModuleSources, TRANSPILE_ENV, transpile_for_host};
pub use node::{MIN_NODE, MIN_NODE_18, NODE_ENV, node_program};
pub use problems::LoadProblems;
pub use protocol::{
    BeforeAgentStartResult, BeforeCompactResult, BeforeTreeResult, CancelResult, CompactionGiven,
    CompactionPreparation, DiscoveredPath, DiscoveredResources, HelpFlag, HostEvent, HostMessage,
    HostReply, InputResult, MirroredSession, OutgoingCustomMessage, ProviderCallOrigin,
    ProviderRegistration, RegisteredCommand, RegisteredTool, ReplyValue, SetupResult, TreeOptions,
    TreePreparation, UserBashResult,
};
pub use provider_stream::ExtensionProviderHooks;
pub use providers::apply_providers;
pub use run_hooks::ExtensionRunHooks;
pub use runtime::RuntimeModules;

use std::path::Path;
use std::process::Stdio;

use pi_rpc_protocol::command::ExtensionUiResponse;
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use tokio::process::Child;
use tokio::sync::mpsc;

use protocol::{BuiltinTool, Loader, Sources, ToHost, ToolFlags};

/// The extension host script, run with `node --input-type=module -e`: `host.mjs` with its
/// module loader, tools, UI, session, providers, tree, session manager, session setup, event
/// bus, context and further API parts appended (one module).
const HOST_SCRIPT: &str = concat!(
    include_str!("host.mjs"),
    "\n",
    include_str!("host_loader.mjs"),
    "\n",
    include_str!("host_tools.mjs"),
    "\n",
    include_str!("host_ui.mjs"),
    "\n",
    include_str!("host_session.mjs"),
    "\n",
    include_str!("host_providers.mjs"),
    "\n",
    include_str!("host_provider_streams.mjs"),
    "\n",
    include_str!("host_tree.mjs"),
    "\n",
    include_str!("host_session_manager.mjs"),
    "\n",
    include_str!("host_setup.mjs"),
    "\n",
    include_str!("host_events.mjs"),
    "\n",
    include_str!("host_api.mjs"),
    "\n",
    include_str!("host_context.mjs")
);

/// Why extensions cannot be started.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No Node.js could be run.
    #[error(
        "extensions need Node.js {}.{} or newer (or {}.{} or a later {}), and `{program}` cannot be run ({source}); install it or name it with {NODE_ENV}",
        MIN_NODE.0,
        MIN_NODE.1,
        MIN_NODE_18.0,
        MIN_NODE_18.1,
        MIN_NODE_18.0
    )]
    NodeMissing {
        /// What was tried.
        program: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// The Node.js found has no module hooks.
    #[error(
        "extensions need Node.js {}.{} or newer (or {}.{} or a later {}), but `{program}` is {version}; install a newer one or name it with {NODE_ENV}",
        MIN_NODE.0,
        MIN_NODE.1,
        MIN_NODE_18.0,
        MIN_NODE_18.1,
        MIN_NODE_18.0
    )]
    NodeTooOld {
        /// What was run.
        program: String,
        /// What it said.
        version: String,
    },
    /// The host ended or broke the protocol before reporting the extensions loaded.
    #[error("the extension host ended before loading the extensions")]
    HostEnded,
    /// Starting the host failed.
    #[error("extension host: {0}")]
    Io(#[from] std::io::Error),
    /// A message could not be sent to the host.
    #[error(transparent)]
    Send(#[from] SendError),
}

/// A command-line flag pi-agent does not know, for the extensions (`--name`, `--name value`,
/// `--name=value`): its name and its value, if it has one.
pub type CliFlag = (String, Option<String>);

/// Starts the extension host for the extensions `discovery` finds, or nothing when there are
/// none: without extensions no Node.js is looked for or spawned. `flags` go to the extensions
/// that registered them. Extensions that fail to load, `-e` paths that do not exist and flags
/// no extension registered are all in the problems, for the caller to report at once with
/// the model choice's, as the reference does.
pub async fn start(
    discovery: Discovery<'_>,
    flags: &[CliFlag],
    mode: UiMode,
    release: crate::release::RpcRelease,
) -> Result<(Option<Host>, LoadProblems), Error> {
    let ui_prompt_events = release.has(crate::release::Feature::UiPromptEvents);
    load(discovery, flags, mode, ui_prompt_events).await
}

/// What loading the extensions once gives `--help` and `--list-models`.
#[derive(Debug, Default)]
pub struct LoadedOnce {
    /// The flags the extensions that loaded register, as `--help` lists them.
    pub flags: Vec<HelpFlag>,
    /// The providers their factories registered.
    pub providers: Vec<ProviderRegistration>,
    /// What failed.
    pub problems: LoadProblems,
}

/// Loads the extensions `discovery` finds once, for what `--help` and `--list-models` need.
/// Their host is stopped at once; none is started, and no Node.js looked for, without
/// extensions.
pub async fn load_once(
    discovery: Discovery<'_>,
    flags: &[CliFlag],
    mode: UiMode,
) -> Result<LoadedOnce, Error> {
    let (host, problems) = load(discovery, flags, mode, false).await?;
    let (flags, providers) = host
        .map(|host| (host.help_flags, host.providers))
        .unwrap_or_default();
    Ok(LoadedOnce {
        flags,
        providers,
        problems,
    })
}

/// The host with the extensions `discovery` finds that load (none without extensions), and
/// what failed: those that did not load, then the missing `-e` paths.
async fn load(
    discovery: Discovery<'_>,
    flags: &[CliFlag],
    mode: UiMode,
    ui_prompt_events: bool,
) -> Result<(Option<Host>, LoadProblems), Error> {
    let files = discover(discovery);
    let (host, mut problems) = if files.is_empty() {
        let names: Vec<String> = flags.iter().map(|(name, _)| format!("--{name}")).collect();
        let plural = if names.len() == 1 { "" } else { "s" };
        let unknown =
            (!names.is_empty()).then(|| format!("Unknown option{plural}: {}", names.join(", ")));
        let problems = LoadProblems {
            providers: Vec::new(),
            flags: unknown.into_iter().collect(),
            extensions: Vec::new(),
        };
        (None, problems)
    } else {
        let node = node_program();
        let started = Host::start(&node, files, discovery.cwd, flags, mode, ui_prompt_events);
        let (mut host, problems) = match started.await {
            Err(Error::HostEnded) => return Err(node::unfit(&node).unwrap_or(Error::HostEnded)),
            started => started?,
        };
        host.places = Some(Places::of(discovery));
        (Some(host), problems)
    };
    problems.extensions.extend(missing_cli_paths(discovery));
    Ok((host, problems))
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
    /// The one client of the host (runs and `bash` commands hold clones).
    client: HostClient,
    messages: mpsc::Receiver<HostInput>,
    /// Registered commands, in pi's order.
    pub commands: Vec<RegisteredCommand>,
    /// The loaded files.
    pub files: Vec<ExtensionFile>,
    /// Where they were found, to find them again when they are loaded afresh (none: the
    /// same files are loaded again).
    places: Option<Places>,
    /// The flags the extensions registered when they were first loaded, for `--help`.
    pub help_flags: Vec<HelpFlag>,
    /// The providers the factories registered when they were first loaded, to apply before
    /// the start-up model is chosen.
    pub providers: Vec<ProviderRegistration>,
}

/// A message for the host, made (and, for a request, given its id and its reply's route)
/// when the agent decides it, sent later with [`Host::send`].
#[derive(Debug)]
pub struct HostLine {
    line: Vec<u8>,
    request: Option<u64>,
}

impl HostLine {
    fn message(message: &ToHost<'_>) -> Result<Self, SendError> {
        Ok(Self {
            line: client::encode(message)?,
            request: None,
        })
    }

    fn request(id: u64, line: Vec<u8>) -> Self {
        Self {
            line,
            request: Some(id),
        }
    }
}

impl Host {
    /// Starts the host with `node`, loads `files`, hands them `flags` and the `mode`, and waits
    /// until they are loaded; the host runs with those that loaded, and the problems say what
    /// failed.
    pub async fn start(
        node: &Path,
        files: Vec<ExtensionFile>,
        cwd: &Path,
        flags: &[CliFlag],
        mode: UiMode,
        ui_prompt_events: bool,
    ) -> Result<(Self, LoadProblems), Error> {
        let mut child = tokio::process::Command::new(node)
            .args(["--no-warnings", "--input-type=module", "-e", HOST_SCRIPT])
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
            .spawn()
            .map_err(|source| Error::NodeMissing {
                program: node.display().to_string(),
                source,
            })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(Error::HostEnded);
        };
        let (client, mut messages) = HostClient::start(stdin, stdout);
        let extensions: Vec<&Path> = files.iter().map(|file| file.path.as_path()).collect();
        // Transpiled while Node.js starts.
        let modules = ModuleSources::of(&extensions);
        let agent = std::env::current_exe()?;
        let agent_dir = crate::config::agent_dir();
        let runtime_dir = runtime::cached_folder();
        client
            .send(&ToHost::Init {
                cwd,
                extensions: &extensions,
                flags,
                mode,
                loader: Loader {
                    runtime_dir: runtime_dir.as_deref(),
                    runtime: runtime_dir.is_none().then_some(RuntimeModules),
                    modules: &modules,
                    agent: &agent,
                    version: crate::PI_VERSION,
                    agent_dir: &agent_dir,
                },
            })
            .await?;
        let Some(HostInput::Message(HostMessage::Loaded {
            commands,
            tools,
            events,
            flags: help_flags,
            providers,
            load_errors,
            flag_errors,
            ..
        })) = messages.recv().await
        else {
            return Err(Error::HostEnded);
        };
        let mut host = Self {
            _child: child,
            client,
            messages,
            commands: Vec::new(),
            files,
            places: None,
            help_flags,
            providers,
        };
        host.loaded(commands, &tools, events);
        let problems = LoadProblems {
            providers: Vec::new(),
            flags: flag_errors,
            extensions: load_errors,
        };
        Ok((host, problems))
    }

    /// Takes what the extensions registered when they were (re)loaded.
    pub fn loaded(
        &mut self,
        commands: Vec<RegisteredCommand>,
        tools: &[RegisteredTool],
        events: Vec<String>,
    ) {
        self.client.update(tools, &events);
        self.commands = commands;
    }

    /// Loads the extensions afresh for a replaced session (their factories run again with new
    /// state; the modules are not evaluated again); `fresh`: and the extensions' modules are
    /// evaluated afresh (`ctx.reload()`). The extensions are found again first, as the
    /// reference resolves their paths again: one added meanwhile (to an extensions folder or
    /// the settings) is loaded, one removed is not. A `Loaded` message follows, to hand to
    /// [`Host::loaded`].
    pub fn reload(&mut self, fresh: bool) -> Result<HostLine, SendError> {
        if let Some(places) = &self.places {
            self.files = discover(places.discovery());
        }
        let extensions: Vec<&Path> = self.files.iter().map(|file| file.path.as_path()).collect();
        HostLine::message(&ToHost::Reload {
            fresh,
            extensions: &extensions,
            modules: &ModuleSources::of(&extensions),
        })
    }

    /// Tells the host which tools the agent may offer (`all`, built-in and extension ones, in
    /// order), which it offers (`active`), the built-in definitions and every extension tool
    /// it knows of and the tool flags' `selection`, for `pi.getActiveTools` /
    /// `pi.getAllTools` (a built-in tool with the guidelines it brings to the system prompt)
    /// and the tools registered before the agent hears of them.
    pub fn tools_state(
        &self,
        all: &[&str],
        active: &[&str],
        builtins: &[crate::tools::ToolDefinition],
        registered: &[&str],
        selection: &crate::tools::ToolSelection,
    ) -> Result<HostLine, SendError> {
        let flags = ToolFlags {
            tools: &selection.tools,
            no_tools: selection.no_tools,
            exclude: &selection.exclude_tools,
        };
        let builtins: Vec<BuiltinTool<'_>> = builtins
            .iter()
            .map(|definition| BuiltinTool {
                definition,
                prompt_guidelines: crate::system_prompt::builtin_guidelines(&definition.name),
            })
            .collect();
        HostLine::message(&ToHost::Tools {
            all,
            active,
            builtins: &builtins,
            registered,
            sources: Sources(&self.files),
            flags,
        })
    }

    /// Tells the host the model, the thinking level and the levels the model supports, for
    /// its getters, and the context usage (`None`: unknown); `models`: also every model, those
    /// with credentials (`provider/id`) and the providers with credentials, which do not change
    /// while the agent runs (at start-up and reloads).
    pub fn model_state(
        &self,
        model: &Model,
        thinking_level: ThinkingLevel,
        levels: &[ThinkingLevel],
        models: Option<(&[&Model], &[String], &[&str])>,
        context_usage: Option<&pi_rpc_protocol::response::ContextUsage>,
    ) -> Result<HostLine, SendError> {
        HostLine::message(&ToHost::ModelState {
            model,
            thinking_level,
            levels,
            context_usage,
            models: models.map(|(all, _, _)| all),
            available: models.map(|(_, available, _)| available),
            configured: models.map(|(_, _, configured)| configured),
        })
    }

    /// Tells the host what `ctx.getContextUsage()` answers (`None`: unknown).
    pub fn context_usage(
        &self,
        usage: Option<&pi_rpc_protocol::response::ContextUsage>,
    ) -> Result<HostLine, SendError> {
        HostLine::message(&ToHost::ContextUsage { usage })
    }

    /// Answers the host's call `id` (`pi.setModel`, `ctx.waitForIdle()`, `ctx.newSession()`).
    pub fn reply(&self, id: &str, value: &ReplyValue) -> Result<HostLine, SendError> {
        HostLine::message(&ToHost::Reply { id, value })
    }

    /// The session's entries for the host's mirror (`ctx.sessionManager`): with `reset`, the
    /// mirror starts again from that session; `write_entries` writes the entries appended
    /// since the last message (their JSON texts, separated by commas); `leaf_id`: the leaf now.
    pub fn session_entries(
        &self,
        reset: Option<&MirroredSession<'_>>,
        write_entries: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>,
        leaf_id: Option<&str>,
    ) -> Result<HostLine, SendError> {
        use pi_rpc_protocol::json::write_to;
        let mut line = b"{\"type\":\"session_entries\"".to_vec();
        if let Some(reset) = reset {
            line.extend_from_slice(b",\"reset\":");
            write_to(&mut line, reset)?;
        }
        line.extend_from_slice(b",\"entries\":[");
        write_entries(&mut line)?;
        line.extend_from_slice(b"],\"leafId\":");
        write_to(&mut line, &leaf_id)?;
        line.extend_from_slice(b"}\n");
        Ok(HostLine {
            line,
            request: None,
        })
    }

    /// Tells the host whether the agent runs now.
    pub fn streaming(&self, value: bool) -> Result<HostLine, SendError> {
        HostLine::message(&ToHost::Streaming { value })
    }

    /// Tells the host the commands `pi.getCommands()` lists after the extensions' own (those
    /// of the built-in extensions, prompt templates and skills, as `get_commands` lists them).
    pub fn slash_commands(&self, commands: &[serde_json::Value]) -> Result<HostLine, SendError> {
        HostLine::message(&ToHost::SlashCommands { commands })
    }

    /// Whether some extension handles events of `kind`.
    pub fn handles(&self, kind: &str) -> bool {
        self.client.handles(kind)
    }

    /// The registered command invoked as `/name`.
    pub fn command(&self, name: &str) -> Option<&RegisteredCommand> {
        self.commands.iter().find(|command| command.name == name)
    }

    /// The host's client: the tools extensions registered and their handlers around tool
    /// calls and model calls, to hand to a run (it sees later registrations too).
    pub fn client(&self) -> HostClient {
        self.client.clone()
    }

    /// The next message or reply to the session; `None` once the host has ended.
    pub async fn recv(&mut self) -> Option<HostInput> {
        self.messages.recv().await
    }

    /// Runs the handlers of `event`: the request's id (its `done` comes as
    /// [`HostInput::Reply`] with it) and its line.
    pub fn emit(&self, event: &HostEvent<'_>) -> Result<(u64, HostLine), SendError> {
        let (id, line) = self
            .client
            .actor_request(|id| ToHost::Event { id, event })?;
        Ok((id, HostLine::request(id, line)))
    }

    /// Asks the handlers of `event` that decide what follows (`session_before_compact`): the
    /// request's id (their decision, `intercepted`, comes as [`HostInput::Reply`] with it) and
    /// its line.
    pub fn intercept(&self, event: &HostEvent<'_>) -> Result<(u64, HostLine), SendError> {
        let (id, line) = self
            .client
            .actor_request(|id| ToHost::Intercept { id, event })?;
        Ok((id, HostLine::request(id, line)))
    }

    /// Runs the command `name`: the request's id (its `done` comes as [`HostInput::Reply`]
    /// with it) and its line.
    pub fn run_command(&self, name: &str, args: &str) -> Result<(u64, HostLine), SendError> {
        let (id, line) = self
            .client
            .actor_request(|id| ToHost::Command { id, name, args })?;
        Ok((id, HostLine::request(id, line)))
    }

    /// Hands a client's answer to the dialog it answers (the host ignores unknown ids).
    pub fn answer(&self, response: &ExtensionUiResponse) -> Result<HostLine, SendError> {
        HostLine::message(&ToHost::UiResponse { response })
    }

    /// Sends a line made earlier, in the order lines are sent. Should a request's line not
    /// reach the host, its reply is waited for no more.
    pub async fn send(&self, line: HostLine) -> Result<(), SendError> {
        let sent = self.client.send_line(line.line).await;
        if sent.is_err()
            && let Some(id) = line.request
        {
            self.client.forget(id);
        }
        sent
    }

    /// The `sourceInfo` of the extension loaded from `path`.
    pub fn source_info(&self, path: &str) -> Option<&crate::resources::SourceInfo> {
        self.files
            .iter()
            .find(|file| file.path.as_os_str() == path)
            .map(|file| &file.source_info)
    }
}
