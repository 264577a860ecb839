//! Re-recording a scenario in its own source text: only the re-recorded `expect` steps are
//! rewritten, so everything else (comments, blank lines, key order, flow or block style, anchors)
//! stays as written.

/// Where the items of the top-level `steps:` block list are in the source, by line.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct StepsLayout {
    /// The column of the items' dashes.
    pub indent: usize,
    /// One span per step, in order.
    pub items: Vec<ItemSpan>,
}

/// The lines of one step item.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct ItemSpan {
    /// The first line of the step (its dash).
    pub start: usize,
    /// The line after the step's last line; the comment and blank lines that lead to the next
    /// item (or follow the list) are not part of the step.
    pub end: usize,
}

enum Kind {
    Blank,
    Comment,
    Content { indent: usize, dash: bool },
}

fn kind(line: &str) -> Option<Kind> {
    let trimmed = line.trim_start_matches(' ');
    if trimmed.starts_with('\t') {
        return None;
    }
    let body = trimmed.trim_end();
    Some(if body.is_empty() {
        Kind::Blank
    } else if body.starts_with('#') {
        Kind::Comment
    } else {
        Kind::Content {
            indent: line.len() - trimmed.len(),
            dash: body == "-" || body.starts_with("- "),
        }
    })
}

/// Finds the block list under a top-level `steps:` key; `None` when the file is laid out in a
/// way this does not follow (a flow list, tabs), so that the caller writes the file anew.
pub(super) fn layout(lines: &[&str]) -> Option<StepsLayout> {
    let key = lines.iter().position(|l| {
        l.strip_prefix("steps:")
            .is_some_and(|rest| rest.trim().is_empty() || rest.trim_start().starts_with('#'))
    })?;
    let mut indent = None;
    let mut items: Vec<ItemSpan> = Vec::new();
    // The first line of the current run of comment and blank lines.
    let mut run_start = None;
    let mut end_of_list = lines.len();
    for (index, line) in lines.iter().enumerate().skip(key + 1) {
        match kind(line)? {
            Kind::Blank | Kind::Comment => {
                run_start.get_or_insert(index);
            }
            Kind::Content { indent: at, dash } => {
                let d = *indent.get_or_insert(at);
                if at == d && dash {
                    if let Some(last) = items.last_mut() {
                        last.end = run_start.unwrap_or(index);
                    }
                    items.push(ItemSpan {
                        start: index,
                        end: index + 1,
                    });
                } else if at <= d {
                    end_of_list = index;
                    break;
                }
                run_start = None;
            }
        }
    }
    let last = items.last_mut()?;
    last.end = run_start.unwrap_or(end_of_list).min(end_of_list);
    Some(StepsLayout {
        indent: indent?,
        items,
    })
}

/// The step `rendered` (YAML of a one-item list, `- expect: ...`) in place of the lines of
/// `span`: full-line comments inside the old step are kept, moved above it.
pub(super) fn replace_item(
    lines: &[&str],
    span: &ItemSpan,
    indent: usize,
    rendered: &str,
) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::new();
    for line in &lines[span.start + 1..span.end] {
        let trimmed = line.trim();
        if trimmed.starts_with('#') {
            out.push_str(&format!("{pad}{trimmed}\n"));
        }
    }
    out.push_str(&indented(rendered, indent));
    out
}

/// Every non-empty line of `text` indented by `indent` spaces.
pub(super) fn indented(text: &str, indent: usize) -> String {
    let pad = " ".repeat(indent);
    text.split_inclusive('\n')
        .map(|line| {
            if line.trim().is_empty() {
                line.to_owned()
            } else {
                format!("{pad}{line}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<&str> {
        text.split_inclusive('\n').collect()
    }

    #[test]
    fn items_are_found_with_their_leading_comments_left_out() {
        let text = "id: a\nsteps:\n  # first\n  - send: {}\n  - expect:\n      # inner\n      - {a: 1}\n\n  # before close\n  - close_stdin\n# after\ntrailing: ignore\n";
        let found = layout(&lines(text)).unwrap();
        assert_eq!(found.indent, 2);
        assert_eq!(
            found.items,
            vec![
                ItemSpan { start: 3, end: 4 },
                ItemSpan { start: 4, end: 7 },
                ItemSpan { start: 9, end: 10 },
            ]
        );
    }

    #[test]
    fn unindented_items_and_flow_lists() {
        let text = "steps:\n- send: {}\n- expect:\n  - {a: 1}\ntimeout_ms: 5\n";
        let found = layout(&lines(text)).unwrap();
        assert_eq!(found.indent, 0);
        assert_eq!(found.items[1], ItemSpan { start: 2, end: 4 });
        assert_eq!(layout(&lines("steps: [close_stdin]\n")), None);
    }

    #[test]
    fn a_replaced_item_keeps_its_inner_comments_above_it() {
        let text = "steps:\n  - expect:\n      # why\n      - {a: 1}\n";
        let l = lines(text);
        let found = layout(&l).unwrap();
        let out = replace_item(&l, &found.items[0], 2, "- expect:\n  - {a: 2}\n");
        assert_eq!(out, "  # why\n  - expect:\n    - {a: 2}\n");
    }
}
