//! Strict JSONL framing as pi's RPC mode defines it, without I/O.
//!
//! Records are separated by LF (`\n`) only. One trailing CR is stripped from each line, so CRLF
//! input is accepted. U+2028, U+2029 and U+0085 are ordinary characters, never separators. A final
//! line without LF is still a record when the stream ends. Lines that are not UTF-8 or that exceed
//! a size limit are reported as errors, and decoding resumes at the next LF.
//!
//! [`LineDecoder`] is sans-IO: feed it bytes in any chunking and it yields the same lines. The
//! `tokio` feature adds an async reader and writer on top of it (see [`crate::io`]).

use std::fmt;

use serde::Serialize;

/// The default limit on one line's length: 64 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// Why a line could not be taken as a record. Decoding goes on with the next line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// The line is not valid UTF-8. `valid_up_to` counts the bytes before the first invalid one.
    InvalidUtf8 {
        /// Bytes of the line (without LF and CR) before the first invalid sequence.
        valid_up_to: usize,
        /// Length of the whole line in bytes.
        line_bytes: usize,
    },
    /// The line is longer than the limit; its bytes were discarded up to the next LF.
    LineTooLong {
        /// The limit in force, in bytes.
        limit: usize,
        /// How many bytes the line had (up to the LF or the end of the stream).
        line_bytes: usize,
    },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::InvalidUtf8 {
                valid_up_to,
                line_bytes,
            } => write!(
                f,
                "line is not valid UTF-8 (invalid byte at offset {valid_up_to} of {line_bytes})"
            ),
            FrameError::LineTooLong { limit, line_bytes } => write!(
                f,
                "line of {line_bytes} bytes exceeds the limit of {limit} bytes"
            ),
        }
    }
}

impl std::error::Error for FrameError {}

/// One decoded line: the record's text, or why it was rejected.
pub type LineResult = Result<String, FrameError>;

/// Splits a byte stream into LF-terminated lines, whatever the chunking.
#[derive(Debug)]
pub struct LineDecoder {
    buffer: Vec<u8>,
    max_line_bytes: usize,
    /// Bytes of an over-long line dropped so far; `Some` while skipping to the next LF.
    discarding: Option<usize>,
}

impl Default for LineDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl LineDecoder {
    /// A decoder with the default line limit ([`DEFAULT_MAX_LINE_BYTES`]).
    pub fn new() -> Self {
        Self::with_max_line_bytes(DEFAULT_MAX_LINE_BYTES)
    }

    /// A decoder that rejects lines longer than `max_line_bytes` (LF and CR not counted).
    pub fn with_max_line_bytes(max_line_bytes: usize) -> Self {
        Self {
            buffer: Vec::new(),
            max_line_bytes,
            discarding: None,
        }
    }

    /// The line limit in force.
    pub fn max_line_bytes(&self) -> usize {
        self.max_line_bytes
    }

    /// Bytes held for a line whose LF has not arrived yet.
    pub fn buffered_bytes(&self) -> usize {
        self.buffer.len()
    }

    /// Feeds `bytes` and appends every line they complete to `out`.
    pub fn decode_into(&mut self, mut bytes: &[u8], out: &mut Vec<LineResult>) {
        while !bytes.is_empty() {
            let newline = bytes.iter().position(|&b| b == b'\n');
            let (chunk, rest, complete) = match newline {
                Some(at) => (&bytes[..at], &bytes[at + 1..], true),
                None => (bytes, &[][..], false),
            };
            bytes = rest;
            if let Some(dropped) = self.discarding.as_mut() {
                *dropped += chunk.len();
                if complete {
                    let line_bytes = *dropped;
                    self.discarding = None;
                    out.push(Err(self.too_long(line_bytes)));
                }
                continue;
            }
            // Allow one byte of slack for a CR that will be stripped.
            if self.buffer.len() + chunk.len() > self.max_line_bytes + 1 {
                let dropped = self.buffer.len() + chunk.len();
                self.buffer = Vec::new();
                if complete {
                    out.push(Err(self.too_long(dropped)));
                } else {
                    self.discarding = Some(dropped);
                }
                continue;
            }
            if complete {
                if self.buffer.is_empty() {
                    out.push(self.take_line(chunk));
                } else {
                    self.buffer.extend_from_slice(chunk);
                    let line = std::mem::take(&mut self.buffer);
                    out.push(self.take_line(&line));
                }
            } else {
                self.buffer.extend_from_slice(chunk);
            }
        }
    }

    /// Feeds `bytes` and returns every line they complete.
    pub fn decode(&mut self, bytes: &[u8]) -> Vec<LineResult> {
        let mut out = Vec::new();
        self.decode_into(bytes, &mut out);
        out
    }

    /// Ends the stream: a final line without LF is returned as a record.
    pub fn finish(&mut self) -> Option<LineResult> {
        if let Some(dropped) = self.discarding.take() {
            return Some(Err(self.too_long(dropped)));
        }
        if self.buffer.is_empty() {
            return None;
        }
        let line = std::mem::take(&mut self.buffer);
        Some(self.take_line(&line))
    }

    fn too_long(&self, line_bytes: usize) -> FrameError {
        FrameError::LineTooLong {
            limit: self.max_line_bytes,
            line_bytes,
        }
    }

    fn take_line(&self, line: &[u8]) -> LineResult {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.len() > self.max_line_bytes {
            return Err(self.too_long(line.len()));
        }
        match std::str::from_utf8(line) {
            Ok(text) => Ok(text.to_owned()),
            Err(error) => Err(FrameError::InvalidUtf8 {
                valid_up_to: error.valid_up_to(),
                line_bytes: line.len(),
            }),
        }
    }
}

