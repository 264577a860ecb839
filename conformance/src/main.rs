//! `pi-conformance`: run YAML scenarios against any implementation of pi's RPC mode.

use clap::{Parser, Subcommand};

/// Runs YAML conformance scenarios against pi's RPC mode: ours, the reference, or any command.
#[derive(Debug, Parser)]
#[command(name = "pi-conformance", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run scenarios against an agent and report a verdict for each.
    Run {
        /// Scenario files or folders.
        #[arg(default_value = "scenarios")]
        paths: Vec<std::path::PathBuf>,
        /// `ours`, `reference`, or a whole command line.
        #[arg(long, default_value = "ours")]
        agent: String,
    },
    /// List the scenarios found.
    List {
        /// Scenario files or folders.
        #[arg(default_value = "scenarios")]
        paths: Vec<std::path::PathBuf>,
    },
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Run { .. } | Command::List { .. } => {
            anyhow::bail!("pi-conformance is not implemented yet")
        }
    }
}
