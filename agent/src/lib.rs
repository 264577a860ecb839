//! The pi-compatible agent: command line, configuration, the session actor and its modes (RPC,
//! print, JSON).
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod cli;
pub mod compaction;
pub mod config;
pub mod convert;
pub mod export_html;
pub mod extensions;
mod js;
pub mod model_resolver;
pub mod modes;
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

/// The version of pi whose command line, protocol and session format pi-agent implements:
/// what `--version` prints, since clients compare it with the pi version they support.
pub const PI_VERSION: &str = "0.84.1";

/// Writes one line to stderr (start-up messages meant for a person, as the reference prints them).
fn report(line: &str) {
    let mut stderr = std::io::stderr().lock();
    // Nothing sensible is left to do when stderr itself is gone.
    let _ = writeln!(stderr, "{line}");
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_millis() as u64)
        .unwrap_or(0)
}

/// Runs the agent as the command line asks.
pub fn run(cli: cli::Cli) -> ExitCode {
    modes::run(cli)
}
