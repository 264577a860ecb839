//! The command line, read as the reference pi reads it.
//!
//! pi's grammar is its own, and clients depend on its details, so it is read here by hand
//! rather than by a general parser: an option that takes a value takes the next argument
//! whatever it looks like (`--system-prompt -nc`), but as the last argument it is an unknown
//! flag; `-p` takes the next argument as a message unless it starts with `@` or `-`;
//! `--list-models` takes a search unless the next argument starts with `-` or `@`; an invalid
//! `--mode` is ignored; an unknown long flag (`--plan`, `--target x`, `--level=3`) is kept for
//! the extensions that register it ([`crate::extensions::CliFlag`]), while an unknown short one
//! is an error. Problems are collected as [`Diagnostic`]s in the order they appear, as the
//! reference reports them.

mod help;

use std::path::PathBuf;

use pi_rpc_protocol::model::ThinkingLevel;

pub use help::help_text;

/// The version of pi whose command line, protocol and session format pi-agent implements:
/// what `--version` prints, since clients compare it with the pi version they support.
pub const PI_VERSION: &str = "0.84.1";

/// `--mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The final answer as text (the default; also `-p`).
    Text,
    /// The session's events as JSON lines.
    Json,
    /// JSON commands on stdin, JSON records on stdout.
    Rpc,
}

/// A problem found on the command line: an error stops start-up (exit code 1) once all are
/// printed; a warning is printed and start-up goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Diagnostic {
    /// Printed as `Error: <text>`.
    Error(String),
    /// Printed as `Warning: <text>`.
    Warning(String),
}

