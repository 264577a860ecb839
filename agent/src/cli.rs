//! Command-line flags, named and spelled as the reference pi spells those that matter in RPC mode.

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

/// Output mode. The reference also has `text` and `json`; this agent speaks RPC only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// JSON commands on stdin, one JSON record per line of responses and events on stdout.
    Rpc,
    /// Plain text output (not implemented; accepted so the flag parses as the reference's does).
    Text,
    /// JSON event stream output (not implemented).
    Json,
}

/// A pi-compatible coding agent: drive it over pi's RPC protocol on stdin/stdout.
#[derive(Debug, Parser)]
#[command(name = "pi-agent", version, about, long_about = None)]
pub struct Cli {
    /// Output mode: rpc (JSON commands on stdin, JSON lines on stdout).
    #[arg(long, value_enum, default_value = "text")]
    pub mode: Mode,
    /// Provider name, as in models.json or a built-in provider (anthropic, openai, google).
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,
    /// Model pattern or id (supports "provider/id" and an optional ":<thinking>" suffix).
    #[arg(long, value_name = "PATTERN")]
    pub model: Option<String>,
    /// Comma-separated model patterns (globs allowed, `:<thinking>` suffixes) that
    /// `cycle_model` walks.
    #[arg(long, value_name = "PATTERNS")]
    pub models: Option<String>,
    /// Thinking level: off, minimal, low, medium, high, xhigh, max.
    #[arg(long, value_name = "LEVEL")]
    pub thinking: Option<String>,
    /// API key (defaults to models.json, auth.json, then the provider's environment variable).
    #[arg(long, value_name = "KEY")]
    pub api_key: Option<String>,
    /// Don't save the session (ephemeral).
    #[arg(long)]
    pub no_session: bool,
    /// Directory for session storage and lookup.
    #[arg(long, value_name = "DIR")]
    pub session_dir: Option<PathBuf>,
    /// Set the session display name.
    #[arg(long, short = 'n', value_name = "NAME")]
    pub name: Option<String>,
    /// Trust project-local files (`.pi/` prompt templates and skills) for this run.
    #[arg(long, short = 'a', conflicts_with = "no_approve")]
    pub approve: bool,
    /// Ignore project-local files for this run.
    #[arg(long = "no-approve")]
    pub no_approve: bool,
    /// Disable prompt template discovery and loading.
    #[arg(long = "no-prompt-templates")]
    pub no_prompt_templates: bool,
    /// Disable skills discovery and loading.
    #[arg(long = "no-skills")]
    pub no_skills: bool,
    /// Load an extension (a TypeScript or JavaScript file); repeatable. Extensions run in a
    /// Node.js >= 22.6 sidecar: `$PI_AGENT_NODE`, else `node` on `PATH`.
    #[arg(long = "extension", short = 'e', value_name = "PATH")]
    pub extensions: Vec<PathBuf>,
    /// Disable extension discovery (`extensions/` folders); `-e` paths still load.
    #[arg(long = "no-extensions")]
    pub no_extensions: bool,
}
