//! `mock-llm`: serve scripted LLM responses in the providers' streaming wire formats.

use clap::{Parser, Subcommand};

/// A scripted mock LLM server for Anthropic, OpenAI (Chat Completions, Responses) and Gemini clients.
#[derive(Debug, Parser)]
#[command(name = "mock-llm", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Start the server and print its base URL as the first line on stdout.
    Serve {
        /// Script file (YAML or JSON): the ordered responses to serve.
        #[arg(long, value_name = "FILE", conflicts_with = "reply")]
        script: Option<std::path::PathBuf>,
        /// Answer every request with this text, streamed in whichever format was asked.
        #[arg(long, value_name = "TEXT")]
        reply: Option<String>,
        /// Address to bind.
        #[arg(long, default_value = "127.0.0.1")]
        host: String,
        /// Port to bind (0 picks a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve { .. } => anyhow::bail!("mock-llm serve is not implemented yet"),
    }
}