/// Everything the command line says.
#[derive(Debug, Default)]
pub struct Cli {
    /// `--help`, `-h`.
    pub help: bool,
    /// `--version`, `-v`.
    pub version: bool,
    /// `--mode text|json|rpc`; `None` when not given (or given an unknown value).
    pub mode: Option<Mode>,
    /// `--print`, `-p`.
    pub print: bool,
    /// `--continue`, `-c`.
    pub continue_session: bool,
    /// `--resume`, `-r`.
    pub resume: bool,
    /// `--provider`.
    pub provider: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--api-key`.
    pub api_key: Option<String>,
    /// `--system-prompt`.
    pub system_prompt: Option<String>,
    /// `--append-system-prompt`, repeatable.
    pub append_system_prompt: Vec<String>,
    /// `--name`, `-n`.
    pub name: Option<String>,
    /// `--no-session`.
    pub no_session: bool,
    /// `--session <path|partial id>`.
    pub session: Option<String>,
    /// `--session-id <id>`.
    pub session_id: Option<String>,
    /// `--fork <path|partial id>`.
    pub fork: Option<String>,
    /// `--session-dir`.
    pub session_dir: Option<PathBuf>,
    /// `--models`: the comma-separated patterns as given.
    pub models: Option<String>,
    /// `--tools`, `-t`: the names (trimmed, empty ones left out).
    pub tools: Option<Vec<String>>,
    /// `--exclude-tools`, `-xt`.
    pub exclude_tools: Vec<String>,
    /// `--no-tools`, `-nt`.
    pub no_tools: bool,
    /// `--no-builtin-tools`, `-nbt`.
    pub no_builtin_tools: bool,
    /// `--thinking`, when it names a level (an unknown one is a warning).
    pub thinking: Option<ThinkingLevel>,
    /// `--export <session file>`; its output file is the first message.
    pub export: Option<String>,
    /// `--extension`, `-e`, repeatable.
    pub extensions: Vec<PathBuf>,
    /// `--no-extensions`, `-ne`.
    pub no_extensions: bool,
    /// `--skill`, repeatable.
    pub skills: Vec<PathBuf>,
    /// `--no-skills`, `-ns`.
    pub no_skills: bool,
    /// `--prompt-template`, repeatable.
    pub prompt_templates: Vec<PathBuf>,
    /// `--no-prompt-templates`, `-np`.
    pub no_prompt_templates: bool,
    /// `--theme`, repeatable: read by the reference's terminal UI only.
    pub themes: Vec<String>,
    /// `--no-themes`: the terminal UI's.
    pub no_themes: bool,
    /// `--no-context-files`, `-nc`.
    pub no_context_files: bool,
    /// `--list-models [search]`.
    pub list_models: Option<Option<String>>,
    /// `--tui-mode regular|fullscreen`: the terminal UI's.
    pub tui_mode: Option<String>,
    /// `--verbose`: the terminal UI's start-up output.
    pub verbose: bool,
    /// `--approve`, `-a` (`Some(true)`) or `--no-approve`, `-na` (`Some(false)`); the last wins.
    pub project_trust: Option<bool>,
    /// `--offline`: no network at start-up (pi-agent makes none anyway).
    pub offline: bool,
    /// `--rpc-release`: the release of pi's RPC protocol to speak, 0.84.1 to 1.6.0 (pi-agent's
    /// own option; default: the setting `rpcRelease`, else 0.84.1).
    pub rpc_release: Option<String>,
    /// `@file` arguments, without the `@`.
    pub file_args: Vec<String>,
    /// The other plain arguments (and the one after `-p`).
    pub messages: Vec<String>,
    /// Long flags pi-agent does not know, for the extensions that register them.
    pub extension_flags: Vec<crate::extensions::CliFlag>,
    /// Problems, in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

/// The thinking levels, as `--thinking` lists them in its warning.
const LEVEL_NAMES: &str = "off, minimal, low, medium, high, xhigh, max";

impl Cli {
    /// Reads the arguments (without the program name).
    pub fn parse(args: impl IntoIterator<Item = String>) -> Self {
        let args: Vec<String> = args.into_iter().collect();
        let mut cli = Self::default();
        let mut index = 0;
        while index < args.len() {
            let arg = args[index].as_str();
            let next = args.get(index + 1).map(String::as_str);
            index += 1;
            if cli.flag(arg) {
                continue;
            }
            if let Some(value) = next
                && cli.value_option(arg, value)
            {
                index += 1;
                continue;
            }
            match arg {
                "--name" | "-n" => cli
                    .diagnostics
                    .push(Diagnostic::Error("--name requires a value".into())),
                "--print" | "-p" => {
                    cli.print = true;
                    if let Some(message) = next.filter(|next| takes_as_print_message(next)) {
                        cli.messages.push(message.to_owned());
                        index += 1;
                    }
                }
                "--list-models" => {
                    let search = next.filter(|next| !next.starts_with(['-', '@']));
                    index += usize::from(search.is_some());
                    cli.list_models = Some(search.map(str::to_owned));
                }
                "--tui-mode" => match next {
                    Some(mode @ ("regular" | "fullscreen")) => {
                        cli.tui_mode = Some(mode.to_owned());
                        index += 1;
                    }
                    None => cli.tui_mode_error(None),
                    Some(mode) if mode.starts_with('-') => cli.tui_mode_error(None),
                    Some(mode) => {
                        cli.tui_mode_error(Some(mode));
                        index += 1;
                    }
                },
                _ => {
                    if let Some(file) = arg.strip_prefix('@') {
                        cli.file_args.push(file.to_owned());
                    } else if let Some(flag) = arg.strip_prefix("--") {
                        let value = match flag.split_once('=') {
                            Some((name, value)) => (name, Some(value.to_owned())),
                            None => match next.filter(|next| !next.starts_with(['-', '@'])) {
                                Some(value) => {
                                    index += 1;
                                    (flag, Some(value.to_owned()))
                                }
                                None => (flag, None),
                            },
                        };
                        cli.add_extension_flag(value.0, value.1);
                    } else if arg.starts_with('-') {
                        cli.diagnostics
                            .push(Diagnostic::Error(format!("Unknown option: {arg}")));
                    } else {
                        cli.messages.push(arg.to_owned());
                    }
                }
            }
        }
        cli
    }

    /// An option without a value; false when `arg` is none.
    fn flag(&mut self, arg: &str) -> bool {
        let set = match arg {
            "--help" | "-h" => &mut self.help,
            "--version" | "-v" => &mut self.version,
            "--continue" | "-c" => &mut self.continue_session,
            "--resume" | "-r" => &mut self.resume,
            "--no-session" => &mut self.no_session,
            "--no-tools" | "-nt" => &mut self.no_tools,
            "--no-builtin-tools" | "-nbt" => &mut self.no_builtin_tools,
            "--no-extensions" | "-ne" => &mut self.no_extensions,
            "--no-skills" | "-ns" => &mut self.no_skills,
            "--no-prompt-templates" | "-np" => &mut self.no_prompt_templates,
            "--no-themes" => &mut self.no_themes,
            "--no-context-files" | "-nc" => &mut self.no_context_files,
            "--verbose" => &mut self.verbose,
            "--offline" => &mut self.offline,
            "--approve" | "-a" => {
                self.project_trust = Some(true);
                return true;
            }
            "--no-approve" | "-na" => {
                self.project_trust = Some(false);
                return true;
            }
            _ => return false,
        };
        *set = true;
        true
    }

    /// An option that takes the next argument as its value, whatever it looks like; false
    /// when `arg` is none.
    fn value_option(&mut self, arg: &str, value: &str) -> bool {
        let text = || Some(value.to_owned());
        match arg {
            "--mode" => {
                self.mode = match value {
                    "text" => Some(Mode::Text),
                    "json" => Some(Mode::Json),
                    "rpc" => Some(Mode::Rpc),
                    _ => self.mode,
                }
            }
            "--provider" => self.provider = text(),
            "--model" => self.model = text(),
            "--api-key" => self.api_key = text(),
            "--system-prompt" => self.system_prompt = text(),
            "--append-system-prompt" => self.append_system_prompt.push(value.to_owned()),
            "--name" | "-n" => self.name = text(),
            "--session" => self.session = text(),
            "--session-id" => self.session_id = text(),
            "--fork" => self.fork = text(),
            "--session-dir" => self.session_dir = Some(PathBuf::from(value)),
            "--models" => self.models = text(),
            "--tools" | "-t" => self.tools = Some(tool_list(value)),
            "--exclude-tools" | "-xt" => self.exclude_tools = tool_list(value),
            "--thinking" => match ThinkingLevel::parse(value) {
                Some(level) => self.thinking = Some(level),
                None => self.diagnostics.push(Diagnostic::Warning(format!(
                    "Invalid thinking level \"{value}\". Valid values: {LEVEL_NAMES}"
                ))),
            },
            "--export" => self.export = text(),
            "--extension" | "-e" => self.extensions.push(PathBuf::from(value)),
            "--skill" => self.skills.push(PathBuf::from(value)),
            "--prompt-template" => self.prompt_templates.push(PathBuf::from(value)),
            "--theme" => self.themes.push(value.to_owned()),
            "--rpc-release" => self.rpc_release = text(),
            _ => return false,
        }
        true
    }

    fn tui_mode_error(&mut self, given: Option<&str>) {
        let message = match given {
            None => "--tui-mode requires regular or fullscreen".to_owned(),
            Some(mode) => format!("Invalid TUI mode \"{mode}\". Valid values: regular, fullscreen"),
        };
        self.diagnostics.push(Diagnostic::Error(message));
    }

    /// Keeps an unknown long flag; given twice, it keeps its first place and its last value.
    fn add_extension_flag(&mut self, name: &str, value: Option<String>) {
        match self
            .extension_flags
            .iter_mut()
            .find(|(known, _)| known == name)
        {
            Some(flag) => flag.1 = value,
            None => self.extension_flags.push((name.to_owned(), value)),
        }
    }

    /// The mode actually run: `--mode rpc` and `--mode json` as given; otherwise text output,
    /// which the reference gives in a terminal UI when stdin and stdout are both terminals and
    /// neither `-p` nor `--mode text` asks for print mode (`interactive` is then true).
    pub fn app_mode(&self, stdin_is_terminal: bool, stdout_is_terminal: bool) -> AppMode {
        match self.mode {
            Some(Mode::Rpc) => AppMode::Rpc,
            Some(Mode::Json) => AppMode::Json,
            _ if self.print || !stdin_is_terminal || !stdout_is_terminal => AppMode::Print,
            _ => AppMode::Interactive,
        }
    }

    /// The tool flags as one selection.
    pub fn tool_selection(&self) -> crate::tools::ToolSelection {
        crate::tools::ToolSelection {
            tools: self.tools.clone(),
            no_tools: self.no_tools,
            no_builtin_tools: self.no_builtin_tools,
            exclude_tools: self.exclude_tools.clone(),
        }
    }

    /// The error for a flag combination the reference refuses before opening any session
    /// (`--fork` or `--session-id` with another way of choosing the session), in its words.
    pub fn session_flag_conflict(&self) -> Option<String> {
        let others = |flags: &[(bool, &'static str)]| -> Vec<&'static str> {
            flags
                .iter()
                .filter(|(given, _)| *given)
                .map(|(_, name)| *name)
                .collect()
        };
        if self.fork.is_some() {
            let conflicts = others(&[
                (self.session.is_some(), "--session"),
                (self.continue_session, "--continue"),
                (self.resume, "--resume"),
                (self.no_session, "--no-session"),
            ]);
            if !conflicts.is_empty() {
                return Some(format!(
                    "--fork cannot be combined with {}",
                    conflicts.join(", ")
                ));
            }
        }
        if self.session_id.is_some() {
            let conflicts = others(&[
                (self.session.is_some(), "--session"),
                (self.continue_session, "--continue"),
                (self.resume, "--resume"),
            ]);
            if !conflicts.is_empty() {
                return Some(format!(
                    "--session-id cannot be combined with {}",
                    conflicts.join(", ")
                ));
            }
        }
        None
    }
}

/// How the agent runs, decided from `--mode`, `-p` and whether stdin and stdout are terminals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppMode {
    /// pi's RPC protocol.
    Rpc,
    /// The events of each prompt as JSON lines.
    Json,
    /// The final answer as text.
    Print,
    /// The reference's terminal UI, which pi-agent does not have.
    Interactive,
}

/// Whether `-p` takes `next` as its message: not an `@file`, not an option (`---` text is).
fn takes_as_print_message(next: &str) -> bool {
    !next.starts_with('@') && (!next.starts_with('-') || next.starts_with("---"))
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

#[cfg(test)]
mod tests;
