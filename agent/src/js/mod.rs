//! JavaScript semantics that show in what the reference writes: what `trim()` removes, string
//! lengths in UTF-16 code units, how numbers print and parse (`number`), how a value becomes text
//! (`value`) and JSON text (`json`), how dates print and parse (`date`). One home for each, so that
//! every place that must behave as the reference's JavaScript behaves the same way.

pub mod date;
mod json;
mod number;
mod value;

pub use date::now_ms;
pub use json::key_order;
pub(crate) use json::{stringify, stringify_pretty};
pub(crate) use number::{number_to_string, number_value, string_to_number};
pub(crate) use value::{appended, display, display_or, truthy};

/// JavaScript's white space and line terminators: what `String.prototype.trim` removes. Unlike
/// Rust's `char::is_whitespace`, U+0085 (NEXT LINE) is not among them and U+FEFF is.
pub(crate) fn is_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' ' | '\u{a0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200a}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202f}'
                | '\u{205f}'
                | '\u{3000}'
                | '\u{feff}'
    )
}

/// JavaScript's `text.trim()`.
pub(crate) fn trim(text: &str) -> &str {
    text.trim_matches(is_whitespace)
}

/// The length of `text` in UTF-16 code units (JavaScript's `string.length`).
pub(crate) fn utf16_len(text: &str) -> usize {
    if text.is_ascii() {
        return text.len();
    }
    text.chars().map(char::len_utf16).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_removes_what_javascript_removes_and_keeps_next_line() {
        // Node: "\u0085x\u0085".trim().length === 3, "\ufeff\u3000x\u2028".trim() === "x".
        assert_eq!(trim("\u{85}x\u{85}"), "\u{85}x\u{85}");
        assert_eq!(trim("\u{feff}\u{3000} x\t\u{2028}"), "x");
        assert_eq!(trim("\u{200b}x"), "\u{200b}x");
        let removed: Vec<u32> = (0..=0x3000u32)
            .chain([0xfeff])
            .filter_map(char::from_u32)
            .filter(|c| is_whitespace(*c))
            .map(u32::from)
            .collect();
        assert_eq!(
            removed,
            [
                0x9, 0xa, 0xb, 0xc, 0xd, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
                0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f,
                0x205f, 0x3000, 0xfeff
            ]
        );
    }

    #[test]
    fn lengths_count_utf16_code_units() {
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("é"), 1);
        assert_eq!(utf16_len("😀"), 2);
    }
}
