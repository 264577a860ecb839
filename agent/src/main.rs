//! `pi-agent`: a pi-compatible coding agent speaking pi's RPC protocol on stdin/stdout.

use clap::Parser;
use pi_agent::cli::Cli;

fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("PI_AGENT_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let args = std::env::args_os().map(|arg| arg.to_string_lossy().into_owned());
    let cli = Cli::parse_from(pi_agent::cli::expand_short_flags(args));
    pi_agent::run(cli)
}
