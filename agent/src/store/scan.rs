//! One pass over a line of a session file that proves it is a JSON object written exactly as
//! `JSON.stringify` writes it (canonical) and finds the fields the store indexes, without
//! building anything.
//!
//! A canonical line can be kept as it is: every answer that quotes it (`get_entries`,
//! `get_tree`, `get_messages`) copies its bytes, which are the bytes the reference would write
//! after `JSON.parse`. The scanner accepts only what it can prove: no whitespace, only the
//! escapes `JSON.stringify` writes, numbers in JavaScript's shortest form, no duplicate keys, no
//! array-index keys (JavaScript moves those first), nesting within serde_json's limit. Anything
//! else (including invalid JSON) is `None`, and the loader normalises the line into this form
//! ([`super::normal`]), or failing that takes the slow path: a full parse, which also decides
//! whether the line is valid at all.

use pi_rpc_protocol::json::format_js_number;

/// Deeper lines go the slow path, where serde_json's own recursion limit (128) decides.
const MAX_DEPTH: usize = 100;
/// Objects with more keys go the slow path (the duplicate check is quadratic).
const MAX_KEYS_CHECKED: usize = 64;

/// A byte range of the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: u32,
    pub(crate) end: u32,
}

impl Span {
    pub(crate) fn new(start: usize, end: usize) -> Option<Self> {
        Some(Self {
            start: u32::try_from(start).ok()?,
            end: u32::try_from(end).ok()?,
        })
    }

    /// The text of this span in `line`.
    pub(crate) fn of(self, line: &str) -> &str {
        line.get(self.start as usize..self.end as usize)
            .unwrap_or("")
    }
}

/// The indexed fields of a canonical line. String spans hold the characters between the quotes
/// (these fields never contain escapes: a line whose indexed strings do goes the slow path).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Scanned {
    /// `type`.
    pub(crate) kind: Option<Span>,
    /// `id`.
    pub(crate) id: Option<Span>,
    /// `parentId` when it is a string (absent and `null` are both `None`).
    pub(crate) parent_id: Option<Span>,
    /// `timestamp`.
    pub(crate) timestamp: Option<Span>,
    /// The whole text of `message` when it is an object.
    pub(crate) message: Option<Span>,
    /// `message.role`.
    pub(crate) role: Option<Span>,
    /// Whether `message` has a `content` that is not `null`.
    pub(crate) message_has_content: bool,
}

/// Which indexed field the value being read belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Other,
    Kind,
    Id,
    ParentId,
    Timestamp,
    Message,
    Role,
    Content,
}

impl Field {
    /// The field of `key` in an object `depth` containers deep (1: the line's own object)
    /// whose own value is `of` (what the key that holds the object names).
    pub(crate) fn of_key(depth: usize, of: Field, key: &[u8]) -> Self {
        match (depth, of, key) {
            (1, _, b"type") => Self::Kind,
            (1, _, b"id") => Self::Id,
            (1, _, b"parentId") => Self::ParentId,
            (1, _, b"timestamp") => Self::Timestamp,
            (1, _, b"message") => Self::Message,
            (2, Self::Message, b"role") => Self::Role,
            (2, Self::Message, b"content") => Self::Content,
            _ => Self::Other,
        }
    }

    /// Whether a value starting with `byte` is one this field may hold in an indexed line: a
    /// string for the string fields (or `null` for `parentId`), an object for `message`.
    pub(crate) fn accepts(self, byte: u8) -> bool {
        match self {
            Self::Other | Self::Content => true,
            Self::Message => byte == b'{',
            Self::ParentId => matches!(byte, b'"' | b'n'),
            _ => byte == b'"',
        }
    }

