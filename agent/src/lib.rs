//! The pi-compatible agent: command line, configuration, the session actor and its modes (RPC,
//! print, JSON).
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod actor;
pub mod agent_loop;
pub mod cli;
pub mod compaction;
pub mod config;
pub mod convert;
pub mod export_html;
pub mod extensions;
mod js;
pub mod model_resolver;
pub mod modes;
mod paths;
pub mod provider;
pub mod release;
pub mod resources;
pub mod rpc;
pub mod shell_command;
pub mod store;
pub mod system_prompt;
pub mod tools;

use std::process::ExitCode;

pub use cli::PI_VERSION;

/// Runs the agent as the command line asks.
pub fn run(cli: cli::Cli) -> ExitCode {
    modes::run(cli)
}
