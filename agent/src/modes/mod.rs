//! What the command line asks for, in the reference's order: its diagnostics, `--version`,
//! `--help`, `--export`, `--list-models`, then a session run in one of the modes: RPC
//! ([`rpc`]), print or JSON ([`print`]). Each mode drives the one session actor
//! ([`crate::actor::Actor`]); none has a run loop of its own.

mod export;
mod files;
mod help;
mod list_models;
mod print;
mod rpc;
mod signals;
mod startup;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use crate::cli::{AppMode, Cli, Diagnostic};

/// Why start-up stops before a mode runs.
#[derive(Debug)]
pub(crate) enum Stop {
    /// Printed as `Error: <text>`; exit code 1.
    Error(String),
    /// Printed as it is (the reference words some errors without a prefix); exit code 1.
    Plain(String),
    /// This exit code; whatever there was to say is said.
    Exit(u8),
}

impl Stop {
    pub(crate) fn error(message: String) -> Self {
        Self::Error(message)
    }

    pub(crate) fn plain(message: String) -> Self {
        Self::Plain(message)
    }

    fn exit_code(self) -> u8 {
        match self {
            Self::Error(message) => {
                report(&format!("Error: {message}"));
                1
            }
            Self::Plain(message) => {
                report(&message);
                1
            }
            Self::Exit(code) => code,
        }
    }
}

/// What pi-agent says where the reference would start its terminal UI.
const NO_TERMINAL_UI: &str = "pi-agent has no interactive terminal UI. It can instead:
  answer a message and exit:      pi-agent -p \"your question\"   (or pipe it: echo ... | pi-agent)
  stream the run as JSON lines:   pi-agent --mode json \"your question\"
  serve pi's RPC protocol:        pi-agent --mode rpc
`pi-agent --help` lists every option.";

/// Runs what `cli` asks for and gives the process's exit code.
pub fn run(cli: Cli) -> ExitCode {
    let code = match run_cli(cli) {
        Ok(code) => code,
        Err(stop) => stop.exit_code(),
    };
    ExitCode::from(code)
}

