//! Line diffs for the edit tool's `details`: the same Myers search as the `diff` package the
//! reference uses (so ambiguous changes align the same way), the numbered display diff
//! (`details.diff`) and a unified patch with file headers only (`details.patch`).

use std::rc::Rc;

/// A run of equal, added or removed lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    pub(crate) added: bool,
    pub(crate) removed: bool,
    /// The lines, each with its newline when it has one.
    pub(crate) value: String,
}

/// A component of a search path; paths share their tails.
struct Component {
    count: usize,
    added: bool,
    removed: bool,
    previous: Option<Rc<Component>>,
}

#[derive(Clone)]
struct SearchPath {
    old_pos: i64,
    last: Option<Rc<Component>>,
}

/// Lines with their newlines; a final newline ends the last line rather than starting one.
fn tokenize(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// The line diff of `old` and `new`.
pub(crate) fn diff_lines(old: &str, new: &str) -> Vec<Change> {
    let old_tokens = tokenize(old);
    let new_tokens = tokenize(new);
    let (old_len, new_len) = (old_tokens.len() as i64, new_tokens.len() as i64);
    let max_edit_length = old_len + new_len;
    let offset = max_edit_length + 1;
    let mut best: Vec<Option<SearchPath>> = vec![None; (2 * offset + 1) as usize];
    let slot = |diagonal: i64| (diagonal + offset) as usize;

    let mut start = SearchPath {
        old_pos: -1,
        last: None,
    };
    let new_pos = extract_common(&mut start, &new_tokens, &old_tokens, 0);
    if start.old_pos + 1 >= old_len && new_pos + 1 >= new_len {
        return build_values(start.last, &new_tokens, &old_tokens);
    }
    best[slot(0)] = Some(start);
    let (mut min_diagonal, mut max_diagonal) = (i64::MIN, i64::MAX);
    let mut edit_length = 1;
    while edit_length <= max_edit_length {
        let mut diagonal = min_diagonal.max(-edit_length);
        while diagonal <= max_diagonal.min(edit_length) {
            let remove_path = best[slot(diagonal - 1)].take();
            let add_path = best[slot(diagonal + 1)].clone();
            let can_add = add_path
                .as_ref()
                .is_some_and(|path| (0..new_len).contains(&(path.old_pos - diagonal)));
            let can_remove = remove_path
                .as_ref()
                .is_some_and(|path| path.old_pos + 1 < old_len);
            let mut base = match (remove_path, add_path) {
                (Some(remove), Some(add))
                    if can_remove && !(can_add && remove.old_pos < add.old_pos) =>
                {
                    add_to_path(&remove, false, true, 1)
                }
                (Some(remove), None) if can_remove => add_to_path(&remove, false, true, 1),
                (_, Some(add)) if can_add => add_to_path(&add, true, false, 0),
                _ => {
                    best[slot(diagonal)] = None;
                    diagonal += 2;
                    continue;
                }
            };
            let new_pos = extract_common(&mut base, &new_tokens, &old_tokens, diagonal);
            if base.old_pos + 1 >= old_len && new_pos + 1 >= new_len {
                return build_values(base.last, &new_tokens, &old_tokens);
            }
            if base.old_pos + 1 >= old_len {
                max_diagonal = max_diagonal.min(diagonal - 1);
            }
            if new_pos + 1 >= new_len {
                min_diagonal = min_diagonal.max(diagonal + 1);
            }
            best[slot(diagonal)] = Some(base);
            diagonal += 2;
        }
        edit_length += 1;
    }
    // Unreachable: an edit script of length old+new always exists.
    Vec::new()
}

fn add_to_path(path: &SearchPath, added: bool, removed: bool, old_step: i64) -> SearchPath {
    let last = path.last.as_ref();
    let component = match last {
        Some(last) if last.added == added && last.removed == removed => Component {
            count: last.count + 1,
            added,
            removed,
            previous: last.previous.clone(),
        },
        _ => Component {
            count: 1,
            added,
            removed,
            previous: path.last.clone(),
        },
    };
    SearchPath {
        old_pos: path.old_pos + old_step,
        last: Some(Rc::new(component)),
    }
}

fn extract_common(path: &mut SearchPath, new: &[&str], old: &[&str], diagonal: i64) -> i64 {
    let (new_len, old_len) = (new.len() as i64, old.len() as i64);
    let mut old_pos = path.old_pos;
    let mut new_pos = old_pos - diagonal;
    let mut common = 0;
    while new_pos + 1 < new_len
        && old_pos + 1 < old_len
        && old[(old_pos + 1) as usize] == new[(new_pos + 1) as usize]
    {
        new_pos += 1;
        old_pos += 1;
        common += 1;
    }
    if common > 0 {
        path.last = Some(Rc::new(Component {
            count: common,
            added: false,
            removed: false,
            previous: path.last.take(),
        }));
    }
    path.old_pos = old_pos;
    new_pos
}

fn build_values(last: Option<Rc<Component>>, new: &[&str], old: &[&str]) -> Vec<Change> {
    let mut components = Vec::new();
    let mut next = last;
    while let Some(component) = next {
        next = component.previous.clone();
        components.push(component);
    }
    components.reverse();
    let (mut new_pos, mut old_pos) = (0, 0);
    components
        .iter()
        .map(|component| {
            let value = if component.removed {
                let value = old[old_pos..old_pos + component.count].concat();
                old_pos += component.count;
                value
            } else {
                let value = new[new_pos..new_pos + component.count].concat();
                new_pos += component.count;
                if !component.added {
                    old_pos += component.count;
                }
                value
            };
            Change {
                added: component.added,
                removed: component.removed,
                value,
            }
        })
        .collect()
}

/// The lines of a change for display: split on newlines, without the empty piece after a final
/// newline.
fn display_lines(value: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = value.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines
}

/// The numbered diff the reference shows (`+12 line`, `-12 line`, ` 12 line`, ` ... `) with
/// `context` lines around changes, and the first changed line of the new text.
pub(crate) fn display_diff(old: &str, new: &str, context: usize) -> (String, Option<usize>) {
    let parts = diff_lines(old, new);
    let width = old
        .split('\n')
        .count()
        .max(new.split('\n').count())
        .to_string()
        .len();
    let number = |n: usize| format!("{n:>width$}");
    let ellipsis = format!(" {} ...", " ".repeat(width));
    let mut output: Vec<String> = Vec::new();
    let (mut old_line, mut new_line) = (1, 1);
    let mut last_was_change = false;
    let mut first_changed = None;
    for (index, part) in parts.iter().enumerate() {
        let lines = display_lines(&part.value);
        if part.added || part.removed {
            first_changed.get_or_insert(new_line);
            for line in lines {
                if part.added {
                    output.push(format!("+{} {line}", number(new_line)));
                    new_line += 1;
                } else {
                    output.push(format!("-{} {line}", number(old_line)));
                    old_line += 1;
                }
            }
            last_was_change = true;
            continue;
        }
        let next_is_change = parts
            .get(index + 1)
            .is_some_and(|next| next.added || next.removed);
        let show = |lines: &[&str],
                    output: &mut Vec<String>,
                    old_line: &mut usize,
                    new_line: &mut usize| {
            for line in lines {
                output.push(format!(" {} {line}", number(*old_line)));
                *old_line += 1;
                *new_line += 1;
            }
        };
        let count = lines.len();
        let (shown_head, skipped, shown_tail) = if last_was_change && next_is_change {
            if count <= context * 2 {
                (count, 0, 0)
            } else {
                (context, count - 2 * context, context)
            }
        } else if last_was_change {
            (count.min(context), count - count.min(context), 0)
        } else if next_is_change {
            (
                0,
                count.saturating_sub(context),
                count - count.saturating_sub(context),
            )
        } else {
            old_line += count;
            new_line += count;
            last_was_change = false;
            continue;
        };
        show(
            &lines[..shown_head],
            &mut output,
            &mut old_line,
            &mut new_line,
        );
        if skipped > 0 {
            output.push(ellipsis.clone());
            old_line += skipped;
            new_line += skipped;
        }
        show(
            &lines[count - shown_tail..],
            &mut output,
            &mut old_line,
            &mut new_line,
        );
        last_was_change = false;
    }
    (output.join("\n"), first_changed)
}

/// Lines of a change for a patch, each keeping its newline.
fn patch_lines(value: &str) -> Vec<String> {
    value.split_inclusive('\n').map(str::to_string).collect()
}

/// A unified patch of `old` to `new` under the name `path`, with `context` lines of context and
/// only `---`/`+++` headers.
pub(crate) fn unified_patch(path: &str, old: &str, new: &str, context: usize) -> String {
    struct Hunk {
        old_start: usize,
        old_lines: usize,
        new_start: usize,
        new_lines: usize,
        lines: Vec<String>,
    }
    let mut parts: Vec<(bool, bool, Vec<String>)> = diff_lines(old, new)
        .into_iter()
        .map(|change| (change.added, change.removed, patch_lines(&change.value)))
        .collect();
    parts.push((false, false, Vec::new()));
    let mut hunks = Vec::new();
    let (mut old_range_start, mut new_range_start) = (0, 0);
    let mut range: Vec<String> = Vec::new();
    let (mut old_line, mut new_line) = (1, 1);
    for index in 0..parts.len() {
        let (added, removed, lines) = &parts[index];
        if *added || *removed {
            if old_range_start == 0 {
                old_range_start = old_line;
                new_range_start = new_line;
                if index > 0 {
                    let previous = &parts[index - 1].2;
                    let keep = previous.len().min(context);
                    range = previous[previous.len() - keep..]
                        .iter()
                        .map(|l| format!(" {l}"))
                        .collect();
                    old_range_start -= range.len();
                    new_range_start -= range.len();
                }
            }
            let sign = if *added { '+' } else { '-' };
            range.extend(lines.iter().map(|line| format!("{sign}{line}")));
            if *added {
                new_line += lines.len();
            } else {
                old_line += lines.len();
            }
            continue;
        }
        if old_range_start != 0 {
            if lines.len() <= context * 2 && index + 2 < parts.len() {
                range.extend(lines.iter().map(|line| format!(" {line}")));
            } else {
                let size = lines.len().min(context);
                range.extend(lines[..size].iter().map(|line| format!(" {line}")));
                hunks.push(Hunk {
                    old_start: old_range_start,
                    old_lines: old_line - old_range_start + size,
                    new_start: new_range_start,
                    new_lines: new_line - new_range_start + size,
                    lines: std::mem::take(&mut range),
                });
                old_range_start = 0;
                new_range_start = 0;
            }
        }
        old_line += lines.len();
        new_line += lines.len();
    }
    let mut out = vec![format!("--- {path}"), format!("+++ {path}")];
    for hunk in hunks {
        let old_start = if hunk.old_lines == 0 {
            hunk.old_start - 1
        } else {
            hunk.old_start
        };
        let new_start = if hunk.new_lines == 0 {
            hunk.new_start - 1
        } else {
            hunk.new_start
        };
        out.push(format!(
            "@@ -{old_start},{} +{new_start},{} @@",
            hunk.old_lines, hunk.new_lines
        ));
        for line in hunk.lines {
            match line.strip_suffix('\n') {
                Some(stripped) => out.push(stripped.to_string()),
                None => {
                    out.push(line);
                    out.push("\\ No newline at end of file".into());
                }
            }
        }
    }
    out.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_is_a_removal_then_an_addition() {
        let changes = diff_lines("a\nb\nc\n", "a\nB\nc\n");
        let shape: Vec<(bool, bool, &str)> = changes
            .iter()
            .map(|c| (c.added, c.removed, c.value.as_str()))
            .collect();
        assert_eq!(
            shape,
            vec![
                (false, false, "a\n"),
                (false, true, "b\n"),
                (true, false, "B\n"),
                (false, false, "c\n")
            ]
        );
    }

    #[test]
    fn display_diff_numbers_lines() {
        let (diff, first) = display_diff("a\nb\nc\n", "a\nB\nc\n", 4);
        assert_eq!(diff, " 1 a\n-2 b\n+2 B\n 3 c");
        assert_eq!(first, Some(2));
    }

    #[test]
    fn patch_marks_a_missing_final_newline() {
        let patch = unified_patch("f.txt", "x", "y", 4);
        assert_eq!(
            patch,
            "--- f.txt\n+++ f.txt\n@@ -1,1 +1,1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n"
        );
    }
}
