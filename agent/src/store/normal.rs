//! Rewriting one line of a session file that is valid JSON but not in `JSON.stringify`'s exact
//! form (`", "` and `": "` separators, other whitespace, escaped non-ASCII, `\/`, numbers such
//! as `1.0` or `1e-05`) into the text the reference would write after `JSON.parse`, in one pass
//! and without building a tree: whitespace is dropped, escapes are resolved and written back
//! as `JSON.stringify` writes them, numbers take JavaScript's shortest form, and keys keep the
//! order the line gives them (which is the order `JSON.parse` inserts them in).
//!
//! The same pass finds the fields the store indexes, as [`super::scan`] finds them in a line
//! that is canonical as written, with spans of the written text: the line is not read twice.
//!
//! What a single pass cannot reproduce is refused (`false`), and the loader then takes its
//! slow path, a full parse: duplicate keys (JavaScript keeps the first key's place with the
//! last value), keys that are array indices (JavaScript moves them first), lone UTF-16
//! surrogates, objects of more than [`MAX_KEYS_CHECKED`] keys, nesting deeper than
//! [`MAX_DEPTH`], and anything that is not a JSON object (which the slow path then rejects).

use pi_rpc_protocol::json::format_js_number;

use super::scan::{Field, Scanned, Span, is_array_index, plain_end, skip_number};

/// Deeper lines go the slow path, where serde_json's own recursion limit decides.
const MAX_DEPTH: usize = 100;
/// Objects with more keys go the slow path (the duplicate check is quadratic).
const MAX_KEYS_CHECKED: usize = 64;

/// What [`normalise`] found in a line it wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Normalised {
    /// The indexed fields, spans relative to the written text, as [`super::scan::scan`] gives
    /// them for it; `None` when it would not index the text (an indexed field of another type,
    /// or a string one with escapes), which then goes the slow path.
    pub(crate) scanned: Option<Scanned>,
}

/// Appends to `out` the canonical text of `line` when `line` is a JSON object this pass can
/// normalise (see the module docs); otherwise leaves `out` as it was and returns `None`.
///
/// Text is written as whole runs of the line between ASCII delimiters and as encoded
/// characters, so that `out` needs no validation afterwards.
pub(crate) fn normalise(line: &str, out: &mut String) -> Option<Normalised> {
    let mark = out.len();
    let mut pass = Pass {
        line,
        bytes: line.as_bytes(),
        pos: 0,
        mark,
        out,
        keys: Vec::new(),
        scanned: Some(Scanned::default()),
    };
    pass.skip_space();
    let done =
        pass.bytes.get(pass.pos) == Some(&b'{') && pass.value(0, Field::Other).is_some() && {
            pass.skip_space();
            pass.pos == pass.bytes.len()
        };
    if !done {
        out.truncate(mark);
        return None;
    }
    Some(Normalised {
        scanned: pass.scanned,
    })
}

/// The state of one line's pass.
struct Pass<'a> {
    line: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Where the line's text starts in `out`.
    mark: usize,
    out: &'a mut String,
    /// The keys of the open objects, as ranges of `out` (inside the quotes).
    keys: Vec<(usize, usize)>,
    /// The indexed fields so far; `None` once the line cannot be indexed.
    scanned: Option<Scanned>,
}

