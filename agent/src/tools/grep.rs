//! The `grep` tool: lines matching a regular expression (or a literal text) in a file or under a
//! folder, with the results a client of the reference sees from its ripgrep run: hidden files
//! searched, ignore files (`.gitignore` inside git repositories, `.ignore`, `.rgignore`)
//! respected, binary files skipped, `path:line: text` rows, optional context rows, a match
//! limit, long lines cut and the byte limit. Done here with ripgrep's own walker and regex
//! engine, so no `rg` program is needed.

use std::path::{Path, PathBuf};

use ignore::WalkBuilder;
use ignore::overrides::OverrideBuilder;
use regex::bytes::RegexBuilder;
use serde_json::Value;

use super::args::GrepArgs;
use super::listing::Listing;
use super::{ToolContext, ToolError, ToolOutcome, ToolResult, js, path, text_block};

/// Matches returned when the call gives no limit.
const DEFAULT_LIMIT: f64 = 100.0;
/// Longest row text, in UTF-16 units as the reference counts, before it is cut.
const MAX_LINE_LENGTH: usize = super::schema::GREP_LINE;

pub(super) async fn run(args: GrepArgs, ctx: &ToolContext) -> ToolResult {
    if ctx.cancel.is_cancelled() {
        return Err(ToolError::aborted());
    }
    let cwd = ctx.cwd.clone();
    let cancel = ctx.cancel.clone();
    let work = tokio::task::spawn_blocking(move || search(&args, &cwd, &cancel));
    tokio::select! {
        result = work => result.map_err(|error| ToolError::new(error.to_string()))?,
        () = ctx.cancel.cancelled() => Err(ToolError::aborted()),
    }
}

/// One matching line.
struct Hit {
    file: PathBuf,
    line_number: usize,
    /// The line without its end, when it is valid UTF-8.
    text: Option<String>,
}

fn search(args: &GrepArgs, cwd: &Path, cancel: &tokio_util::sync::CancellationToken) -> ToolResult {
    let input = args.path.as_deref().filter(|text| !text.is_empty());
    let root = path::resolve_to_cwd(input.unwrap_or("."), cwd);
    let is_dir = match std::fs::metadata(&root) {
        Ok(metadata) => metadata.is_dir(),
        Err(_) => {
            return Err(ToolError::new(format!(
                "Path not found: {}",
                root.display()
            )));
        }
    };
    let context = args.context.filter(|value| *value > 0.0).unwrap_or(0.0);
    let limit = args.limit.unwrap_or(DEFAULT_LIMIT).max(1.0);
    let pattern = if args.literal {
        regex::escape(&args.pattern)
    } else {
        args.pattern.clone()
    };
    let regex = RegexBuilder::new(&pattern)
        .case_insensitive(args.ignore_case)
        .build()
        .map_err(|error| ToolError::new(error.to_string().trim().to_string()))?;

    let files = if is_dir {
        walk(&root, args.glob.as_deref())?
    } else {
        vec![root.clone()]
    };
    let mut hits: Vec<Hit> = Vec::new();
    let mut limit_reached = false;
    'files: for file in files {
        if cancel.is_cancelled() {
            return Err(ToolError::aborted());
        }
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        if is_dir && bytes.contains(&0) {
            continue;
        }
        for (index, line) in lines_of(&bytes).enumerate() {
            if !regex.is_match(line) {
                continue;
            }
            hits.push(Hit {
                file: file.clone(),
                line_number: index + 1,
                text: std::str::from_utf8(line)
                    .ok()
                    .map(|text| text.replace('\r', "")),
            });
            if hits.len() as f64 >= limit {
                limit_reached = true;
                break 'files;
            }
        }
    }
    if hits.is_empty() {
        return Ok(ToolOutcome::success(
            vec![text_block("No matches found")],
            None,
        ));
    }

    let shown = |file: &Path| display_path(file, &root, is_dir);
    let mut rows: Vec<String> = Vec::new();
    let mut lines_cut = false;
    let mut cache: Option<(PathBuf, Vec<String>)> = None;
    for hit in &hits {
        if context == 0.0
            && let Some(text) = &hit.text
        {
            let (text, cut) = cut_line(text);
            lines_cut |= cut;
            rows.push(format!("{}:{}: {text}", shown(&hit.file), hit.line_number));
            continue;
        }
        if cache.as_ref().is_none_or(|(file, _)| file != &hit.file) {
            cache = Some((hit.file.clone(), file_lines(&hit.file)));
        }
        let lines = cache
            .as_ref()
            .map(|(_, lines)| lines.as_slice())
            .unwrap_or(&[]);
        let name = shown(&hit.file);
        if lines.is_empty() {
            rows.push(format!("{name}:{}: (unable to read file)", hit.line_number));
            continue;
        }
        let number = hit.line_number as f64;
        let (start, end) = if context > 0.0 {
            (
                (number - context).max(1.0),
                (number + context).min(lines.len() as f64),
            )
        } else {
            (number, number)
        };
        let mut current = start;
        while current <= end {
            let text = if current.fract() == 0.0 {
                lines.get(current as usize - 1).map_or("", String::as_str)
            } else {
                ""
            };
            let (text, cut) = cut_line(&text.replace('\r', ""));
            lines_cut |= cut;
            let label = js::number_to_string(current);
            if current == number {
                rows.push(format!("{name}:{label}: {text}"));
            } else {
                rows.push(format!("{name}-{label}- {text}"));
            }
            current += 1.0;
        }
    }

    let mut listing = Listing::new(&rows);
    if limit_reached {
        listing.limit_reached("matches", "matchLimitReached", limit, ", or refine pattern");
    }
    listing.note_truncation();
    if lines_cut {
        listing.notice(
            format!(
                "Some lines truncated to {MAX_LINE_LENGTH} chars. Use read tool to see full lines"
            ),
            "linesTruncated",
            Value::Bool(true),
        );
    }
    Ok(listing.finish())
}

