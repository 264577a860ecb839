//! Output limits: keep the head of a file (`read`) or the tail of command output (`bash`), by a
//! line limit and a byte limit, whichever is hit first; never a partial line except when the
//! last line alone is over the byte limit in a tail cut.

use serde::Serialize;

/// Most lines a tool returns.
pub const DEFAULT_MAX_LINES: usize = 2000;
/// Most bytes a tool returns (50 KiB).
pub const DEFAULT_MAX_BYTES: usize = 50 * 1024;

/// Which limit cut the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TruncatedBy {
    Lines,
    Bytes,
}

/// A cut of some text and what it says about the whole; serialises as the reference's
/// `details.truncation` object, keys in its order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Truncation {
    pub(crate) content: String,
    pub(crate) truncated: bool,
    pub(crate) truncated_by: Option<TruncatedBy>,
    pub(crate) total_lines: usize,
    pub(crate) total_bytes: usize,
    pub(crate) output_lines: usize,
    pub(crate) output_bytes: usize,
    pub(crate) last_line_partial: bool,
    pub(crate) first_line_exceeds_limit: bool,
    pub(crate) max_lines: usize,
    pub(crate) max_bytes: usize,
}

impl Truncation {
    fn whole(content: &str, lines: usize, max_lines: usize) -> Self {
        Self {
            content: content.to_string(),
            truncated: false,
            truncated_by: None,
            total_lines: lines,
            total_bytes: content.len(),
            output_lines: lines,
            output_bytes: content.len(),
            last_line_partial: false,
            first_line_exceeds_limit: false,
            max_lines,
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

/// Lines for counting: a final newline does not start another line.
fn split_lines(content: &str) -> Vec<&str> {
    if content.is_empty() {
        return Vec::new();
    }
    let mut lines: Vec<&str> = content.split('\n').collect();
    if content.ends_with('\n') {
        lines.pop();
    }
    lines
}

/// Most lines of the listing tools (`grep`, `find`, `ls`), which cap only bytes: JavaScript's
/// `Number.MAX_SAFE_INTEGER`, as the reference reports it.
pub(crate) const UNLIMITED_LINES: usize = 9_007_199_254_740_991;

/// Keeps the first lines of `content` within the default limits.
pub(crate) fn truncate_head(content: &str) -> Truncation {
    truncate_head_lines(content, DEFAULT_MAX_LINES)
}

/// Keeps the first lines of `content` within `max_lines` lines and the default byte limit.
pub(crate) fn truncate_head_lines(content: &str, max_lines: usize) -> Truncation {
    let lines = split_lines(content);
    let mut result = Truncation::whole(content, lines.len(), max_lines);
    if lines.len() <= max_lines && content.len() <= DEFAULT_MAX_BYTES {
        return result;
    }
    result.truncated = true;
    if lines[0].len() > DEFAULT_MAX_BYTES {
        result.content = String::new();
        result.truncated_by = Some(TruncatedBy::Bytes);
        result.output_lines = 0;
        result.output_bytes = 0;
        result.first_line_exceeds_limit = true;
        return result;
    }
    let mut kept = 0;
    let mut bytes = 0;
    let mut by = TruncatedBy::Lines;
    for (index, line) in lines.iter().enumerate().take(max_lines) {
        let cost = line.len() + usize::from(index > 0);
        if bytes + cost > DEFAULT_MAX_BYTES {
            by = TruncatedBy::Bytes;
            break;
        }
        kept += 1;
        bytes += cost;
    }
    if kept >= max_lines && bytes <= DEFAULT_MAX_BYTES {
        by = TruncatedBy::Lines;
    }
    result.content = lines[..kept].join("\n");
    result.truncated_by = Some(by);
    result.output_lines = kept;
    result.output_bytes = result.content.len();
    result
}

/// Keeps the last lines of `content` within the default limits.
pub(crate) fn truncate_tail(content: &str) -> Truncation {
    let lines = split_lines(content);
    let mut result = Truncation::whole(content, lines.len(), DEFAULT_MAX_LINES);
    if lines.len() <= DEFAULT_MAX_LINES && content.len() <= DEFAULT_MAX_BYTES {
        return result;
    }
    result.truncated = true;
    let mut kept: Vec<String> = Vec::new();
    let mut bytes = 0;
    let mut by = TruncatedBy::Lines;
    for line in lines.iter().rev() {
        if kept.len() >= DEFAULT_MAX_LINES {
            break;
        }
        let cost = line.len() + usize::from(!kept.is_empty());
        if bytes + cost > DEFAULT_MAX_BYTES {
            by = TruncatedBy::Bytes;
            if kept.is_empty() {
                let end = tail_of_line(line, DEFAULT_MAX_BYTES);
                bytes = end.len();
                kept.push(end.to_string());
                result.last_line_partial = true;
            }
            break;
        }
        kept.push((*line).to_string());
        bytes += cost;
    }
    if kept.len() >= DEFAULT_MAX_LINES && bytes <= DEFAULT_MAX_BYTES {
        by = TruncatedBy::Lines;
    }
    kept.reverse();
    result.content = kept.join("\n");
    result.truncated_by = Some(by);
    result.output_lines = kept.len();
    result.output_bytes = result.content.len();
    result
}

/// The last `max_bytes` bytes of `line`, moved forward to a character boundary.
fn tail_of_line(line: &str, max_bytes: usize) -> &str {
    if line.len() <= max_bytes {
        return line;
    }
    let mut start = line.len() - max_bytes;
    while !line.is_char_boundary(start) {
        start += 1;
    }
    &line[start..]
}

/// A size as the reference prints it: `512B`, `1.5KB`, `2.0MB` (one decimal, halves up).
pub(crate) fn format_size(bytes: usize) -> String {
    const KB: u128 = 1024;
    const MB: u128 = 1024 * 1024;
    let value = bytes as u128;
    let (unit, suffix) = if value < KB {
        return format!("{bytes}B");
    } else if value < MB {
        (KB, "KB")
    } else {
        (MB, "MB")
    };
    // Tenths, rounded half up on the exact quotient, as Number.prototype.toFixed(1) does.
    let tenths = (value * 20 + unit) / (2 * unit);
    format!("{}.{}{suffix}", tenths / 10, tenths % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_print_like_the_reference() {
        assert_eq!(format_size(0), "0B");
        assert_eq!(format_size(1023), "1023B");
        assert_eq!(format_size(1024), "1.0KB");
        assert_eq!(format_size(1024 + 256), "1.3KB");
        assert_eq!(format_size(51200), "50.0KB");
        assert_eq!(format_size(1024 * 1024 * 3 / 2), "1.5MB");
    }

    #[test]
    fn a_tail_cut_of_one_long_line_keeps_its_end() {
        let line = "é".repeat(DEFAULT_MAX_BYTES);
        let cut = truncate_tail(&line);
        assert!(cut.last_line_partial);
        assert_eq!(cut.output_bytes, DEFAULT_MAX_BYTES);
        assert_eq!(cut.truncated_by, Some(TruncatedBy::Bytes));
    }
}