    /// The slot of a string field in `scanned`.
    pub(crate) fn slot(self, scanned: &mut Scanned) -> Option<&mut Option<Span>> {
        match self {
            Self::Kind => Some(&mut scanned.kind),
            Self::Id => Some(&mut scanned.id),
            Self::ParentId => Some(&mut scanned.parent_id),
            Self::Timestamp => Some(&mut scanned.timestamp),
            Self::Role => Some(&mut scanned.role),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Frame {
    /// An object; its keys so far start at this index of the key stack.
    Object {
        keys_from: usize,
        field: Field,
    },
    Array,
}

/// Scans `line`; `Some` only for a canonical JSON object (see the module docs).
pub(crate) fn scan(line: &str) -> Option<Scanned> {
    let bytes = line.as_bytes();
    if bytes.first() != Some(&b'{') {
        return None;
    }
    let mut scanned = Scanned::default();
    let mut frames: Vec<Frame> = Vec::with_capacity(16);
    let mut keys: Vec<Span> = Vec::with_capacity(32);
    let mut pos = 0;
    // The field whose value comes next.
    let mut field = Field::Other;
    loop {
        let byte = *bytes.get(pos)?;
        if !field.accepts(byte) {
            return None;
        }
        if field == Field::Content && byte != b'n' {
            scanned.message_has_content = true;
        }
        match byte {
            b'{' => {
                if frames.len() >= MAX_DEPTH {
                    return None;
                }
                if field == Field::Message {
                    scanned.message = Some(Span::new(pos, pos)?);
                }
                frames.push(Frame::Object {
                    keys_from: keys.len(),
                    field,
                });
                pos += 1;
                if bytes.get(pos) != Some(&b'}') {
                    field = read_key(bytes, &mut pos, &frames, &mut keys)?;
                    continue;
                }
                pos += 1;
                frames.pop();
                close_object(field, pos, &mut scanned);
            }
            b'[' => {
                if frames.len() >= MAX_DEPTH {
                    return None;
                }
                pos += 1;
                if bytes.get(pos) != Some(&b']') {
                    frames.push(Frame::Array);
                    field = Field::Other;
                    continue;
                }
                pos += 1;
            }
            b'"' => {
                let start = pos;
                let escaped = skip_string(bytes, &mut pos)?;
                if let Some(slot) = field.slot(&mut scanned) {
                    if escaped {
                        return None;
                    }
                    *slot = Some(Span::new(start + 1, pos - 1)?);
                }
            }
            b'-' | b'0'..=b'9' => skip_number(bytes, &mut pos)?,
            b't' | b'f' | b'n' => {
                let literal: &[u8] = match byte {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                if !bytes[pos..].starts_with(literal) {
                    return None;
                }
                pos += literal.len();
            }
            _ => return None,
        }
        // After a value: the next key or element, or the end of containers.
        loop {
            let Some(frame) = frames.last().copied() else {
                // The top-level object is closed: nothing may follow.
                return (pos == bytes.len()).then_some(scanned);
            };
            match (frame, *bytes.get(pos)?) {
                (Frame::Object { .. }, b',') => {
                    pos += 1;
                    field = read_key(bytes, &mut pos, &frames, &mut keys)?;
                    break;
                }
                (
                    Frame::Object {
                        keys_from,
                        field: own,
                    },
                    b'}',
                ) => {
                    pos += 1;
                    keys.truncate(keys_from);
                    frames.pop();
                    close_object(own, pos, &mut scanned);
                }
                (Frame::Array, b',') => {
                    pos += 1;
                    field = Field::Other;
                    break;
                }
                (Frame::Array, b']') => {
                    pos += 1;
                    frames.pop();
                }
                _ => return None,
            }
        }
    }
}

/// Ends the `message` object's span (its start was recorded when it opened).
fn close_object(field: Field, end: usize, scanned: &mut Scanned) {
    if field == Field::Message
        && let (Some(span), Ok(end)) = (scanned.message.as_mut(), u32::try_from(end))
    {
        span.end = end;
    }
}

/// Reads `"key":` at `pos` (just after `{` or `,`) in the innermost object; returns the field
/// its value belongs to.
fn read_key(
    bytes: &[u8],
    pos: &mut usize,
    frames: &[Frame],
    keys: &mut Vec<Span>,
) -> Option<Field> {
    if bytes.get(*pos) != Some(&b'"') {
        return None;
    }
    let start = *pos;
    skip_string(bytes, pos)?;
    let key = Span::new(start + 1, *pos - 1)?;
    if bytes.get(*pos) != Some(&b':') {
        return None;
    }
    *pos += 1;
    let Some(Frame::Object { keys_from, .. }) = frames.last().copied() else {
        return None;
    };
    let text = &bytes[key.start as usize..key.end as usize];
    if is_array_index(text) || keys.len() - keys_from >= MAX_KEYS_CHECKED {
        return None;
    }
    if keys[keys_from..]
        .iter()
        .any(|seen| &bytes[seen.start as usize..seen.end as usize] == text)
    {
        return None;
    }
    keys.push(key);
    let own = match frames.last() {
        Some(Frame::Object { field, .. }) => *field,
        _ => Field::Other,
    };
    let field = Field::of_key(frames.len(), own, text);
    Some(field)
}

/// Whether a key is one JavaScript orders first (a canonical array index below 2^32 - 1).
pub(crate) fn is_array_index(key: &[u8]) -> bool {
    match key {
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] if rest.iter().all(u8::is_ascii_digit) && key.len() <= 10 => {
            std::str::from_utf8(key)
                .ok()
                .and_then(|text| text.parse::<u64>().ok())
                .is_some_and(|value| value < u64::from(u32::MAX))
        }
        _ => false,
    }
}

/// Skips the string starting at `pos` (a `"`); true when it held an escape. `None` when it is
/// not a canonical string.
fn skip_string(bytes: &[u8], pos: &mut usize) -> Option<bool> {
    let mut at = *pos + 1;
    let mut escaped = false;
    loop {
        at = skip_plain(bytes, at);
        match *bytes.get(at)? {
            b'"' => {
                *pos = at + 1;
                return Some(escaped);
            }
            b'\\' => {
                escaped = true;
                at += canonical_escape_len(&bytes[at..])?;
            }
            // A raw control character is invalid JSON.
            _ => return None,
        }
    }
}

/// The length of the escape at the start of `rest` when `JSON.stringify` writes it so.
fn canonical_escape_len(rest: &[u8]) -> Option<usize> {
    match rest.get(1)? {
        b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => Some(2),
        b'u' => {
            // Only control characters without a short form, in lower-case hex.
            let hex = rest.get(2..6)?;
            let lower_hex = |b: &u8| matches!(b, b'0'..=b'9' | b'a'..=b'f');
            if hex[0] != b'0' || hex[1] != b'0' || !hex.iter().all(lower_hex) {
                return None;
            }
            let value = u8::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()?;
            (value < 0x20 && !matches!(value, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d)).then_some(6)
        }
        _ => None,
    }
}

/// The first index at or after `at` holding `"`, `\` or a control character (or the end),
/// for strings that are mostly long (canonical text, where non-ASCII is written raw): a few
/// words are tested first, for the short strings of keys and fields, then the rest is searched
/// (vectorised).
pub(crate) fn skip_plain(bytes: &[u8], at: usize) -> usize {
    let (at, stop) = plain_words(bytes, at, 4);
    if let Some(stop) = stop {
        return stop;
    }
    let rest = bytes.get(at..).unwrap_or_default();
    let stop = memchr::memchr2(b'"', b'\\', rest).unwrap_or(rest.len());
    // Control characters are rare: one vectorised pass tells whether the run holds any.
    let run = &rest[..stop];
    let lowest = run.iter().fold(u8::MAX, |lowest, &byte| lowest.min(byte));
    if lowest >= 0x20 {
        return at + stop;
    }
    at + run.iter().position(|&byte| byte < 0x20).unwrap_or(stop)
}

/// [`skip_plain`] for strings whose runs are short (escaped text such as `caf\u00e9`): eight
/// bytes are tested at once in a word, without a search's start-up cost per run.
pub(crate) fn plain_end(bytes: &[u8], at: usize) -> usize {
    let (mut at, stop) = plain_words(bytes, at, usize::MAX);
    if let Some(stop) = stop {
        return stop;
    }
    while let Some(&byte) = bytes.get(at) {
        if byte == b'"' || byte == b'\\' || byte < 0x20 {
            break;
        }
        at += 1;
    }
    at
}

/// Tests up to `words` whole words of eight bytes from `at`: the first `"`, `\` or control
/// character when one of them holds one, else where the words tested end.
fn plain_words(bytes: &[u8], mut at: usize, words: usize) -> (usize, Option<usize>) {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);
    // The high bit of each lane of `word` below `n` (n <= 0x80). A borrow runs only upwards,
    // from a lane that is below `n` itself, so the lowest bit set is the first such lane.
    let below = |word: u64, n: u8| word.wrapping_sub(ONES * u64::from(n)) & !word & HIGHS;
    for _ in 0..words {
        let Some(Ok(chunk)) = bytes.get(at..at + 8).map(<[u8; 8]>::try_from) else {
            break;
        };
        let word = u64::from_le_bytes(chunk);
        let stops = below(word, 0x20)
            | below(word ^ (ONES * u64::from(b'"')), 1)
            | below(word ^ (ONES * u64::from(b'\\')), 1);
        if stops != 0 {
            return (at, Some(at + (stops.trailing_zeros() / 8) as usize));
        }
        at += 8;
    }
    (at, None)
}

/// Skips the number at `pos` when JavaScript writes it exactly so.
pub(crate) fn skip_number(bytes: &[u8], pos: &mut usize) -> Option<()> {
    let start = *pos;
    let mut at = start;
    let mut simple = true;
    while let Some(&byte) = bytes.get(at) {
        match byte {
            b'0'..=b'9' | b'-' => {}
            b'.' | b'e' | b'E' | b'+' => simple = false,
            _ => break,
        }
        at += 1;
    }
    let text = std::str::from_utf8(&bytes[start..at]).ok()?;
    let digits = text.strip_prefix('-').unwrap_or(text);
    let canonical = if simple && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        // Integers of up to 15 digits are exact doubles and print as written, unless they
        // have a leading zero or are `-0`.
        (digits == "0" && !text.starts_with('-'))
            || (digits.len() <= 15 && !digits.starts_with('0'))
            || matches!(text.parse::<f64>(), Ok(value) if format_js_number(value) == text)
    } else if is_plain_decimal(digits) {
        // Up to 15 significant digits round-trip through a double, so no shorter text names
        // the same number; JavaScript writes such a number without exponent from 1e-6 up.
        true
    } else {
        is_json_number(text)
            && matches!(text.parse::<f64>(), Ok(value) if value.is_finite() && format_js_number(value) == text)
    };
    if !canonical {
        return None;
    }
    *pos = at;
    Some(())
}

/// `I.F` (no sign) as JavaScript writes it: no leading zero in `I` but for `0`, `F` without a
/// trailing zero, at most 15 significant digits, and at least 1e-6 (at most five zeros after
/// `0.`).
fn is_plain_decimal(text: &str) -> bool {
    let Some((whole, fraction)) = text.split_once('.') else {
        return false;
    };
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || !digits(fraction) || fraction.ends_with('0') {
        return false;
    }
    let significant = if whole == "0" {
        let zeros = fraction.len() - fraction.trim_start_matches('0').len();
        if zeros > 5 {
            return false;
        }
        fraction.len() - zeros
    } else if whole.starts_with('0') {
        return false;
    } else {
        whole.len() + fraction.len()
    };
    significant <= 15
}

/// JSON's number grammar (Rust's float parser is more lenient: `1.`, `.5`, `+1`).
fn is_json_number(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = usize::from(bytes.first() == Some(&b'-'));
    let digits = |at: &mut usize| {
        let from = *at;
        while bytes.get(*at).is_some_and(u8::is_ascii_digit) {
            *at += 1;
        }
        *at - from
    };
    let whole = at;
    if digits(&mut at) == 0 || (bytes[whole] == b'0' && at - whole > 1) {
        return false;
    }
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        if digits(&mut at) == 0 {
            return false;
        }
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(bytes.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        if digits(&mut at) == 0 {
            return false;
        }
    }
    at == bytes.len()
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
