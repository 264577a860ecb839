use super::*;

fn parse(args: &[&str]) -> Cli {
    Cli::parse(args.iter().map(|arg| (*arg).to_owned()))
}

fn errors(cli: &Cli) -> Vec<&str> {
    cli.diagnostics
        .iter()
        .filter_map(|diagnostic| match diagnostic {
            Diagnostic::Error(text) => Some(text.as_str()),
            Diagnostic::Warning(_) => None,
        })
        .collect()
}

#[test]
fn two_letter_short_flags_are_flags_but_values_are_taken_whole() {
    let cli = parse(&["-nc", "--system-prompt", "-nc", "-na", "-ns", "-np", "-ne"]);
    assert!(cli.no_context_files && cli.no_skills && cli.no_prompt_templates);
    assert!(cli.no_extensions);
    assert_eq!(cli.project_trust, Some(false));
    assert_eq!(cli.system_prompt.as_deref(), Some("-nc"));
    assert!(cli.diagnostics.is_empty());
}

#[test]
fn unknown_long_flags_are_kept_for_extensions_with_their_values() {
    let cli = parse(&[
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
        "--file",
        "@notes.md",
    ]);
    let text = |name: &str, value: Option<&str>| (name.to_owned(), value.map(str::to_owned));
    assert_eq!(
        cli.extension_flags,
        [
            text("plan", None),
            text("target", Some("staging")),
            text("level", Some("3")),
            text("quiet", None),
            text("file", None),
        ]
    );
    assert_eq!(cli.mode, Some(Mode::Rpc));
    assert_eq!(cli.system_prompt.as_deref(), Some("--not-a-flag"));
    assert_eq!(
        cli.extensions,
        [PathBuf::from("x.ts"), PathBuf::from("y.ts")]
    );
    assert_eq!(cli.name.as_deref(), Some("my session"));
    assert_eq!(cli.file_args, ["notes.md"]);
}

#[test]
fn tool_flags_split_their_lists() {
    let cli = parse(&[
        "-t",
        " read, ,bash ",
        "-xt",
        "edit",
        "-nt",
        "-nbt",
        "--skill",
        "-nt",
    ]);
    assert_eq!(
        cli.tool_selection(),
        crate::tools::ToolSelection {
            tools: Some(vec!["read".into(), "bash".into()]),
            no_tools: true,
            no_builtin_tools: true,
            exclude_tools: vec!["edit".into()],
        }
    );
    assert_eq!(cli.skills, [PathBuf::from("-nt")]);
}

#[test]
fn unknown_short_options_and_missing_values_are_reported_in_order() {
    let cli = parse(&[
        "-x",
        "--tui-mode",
        "bogus",
        "--thinking",
        "lots",
        "-xq",
        "--name",
    ]);
    assert_eq!(
        cli.diagnostics,
        [
            Diagnostic::Error("Unknown option: -x".into()),
            Diagnostic::Error("Invalid TUI mode \"bogus\". Valid values: regular, fullscreen".into()),
            Diagnostic::Warning(
                "Invalid thinking level \"lots\". Valid values: off, minimal, low, medium, high, xhigh, max"
                    .into()
            ),
            Diagnostic::Error("Unknown option: -xq".into()),
            Diagnostic::Error("--name requires a value".into()),
        ]
    );
    assert_eq!(
        errors(&parse(&["--tui-mode", "-p"])),
        ["--tui-mode requires regular or fullscreen"]
    );
    // A value option as the last argument is an unknown flag, as in the reference.
    let cli = parse(&["--provider"]);
    assert_eq!(cli.extension_flags, [("provider".to_owned(), None)]);
    assert_eq!(errors(&parse(&["-t"])), ["Unknown option: -t"]);
}

#[test]
fn print_takes_the_next_argument_unless_it_is_a_file_or_an_option() {
    let cli = parse(&["-p", "hello", "world"]);
    assert!(cli.print);
    assert_eq!(cli.messages, ["hello", "world"]);
    let cli = parse(&["-p", "@a.md", "--print", "--no-session", "-p", "---x"]);
    assert_eq!(cli.file_args, ["a.md"]);
    assert_eq!(cli.messages, ["---x"]);
    assert!(cli.no_session);
}

#[test]
fn list_models_takes_a_search_unless_an_option_follows() {
    assert_eq!(parse(&["--list-models"]).list_models, Some(None));
    assert_eq!(
        parse(&["--list-models", "son"]).list_models,
        Some(Some("son".into()))
    );
    let cli = parse(&["--list-models", "--mode", "rpc"]);
    assert_eq!((cli.list_models, cli.mode), (Some(None), Some(Mode::Rpc)));
}

#[test]
fn an_unknown_mode_is_ignored_and_the_app_mode_follows_the_terminals() {
    let cli = parse(&["--mode", "tui"]);
    assert_eq!(cli.mode, None);
    assert!(cli.diagnostics.is_empty());
    assert_eq!(cli.app_mode(true, true), AppMode::Interactive);
    assert_eq!(cli.app_mode(false, true), AppMode::Print);
    assert_eq!(parse(&["-p"]).app_mode(true, true), AppMode::Print);
    assert_eq!(
        parse(&["--mode", "json"]).app_mode(true, true),
        AppMode::Json
    );
}

#[test]
fn session_flags_that_cannot_go_together_are_named_as_the_reference_names_them() {
    let cli = parse(&["--fork", "a", "--continue", "--resume", "--no-session"]);
    assert_eq!(
        cli.session_flag_conflict().as_deref(),
        Some("--fork cannot be combined with --continue, --resume, --no-session")
    );
    let cli = parse(&["--session-id", "a", "--session", "b", "-c"]);
    assert_eq!(
        cli.session_flag_conflict().as_deref(),
        Some("--session-id cannot be combined with --session, --continue")
    );
    assert_eq!(
        parse(&["--session-id", "a", "--no-session"]).session_flag_conflict(),
        None
    );
}

#[test]
fn terminal_ui_options_are_accepted() {
    let cli = parse(&[
        "--theme",
        "dark.json",
        "--no-themes",
        "--tui-mode",
        "fullscreen",
        "--verbose",
        "--offline",
    ]);
    assert!(cli.diagnostics.is_empty() && cli.extension_flags.is_empty());
    assert!(cli.no_themes && cli.verbose && cli.offline);
    assert_eq!(cli.tui_mode.as_deref(), Some("fullscreen"));
}
