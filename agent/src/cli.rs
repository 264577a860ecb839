//! Command-line flags, named and spelled as the reference pi spells those that matter in RPC mode.

use std::path::PathBuf;

use clap::{CommandFactory, Parser, ValueEnum};

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
    /// Replace the built-in system prompt (context files and skills are still added): the
    /// text, or the path of a file whose contents to use.
    #[arg(
        long = "system-prompt",
        value_name = "TEXT",
        allow_hyphen_values = true
    )]
    pub system_prompt: Option<String>,
    /// Append text, or a file's contents, to the system prompt; repeatable. Replaces
    /// `APPEND_SYSTEM.md` discovery.
    #[arg(
        long = "append-system-prompt",
        value_name = "TEXT",
        allow_hyphen_values = true
    )]
    pub append_system_prompt: Vec<String>,
    /// Disable AGENTS.md and CLAUDE.md discovery and loading (also `-nc`).
    #[arg(long = "no-context-files")]
    pub no_context_files: bool,
    /// Load a skill file or folder; repeatable, and loaded even with `--no-skills`.
    #[arg(long = "skill", value_name = "PATH", allow_hyphen_values = true)]
    pub skills: Vec<PathBuf>,
    /// Comma-separated names of the only tools to offer (built-in or from extensions).
    #[arg(long = "tools", short = 't', value_name = "LIST")]
    pub tools: Option<String>,
    /// Comma-separated names of tools never to offer (also `-xt`).
    #[arg(long = "exclude-tools", value_name = "LIST")]
    pub exclude_tools: Option<String>,
    /// Offer no built-in tools unless `--tools` names them; extension tools stay (also `-nbt`).
    #[arg(long = "no-builtin-tools")]
    pub no_builtin_tools: bool,
    /// Offer no tools unless `--tools` names them (also `-nt`).
    #[arg(long = "no-tools")]
    pub no_tools: bool,
    /// The release of pi's RPC protocol to speak, 0.84.1 to 1.6.0 (default: the setting
    /// `rpcRelease`, else 0.84.1).
    #[arg(long = "rpc-release", value_name = "RELEASE")]
    pub rpc_release: Option<String>,
    /// Long flags pi-agent does not know, for the extensions that register them
    /// ([`split_extension_flags`]).
    #[arg(skip)]
    pub extension_flags: Vec<crate::extensions::CliFlag>,
    /// Messages to send at start-up. The reference's RPC mode ignores them, and so does
    /// pi-agent; `@file` arguments are refused (see [`Cli::rpc_argument_error`]).
    #[arg(value_name = "MESSAGE", hide = true)]
    pub messages: Vec<String>,
}

impl Cli {
    /// The start-up error for arguments RPC mode cannot take, worded as the reference words it:
    /// `@file` arguments, whose contents would form a first message.
    pub fn rpc_argument_error(&self) -> Option<&'static str> {
        self.messages
            .iter()
            .any(|message| message.starts_with('@'))
            .then_some("Error: @file arguments are not supported in RPC mode")
    }

    /// The tool flags as one selection.
    pub fn tool_selection(&self) -> crate::tools::ToolSelection {
        crate::tools::ToolSelection {
            tools: self.tools.as_deref().map(tool_list),
            no_tools: self.no_tools,
            no_builtin_tools: self.no_builtin_tools,
            exclude_tools: self
                .exclude_tools
                .as_deref()
                .map(tool_list)
                .unwrap_or_default(),
        }
    }
}

/// A comma-separated list of tool names, each trimmed, empty ones left out.
fn tool_list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Splits off the long flags pi-agent does not know (`--name`, `--name value`, `--name=value`),
/// which the reference hands to extensions (`pi.registerFlag`): as in the reference, the next
/// argument is the flag's value unless it starts with `-` or `@`. The value of a known flag is
/// never taken for a flag. Run after [`expand_short_flags`].
pub fn split_extension_flags(
    args: impl IntoIterator<Item = String>,
) -> (Vec<String>, Vec<crate::extensions::CliFlag>) {
    let mut command = Cli::command();
    command.build();
    let takes_value = |arg: &clap::Arg| arg.get_action().takes_values();
    let long: Vec<(String, bool)> = command
        .get_arguments()
        .filter_map(|arg| Some((arg.get_long()?.to_owned(), takes_value(arg))))
        .collect();
    let short: Vec<String> = command
        .get_arguments()
        .filter(|arg| takes_value(arg))
        .filter_map(|arg| Some(format!("-{}", arg.get_short()?)))
        .collect();
    let mut args = args.into_iter().peekable();
    let mut kept: Vec<String> = args.next().into_iter().collect();
    let mut flags = Vec::new();
    while let Some(arg) = args.next() {
        // A bare `--` is not an end of options for the reference: it is a flag without a name,
        // which no extension registers, so start-up fails with `Unknown option: --`.
        let Some(name) = arg.strip_prefix("--") else {
            let value_follows = short.contains(&arg);
            kept.push(arg);
            if value_follows {
                kept.extend(args.next());
            }
            continue;
        };
        let (name, inline) = match name.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (name, None),
        };
        match long.iter().find(|(known, _)| known == name) {
            Some((_, value_follows)) => {
                let value_follows = *value_follows && inline.is_none();
                kept.push(arg);
                if value_follows {
                    kept.extend(args.next());
                }
            }
            None => {
                let value = match inline {
                    Some(value) => Some(value.to_owned()),
                    None => args.next_if(|next| !next.starts_with('-') && !next.starts_with('@')),
                };
                flags.push((name.to_owned(), value));
            }
        }
    }
    (kept, flags)
}

