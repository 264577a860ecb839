//! `models.json` as the reference reads it: `//` line comments and trailing commas dropped,
//! text inside strings kept. Block comments are not comments.
//!
//! The reference runs two regular expressions over the text, one after the other: the first
//! drops `//` up to the end of the line unless it lies in a string, the second a comma that
//! only whitespace separates from a closing `}` or `]`. A string is a `"` to the next unescaped
//! `"`, where a backslash escapes any character but a line feed; a `"` that starts no such
//! string is an ordinary character. Here both passes are scans of the text, which a start-up
//! with a `models.json` no longer pays for with two compiled automata.

/// The text with comments, then trailing commas, removed.
pub(super) fn strip_json_comments(text: &str) -> String {
    drop_trailing_commas(&drop_line_comments(text))
}

/// Where the literal that starts `text` ends (one past its closing quote).
fn closing_quote(text: &str) -> Option<usize> {
    let mut chars = text.char_indices().skip(1);
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Some(at + 1),
            '\\' => match chars.next() {
                Some((_, '\n')) | None => return None,
                Some(_) => {}
            },
            _ => {}
        }
    }
    None
}

/// Copies `text` without its `//` comments: a comment runs to the line feed (which stays).
fn drop_line_comments(text: &str) -> String {
    copy_outside_strings(text, '/', |rest, out| {
        if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else {
            out.push('/');
            1
        }
    })
}

/// Copies `text` without the commas that only whitespace separates from a `}` or `]`.
fn drop_trailing_commas(text: &str) -> String {
    copy_outside_strings(text, ',', |rest, out| {
        let closes = rest[1..]
            .trim_start_matches(char::is_whitespace)
            .starts_with(['}', ']']);
        if !closes {
            out.push(',');
        }
        1
    })
}

/// Copies `text`, string literals whole; at each `special` character outside them,
/// `at_special` is given the rest of the text (from that character), writes what it stands
/// for, and says how many bytes it covered.
fn copy_outside_strings(
    text: &str,
    special: char,
    mut at_special: impl FnMut(&str, &mut String) -> usize,
) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(['"', special]) {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let covered = if rest.starts_with('"') {
            let len = closing_quote(rest).unwrap_or(1);
            out.push_str(&rest[..len]);
            len
        } else {
            at_special(rest, &mut out)
        };
        rest = &rest[covered..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use regex::{Captures, Regex};

    use super::strip_json_comments;

    /// The reference's two expressions, as the oracle.
    fn by_expressions(text: &str) -> String {
        let comments = Regex::new(r#""(?:\\.|[^"\\])*"|//[^\n]*"#).unwrap();
        let commas = Regex::new(r#""(?:\\.|[^"\\])*"|,(\s*[}\]])"#).unwrap();
        let without = comments.replace_all(text, |caps: &Captures| {
            if caps[0].starts_with('"') {
                caps[0].to_owned()
            } else {
                String::new()
            }
        });
        commas
            .replace_all(&without, |caps: &Captures| match caps.get(1) {
                Some(tail) => tail.as_str().to_owned(),
                None => caps[0].to_owned(),
            })
            .into_owned()
    }

    #[test]
    fn comments_and_trailing_commas_go_strings_stay() {
        let text = "{\n  // a comment\n  \"a\": \"x // y\", // after\n  \"b\": [1, 2,\n ],\n}\n";
        assert_eq!(
            strip_json_comments(text),
            "{\n  \n  \"a\": \"x // y\", \n  \"b\": [1, 2\n ]\n}\n"
        );
    }

    #[test]
    fn an_unclosed_or_broken_string_is_ordinary_text() {
        for text in [
            "\"open // c\n,}",
            "\"a\\\n\" // c\n",
            "\"\\\"\" // c",
            "x\u{2003},\u{2003}]",
            "é\"ü\\é\"//z",
        ] {
            assert_eq!(strip_json_comments(text), by_expressions(text), "{text:?}");
        }
    }

    proptest! {
        #[test]
        fn the_scan_matches_the_expressions(
            text in proptest::collection::vec(
                prop_oneof![
                    Just("\""), Just("\\"), Just("/"), Just("//"), Just(","), Just("}"),
                    Just("]"), Just("\n"), Just(" "), Just("\t"), Just("\u{a0}"), Just("a"),
                    Just("é"), Just("{"), Just("\r"),
                ],
                0..40,
            ).prop_map(|parts| parts.concat())
        ) {
            prop_assert_eq!(strip_json_comments(&text), by_expressions(&text));
        }
    }
}
