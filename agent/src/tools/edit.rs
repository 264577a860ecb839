//! The `edit` tool: exact replacements matched against the original file, with the reference's
//! fallback to a whitespace- and punctuation-tolerant match, its error texts, and a diff and a
//! patch in `details`.

use serde_json::json;
use unicode_normalization::UnicodeNormalization;

use super::args::{EditArgs, Replacement};
use super::{
    ToolContext, ToolError, ToolOutcome, ToolResult, diff, fs_error, js, path, regular_file,
    text_block,
};

const CONTEXT_LINES: usize = 4;

pub(super) async fn run(args: EditArgs, ctx: &ToolContext) -> ToolResult {
    if args.edits.is_empty() {
        return Err(ToolError::new(
            "Edit tool input is invalid. edits must contain at least one replacement.",
        ));
    }
    let display = &args.path;
    let absolute = path::resolve_to_cwd(display, &ctx.cwd);
    let _turn = ctx.file_locks.acquire(&absolute).await;
    let check_abort = || {
        if ctx.cancel.is_cancelled() {
            Err(ToolError::aborted())
        } else {
            Ok(())
        }
    };
    check_abort()?;
    let access = rustix::fs::Access::READ_OK | rustix::fs::Access::WRITE_OK;
    if let Err(errno) = rustix::fs::access(&absolute, access) {
        check_abort()?;
        let error = std::io::Error::from(errno);
        return Err(ToolError::new(format!(
            "Could not edit file: {display}. {}.",
            fs_error::code_text(&error)
        )));
    }
    regular_file::check_readable(&absolute)?;
    let bytes = tokio::fs::read(&absolute)
        .await
        .map_err(|error| ToolError::new(fs_error::node_message(&error, "read", None)))?;
    check_abort()?;
    let raw = String::from_utf8_lossy(&bytes);
    let (bom, content) = match raw.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", &*raw),
    };
    let crlf = uses_crlf(content);
    let base = normalize_to_lf(content);
    let new_content = apply_edits(&base, &args.edits, display)?;
    check_abort()?;
    let restored = if crlf {
        new_content.replace('\n', "\r\n")
    } else {
        new_content.clone()
    };
    regular_file::write(&absolute, format!("{bom}{restored}").into_bytes()).await?;
    check_abort()?;
    let (diff_text, first_changed) = diff::display_diff(&base, &new_content, CONTEXT_LINES);
    let patch = diff::unified_patch(display, &base, &new_content, CONTEXT_LINES);
    let mut details = json!({ "diff": diff_text, "patch": patch });
    if let (Some(line), Some(map)) = (first_changed, details.as_object_mut()) {
        map.insert("firstChangedLine".into(), json!(line));
    }
    Ok(ToolOutcome::success(
        vec![text_block(format!(
            "Successfully replaced {} block(s) in {display}.",
            args.edits.len()
        ))],
        Some(details),
    ))
}

/// Whether the first line break of `content` is CRLF.
fn uses_crlf(content: &str) -> bool {
    match (content.find("\r\n"), content.find('\n')) {
        (Some(crlf), Some(lf)) => crlf < lf,
        _ => false,
    }
}

fn normalize_to_lf(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// The tolerant form of text: NFKC, no trailing white space on any line, ASCII quotes, dashes
/// and spaces.
fn normalize_for_fuzzy_match(text: &str) -> String {
    let composed: String = text.nfkc().collect();
    let trimmed: Vec<&str> = composed
        .split('\n')
        .map(|line| line.trim_end_matches(js::is_whitespace))
        .collect();
    trimmed
        .join("\n")
        .chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{201b}' => '\'',
            '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{201f}' => '"',
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            '\u{a0}' | '\u{2002}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}' => ' ',
            other => other,
        })
        .collect()
}

/// Where `needle` is in `content`: exactly, else in the tolerant forms of both.
struct Found {
    index: usize,
    length: usize,
    fuzzy: bool,
}

fn find_text(content: &str, needle: &str) -> Option<Found> {
    if let Some(index) = content.find(needle) {
        return Some(Found {
            index,
            length: needle.len(),
            fuzzy: false,
        });
    }
    let fuzzy_needle = normalize_for_fuzzy_match(needle);
    normalize_for_fuzzy_match(content)
        .find(&fuzzy_needle)
        .map(|index| Found {
            index,
            length: fuzzy_needle.len(),
            fuzzy: true,
        })
}

/// How often `needle` occurs in `content`, both in tolerant form (JavaScript's
/// `split(needle).length - 1`).
fn count_occurrences(content: &str, needle: &str) -> i64 {
    let content = normalize_for_fuzzy_match(content);
    let needle = normalize_for_fuzzy_match(needle);
    if needle.is_empty() {
        return js::utf16_len(&content) as i64 - 1;
    }
    content.matches(needle.as_str()).count() as i64
}

struct Matched {
    edit_index: usize,
    index: usize,
    length: usize,
    new_text: String,
}

