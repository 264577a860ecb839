//! What every mode that runs a session shares at start-up: the working folder, project trust,
//! the configuration, the session the flags choose (with the reference's errors and its
//! question about a session of another folder), the model and the session's initial state.

use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};

use super::Stop;
use super::report;
use crate::cli::Cli;
use crate::config::{self, Config};
use crate::model_resolver::{self, Diagnostic, Startup};
use crate::store::select::{SessionPlace, Target};
use crate::store::{self, SessionStore};

/// The environment variable naming the session folder (after `--session-dir`).
const SESSION_DIR_ENV: &str = "PI_CODING_AGENT_SESSION_DIR";

/// The working folder, the agent folder and the trust decision.
pub(super) struct Place {
    pub(super) cwd: PathBuf,
    pub(super) agent_dir: PathBuf,
    /// `--approve` / `--no-approve`.
    pub(super) project_trust: Option<bool>,
}

impl Place {
    /// The process's working folder and the agent folder.
    pub(super) fn current(cli: &Cli) -> Result<Self, Stop> {
        let cwd = std::env::current_dir()
            .map_err(|error| Stop::error(format!("cannot read the working directory: {error}")))?;
        Ok(Self {
            cwd,
            agent_dir: config::agent_dir(),
            project_trust: cli.project_trust,
        })
    }

    /// Whether the project in `cwd` is trusted: the flags, else the saved decision.
    pub(super) fn trusted(&self, cwd: &Path) -> Result<bool, Stop> {
        match self.project_trust {
            Some(trusted) => Ok(trusted),
            None => config::project_trusted(&self.agent_dir, cwd)
                .map_err(|error| Stop::error(error.to_string())),
        }
    }

    /// The configuration for `cwd` (its warnings not printed yet).
    pub(super) fn config(&self, cwd: &Path) -> Result<Config, Stop> {
        let trusted = self.trusted(cwd)?;
        Ok(Config::load(
            self.agent_dir.clone(),
            cwd.to_path_buf(),
            trusted,
        ))
    }
}

/// The release `--version` names, the one whose protocol pi-agent would speak: `--rpc-release`'s,
/// else the settings' `rpcRelease` (read quietly: `--version` never fails), else 0.84.1. A
/// release pi-agent cannot speak, which a session start would refuse, leaves 0.84.1.
pub(super) fn version_release(cli: &Cli) -> crate::release::RpcRelease {
    use crate::release::RpcRelease;
    let setting = match cli.rpc_release {
        Some(_) => None,
        None => Place::current(cli)
            .and_then(|place| place.config(&place.cwd))
            .ok()
            .and_then(|config| config.settings.get(RpcRelease::SETTING).cloned()),
    };
    RpcRelease::choose(cli.rpc_release.as_deref(), setting.as_ref()).unwrap_or(RpcRelease::DEFAULT)
}

/// Prints the problems met loading the configuration.
pub(super) fn report_config_warnings(config: &Config) {
    for warning in &config.warnings {
        report(&format!("Warning: {warning}"));
    }
}

/// The settings' packages that load nothing (not installed, another version, a path that is
/// not there), on stderr: the reference skips them in silence offline, and would install
/// them otherwise; pi-agent never installs, so it says what is missing.
pub(super) fn report_package_problems(config: &Config, project_trusted: bool) {
    let packages =
        crate::resources::packages::resolve(&config.agent_dir, &config.cwd, project_trusted);
    for problem in &packages.problems {
        report(&format!("Warning: {problem}"));
    }
}

/// The session folder given: `--session-dir`, `$PI_CODING_AGENT_SESSION_DIR`, the settings'
/// `sessionDir`, each with `~` expanded.
fn session_dir(cli: &Cli, config: &Config) -> Option<PathBuf> {
    let given = cli
        .session_dir
        .as_ref()
        .map(|dir| crate::paths::text(dir))
        .or_else(|| {
            std::env::var(SESSION_DIR_ENV)
                .ok()
                .filter(|d| !d.is_empty())
        })
        .or_else(|| config.settings.session_dir())?;
    Some(PathBuf::from(crate::paths::expand_tilde(&given)))
}

