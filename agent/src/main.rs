//! `pi-agent`: a pi-compatible coding agent: pi's RPC protocol on stdin/stdout, its print and
//! JSON modes, and its command line.

use std::process::ExitCode;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("PI_AGENT_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let args = std::env::args_os()
        .skip(1)
        .map(|arg| arg.to_string_lossy().into_owned());
    pi_agent::run(pi_agent::cli::Cli::parse(args))
}
