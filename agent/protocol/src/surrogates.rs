//! Lone UTF-16 surrogates, carried through a Rust `String` exactly.
//!
//! JSON text may hold a `\ud800` escape with no partner: JavaScript's `JSON.parse` keeps it as a
//! string of one UTF-16 unit, and `JSON.stringify` writes it back as the same escape (lower-case
//! hex). A Rust `String` holds Unicode scalar values only, so serde_json refuses such text. This
//! module gives every lone surrogate a stand-in made of scalar values, so that the rest of the
//! program (serde_json values, the session store, typed messages) keeps plain `String`s:
//!
//! - [`decode_json`] rewrites a JSON text before parsing: each lone surrogate escape becomes the
//!   two characters [`MARK`] + (U+10F000 + the unit's offset from U+D800), written raw inside the
//!   string. A literal [`MARK`] in the text becomes [`MARK`] [`MARK`], so that the mapping is
//!   one-to-one and text that already holds those characters comes back unchanged.
//! - [`crate::json::JsFormatter`] undoes it when it writes strings ([`write_fragment`]): a stand-in
//!   becomes the `\udXXX` escape `JSON.stringify` writes, [`MARK`] [`MARK`] one raw [`MARK`].
//!
//! The checks are one byte search each ([`MARK`] is the only character here whose UTF-8 starts
//! with byte `F4` below U+10F800, and `F4` is rare: it starts only characters from U+100000 up),
//! so text without surrogates pays almost nothing. [`push_str`] joins a high surrogate at the end
//! of a string with a low one at the start of the next piece, as JavaScript's `+` does, so that
//! an emoji streamed in two halves ends up as one character.

use std::borrow::Cow;
use std::io;

use serde::de::DeserializeOwned;

/// The first character of a stand-in: U+10FFFF, a noncharacter no text is expected to hold (one
/// that does is still carried exactly, doubled).
pub const MARK: char = '\u{10FFFF}';

/// The stand-in of surrogate unit `u` is `MARK` followed by `PAYLOAD_BASE + (u - 0xD800)`.
const PAYLOAD_BASE: u32 = 0x10_F000;

/// The first byte of [`MARK`]'s UTF-8 (and of every character from U+100000 up).
const MARK_LEAD: u8 = 0xF4;

/// The stand-in of one lone surrogate unit (`0xD800..=0xDFFF`); `None` for any other unit.
pub fn stand_in(unit: u16) -> Option<[char; 2]> {
    if !(0xD800..=0xDFFF).contains(&unit) {
        return None;
    }
    let payload = char::from_u32(PAYLOAD_BASE + u32::from(unit - 0xD800))?;
    Some([MARK, payload])
}

/// The surrogate unit a payload character stands for.
fn unit_of(payload: char) -> Option<u16> {
    let offset = (payload as u32).checked_sub(PAYLOAD_BASE)?;
    (offset < 0x800).then(|| 0xD800 + offset as u16)
}

/// A string holding one lone surrogate unit, as [`decode_json`] would give it.
pub fn lone(unit: u16) -> String {
    stand_in(unit).map_or_else(String::new, |chars| chars.iter().collect())
}

/// Whether `text` holds a stand-in (or a doubled [`MARK`]).
pub fn has_stand_ins(text: &str) -> bool {
    text.as_bytes().contains(&MARK_LEAD) && text.contains(MARK)
}

/// Rewrites a JSON text so that serde_json can parse it: lone surrogate escapes become their
/// stand-ins, a literal [`MARK`] is doubled. Escaped pairs (`\ud83d\ude00`) are left for serde.
/// Borrows when there is nothing to rewrite, which is the common case.
pub fn decode_json(json: &str) -> Cow<'_, str> {
    let bytes = json.as_bytes();
    if !bytes.contains(&MARK_LEAD) && !may_hold_surrogate_escape(json) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 8);
    let mut copied = 0;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' if bytes.get(at + 1) == Some(&b'u') => {
                let Some(unit) = hex_unit(bytes, at + 2) else {
                    at += 2;
                    continue;
                };
                let paired = (0xD800..0xDC00).contains(&unit)
                    && bytes.get(at + 6) == Some(&b'\\')
                    && bytes.get(at + 7) == Some(&b'u')
                    && hex_unit(bytes, at + 8).is_some_and(|low| (0xDC00..0xE000).contains(&low));
                if paired {
                    at += 12;
                } else if let Some(chars) = stand_in(unit) {
                    out.push_str(&json[copied..at]);
                    out.extend(chars);
                    at += 6;
                    copied = at;
                } else {
                    at += 6;
                }
            }
            // Any other escape is two bytes (`\\` included, so its second backslash never
            // starts an escape).
            b'\\' => at += 2,
            MARK_LEAD if json[at..].starts_with(MARK) => {
                at += MARK.len_utf8();
                out.push_str(&json[copied..at]);
                out.push(MARK);
                copied = at;
            }
            _ => at += 1,
        }
    }
    if copied == 0 {
        return Cow::Borrowed(json);
    }
    out.push_str(&json[copied..]);
    Cow::Owned(out)
}

