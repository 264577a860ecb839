//! `pi-agent`: a pi-compatible coding agent speaking pi's RPC protocol on stdin/stdout.

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use pi_agent::cli::Cli;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("PI_AGENT_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let args = std::env::args_os().map(|arg| arg.to_string_lossy().into_owned());
    let (args, extension_flags) =
        pi_agent::cli::split_extension_flags(pi_agent::cli::expand_short_flags(args));
    let mut cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(error) => return usage_error(&error, &args),
    };
    cli.extension_flags = extension_flags;
    pi_agent::run(cli)
}

/// Help and version go to stdout with exit 0; any other argument error goes to stderr with exit
/// 1, as in the reference, and an unknown option is named as the reference names it
/// (`Error: Unknown option: -x`, the whole argument as given).
fn usage_error(error: &clap::Error, args: &[String]) -> ExitCode {
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        let _ = error.print();
        return ExitCode::SUCCESS;
    }
    let unknown = match (error.kind(), error.get(ContextKind::InvalidArg)) {
        // clap names the first option of a cluster (`-x` of `-xq`); the reference names the
        // argument as given.
        (ErrorKind::UnknownArgument, Some(ContextValue::String(invalid))) => Some(
            args.iter()
                .find(|arg| *arg == invalid)
                .or_else(|| args.iter().find(|arg| arg.starts_with(invalid.as_str())))
                .unwrap_or(invalid),
        ),
        _ => None,
    };
    let mut stderr = std::io::stderr().lock();
    // Nothing sensible is left to do when stderr itself is gone.
    let _ = match unknown {
        Some(arg) => writeln!(stderr, "Error: Unknown option: {arg}"),
        None => write!(stderr, "{error}"),
    };
    ExitCode::FAILURE
}