/// Flags that take a value: the token after one is never rewritten by [`expand_short_flags`].
const VALUE_FLAGS: [&str; 17] = [
    "--skill",
    "--tools",
    "-t",
    "--exclude-tools",
    "--provider",
    "--model",
    "--models",
    "--thinking",
    "--api-key",
    "--session-dir",
    "--name",
    "-n",
    "--extension",
    "-e",
    "--system-prompt",
    "--append-system-prompt",
    "--mode",
];

/// The reference's short flags of two or more letters (`-nc`, `-na`, `-ne`, `-ns`, `-np`,
/// `-nt`, `-nbt`, `-xt`), which clap cannot declare, spelled as their long forms.
pub fn expand_short_flags(args: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for arg in args {
        let takes_value = out
            .last()
            .is_some_and(|prev| VALUE_FLAGS.contains(&prev.as_str()));
        let arg = match arg.as_str() {
            "-nc" if !takes_value => "--no-context-files".to_owned(),
            "-na" if !takes_value => "--no-approve".to_owned(),
            "-ne" if !takes_value => "--no-extensions".to_owned(),
            "-ns" if !takes_value => "--no-skills".to_owned(),
            "-np" if !takes_value => "--no-prompt-templates".to_owned(),
            "-nt" if !takes_value => "--no-tools".to_owned(),
            "-nbt" if !takes_value => "--no-builtin-tools".to_owned(),
            "-xt" if !takes_value => "--exclude-tools".to_owned(),
            _ => arg,
        };
        out.push(arg);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_letter_short_flags_become_long_flags_but_not_as_values() {
        let args = [
            "pi-agent",
            "-nc",
            "--system-prompt",
            "-nc",
            "-na",
            "-ns",
            "-np",
        ]
        .map(str::to_owned);
        assert_eq!(
            expand_short_flags(args),
            [
                "pi-agent",
                "--no-context-files",
                "--system-prompt",
                "-nc",
                "--no-approve",
                "--no-skills",
                "--no-prompt-templates"
            ]
        );
    }

    #[test]
    fn unknown_long_flags_are_split_off_for_extensions_with_their_values() -> anyhow::Result<()> {
        let args = [
            "pi-agent",
            "--plan",
            "--mode",
            "rpc",
            "--target",
            "staging",
            "--system-prompt",
            "--not-a-flag",
            "--level=3",
            "--quiet",
            "-e",
            "x.ts",
            "--file",
            "-e",
            "y.ts",
            "-n",
            "my session",
        ]
        .map(str::to_owned);
        let (kept, flags) = split_extension_flags(args);
        let text = |name: &str, value: Option<&str>| (name.to_owned(), value.map(str::to_owned));
        assert_eq!(
            flags,
            [
                text("plan", None),
                text("target", Some("staging")),
                text("level", Some("3")),
                text("quiet", None),
                text("file", None),
            ]
        );
        let cli = Cli::try_parse_from(kept)?;
        assert_eq!(cli.system_prompt.as_deref(), Some("--not-a-flag"));
        assert_eq!(
            cli.extensions,
            [PathBuf::from("x.ts"), PathBuf::from("y.ts")]
        );
        assert_eq!(cli.name.as_deref(), Some("my session"));
        let (kept, flags) =
            split_extension_flags(["pi-agent", "--file", "@notes.md"].map(str::to_owned));
        assert_eq!(kept, ["pi-agent", "@notes.md"]);
        assert_eq!(flags, [text("file", None)]);
        Ok(())
    }

    #[test]
    fn the_prompt_flags_parse_with_hyphen_values_and_repeats() -> anyhow::Result<()> {
        let args = [
            "pi-agent",
            "--append-system-prompt",
            "- first",
            "--append-system-prompt",
            "second",
            "-nc",
        ]
        .map(str::to_owned);
        let cli = Cli::try_parse_from(expand_short_flags(args))?;
        assert_eq!(cli.append_system_prompt, ["- first", "second"]);
        assert!(cli.no_context_files);
        assert_eq!(cli.system_prompt, None);
        Ok(())
    }

    #[test]
    fn tool_flags_split_their_lists_and_short_forms_expand() -> anyhow::Result<()> {
        let args = [
            "pi-agent",
            "-t",
            " read, ,bash ",
            "-xt",
            "edit",
            "-nt",
            "-nbt",
            "--skill",
            "-nt",
        ]
        .map(str::to_owned);
        let cli = Cli::try_parse_from(expand_short_flags(args))?;
        let selection = cli.tool_selection();
        assert_eq!(
            selection,
            crate::tools::ToolSelection {
                tools: Some(vec!["read".into(), "bash".into()]),
                no_tools: true,
                no_builtin_tools: true,
                exclude_tools: vec!["edit".into()],
            }
        );
        assert_eq!(cli.skills, [PathBuf::from("-nt")]);
        Ok(())
    }
}
