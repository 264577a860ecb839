//! `--help`: what pi-agent does with each option.

use crate::extensions::HelpFlag;

/// Where a flag's description starts in the list of the extensions' flags.
const FLAG_COLUMN: usize = 30;

/// The help text, ending with a newline; `extension_flags`: the flags the loaded extensions
/// registered, listed after the options as the reference lists them.
pub fn help_text(extension_flags: &[HelpFlag]) -> String {
    let version = super::PI_VERSION;
    let extension_flags = extension_flags_text(extension_flags);
    format!(
        "pi-agent {version}: a pi-compatible coding agent (read, bash, edit, write and more)

Usage:
  pi-agent [options] [@files...] [messages...]

Modes:
  --mode rpc                     Serve pi's RPC protocol: JSON commands on stdin, JSON lines out
  --mode json                    Run the messages, writing every event as a JSON line
  --print, -p                    Run the messages and print the final answer (the default
                                 without a terminal; also --mode text)
  --export <file> [out.html]     Write a session file as an HTML page and exit
  --list-models [search]         List the models that have credentials (fuzzy search) and exit
  --help, -h                     Show this help
  --version, -v                  Print the pi version this agent implements

Model:
  --provider <name>              Provider (built-in, or from models.json)
  --model <pattern>              Model id or pattern; \"provider/id\" and \":<thinking>\" work
  --models <patterns>            Comma-separated patterns (globs too) that cycle_model walks
  --thinking <level>             off, minimal, low, medium, high, xhigh or max
  --api-key <key>                Key for the chosen model's provider, for this run

Session:
  --session <path|id>            Open a session file, or the session whose id starts so
  --session-id <id>              Open the session of this folder with exactly this id, or
                                 start one with it
  --continue, -c                 Continue the most recent session of this folder
  --fork <path|id>               Copy a session into a new one and continue there
  --resume, -r                   Pick a session (needs a terminal: use --session without one)
  --session-dir <dir>            Where sessions are stored and looked up
  --no-session                   Keep the session in memory only
  --name, -n <name>              Name the session

Prompt and tools:
  --system-prompt <text|file>    Replace the base system prompt
  --append-system-prompt <text|file>  Append to the system prompt (repeatable)
  --no-context-files, -nc        Leave out AGENTS.md, CLAUDE.md and the like
  --tools, -t <names>            Offer only these tools (comma-separated)
  --exclude-tools, -xt <names>   Never offer these tools
  --no-tools, -nt                Offer no tool unless --tools names it
  --no-builtin-tools, -nbt       Offer no built-in tool unless --tools names it
  --skill <path>                 Load a skill file or folder (repeatable)
  --no-skills, -ns               Do not discover skills
  --prompt-template <path>       Load a prompt template file or folder (repeatable)
  --no-prompt-templates, -np     Do not discover prompt templates
  --extension, -e <path>         Load an extension (repeatable; needs Node.js >= 20.6)
  --no-extensions, -ne           Do not discover extensions (-e paths still load)
  --approve, -a                  Trust this project's .pi/ files for this run
  --no-approve, -na              Ignore this project's .pi/ files for this run

Releases:
  --rpc-release <release>        Speak the RPC protocol of this pi release, 0.84.1 to 1.6.0
                                 (default: the setting rpcRelease, else 0.84.1)

Accepted for compatibility, without effect (they belong to pi's terminal UI or its network
start-up, which pi-agent does not have):
  --theme <path>, --no-themes, --tui-mode regular|fullscreen, --verbose, --offline

Long options that pi-agent does not know go to the extensions that register them.{extension_flags}

Examples:
  pi-agent -p \"List the Rust files in src/\"
  echo \"Summarise this\" | pi-agent @notes.md
  pi-agent --mode json --no-session \"What changed?\"
  pi-agent --mode rpc --provider anthropic --model claude-sonnet-4-5
  pi-agent --continue -p \"And now?\"
  pi-agent --export session.jsonl page.html
"
    )
}

/// The `Extension CLI Flags:` section (after a line break), one flag a line with its
/// description in a column (JavaScript's `padEnd`: a longer usage is not cut); empty without
/// flags.
fn extension_flags_text(flags: &[HelpFlag]) -> String {
    if flags.is_empty() {
        return String::new();
    }
    let mut text = String::from("\nExtension CLI Flags:\n");
    for flag in flags {
        let usage = format!("  {}", flag.usage);
        let padding = FLAG_COLUMN.saturating_sub(crate::js::utf16_len(&usage));
        text.push_str(&usage);
        text.extend(std::iter::repeat_n(' ', padding));
        text.push_str(&flag.description);
        text.push('\n');
    }
    text
}