/// The files under `root` that ripgrep would search, in name order.
fn walk(root: &Path, glob: Option<&str>) -> Result<Vec<PathBuf>, ToolError> {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(false)
        .add_custom_ignore_filename(".rgignore")
        .sort_by_file_name(|a, b| a.cmp(b));
    if let Some(glob) = glob {
        let mut overrides = OverrideBuilder::new(root);
        overrides
            .add(glob)
            .map_err(|error| ToolError::new(error.to_string()))?;
        let overrides = overrides
            .build()
            .map_err(|error| ToolError::new(error.to_string()))?;
        builder.overrides(overrides);
    }
    Ok(builder
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_some_and(|kind| kind.is_file()))
        .map(ignore::DirEntry::into_path)
        .collect())
}

/// The lines of a file as ripgrep numbers them: split at `\n`, without a last empty one.
fn lines_of(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let empty = bytes.is_empty();
    body.split(|byte| *byte == b'\n').filter(move |_| !empty)
}

/// A file's lines for context rows: decoded as UTF-8 (bad bytes replaced), split at any line
/// end; empty when the file cannot be read.
fn file_lines(file: &Path) -> Vec<String> {
    let Ok(bytes) = std::fs::read(file) else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&bytes)
        .replace("\r\n", "\n")
        .replace('\r', "\n");
    text.split('\n').map(str::to_string).collect()
}

/// The path a row names: relative to the searched folder, or the file name.
fn display_path(file: &Path, root: &Path, is_dir: bool) -> String {
    if is_dir
        && let Ok(relative) = file.strip_prefix(root)
        && !relative.as_os_str().is_empty()
    {
        return relative.to_string_lossy().into_owned();
    }
    file.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Cuts a row text longer than [`MAX_LINE_LENGTH`] UTF-16 units, saying so.
pub(crate) fn cut_line(text: &str) -> (String, bool) {
    if js::utf16_len(text) <= MAX_LINE_LENGTH {
        return (text.to_string(), false);
    }
    let mut units = 0;
    let mut kept = String::new();
    for c in text.chars() {
        units += c.len_utf16();
        if units > MAX_LINE_LENGTH {
            break;
        }
        kept.push(c);
    }
    (format!("{kept}... [truncated]"), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_like_ripgrep() {
        let lines: Vec<&[u8]> = lines_of(b"a\nb\n").collect();
        assert_eq!(lines, [b"a".as_slice(), b"b".as_slice()]);
        assert_eq!(lines_of(b"").count(), 0);
        assert_eq!(lines_of(b"\n\nx").count(), 3);
    }

    #[test]
    fn long_rows_are_cut_at_five_hundred_units() {
        let (text, cut) = cut_line(&"é".repeat(600));
        assert!(cut);
        assert_eq!(text, format!("{}... [truncated]", "é".repeat(500)));
        assert_eq!(cut_line("short"), ("short".to_string(), false));
    }
}