/// Applies all edits to LF-normalised `content`, each matched against the original.
fn apply_edits(content: &str, edits: &[Replacement], display: &str) -> Result<String, ToolError> {
    let total = edits.len();
    let edits: Vec<(String, String)> = edits
        .iter()
        .map(|edit| {
            (
                normalize_to_lf(&edit.old_text),
                normalize_to_lf(&edit.new_text),
            )
        })
        .collect();
    for (index, (old_text, _)) in edits.iter().enumerate() {
        if old_text.is_empty() {
            return Err(ToolError::new(if total == 1 {
                format!("oldText must not be empty in {display}.")
            } else {
                format!("edits[{index}].oldText must not be empty in {display}.")
            }));
        }
    }
    let fuzzy = edits
        .iter()
        .any(|(old_text, _)| find_text(content, old_text).is_some_and(|found| found.fuzzy));
    let base = if fuzzy {
        normalize_for_fuzzy_match(content)
    } else {
        content.to_string()
    };
    let mut matched = Vec::with_capacity(total);
    for (edit_index, (old_text, new_text)) in edits.iter().enumerate() {
        let Some(found) = find_text(&base, old_text) else {
            return Err(ToolError::new(if total == 1 {
                format!(
                    "Could not find the exact text in {display}. The old text must match exactly \
                     including all whitespace and newlines."
                )
            } else {
                format!(
                    "Could not find edits[{edit_index}] in {display}. The oldText must match \
                     exactly including all whitespace and newlines."
                )
            }));
        };
        let occurrences = count_occurrences(&base, old_text);
        if occurrences > 1 {
            return Err(ToolError::new(if total == 1 {
                format!(
                    "Found {occurrences} occurrences of the text in {display}. The text must be \
                     unique. Please provide more context to make it unique."
                )
            } else {
                format!(
                    "Found {occurrences} occurrences of edits[{edit_index}] in {display}. Each \
                     oldText must be unique. Please provide more context to make it unique."
                )
            }));
        }
        matched.push(Matched {
            edit_index,
            index: found.index,
            length: found.length,
            new_text: new_text.clone(),
        });
    }
    matched.sort_by_key(|m| m.index);
    for pair in matched.windows(2) {
        if pair[0].index + pair[0].length > pair[1].index {
            return Err(ToolError::new(format!(
                "edits[{}] and edits[{}] overlap in {display}. Merge them into one edit or target \
                 disjoint regions.",
                pair[0].edit_index, pair[1].edit_index
            )));
        }
    }
    let new_content = if fuzzy {
        apply_preserving_unchanged_lines(content, &base, &matched)?
    } else {
        apply_replacements(&base, &matched.iter().collect::<Vec<_>>(), 0)
    };
    if new_content == content {
        return Err(ToolError::new(if total == 1 {
            format!(
                "No changes made to {display}. The replacement produced identical content. This \
                 might indicate an issue with special characters or the text not existing as \
                 expected."
            )
        } else {
            format!("No changes made to {display}. The replacements produced identical content.")
        }));
    }
    Ok(new_content)
}

/// Replaces the matched ranges of `content` (whose first byte is at `offset` of the base text).
fn apply_replacements(content: &str, matched: &[&Matched], offset: usize) -> String {
    let mut result = content.to_string();
    for replacement in matched.iter().rev() {
        let start = replacement.index - offset;
        result.replace_range(start..start + replacement.length, &replacement.new_text);
    }
    result
}

/// Lines with their newlines, and their byte ranges.
fn line_spans(content: &str) -> Vec<(usize, usize)> {
    let mut start = 0;
    content
        .split_inclusive('\n')
        .map(|line| {
            let span = (start, start + line.len());
            start = span.1;
            span
        })
        .collect()
}

/// Applies replacements found in the tolerant form `base` of `original`: the lines they touch
/// come from `base` with the replacements made, every other line keeps its original bytes.
fn apply_preserving_unchanged_lines(
    original: &str,
    base: &str,
    matched: &[Matched],
) -> Result<String, ToolError> {
    let original_lines: Vec<&str> = original.split_inclusive('\n').collect();
    let base_lines = line_spans(base);
    if original_lines.len() != base_lines.len() {
        return Err(ToolError::new(
            "Cannot preserve unchanged lines because the base content has a different line count.",
        ));
    }
    let outside = || ToolError::new("Replacement range is outside the base content.");
    // Groups of replacements over line ranges [start, end).
    let mut groups: Vec<(usize, usize, Vec<&Matched>)> = Vec::new();
    for replacement in matched {
        let start_line = base_lines
            .iter()
            .position(|&(start, end)| replacement.index >= start && replacement.index < end)
            .ok_or_else(outside)?;
        let end_offset = replacement.index + replacement.length;
        let mut end_line = start_line;
        while end_line < base_lines.len() && base_lines[end_line].1 < end_offset {
            end_line += 1;
        }
        if end_line >= base_lines.len() {
            return Err(outside());
        }
        match groups.last_mut() {
            Some(group) if start_line < group.1 => {
                group.1 = group.1.max(end_line + 1);
                group.2.push(replacement);
            }
            _ => groups.push((start_line, end_line + 1, vec![replacement])),
        }
    }
    let mut result = String::new();
    let mut next_line = 0;
    for (start_line, end_line, replacements) in groups {
        result.extend(original_lines[next_line..start_line].iter().copied());
        let from = base_lines[start_line].0;
        let to = base_lines[end_line - 1].1;
        result.push_str(&apply_replacements(&base[from..to], &replacements, from));
        next_line = end_line;
    }
    result.extend(original_lines[next_line..].iter().copied());
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(old_text: &str, new_text: &str) -> Replacement {
        Replacement {
            old_text: old_text.into(),
            new_text: new_text.into(),
        }
    }

    #[test]
    fn curly_quotes_in_the_file_match_straight_quotes_and_other_lines_keep_their_bytes() {
        let content = "say \u{201c}hi\u{201d}  \nkeep \u{2014} me\n";
        let result = apply_edits(content, &[edit("say \"hi\"", "say \"bye\"")], "f").unwrap();
        assert_eq!(result, "say \"bye\"\nkeep \u{2014} me\n");
    }

    #[test]
    fn crlf_is_detected_from_the_first_line_break() {
        assert!(uses_crlf("a\r\nb\n"));
        assert!(!uses_crlf("a\nb\r\n"));
        assert!(!uses_crlf("a"));
    }
}