/// Serialises one record as a JSONL line: `JSON.stringify`-exact text followed by LF.
pub fn encode_record<T: Serialize + ?Sized>(record: &T) -> serde_json::Result<Vec<u8>> {
    let mut out = crate::json::to_vec(record)?;
    out.push(b'\n');
    Ok(out)
}

/// [`encode_record`] into a buffer of exactly the line's size, the record measured first: for
/// a long record (a whole streamed answer), whose buffer would otherwise grow by doubling and
/// hold up to twice the line while it grows.
pub fn encode_record_exact<T: Serialize + ?Sized>(record: &T) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(crate::json::encoded_len(record)? + 1);
    crate::json::write_to(&mut out, record)?;
    out.push(b'\n');
    Ok(out)
}

/// [`encode_record`] into a writer: a record too long to hold as a whole line is written as it
/// is made, in whatever pieces the writer takes.
pub fn write_record<W: std::io::Write, T: Serialize + ?Sized>(
    mut out: W,
    record: &T,
) -> serde_json::Result<()> {
    crate::json::write_into(&mut out, record)?;
    out.write_all(b"\n").map_err(serde_json::Error::io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_record_is_the_record_in_a_buffer_of_its_size() {
        let record =
            serde_json::json!({"type": "text_end", "content": "a\u{2028}\"b\"".repeat(100)});
        let exact = encode_record_exact(&record).unwrap();
        assert_eq!(exact, encode_record(&record).unwrap());
        assert_eq!(exact.capacity(), exact.len());
    }

    #[test]
    fn a_record_written_in_pieces_is_the_record() {
        /// Takes at most three bytes a write, as a writer that hands on pieces may.
        struct Pieces(Vec<Vec<u8>>);
        impl std::io::Write for Pieces {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                let taken = bytes.len().min(3);
                self.0.push(bytes[..taken].to_vec());
                Ok(taken)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let stand_in = crate::surrogates::lone(0xd800);
        let record = serde_json::json!({"type": "text_end", "content": format!("a\u{2028}\"b\"{stand_in}é\n")});
        let mut pieces = Pieces(Vec::new());
        write_record(&mut pieces, &record).unwrap();
        assert!(pieces.0.len() > 10);
        assert_eq!(pieces.0.concat(), encode_record(&record).unwrap());
    }

    fn lines(input: &[u8]) -> Vec<LineResult> {
        let mut decoder = LineDecoder::new();
        let mut out = decoder.decode(input);
        out.extend(decoder.finish());
        out
    }

    fn ok(text: &str) -> LineResult {
        Ok(text.to_owned())
    }

    #[test]
    fn splits_on_lf_only_and_strips_one_cr() {
        let input = "a\nb\r\nc\r\r\n\u{2028}x\u{2029}y\u{85}z\n\nlast".as_bytes();
        assert_eq!(
            lines(input),
            vec![
                ok("a"),
                ok("b"),
                ok("c\r"),
                ok("\u{2028}x\u{2029}y\u{85}z"),
                ok(""),
                ok("last")
            ]
        );
    }

    #[test]
    fn lone_cr_is_not_a_separator() {
        assert_eq!(lines(b"a\rb\n"), vec![ok("a\rb")]);
    }

    #[test]
    fn a_final_line_of_just_cr_is_an_empty_record() {
        assert_eq!(lines(b"a\n\r"), vec![ok("a"), ok("")]);
    }

    #[test]
    fn invalid_utf8_is_reported_and_decoding_resumes() {
        let out = lines(b"{\"a\":\"\xff\"}\n{}\n");
        assert_eq!(
            out,
            vec![
                Err(FrameError::InvalidUtf8 {
                    valid_up_to: 6,
                    line_bytes: 9
                }),
                ok("{}")
            ]
        );
    }

    #[test]
    fn utf8_split_across_chunks_is_reassembled() {
        let bytes = "é😀\n".as_bytes();
        let mut decoder = LineDecoder::new();
        let mut out = Vec::new();
        for byte in bytes {
            decoder.decode_into(std::slice::from_ref(byte), &mut out);
        }
        assert_eq!(out, vec![ok("é😀")]);
    }

    #[test]
    fn over_long_lines_are_rejected_and_decoding_resumes() {
        let mut decoder = LineDecoder::with_max_line_bytes(4);
        let mut out = Vec::new();
        decoder.decode_into(b"abcd\r\nabc", &mut out);
        decoder.decode_into(b"de", &mut out);
        decoder.decode_into(b"fgh\nok\n", &mut out);
        decoder.decode_into(b"123456", &mut out);
        out.extend(decoder.finish());
        assert_eq!(
            out,
            vec![
                ok("abcd"),
                Err(FrameError::LineTooLong {
                    limit: 4,
                    line_bytes: 8
                }),
                ok("ok"),
                Err(FrameError::LineTooLong {
                    limit: 4,
                    line_bytes: 6
                }),
            ]
        );
        assert_eq!(decoder.buffered_bytes(), 0);
    }

    #[test]
    fn over_long_line_in_one_chunk_is_rejected() {
        let mut decoder = LineDecoder::with_max_line_bytes(2);
        assert_eq!(
            decoder.decode(b"abcdef\nab\n"),
            vec![
                Err(FrameError::LineTooLong {
                    limit: 2,
                    line_bytes: 6
                }),
                ok("ab")
            ]
        );
    }

    #[test]
    fn records_encode_with_one_lf() {
        let record = serde_json::json!({"type": "x", "text": "a\u{2028}b\n"});
        assert_eq!(
            encode_record(&record).unwrap(),
            "{\"type\":\"x\",\"text\":\"a\u{2028}b\\n\"}\n".as_bytes()
        );
    }
}
