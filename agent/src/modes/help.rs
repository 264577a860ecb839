//! `--help`: the options, then the flags the extensions register. As the reference loads its
//! extensions before it prints help, the extension host is started (only when there are
//! extensions) to learn their flags.

use super::startup::Place;
use super::{Stop, report, ui_mode, write_stdout};
use crate::cli::{AppMode, Cli};
use crate::extensions::{Discovery, HelpFlag};

/// Prints the help: on stdout, or on stderr when a mode was asked for (stdout is the mode's).
pub(super) fn print(cli: &Cli, app: AppMode, to_stdout: bool) -> Result<(), Stop> {
    let flags = extension_flags(cli, app)?;
    let text = crate::cli::help_text(&flags);
    if to_stdout {
        write_stdout(text.as_bytes());
    } else {
        report(text.trim_end());
    }
    Ok(())
}

/// The flags of the extensions a session started here would load. Extensions that cannot be
/// loaded leave their flags out, with a warning: the help is printed all the same.
fn extension_flags(cli: &Cli, app: AppMode) -> Result<Vec<HelpFlag>, Stop> {
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
    let loaded = runtime.block_on(crate::extensions::help_flags(discovery, ui_mode(app)));
    Ok(loaded.unwrap_or_else(|error| {
        report(&format!("Warning: {error}"));
        Vec::new()
    }))
}