impl Pass<'_> {
    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// The value at `pos` (whitespace before it already skipped), `depth` containers deep,
    /// of the indexed `field`.
    fn value(&mut self, depth: usize, field: Field) -> Option<()> {
        let byte = self.peek()?;
        if field != Field::Other {
            self.note_value(field, byte);
        }
        match byte {
            b'{' => self.object(depth + 1, field),
            b'[' => self.array(depth + 1),
            b'"' if field == Field::Other => self.string(),
            b'"' => {
                let start = self.out.len() + 1;
                self.string()?;
                self.note_string(field, start, self.out.len() - 1);
                Some(())
            }
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => None,
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if !self.bytes[self.pos..].starts_with(word) {
            return None;
        }
        self.pos += word.len();
        // The word is ASCII: its text is the line's.
        self.out
            .push_str(&self.line[self.pos - word.len()..self.pos]);
        Some(())
    }

    /// Notes what the value of an indexed `field` starts with.
    fn note_value(&mut self, field: Field, byte: u8) {
        if !field.accepts(byte) {
            self.scanned = None;
        }
        let here = self.span(self.out.len(), self.out.len());
        if let Some(scanned) = &mut self.scanned {
            if field == Field::Content && byte != b'n' {
                scanned.message_has_content = true;
            }
            if field == Field::Message {
                scanned.message = here;
            }
        }
    }

    /// Notes the string `start..end` of `out` (inside the quotes) as `field`'s value.
    fn note_string(&mut self, field: Field, start: usize, end: usize) {
        let escaped = memchr::memchr(b'\\', &self.out.as_bytes()[start..end]).is_some();
        let span = self.span(start, end);
        let Some(scanned) = &mut self.scanned else {
            return;
        };
        let indexed = match (field.slot(scanned), span) {
            (Some(slot), Some(span)) if !escaped => {
                *slot = Some(span);
                true
            }
            (None, _) => true,
            _ => false,
        };
        if !indexed {
            self.scanned = None;
        }
    }

    /// A span of `out`, relative to the line's text.
    fn span(&self, start: usize, end: usize) -> Option<Span> {
        Span::new(start - self.mark, end - self.mark)
    }

    /// The object at `pos`, `depth` containers deep, the value of `own`.
    fn object(&mut self, depth: usize, own: Field) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        self.out.push('{');
        self.skip_space();
        if self.peek()? == b'}' {
            self.pos += 1;
            self.out.push('}');
            self.close_object(own);
            return Some(());
        }
        let keys_from = self.keys.len();
        loop {
            if self.peek()? != b'"' {
                return None;
            }
            let start = self.out.len() + 1;
            self.string()?;
            let key = (start, self.out.len() - 1);
            let written = self.out.as_bytes();
            let text = &written[key.0..key.1];
            let known = &self.keys[keys_from..];
            if known.len() >= MAX_KEYS_CHECKED
                || is_array_index(text)
                || known.iter().any(|&(s, e)| &written[s..e] == text)
            {
                return None;
            }
            let field = Field::of_key(depth, own, text);
            self.keys.push(key);
            self.skip_space();
            if self.peek()? != b':' {
                return None;
            }
            self.pos += 1;
            self.out.push(':');
            self.skip_space();
            self.value(depth, field)?;
            self.skip_space();
            match self.peek()? {
                b',' => {
                    self.pos += 1;
                    self.out.push(',');
                    self.skip_space();
                }
                b'}' => {
                    self.pos += 1;
                    self.out.push('}');
                    self.keys.truncate(keys_from);
                    self.close_object(own);
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// Ends the `message` object's span (its start was noted when it opened).
    fn close_object(&mut self, own: Field) {
        if own != Field::Message {
            return;
        }
        let end = self.span(self.out.len(), self.out.len());
        if let (Some(scanned), Some(end)) = (&mut self.scanned, end)
            && let Some(span) = &mut scanned.message
        {
            span.end = end.end;
        }
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.pos += 1;
        self.out.push('[');
        self.skip_space();
        if self.peek()? == b']' {
            self.pos += 1;
            self.out.push(']');
            return Some(());
        }
        loop {
            self.value(depth, Field::Other)?;
            self.skip_space();
            match self.peek()? {
                b',' => {
                    self.pos += 1;
                    self.out.push(',');
                    self.skip_space();
                }
                b']' => {
                    self.pos += 1;
                    self.out.push(']');
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// The string at `pos` (a `"`), its escapes resolved and written back canonically.
    fn string(&mut self) -> Option<()> {
        self.pos += 1;
        self.out.push('"');
        loop {
            // The run ends at an ASCII byte (or the end): a character boundary.
            let stop = plain_end(self.bytes, self.pos);
            self.out.push_str(self.line.get(self.pos..stop)?);
            self.pos = stop;
            match self.peek()? {
                b'"' => {
                    self.pos += 1;
                    self.out.push('"');
                    return Some(());
                }
                b'\\' => self.escape()?,
                // A raw control character is invalid JSON.
                _ => return None,
            }
        }
    }

    /// The escape at `pos` (a `\`).
    fn escape(&mut self) -> Option<()> {
        let short = match *self.bytes.get(self.pos + 1)? {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'/' => "/",
            b'b' => "\\b",
            b'f' => "\\f",
            b'n' => "\\n",
            b'r' => "\\r",
            b't' => "\\t",
            b'u' => {
                let unit = self.hex_unit(self.pos + 2)?;
                self.pos += 6;
                let code = match unit {
                    0xD800..=0xDBFF => {
                        // Only a pair makes a character; a lone surrogate goes the slow path.
                        if self.bytes.get(self.pos..self.pos + 2) != Some(b"\\u") {
                            return None;
                        }
                        let low = self.hex_unit(self.pos + 2)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return None;
                        }
                        self.pos += 6;
                        0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00)
                    }
                    0xDC00..=0xDFFF => return None,
                    _ => u32::from(unit),
                };
                self.push_char(char::from_u32(code)?);
                return Some(());
            }
            _ => return None,
        };
        self.pos += 2;
        self.out.push_str(short);
        Some(())
    }

    fn hex_unit(&self, at: usize) -> Option<u16> {
        let digits = self.bytes.get(at..at + 4)?;
        digits.iter().try_fold(0u16, |unit, &digit| {
            let value = (digit as char).to_digit(16)?;
            Some(unit << 4 | value as u16)
        })
    }

    /// A character inside a string, as `JSON.stringify` writes it.
    fn push_char(&mut self, c: char) {
        let short = match c {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\u{8}' => "\\b",
            '\u{c}' => "\\f",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            c if (c as u32) < 0x20 => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                let code = c as usize;
                self.out.push_str("\\u00");
                self.out.push(char::from(HEX[code >> 4]));
                self.out.push(char::from(HEX[code & 15]));
                return;
            }
            c => {
                self.out.push(c);
                return;
            }
        };
        self.out.push_str(short);
    }

    /// The number at `pos`: copied when JavaScript writes it so, else parsed (correctly
    /// rounded, as `JSON.parse` does) and written in JavaScript's form.
    fn number(&mut self) -> Option<()> {
        let start = self.pos;
        let mut at = start;
        if skip_number(self.bytes, &mut at).is_some() {
            self.out.push_str(self.line.get(start..at)?);
            self.pos = at;
            return Some(());
        }
        let end = json_number_end(self.bytes, start)?;
        let value: f64 = self.line.get(start..end)?.parse().ok()?;
        // `format_js_number` writes an overflow to infinity as `null`, as `JSON.stringify`
        // does, and `-0` as `0`.
        self.out.push_str(&format_js_number(value));
        self.pos = end;
        Some(())
    }
}

/// The end of the JSON number starting at `start`, by JSON's grammar.
fn json_number_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + usize::from(bytes.get(start) == Some(&b'-'));
    let digits = |at: &mut usize| {
        let from = *at;
        while bytes.get(*at).is_some_and(u8::is_ascii_digit) {
            *at += 1;
        }
        *at - from
    };
    let whole = at;
    let count = digits(&mut at);
    if count == 0 || (bytes[whole] == b'0' && count > 1) {
        return None;
    }
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        if digits(&mut at) == 0 {
            return None;
        }
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(bytes.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        if digits(&mut at) == 0 {
            return None;
        }
    }
    Some(at)
}

#[cfg(test)]
#[path = "normal_tests.rs"]
mod tests;