/// A cheap first look: is there a `\u` followed by `d`/`D` anywhere?
fn may_hold_surrogate_escape(json: &str) -> bool {
    json.match_indices("\\u")
        .any(|(at, _)| matches!(json.as_bytes().get(at + 2), Some(b'd' | b'D')))
}

/// The four hex digits at `at` as a UTF-16 unit.
fn hex_unit(bytes: &[u8], at: usize) -> Option<u16> {
    let digits = bytes.get(at..at + 4)?;
    let text = std::str::from_utf8(digits).ok()?;
    u16::from_str_radix(text, 16).ok()
}

/// Parses JSON text as JavaScript's `JSON.parse` would, lone surrogates included (as stand-ins).
pub fn from_str<T: DeserializeOwned>(json: &str) -> serde_json::Result<T> {
    serde_json::from_str(&decode_json(json))
}

/// Writes the unescaped part of a JSON string as `JSON.stringify` writes it: stand-ins become
/// `\udXXX` escapes, a doubled [`MARK`] one raw [`MARK`], everything else is copied.
pub fn write_fragment<W: ?Sized + io::Write>(writer: &mut W, fragment: &str) -> io::Result<()> {
    if !has_stand_ins(fragment) {
        return writer.write_all(fragment.as_bytes());
    }
    let mut rest = fragment;
    while let Some(at) = rest.find(MARK) {
        writer.write_all(&rest.as_bytes()[..at])?;
        let after = &rest[at + MARK.len_utf8()..];
        let mut chars = after.chars();
        match chars.next() {
            Some(MARK) => {
                writer.write_all(MARK.encode_utf8(&mut [0; 4]).as_bytes())?;
                rest = chars.as_str();
            }
            Some(payload) if unit_of(payload).is_some() => {
                let unit = unit_of(payload).unwrap_or_default();
                write!(writer, "\\u{unit:04x}")?;
                rest = chars.as_str();
            }
            // A stand-in cut in two by whoever edited the text: keep what is there.
            _ => {
                writer.write_all(MARK.encode_utf8(&mut [0; 4]).as_bytes())?;
                rest = after;
            }
        }
    }
    writer.write_all(rest.as_bytes())
}

/// `text` as UTF-8 outside JSON, as Node encodes a JavaScript string for a stream: each lone
/// surrogate becomes U+FFFD. Borrows when there is none.
pub fn to_utf8_lossy(text: &str) -> Cow<'_, str> {
    replace_stand_ins(text, "\u{FFFD}", false)
}

/// `text` without its lone surrogates, as the reference's providers clean the texts they send
/// (`sanitizeSurrogates`); the result is still text for JSON (a literal [`MARK`] stays
/// doubled). Borrows when there is none.
pub fn remove_lone(text: &str) -> Cow<'_, str> {
    replace_stand_ins(text, "", true)
}

/// `text` with each stand-in replaced by `with`, and each doubled [`MARK`] made single unless
/// `keep_doubled`.
fn replace_stand_ins<'a>(text: &'a str, with: &str, keep_doubled: bool) -> Cow<'a, str> {
    if !has_stand_ins(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != MARK {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some(MARK) => {
                chars.next();
                out.push(MARK);
                if keep_doubled {
                    out.push(MARK);
                }
            }
            Some(payload) if unit_of(payload).is_some() => {
                chars.next();
                out.push_str(with);
            }
            _ => out.push(MARK),
        }
    }
    Cow::Owned(out)
}

