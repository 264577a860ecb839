//! The pi-compatible agent: command-line interface, configuration and the RPC loop.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod cli;

use std::process::ExitCode;

/// Runs the agent as the command line asks. Only the RPC mode exists.
pub fn run(cli: cli::Cli) -> ExitCode {
    if cli.mode != cli::Mode::Rpc {
        tracing::error!("only --mode rpc is supported");
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}
