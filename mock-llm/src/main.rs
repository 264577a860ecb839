//! `mock-llm`: serve scripted LLM responses in the providers' streaming wire formats.

use std::io::{IsTerminal, Write};
use std::net::{IpAddr, SocketAddr};

use anyhow::Context;
use clap::{Parser, Subcommand};
use mock_llm::{MockServer, Script};

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
        #[arg(
            long,
            value_name = "FILE",
            conflicts_with = "reply",
            required_unless_present = "reply"
        )]
        script: Option<std::path::PathBuf>,
        /// Answer every request with this text, streamed in whichever format was asked.
        #[arg(long, value_name = "TEXT")]
        reply: Option<String>,
        /// Address to bind.
        #[arg(long, default_value = "127.0.0.1")]
        host: IpAddr,
        /// Port to bind (0 picks a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// Print the JSON schema of the script format.
    Schema,
    /// List the quirk fixtures, or print one as YAML-compatible JSON.
    Quirks {
        /// The quirk to print.
        name: Option<String>,
    },
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Serve {
            script,
            reply,
            host,
            port,
        } => {
            let script = match (script, reply) {
                (Some(path), _) => Script::from_file(&path)?,
                (None, Some(text)) => Script::reply(&text),
                (None, None) => anyhow::bail!("give --script FILE or --reply TEXT"),
            };
            serve(SocketAddr::new(host, port), script)
        }
        Command::Schema => {
            let schema = schemars::schema_for!(Script);
            println!("{}", serde_json::to_string_pretty(&schema)?);
            Ok(())
        }
        Command::Quirks { name: None } => {
            for name in mock_llm::quirk_names() {
                let (formats, description) = mock_llm::quirk_info(name).unwrap_or_default();
                println!("{name}\t{formats}\t{description}");
            }
            Ok(())
        }
        Command::Quirks { name: Some(name) } => {
            let script =
                mock_llm::quirk(&name).with_context(|| format!("no quirk named `{name}`"))?;
            println!("{}", serde_json::to_string_pretty(&script)?);
            Ok(())
        }
    }
}

fn serve(addr: SocketAddr, script: Script) -> anyhow::Result<()> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let server = MockServer::start_on(addr, script)
            .await
            .context("cannot start the server")?;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{}", server.uri())?;
        stdout.flush()?;
        drop(stdout);
        tokio::signal::ctrl_c().await?;
        server.shutdown().await;
        Ok(())
    })
}
