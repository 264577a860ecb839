//! `pi-agent`: a pi-compatible coding agent speaking pi's RPC protocol on stdin/stdout.

use clap::Parser;
use pi_agent::cli::Cli;

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    pi_agent::run(cli)
}
