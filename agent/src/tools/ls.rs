//! The `ls` tool: the entries of one folder, sorted as the reference sorts them (case-folded,
//! in the root collation order of ICU), folders marked with `/`, capped by an entry limit and the
//! byte limit.

use std::cmp::Ordering;
use std::path::Path;

use unicode_normalization::UnicodeNormalization;

use super::args::LsArgs;
use super::listing::Listing;
use super::{ToolContext, ToolError, ToolOutcome, ToolResult, fs_error, path, text_block};

/// Entries listed when the call gives no limit.
const DEFAULT_LIMIT: f64 = 500.0;

pub(super) async fn run(args: LsArgs, ctx: &ToolContext) -> ToolResult {
    if ctx.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    let cwd = ctx.cwd.clone();
    let work = tokio::task::spawn_blocking(move || list(&args, &cwd));
    tokio::select! {
        result = work => result.map_err(|error| ToolError::new(error.to_string()))?,
        () = ctx.cancel.cancelled() => Err(ToolError::aborted()),
    }
}

fn list(args: &LsArgs, cwd: &Path) -> ToolResult {
    let input = args.path.as_deref().filter(|text| !text.is_empty());
    let folder = path::resolve_to_cwd(input.unwrap_or("."), cwd);
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
    if rustix::fs::access(&folder, rustix::fs::Access::EXISTS).is_err() {
        return Err(ToolError::new(format!(
            "Path not found: {}",
            folder.display()
        )));
    }
    let metadata = std::fs::metadata(&folder)
        .map_err(|error| ToolError::new(fs_error::node_message(&error, "stat", Some(&folder))))?;
    if !metadata.is_dir() {
        return Err(ToolError::new(format!(
            "Not a directory: {}",
            folder.display()
        )));
    }
    let mut names: Vec<String> = std::fs::read_dir(&folder)
        .and_then(|entries| {
            entries
                .map(|entry| entry.map(|entry| entry.file_name().to_string_lossy().into_owned()))
                .collect()
        })
        .map_err(|error| {
            ToolError::new(format!(
                "Cannot read directory: {}",
                fs_error::node_message(&error, "scandir", Some(&folder))
            ))
        })?;
    names.sort_by(|a, b| collate(&a.to_lowercase(), &b.to_lowercase()));

    let mut listed: Vec<String> = Vec::new();
    let mut limit_reached = false;
    for name in names {
        if listed.len() as f64 >= limit {
            limit_reached = true;
            break;
        }
        // Entries that cannot be followed (dangling links) are left out.
        let Ok(entry) = std::fs::metadata(folder.join(&name)) else {
            continue;
        };
        let suffix = if entry.is_dir() { "/" } else { "" };
        listed.push(format!("{name}{suffix}"));
    }
    if listed.is_empty() {
        return Ok(ToolOutcome::success(
            vec![text_block("(empty directory)")],
            None,
        ));
    }
    let mut listing = Listing::new(&listed);
    if limit_reached {
        listing.limit_reached("entries", "entryLimitReached", limit, "");
    }
    listing.note_truncation();
    Ok(listing.finish())
}

/// Orders two (case-folded) names as ICU's root collation does, near enough for file names:
/// spaces, then punctuation in ICU's order, other symbols, digits, then letters with accents
/// weighing only when the base letters tie. Equal names keep their directory order.
pub(crate) fn collate(a: &str, b: &str) -> Ordering {
    let (primary_a, accents_a) = weights(a);
    let (primary_b, accents_b) = weights(b);
    primary_a.cmp(&primary_b).then(accents_a.cmp(&accents_b))
}

/// Punctuation and symbols of ASCII in ICU's root order, after the spaces.
const PUNCTUATION: &str = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";

fn weights(text: &str) -> (Vec<(u8, u32)>, Vec<bool>) {
    let mut primary = Vec::new();
    let mut accents = Vec::new();
    for c in text.chars() {
        let mut decomposed = c.to_string().nfd().collect::<Vec<char>>().into_iter();
        let base = decomposed.next().unwrap_or(c);
        let accented = decomposed.next().is_some();
        let weight = if let Some(index) = "\t\n\u{b}\u{c}\r ".find(base) {
            (0, index as u32)
        } else if let Some(index) = PUNCTUATION.find(base) {
            (1, index as u32)
        } else if base.is_ascii_digit() {
            (3, u32::from(base))
        } else if base.is_alphabetic() {
            (4, u32::from(base))
        } else if base.is_numeric() {
            (3, u32::from(base))
        } else {
            (2, u32::from(base))
        };
        primary.push(weight);
        accents.push(accented);
    }
    (primary, accents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_sort_in_the_root_collation_order() {
        let mut names = vec![
            "ab.txt", "é", "a1", "9", "ab", "a-b", "af", "a b", "a_b", "aé", "z", "10", "ae",
            "a.b.c", "a.txt",
        ];
        names.sort_by(|a, b| collate(a, b));
        assert_eq!(
            names,
            [
                "10", "9", "a b", "a_b", "a-b", "a.b.c", "a.txt", "a1", "ab", "ab.txt", "ae", "aé",
                "af", "é", "z"
            ]
        );
    }
}