/// The session the flags choose, opened or created, with the reference's words when that
/// fails. `--resume` has no terminal to pick with here: it ends as a cancelled pick does, once
/// its input ends.
pub(super) fn open_session(
    cli: &Cli,
    place: &Place,
    config: &Config,
) -> Result<SessionStore, Stop> {
    if cli.no_session || cli.list_models.is_some() || cli.help {
        let mut store = SessionStore::in_memory(&place.cwd);
        if let Some(id) = &cli.session_id {
            store.new_session_with_id(id, None).map_err(store_error)?;
        }
        return Ok(store);
    }
    let sessions = SessionPlace {
        cwd: place.cwd.clone(),
        agent_dir: place.agent_dir.clone(),
        session_dir: session_dir(cli, config),
    };
    let explicit_dir = sessions.session_dir.clone();
    if let Some(fork) = &cli.fork {
        if let Some(id) = &cli.session_id
            && sessions.find_exact(id).is_some()
        {
            return Err(Stop::plain(format!(
                "Session already exists with id '{id}'"
            )));
        }
        return match sessions.resolve(fork) {
            Target::Path(path) | Target::Local(path) | Target::Global { path, .. } => sessions
                .fork_from(&path, cli.session_id.as_deref())
                .map_err(store_error),
            Target::NotFound => Err(Stop::plain(format!("No session found matching '{fork}'"))),
        };
    }
    if let Some(arg) = &cli.session {
        return match sessions.resolve(arg) {
            Target::Path(path) | Target::Local(path) => {
                SessionStore::open(&path, explicit_dir.as_deref(), None).map_err(store_error)
            }
            Target::Global { path, cwd } => {
                report(&format!("Session found in different project: {cwd}"));
                if !confirm("Fork this session into current directory?") {
                    report("Aborted.");
                    return Err(Stop::Exit(0));
                }
                sessions.fork_from(&path, None).map_err(store_error)
            }
            Target::NotFound => Err(Stop::plain(format!("No session found matching '{arg}'"))),
        };
    }
    if cli.resume {
        report(
            "No session selected (--resume picks a session in a terminal, which pi-agent does not \
             have: choose one with --session <path|id> or --continue)",
        );
        // The reference's picker reads keys until its input ends, and only then exits; a
        // client that writes to us meanwhile must not find a closed pipe.
        if !std::io::stdin().is_terminal() {
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
        }
        return Err(Stop::Exit(0));
    }
    if cli.continue_session {
        let dir = sessions.dir();
        let filter = sessions.session_dir.is_some()
            && dir != store::paths::default_session_dir(&place.cwd, &place.agent_dir);
        return SessionStore::continue_recent(&place.cwd, &dir, filter).map_err(store_error);
    }
    if let Some(id) = &cli.session_id {
        if let Some(path) = sessions.find_exact(id) {
            return SessionStore::open(&path, explicit_dir.as_deref(), None).map_err(store_error);
        }
        report(&format!(
            "Warning: No project session found with id '{id}'; creating a new session with that id."
        ));
    }
    sessions
        .create(cli.session_id.as_deref())
        .map_err(store_error)
}

fn store_error(error: impl std::fmt::Display) -> Stop {
    Stop::error(error.to_string())
}

/// Asks a yes/no question on stderr and reads the answer from stdin (`y` or `yes`).
fn confirm(question: &str) -> bool {
    use std::io::Write;
    let mut stderr = std::io::stderr().lock();
    // Nothing sensible is left to do when stderr itself is gone.
    let _ = write!(stderr, "{question} [y/N] ");
    let _ = stderr.flush();
    drop(stderr);
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(
        answer
            .trim_end_matches(['\n', '\r'])
            .to_lowercase()
            .as_str(),
        "y" | "yes"
    )
}

