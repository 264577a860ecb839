//! The pi-compatible agent: command-line interface, configuration and the RPC loop.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod cli;
pub mod compaction;
pub mod config;
pub mod convert;
pub mod export_html;
pub mod extensions;
pub mod model_resolver;
pub mod provider;
pub mod release;
pub mod resources;
pub mod rpc;
pub mod run;
pub mod session;
pub mod system_prompt;
pub mod tools;
pub mod user_bash;

use std::io::Write;
use std::process::ExitCode;

use model_resolver::Diagnostic;

/// Writes one line to stderr (start-up messages meant for a person, as the reference prints them).
fn report(line: &str) {
    let mut stderr = std::io::stderr().lock();
    // Nothing sensible is left to do when stderr itself is gone.
    let _ = writeln!(stderr, "{line}");
}

/// The environment variable naming the session folder (after `--session-dir`).
const SESSION_DIR_ENV: &str = "PI_CODING_AGENT_SESSION_DIR";

/// The session store the flags ask for: in memory with `--no-session`, else a new session in
/// `--session-dir`, `$PI_CODING_AGENT_SESSION_DIR`, the settings' `sessionDir`, or the default
/// folder for the working folder.
fn open_store(cli: &cli::Cli, config: &config::Config) -> session::Result<session::SessionStore> {
    if cli.no_session {
        return Ok(session::SessionStore::in_memory(&config.cwd));
    }
    let dir = cli
        .session_dir
        .clone()
        .or_else(|| {
            std::env::var(SESSION_DIR_ENV)
                .ok()
                .filter(|dir| !dir.is_empty())
                .map(std::path::PathBuf::from)
        })
        .or_else(|| config.settings.session_dir().map(std::path::PathBuf::from))
        .unwrap_or_else(|| session::paths::default_session_dir(&config.cwd, &config.agent_dir));
    session::SessionStore::new(&config.cwd, &dir, true)
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_millis() as u64)
        .unwrap_or(0)
}

/// Runs the agent as the command line asks. Only the RPC mode exists.
pub fn run(cli: cli::Cli) -> ExitCode {
    if cli.mode != cli::Mode::Rpc {
        report("Error: pi-agent only supports --mode rpc");
        return ExitCode::from(2);
    }
    if let Some(error) = cli.rpc_argument_error() {
        report(error);
        return ExitCode::FAILURE;
    }
    let cwd = match std::env::current_dir() {
        Ok(cwd) => cwd,
        Err(error) => {
            report(&format!(
                "Error: cannot read the working directory: {error}"
            ));
            return ExitCode::FAILURE;
        }
    };
    let project_trust = match (cli.approve, cli.no_approve) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    };
    let agent_dir = config::agent_dir();
    let trusted = match project_trust {
        Some(trusted) => trusted,
        None => match config::project_trusted(&agent_dir, &cwd) {
            Ok(trusted) => trusted,
            Err(error) => {
                report(&format!("Error: {error}"));
                return ExitCode::FAILURE;
            }
        },
    };
    let mut config = config::Config::load(agent_dir, cwd, trusted);
    for warning in &config.warnings {
        report(&format!("Warning: {warning}"));
    }
    let startup = model_resolver::select_startup(
        cli.provider.as_deref(),
        cli.model.as_deref(),
        cli.thinking.as_deref(),
        cli.api_key.as_deref(),
        cli.models.as_deref(),
        &mut config,
    );
    let rpc_release = match release::RpcRelease::choose(
        cli.rpc_release.as_deref(),
        config.settings.get(release::RpcRelease::SETTING),
    ) {
        Ok(rpc_release) => rpc_release,
        Err(error) => {
            report(&format!("Error: {error}"));
            return ExitCode::FAILURE;
        }
    };
    let mut failed = false;
    for diagnostic in &startup.diagnostics {
        match diagnostic {
            Diagnostic::Warning(message) => report(&format!("Warning: {message}")),
            Diagnostic::Error(message) => {
                report(&format!("Error: {message}"));
                failed = true;
            }
        }
    }
    if failed {
        return ExitCode::FAILURE;
    }
    let name = match cli.name.as_deref().map(rpc::session::session_name_of) {
        Some(name) if name.is_empty() => {
            report("Error: --name requires a non-empty value");
            return ExitCode::FAILURE;
        }
        other => other,
    };
    let store = match open_store(&cli, &config) {
        Ok(store) => store,
        Err(error) => {
            report(&format!("Error: {error}"));
            return ExitCode::FAILURE;
        }
    };
    let mut init = rpc::session::SessionInit {
        config,
        model: startup.model,
        thinking_level: startup.thinking_level,
        name,
        has_model: startup.has_model,
        scoped_models: startup.scoped_models,
        store,
        resources: resources::ResourceOptions {
            project_trust,
            no_prompt_templates: cli.no_prompt_templates,
            no_skills: cli.no_skills,
            prompt: system_prompt::PromptOptions {
                system_prompt: cli.system_prompt.clone(),
                append_system_prompt: (!cli.append_system_prompt.is_empty())
                    .then(|| cli.append_system_prompt.clone()),
                no_context_files: cli.no_context_files,
            },
            tools: cli.tool_selection(),
            skill_paths: cli.skills.clone(),
        },
        extensions: None,
        rpc_release,
        builtin_commands: rpc_release.builtin_commands(cli.no_extensions),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            report(&format!("Error: cannot start the async runtime: {error}"));
            return ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(async {
        // Registered before the first command is read, so a client that saw an answer can
        // rely on SIGTERM being handled.
        let signals = TerminationSignals::register();
        let discovery = extensions::Discovery {
            cli_paths: &cli.extensions,
            cwd: &init.config.cwd,
            agent_dir: &init.config.agent_dir,
            project_trusted: init.resources.project_trust.unwrap_or(trusted),
            no_discovery: cli.no_extensions,
        };
        match extensions::start(discovery, &cli.extension_flags, init.rpc_release).await {
            Ok(host) => init.extensions = host,
            Err(error) => {
                report(&format!("Error: {error}"));
                return 1;
            }
        }
        let serve = rpc::serve(tokio::io::stdin(), tokio::io::stdout(), |out| {
            rpc::session::Session::new(init, out)
        });
        tokio::select! {
            () = serve => 0,
            code = signals.received() => code,
        }
    });
    // A read of stdin may still block a runtime thread; do not wait for it.
    runtime.shutdown_background();
    ExitCode::from(code)
}

/// SIGTERM and SIGHUP, which end the agent with the exit codes the reference uses (143, 129).
struct TerminationSignals {
    streams: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl TerminationSignals {
    /// Installs the handlers; without signal support, [`Self::received`] never resolves.
    fn register() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        let streams = match (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) {
            (Ok(term), Ok(hangup)) => Some((term, hangup)),
            _ => None,
        };
        Self { streams }
    }

    /// The exit code of the first signal received.
    async fn received(self) -> u8 {
        let Some((mut term, mut hangup)) = self.streams else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = term.recv() => 143,
            _ = hangup.recv() => 129,
        }
    }
}
