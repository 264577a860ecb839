//! The `find` tool: files and folders under a folder whose name (or, for a pattern with a `/`,
//! whole path) matches a glob, with the results a client of the reference sees from its `fd`
//! run: hidden entries included, ignore files respected (`.gitignore` also outside git
//! repositories), case-insensitive unless the pattern has a capital letter, folders marked with
//! `/`, a result limit and the byte limit. Done here with the walker and glob engine `fd` uses,
//! so no `fd` program is needed.

use std::path::Path;

use globset::GlobBuilder;
use ignore::WalkBuilder;

use super::args::FindArgs;
use super::listing::Listing;
use super::{ToolContext, ToolError, ToolOutcome, ToolResult, path, text_block};

/// Results returned when the call gives no limit.
const DEFAULT_LIMIT: f64 = 1000.0;

pub(super) async fn run(args: FindArgs, ctx: &ToolContext) -> ToolResult {
    if ctx.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    let cwd = ctx.cwd.clone();
    let cancel = ctx.cancel.clone();
    let work = tokio::task::spawn_blocking(move || find(&args, &cwd, &cancel));
    tokio::select! {
        result = work => result.map_err(|error| ToolError::new(error.to_string()))?,
        () = ctx.cancel.cancelled() => Err(ToolError::aborted()),
    }
}

fn find(args: &FindArgs, cwd: &Path, cancel: &tokio_util::sync::CancellationToken) -> ToolResult {
    let input = args.path.as_deref().filter(|text| !text.is_empty());
    let root = path::resolve_to_cwd(input.unwrap_or("."), cwd);
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
    if !std::fs::metadata(&root).is_ok_and(|metadata| metadata.is_dir()) {
        return Err(ToolError::new(format!(
            "[fd error]: Search path '{}' is not a directory.\n[fd error]: No valid search paths given.",
            root.display()
        )));
    }
    // A pattern with a `/` matches whole (absolute) paths, anywhere below the root unless it
    // is anchored.
    let full_path = args.pattern.contains('/');
    let pattern = if full_path
        && !args.pattern.starts_with('/')
        && !args.pattern.starts_with("**/")
        && args.pattern != "**"
    {
        format!("**/{}", args.pattern)
    } else {
        args.pattern.clone()
    };
    let matcher = GlobBuilder::new(&pattern)
        .literal_separator(true)
        .case_insensitive(!args.pattern.chars().any(char::is_uppercase))
        .build()
        .map_err(|error| ToolError::new(format!("[fd error]: {error}")))?
        .compile_matcher();
    let match_all = args.pattern.is_empty();

    let inside_git = root.ancestors().any(|folder| folder.join(".git").exists());
    let mut walker = WalkBuilder::new(&root);
    walker
        .hidden(false)
        .require_git(inside_git)
        .add_custom_ignore_filename(".fdignore")
        .sort_by_file_name(|a, b| a.cmp(b));
    let mut found: Vec<String> = Vec::new();
    for entry in walker.build().filter_map(Result::ok) {
        if cancel.is_cancelled() {
            return Err(ToolError::aborted());
        }
        if entry.depth() == 0 {
            continue;
        }
        let candidate = entry.path();
        let matched = match_all
            || if full_path {
                matcher.is_match(candidate)
            } else {
                candidate
                    .file_name()
                    .is_some_and(|name| matcher.is_match(name))
            };
        if !matched {
            continue;
        }
        let relative = candidate.strip_prefix(&root).unwrap_or(candidate);
        let mut shown = relative.to_string_lossy().into_owned();
        if entry.file_type().is_some_and(|kind| kind.is_dir()) {
            shown.push('/');
        }
        found.push(shown);
        // `fd --max-results 0` sets no limit.
        if limit >= 1.0 && found.len() as f64 >= limit.floor() {
            break;
        }
    }
    if found.is_empty() {
        return Ok(ToolOutcome::success(
            vec![text_block("No files found matching pattern")],
            None,
        ));
    }

    let mut listing = Listing::new(&found);
    if found.len() as f64 >= limit {
        listing.limit_reached(
            "results",
            "resultLimitReached",
            limit,
            ", or refine pattern",
        );
    }
    listing.note_truncation();
    Ok(listing.finish())
}