/// Checks a session opened from a file: its working folder must exist, as the reference
/// requires outside its terminal UI.
pub(super) fn check_session_cwd(store: &SessionStore, launch_cwd: &Path) -> Result<(), Stop> {
    let Some(file) = store.session_file() else {
        return Ok(());
    };
    let cwd = store.cwd();
    if cwd.as_os_str().is_empty() || cwd.exists() {
        return Ok(());
    }
    Err(Stop::plain(format!(
        "Stored session working directory does not exist: {}\nSession file: {}\nCurrent working directory: {}",
        cwd.display(),
        file.display(),
        launch_cwd.display()
    )))
}

/// The model choice of the flags. The extensions' start-up `problems` are printed first, then
/// the choice's diagnostics, then the reference's hint when an extension failed to load; an
/// error of either stops start-up.
pub(super) fn choose_model(
    cli: &Cli,
    config: &mut Config,
    problems: &crate::extensions::LoadProblems,
) -> Result<Startup, Stop> {
    let startup = model_resolver::select_startup(
        cli.provider.as_deref(),
        cli.model.as_deref(),
        cli.thinking,
        cli.api_key.as_deref(),
        cli.models.as_deref(),
        config,
    );
    let mut failed = !problems.is_empty();
    for error in problems.errors() {
        report(&format!("Error: {error}"));
    }
    for diagnostic in &startup.diagnostics {
        match diagnostic {
            Diagnostic::Warning(message) => report(&format!("Warning: {message}")),
            Diagnostic::Error(message) => {
                report(&format!("Error: {message}"));
                failed = true;
            }
        }
    }
    if let Some(hint) = problems.hint() {
        report(hint);
    }
    if failed {
        return Err(Stop::Exit(1));
    }
    Ok(startup)
}

/// What the flags and settings say of the session that can be checked before anything is
/// loaded: its name and the release of pi's protocol it speaks.
pub(super) struct SessionOptions {
    name: Option<String>,
    pub(super) rpc_release: crate::release::RpcRelease,
}

impl SessionOptions {
    /// The options, or the error that stops start-up.
    pub(super) fn check(cli: &Cli, config: &Config) -> Result<Self, Stop> {
        let name = match cli.name.as_deref().map(crate::store::sanitize_name) {
            Some(name) if name.is_empty() => {
                return Err(Stop::error("--name requires a non-empty value".into()));
            }
            other => other,
        };
        let rpc_release = crate::release::RpcRelease::choose(
            cli.rpc_release.as_deref(),
            config.settings.get(crate::release::RpcRelease::SETTING),
        )
        .map_err(|error| Stop::error(error.to_string()))?;
        Ok(Self { name, rpc_release })
    }
}

/// The session's initial state and options.
pub(super) fn session_init(
    cli: &Cli,
    options: SessionOptions,
    config: Config,
    startup: Startup,
    store: SessionStore,
) -> crate::actor::ActorInit {
    let SessionOptions { name, rpc_release } = options;
    crate::actor::ActorInit {
        config,
        name,
        scoped_models: startup.scoped_models,
        cli_model: startup.cli_model,
        cli_thinking_level: startup.cli_thinking_level,
        store,
        resources: crate::resources::ResourceOptions {
            project_trust: cli.project_trust,
            no_prompt_templates: cli.no_prompt_templates,
            no_skills: cli.no_skills,
            prompt: crate::system_prompt::PromptOptions {
                system_prompt: cli.system_prompt.clone(),
                append_system_prompt: (!cli.append_system_prompt.is_empty())
                    .then(|| cli.append_system_prompt.clone()),
                no_context_files: cli.no_context_files,
            },
            tools: cli.tool_selection(),
            skill_paths: cli.skills.clone(),
            prompt_template_paths: cli.prompt_templates.clone(),
            extension_paths: cli.extensions.clone(),
        },
        extensions: None,
        rpc_release,
        builtin_commands: rpc_release.builtin_commands(cli.no_extensions),
        termination: None,
    }
}
