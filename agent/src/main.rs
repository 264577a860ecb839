//! `pi-agent`: a pi-compatible coding agent: pi's RPC protocol on stdin/stdout, its print and
//! JSON modes, and its command line.

use std::process::ExitCode;

fn main() -> ExitCode {
    // The extension host's loader runs this binary to transpile a TypeScript file it was not
    // sent ahead: the JavaScript on stdout, or the error on stderr.
    if let Some(path) = std::env::var_os(pi_agent::extensions::TRANSPILE_ENV) {
        return match pi_agent::extensions::transpile_for_host(std::path::Path::new(&path)) {
            Ok(code) => {
                use std::io::Write as _;
                let mut stdout = std::io::stdout().lock();
                match stdout
                    .write_all(code.as_bytes())
                    .and_then(|()| stdout.flush())
                {
                    Ok(()) => ExitCode::SUCCESS,
                    Err(_) => ExitCode::FAILURE,
                }
            }
            Err(error) => {
                eprintln!("{error}");
                ExitCode::FAILURE
            }
        };
    }
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
