//! `--help`: the options, then the flags the extensions register. As the reference loads its
//! extensions before it prints help (and before it lists the models), the extension host is
//! started (only when there are extensions) to learn their flags (and their providers).

use super::startup::{Place, version_release};
use super::{Stop, report, ui_mode, write_stdout};
use crate::cli::{AppMode, Cli};
use crate::config::ModelRegistry;
use crate::extensions::{Discovery, HelpFlag};
use crate::release::Feature;

/// Prints the help: on stdout, or on stderr when a mode was asked for (stdout is the mode's).
pub(super) fn print(cli: &Cli, app: AppMode, to_stdout: bool) -> Result<(), Stop> {
    let flags = load_extensions_once(cli, app, None)?;
    let text = crate::cli::help_text(&flags);
    if to_stdout {
        write_stdout(text.as_bytes());
    } else {
        report(text.trim_end());
    }
    Ok(())
}

/// Loads the extensions that a session started here would load, for `--help` and
/// `--list-models`, and gives the flags of those that load; the providers their factories
/// register go to `registry` when one is given. The ones that fail to load and `-e` paths
/// that do not exist are left out: the reference goes on all the same, without a word until
/// 1.4.0, reporting them (and extension flags nobody registered, and providers it could not
/// register) as errors on stderr from 1.5.0.
pub(super) fn load_extensions_once(
    cli: &Cli,
    app: AppMode,
    registry: Option<&mut ModelRegistry>,
) -> Result<Vec<HelpFlag>, Stop> {
    let place = Place::current(cli)?;
    let discovery = Discovery {
        cli_paths: &cli.extensions,
        cwd: &place.cwd,
        agent_dir: &place.agent_dir,
        project_trusted: place.trusted(&place.cwd)?,
        no_discovery: cli.no_extensions,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| Stop::error(format!("cannot start the async runtime: {error}")))?;
    let loaded = runtime.block_on(crate::extensions::load_once(
        discovery,
        &cli.extension_flags,
        ui_mode(app),
    ));
    Ok(match loaded {
        Ok(mut loaded) => {
            // `--help` has no registry of its own: the providers are tried on the
            // configuration's, for their errors (only when there are some to try).
            let mut own;
            let registry = match registry {
                Some(registry) => Some(registry),
                None if !loaded.providers.is_empty() => {
                    own = place.config(&place.cwd)?.registry;
                    Some(&mut own)
                }
                None => None,
            };
            if let Some(registry) = registry {
                loaded.problems.providers =
                    crate::extensions::apply_providers(&loaded.providers, registry);
            }
            if version_release(cli).has(Feature::MetadataReportsStartupErrors) {
                for error in loaded.problems.errors() {
                    report(&format!("Error: {error}"));
                }
            }
            loaded.flags
        }
        // No extension could be loaded at all (no Node.js to run them).
        Err(error) => {
            report(&format!("Warning: {error}"));
            Vec::new()
        }
    })
}