/// Appends `piece` to `target` as JavaScript's string `+` would: a high surrogate ending
/// `target` and a low one starting `piece` become the one character they encode.
pub fn push_str(target: &mut String, piece: &str) {
    if let Some(high) = trailing_unit(target)
        && (0xD800..0xDC00).contains(&high)
        && let Some((low, rest)) = leading_unit(piece)
        && (0xDC00..0xE000).contains(&low)
    {
        let code = 0x1_0000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
        target.truncate(target.len() - 2 * MARK.len_utf8());
        target.extend(char::from_u32(code));
        target.push_str(rest);
        return;
    }
    target.push_str(piece);
}

/// The surrogate unit of a stand-in ending `text` (not the second half of a doubled [`MARK`]).
fn trailing_unit(text: &str) -> Option<u16> {
    let mut chars = text.chars().rev();
    let unit = unit_of(chars.next()?)?;
    if chars.next()? != MARK {
        return None;
    }
    // An even run of MARKs before the payload would mean the MARK is a doubled literal.
    let marks_before = chars.take_while(|c| *c == MARK).count();
    (marks_before % 2 == 0).then_some(unit)
}

/// The surrogate unit of a stand-in starting `text`, and the text after it.
fn leading_unit(text: &str) -> Option<(u16, &str)> {
    let mut chars = text.chars();
    if chars.next()? != MARK {
        return None;
    }
    let unit = unit_of(chars.next()?)?;
    Some((unit, chars.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(json: &str) -> String {
        let value: serde_json::Value = from_str(json).unwrap();
        crate::json::to_string(&value).unwrap()
    }

    #[test]
    fn lone_surrogates_come_back_as_lower_case_escapes() {
        assert_eq!(
            round_trip(r#"{"a":"x\ud800y\uDC00z\ud83d\ude00"}"#),
            "{\"a\":\"x\\ud800y\\udc00z\u{1F600}\"}"
        );
        assert_eq!(round_trip(r#"["\udbff\udbff"]"#), r#"["\udbff\udbff"]"#);
        assert_eq!(round_trip(r#"["\ud800\n"]"#), r#"["\ud800\n"]"#);
        assert_eq!(round_trip(r#"["\ude00\ud83d"]"#), r#"["\ude00\ud83d"]"#);
    }

    #[test]
    fn escaped_backslashes_are_not_escapes() {
        assert_eq!(
            round_trip(r#"["\\ud800","\\\ud800"]"#),
            r#"["\\ud800","\\\ud800"]"#
        );
    }

    #[test]
    fn text_without_surrogates_is_borrowed_and_unchanged() {
        let json = r#"{"a":"plain \u00e9 \n","b":"\uD7FF"}"#;
        assert!(matches!(decode_json(json), Cow::Borrowed(_)));
        assert_eq!(
            round_trip(json),
            "{\"a\":\"plain é \\n\",\"b\":\"\u{D7FF}\"}"
        );
    }

    #[test]
    fn literal_marks_and_payload_characters_survive_exactly() {
        let text = format!("a{MARK}b\u{10F000}{MARK}\u{10F7FF}c");
        let json = serde_json::to_string(&text).unwrap();
        assert_eq!(round_trip(&json), json);
    }

    #[test]
    fn outside_json_a_lone_surrogate_is_a_replacement_character() {
        let text = format!("a{}b{MARK}{MARK}\\u", lone(0xD800));
        assert_eq!(to_utf8_lossy(&text), format!("a\u{FFFD}b{MARK}\\u"));
        assert!(matches!(to_utf8_lossy("plain"), Cow::Borrowed(_)));
        assert_eq!(remove_lone(&text), format!("ab{MARK}{MARK}\\u"));
    }

    #[test]
    fn halves_joined_by_push_str_make_one_character() {
        let mut text = format!("hi {}", lone(0xD83D));
        push_str(&mut text, &format!("{}!", lone(0xDE00)));
        assert_eq!(text, "hi \u{1F600}!");
        let mut two_highs = lone(0xD83D);
        push_str(&mut two_highs, &lone(0xD83D));
        assert_eq!(
            crate::json::to_string(&two_highs).unwrap(),
            r#""\ud83d\ud83d""#
        );
        let mut literal = format!("{MARK}{MARK}\u{10F03D}");
        push_str(&mut literal, &lone(0xDE00));
        assert_eq!(
            crate::json::to_string(&literal).unwrap(),
            format!("\"{MARK}\u{10F03D}\\ude00\"")
        );
    }
}