fn run_cli(cli: Cli) -> Result<u8, Stop> {
    let mut failed = false;
    for diagnostic in &cli.diagnostics {
        match diagnostic {
            Diagnostic::Error(message) => {
                report(&format!("Error: {message}"));
                failed = true;
            }
            Diagnostic::Warning(message) => report(&format!("Warning: {message}")),
        }
    }
    if failed {
        return Err(Stop::Exit(1));
    }
    if cli.version {
        let release = startup::version_release(&cli);
        write_stdout(format!("{release}\n").as_bytes());
        return Ok(0);
    }
    let app = cli.app_mode(
        std::io::stdin().is_terminal(),
        std::io::stdout().is_terminal(),
    );
    // Outside the terminal UI, the reference keeps stdout for the mode's output and sends
    // everything else to stderr; help and the model list count as output only when no mode
    // was asked for.
    let metadata_to_stdout = !cli.print && cli.mode.is_none();
    if cli.help {
        help::print(&cli, app, metadata_to_stdout)?;
        return Ok(0);
    }
    if let Some(input) = &cli.export {
        return export::run(input, cli.messages.first().map(String::as_str));
    }
    if app == AppMode::Interactive && cli.list_models.is_none() {
        report(NO_TERMINAL_UI);
        return Err(Stop::Exit(1));
    }
    if app == AppMode::Rpc && !cli.file_args.is_empty() {
        return Err(Stop::error(
            "@file arguments are not supported in RPC mode".into(),
        ));
    }
    if let Some(conflict) = cli.session_flag_conflict() {
        return Err(Stop::error(conflict));
    }
    if let Some(id) = &cli.session_id
        && !crate::store::is_valid_session_id(id)
    {
        return Err(Stop::error(
            crate::store::Error::InvalidSessionId.to_string(),
        ));
    }
    let place = startup::Place::current(&cli)?;
    let mut launch_config = place.config(&place.cwd)?;
    if let Some(search) = &cli.list_models {
        startup::report_config_warnings(&launch_config);
        // The reference lists the models of the providers its extensions register too.
        help::load_extensions_once(&cli, app, Some(&mut launch_config.registry))?;
        let listing = list_models::render(&launch_config, search.as_deref());
        if metadata_to_stdout {
            write_stdout(listing.as_bytes());
        } else {
            report(listing.trim_end_matches('\n'));
        }
        return Ok(0);
    }
    let store = startup::open_session(&cli, &place, &launch_config)?;
    startup::check_session_cwd(&store, &place.cwd)?;
    // A session of another folder runs in its own folder, with that folder's settings.
    let mut config = if store.cwd() == place.cwd {
        launch_config
    } else {
        place.config(&store.cwd())?
    };
    startup::report_config_warnings(&config);
    let prompts = match app {
        AppMode::Print | AppMode::Json => Some(print::Prompts::gather(&cli, &config)?),
        AppMode::Rpc | AppMode::Interactive => None,
    };
    let trusted = place.trusted(&config.cwd)?;
    startup::report_package_problems(&config, trusted);
    let options = startup::SessionOptions::check(&cli, &config)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| Stop::error(format!("cannot start the async runtime: {error}")))?;
    let code = runtime.block_on(async {
        // Registered before the first command is read, so a client that saw an answer can
        // rely on SIGTERM being handled.
        let signals = signals::TerminationSignals::register();
        // The extensions load before the model is chosen, as in the reference: the providers
        // they register can be chosen, and their errors come before the model's.
        let discovery = crate::extensions::Discovery {
            cli_paths: &cli.extensions,
            cwd: &config.cwd,
            agent_dir: &config.agent_dir,
            project_trusted: trusted,
            no_discovery: cli.no_extensions,
        };
        let (host, mut problems) = crate::extensions::start(
            discovery,
            &cli.extension_flags,
            ui_mode(app),
            options.rpc_release,
        )
        .await
        .map_err(|error| Stop::error(error.to_string()))?;
        if let Some(host) = &host {
            problems.providers =
                crate::extensions::apply_providers(&host.providers, &mut config.registry);
        }
        let model = startup::choose_model(&cli, &mut config, &problems)?;
        let mut init = startup::session_init(&cli, options, config, model, store);
        init.extensions = host;
        let (terminate, termination) = tokio::sync::watch::channel(false);
        init.termination = Some(termination);
        let run = async {
            match prompts {
                Some(prompts) => print::run(init, prompts, app == AppMode::Json).await,
                None => {
                    rpc::serve(init).await;
                    0
                }
            }
        };
        tokio::pin!(run);
        Ok(tokio::select! {
            code = &mut run => code,
            code = signals.received() => {
                // The actor saves what the session holds unsaved and ends; it has a moment.
                let _ = terminate.send(true);
                let _ = tokio::time::timeout(signals::GRACE, &mut run).await;
                code
            }
        })
    });
    // A read of stdin may still block a runtime thread; do not wait for it.
    runtime.shutdown_background();
    // What the shell commands left running ends with the agent.
    crate::tools::process_groups::end_all();
    code
}

/// The mode the extensions are told they run in.
fn ui_mode(app: AppMode) -> crate::extensions::UiMode {
    match app {
        AppMode::Print => crate::extensions::UiMode::Print,
        AppMode::Json => crate::extensions::UiMode::Json,
        AppMode::Rpc | AppMode::Interactive => crate::extensions::UiMode::Rpc,
    }
}

/// Writes the mode's output; a closed stdout leaves nothing to do.
fn write_stdout(bytes: &[u8]) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(bytes);
    let _ = stdout.flush();
}

/// Writes one line to stderr (start-up messages meant for a person, as the reference prints them).
fn report(line: &str) {
    use std::io::Write;
    let mut stderr = std::io::stderr().lock();
    // Nothing sensible is left to do when stderr itself is gone.
    let _ = writeln!(stderr, "{line}");
}
