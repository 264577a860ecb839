//! An incremental Server-Sent Events decoder shared by every streaming wire format.
//!
//! Bytes arrive in arbitrary pieces: an event, a line, even a UTF-8 character may be split across
//! network reads. [`SseDecoder::feed`] accepts any piece and returns the events it completes;
//! [`SseDecoder::finish`] flushes what is left when the body ends. Behaviour follows the reference
//! pi's parser:
//!
//! - text is decoded like a streaming `TextDecoder`: a leading byte order mark is dropped, a
//!   character split across reads is joined, invalid bytes become U+FFFD;
//! - lines end at LF, CR or CRLF (a CRLF split between two reads is still one line ending);
//! - a blank line dispatches the event; lines starting with `:` are comments; `event:` and
//!   `data:` are the only fields kept (one optional space after the colon is dropped); several
//!   `data:` lines are joined with `\n`; a field line without a colon has an empty value;
//! - nothing is dispatched for a block that had neither an event name nor data;
//! - at the end of the body an unterminated last line is still read and a pending event is
//!   dispatched, so a stream that ends without its final blank line loses nothing.
//!
//! Memory stays near the size of the data: a long `data:` line becomes the event's data in
//! place, and the block's raw lines (for error messages) are kept as a description that refers
//! to the data instead of a second copy of it.

/// Lines longer than this are moved into the event rather than copied (a buffer that grew to
/// this size is not kept for the next line).
const KEEP_BUFFER_BYTES: usize = 64 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, when the block had one (an empty name counts as none).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n` (empty when there were none).
    pub data: String,
    /// The block's non-blank lines, in order.
    lines: Vec<RawLine>,
}

/// One line of a block as received.
#[derive(Debug, Clone, PartialEq, Eq)]
enum RawLine {
    /// A `data` line: its text up to the value (`data`, `data:` or `data: `); the value is the
    /// next line of the event's data (a value never holds a line break).
    Data(&'static str),
    /// The block's last `event` line: its text up to the value, which is the event's name.
    Event(&'static str),
    /// Any other line (comments included), as received.
    Other(String),
}

impl SseEvent {
    /// An event with this name and data, written as the usual `event:` and `data:` lines.
    pub fn new(event: Option<String>, data: String) -> Self {
        let mut lines: Vec<RawLine> = event.iter().map(|_| RawLine::Event("event: ")).collect();
        lines.extend(data.split('\n').map(|_| RawLine::Data("data: ")));
        Self { event, data, lines }
    }

    /// Every non-blank line of the block as received, comments included, each ended by `\n`
    /// (for error messages).
    pub fn raw(&self) -> String {
        let mut values = self.data.split('\n');
        let mut raw = String::new();
        for line in &self.lines {
            match line {
                RawLine::Data(prefix) => {
                    raw.push_str(prefix);
                    raw.push_str(values.next().unwrap_or_default());
                }
                RawLine::Event(prefix) => {
                    raw.push_str(prefix);
                    raw.push_str(self.event.as_deref().unwrap_or_default());
                }
                RawLine::Other(text) => raw.push_str(text),
            }
            raw.push('\n');
        }
        raw
    }
}

/// Incremental decoder from body bytes to [`SseEvent`]s.
#[derive(Debug, Default)]
pub struct SseDecoder {
    /// Bytes of an incomplete UTF-8 sequence at the end of the last read.
    utf8_tail: Vec<u8>,
    /// Whether any text was decoded yet (a BOM is dropped only at the very start).
    seen_text: bool,
    /// The current line, not yet terminated.
    line: String,
    /// The last read ended with CR: an LF at the start of the next read belongs to it.
    pending_cr: bool,
    /// `event:` of the block being read.
    event: Option<String>,
    /// `data:` lines of the block being read.
    data: Vec<String>,
    /// The lines of the block being read.
    lines: Vec<RawLine>,
}

impl SseDecoder {
    /// A decoder at the start of a body.
    pub fn new() -> Self {
        Self::default()
    }

    /// Decodes one piece of the body, appending the events it completes to `out`.
    pub fn feed(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) {
        if self.utf8_tail.is_empty() {
            match std::str::from_utf8(bytes) {
                Ok(text) => {
                    self.push_text(text, out);
                    return;
                }
                Err(error) if error.error_len().is_none() => {
                    // Only an incomplete character at the end: decode the rest without copying.
                    let (valid, tail) = bytes.split_at(error.valid_up_to());
                    if let Ok(text) = std::str::from_utf8(valid) {
                        self.push_text(text, out);
                    }
                    self.utf8_tail.extend_from_slice(tail);
                    return;
                }
                Err(_) => {}
            }
        }
        let mut pending = std::mem::take(&mut self.utf8_tail);
        pending.extend_from_slice(bytes);
        let text = self.decode_lossy(&pending, false);
        self.push_text(&text, out);
    }

    /// Ends the body: decodes what is left and dispatches a pending event.
    pub fn finish(&mut self, out: &mut Vec<SseEvent>) {
        if !self.utf8_tail.is_empty() {
            let pending = std::mem::take(&mut self.utf8_tail);
            let text = self.decode_lossy(&pending, true);
            self.push_text(&text, out);
        }
        self.pending_cr = false;
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.take_line(LineText::Owned(line), out);
        }
        if let Some(event) = self.flush() {
            out.push(event);
        }
    }

    /// Decodes `bytes`, replacing invalid sequences with U+FFFD. Unless `at_end`, an incomplete
    /// sequence at the end is kept for the next read.
    fn decode_lossy(&mut self, bytes: &[u8], at_end: bool) -> String {
        let mut text = String::with_capacity(bytes.len());
        let mut rest = bytes;
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    text.push_str(valid);
                    break;
                }
                Err(error) => {
                    let (valid, after) = rest.split_at(error.valid_up_to());
                    text.push_str(std::str::from_utf8(valid).unwrap_or_default());
                    match error.error_len() {
                        Some(len) => {
                            text.push('\u{fffd}');
                            rest = &after[len..];
                        }
                        None if at_end => {
                            text.push('\u{fffd}');
                            break;
                        }
                        None => {
                            self.utf8_tail.extend_from_slice(after);
                            break;
                        }
                    }
                }
            }
        }
        text
    }

    fn push_text(&mut self, text: &str, out: &mut Vec<SseEvent>) {
        let mut rest = text;
        if !self.seen_text && !rest.is_empty() {
            self.seen_text = true;
            rest = rest.strip_prefix('\u{feff}').unwrap_or(rest);
        }
        if self.pending_cr && !rest.is_empty() {
            self.pending_cr = false;
            rest = rest.strip_prefix('\n').unwrap_or(rest);
        }
        while let Some(at) = memchr::memchr2(b'\r', b'\n', rest.as_bytes()) {
            if self.line.is_empty() {
                self.take_line(LineText::Borrowed(&rest[..at]), out);
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.push_str(&rest[..at]);
                if line.capacity() > KEEP_BUFFER_BYTES {
                    self.take_line(LineText::Owned(line), out);
                } else {
                    self.take_line(LineText::Borrowed(&line), out);
                    line.clear();
                    self.line = line;
                }
            }
            let bytes = rest.as_bytes();
            if bytes[at] == b'\r' {
                match bytes.get(at + 1) {
                    Some(b'\n') => rest = &rest[at + 2..],
                    Some(_) => rest = &rest[at + 1..],
                    None => {
                        self.pending_cr = true;
                        rest = "";
                    }
                }
            } else {
                rest = &rest[at + 1..];
            }
        }
        self.line.push_str(rest);
    }

    fn take_line(&mut self, line: LineText<'_>, out: &mut Vec<SseEvent>) {
        let text = line.as_str();
        if text.is_empty() {
            if let Some(event) = self.flush() {
                out.push(event);
            }
            return;
        }
        if text.starts_with(':') {
            self.lines.push(RawLine::Other(text.to_owned()));
            return;
        }
        let (field, value_at) = match text.find(':') {
            Some(colon) if text[colon + 1..].starts_with(' ') => (&text[..colon], colon + 2),
            Some(colon) => (&text[..colon], colon + 1),
            None => (text, text.len()),
        };
        match field {
            "data" => {
                self.lines.push(RawLine::Data(match value_at {
                    4 => "data",
                    5 => "data:",
                    _ => "data: ",
                }));
                self.data.push(line.into_tail(value_at));
            }
            "event" => {
                // Only the last `event` line refers to the name; an earlier one keeps its text.
                if let Some(earlier) = self.event.take() {
                    for line in &mut self.lines {
                        if let RawLine::Event(prefix) = line {
                            *line = RawLine::Other(format!("{prefix}{earlier}"));
                        }
                    }
                }
                self.event = Some(text[value_at..].to_owned());
                self.lines.push(RawLine::Event(match value_at {
                    5 => "event",
                    6 => "event:",
                    _ => "event: ",
                }));
            }
            _ => self.lines.push(RawLine::Other(text.to_owned())),
        }
    }

    fn flush(&mut self) -> Option<SseEvent> {
        let named = self.event.as_deref().is_some_and(|name| !name.is_empty());
        if !named && self.data.is_empty() {
            self.event = None;
            self.lines.clear();
            return None;
        }
        let event = self.event.take().filter(|name| !name.is_empty());
        let data = match self.data.len() {
            1 => self.data.pop().unwrap_or_default(),
            _ => self.data.join("\n"),
        };
        self.data.clear();
        let lines = std::mem::take(&mut self.lines);
        Some(SseEvent { event, data, lines })
    }
}

/// A complete line: borrowed from the read, or the buffer it was gathered in (then its value
/// is taken in place).
enum LineText<'a> {
    Borrowed(&'a str),
    Owned(String),
}

impl LineText<'_> {
    fn as_str(&self) -> &str {
        match self {
            LineText::Borrowed(text) => text,
            LineText::Owned(text) => text,
        }
    }

    /// The text from byte `at` on, owned.
    fn into_tail(self, at: usize) -> String {
        match self {
            LineText::Borrowed(text) => text[at..].to_owned(),
            LineText::Owned(mut text) => {
                text.drain(..at);
                text
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn decode_pieces(pieces: &[&[u8]]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new();
        let mut out = Vec::new();
        for piece in pieces {
            decoder.feed(piece, &mut out);
        }
        decoder.finish(&mut out);
        out
    }

    fn event(name: Option<&str>, data: &str) -> (Option<String>, String) {
        (name.map(str::to_owned), data.to_owned())
    }

    fn names_and_data(events: &[SseEvent]) -> Vec<(Option<String>, String)> {
        events
            .iter()
            .map(|event| (event.event.clone(), event.data.clone()))
            .collect()
    }

    const STREAM: &str = "event: message_start\ndata: {\"a\":\"h\u{e9}llo \u{1f600}\"}\n\n: comment\nevent: ping\ndata: {}\n\ndata: first\ndata: second\n\nevent:content_block_stop\ndata:{\"index\":0}\n\nid: 7\nretry: 10\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

    fn expected() -> Vec<(Option<String>, String)> {
        vec![
            event(Some("message_start"), "{\"a\":\"h\u{e9}llo \u{1f600}\"}"),
            event(Some("ping"), "{}"),
            event(None, "first\nsecond"),
            event(Some("content_block_stop"), "{\"index\":0}"),
            event(Some("message_stop"), "{\"type\":\"message_stop\"}"),
        ]
    }

    #[test]
    fn a_whole_stream_decodes_to_its_events() {
        let events = decode_pieces(&[STREAM.as_bytes()]);
        assert_eq!(names_and_data(&events), expected());
        assert_eq!(
            events[1].raw(),
            ": comment\nevent: ping\ndata: {}\n",
            "raw lines keep comments"
        );
    }

    #[test]
    fn raw_lines_come_back_exactly_as_received_long_data_included() {
        let long = "x".repeat(KEEP_BUFFER_BYTES * 2);
        let block = format!(
            ": c\nevent: first\nevent\nevent:error\nid: 1\ndata\ndata:a\ndata: b\ndata: {long}\n\n"
        );
        let whole = [block.as_bytes()];
        let pieces: Vec<&[u8]> = block.as_bytes().chunks(1000).collect();
        for pieces in [&whole[..], &pieces[..]] {
            let events = decode_pieces(pieces);
            assert_eq!(events.len(), 1);
            assert_eq!(events[0].event.as_deref(), Some("error"));
            assert_eq!(events[0].data, format!("\na\nb\n{long}"));
            assert_eq!(events[0].raw(), &block[..block.len() - 1]);
        }
    }

    #[test]
    fn crlf_and_cr_line_endings_read_like_lf() {
        let crlf = STREAM.replace('\n', "\r\n");
        let cr = STREAM.replace('\n', "\r");
        assert_eq!(
            names_and_data(&decode_pieces(&[crlf.as_bytes()])),
            expected()
        );
        assert_eq!(names_and_data(&decode_pieces(&[cr.as_bytes()])), expected());
    }

    #[test]
    fn a_crlf_split_between_reads_is_one_line_ending() {
        let events = decode_pieces(&[b"event: a\r", b"\ndata: 1\r", b"\n\r", b"\n"]);
        assert_eq!(names_and_data(&events), vec![event(Some("a"), "1")]);
    }

    #[test]
    fn a_leading_bom_is_dropped_only_at_the_start() {
        let events = decode_pieces(&[b"\xef\xbb", b"\xbfdata: \xef\xbb\xbfx\n\n"]);
        assert_eq!(names_and_data(&events), vec![event(None, "\u{feff}x")]);
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        let events = decode_pieces(&[b"data: a\xffb\xe2\x82\n\ndata: c\xf0\x9f"]);
        assert_eq!(
            names_and_data(&events),
            vec![event(None, "a\u{fffd}b\u{fffd}"), event(None, "c\u{fffd}")]
        );
    }

    #[test]
    fn an_unterminated_last_event_is_dispatched_at_the_end() {
        let events = decode_pieces(&[b"event: message_stop\ndata: {}"]);
        assert_eq!(
            names_and_data(&events),
            vec![event(Some("message_stop"), "{}")]
        );
    }

    #[test]
    fn blocks_without_event_or_data_dispatch_nothing() {
        let events = decode_pieces(&[b": ping\n\nid: 1\n\nevent:\n\n\n\n"]);
        assert!(events.is_empty(), "{events:?}");
    }

    #[test]
    fn an_event_name_without_data_dispatches_empty_data() {
        let events = decode_pieces(&[b"event: ping\n\n"]);
        assert_eq!(names_and_data(&events), vec![event(Some("ping"), "")]);
    }

    #[test]
    fn field_without_colon_and_value_without_space() {
        let events = decode_pieces(&[b"data\ndata:x\ndata:  y\n\n"]);
        assert_eq!(names_and_data(&events), vec![event(None, "\nx\n y")]);
    }

    proptest! {
        #[test]
        fn any_chunking_gives_the_same_events(
            cuts in proptest::collection::vec(0usize..400, 0..40),
            ending in 0usize..3,
        ) {
            let text = match ending {
                0 => STREAM.to_owned(),
                1 => STREAM.replace('\n', "\r\n"),
                _ => STREAM.replace('\n', "\r"),
            };
            let bytes = text.as_bytes();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|cut| cut % (bytes.len() + 1)).collect();
            cuts.sort_unstable();
            let mut pieces = Vec::new();
            let mut start = 0;
            for cut in cuts {
                pieces.push(&bytes[start..cut]);
                start = cut;
            }
            pieces.push(&bytes[start..]);
            let events = decode_pieces(&pieces);
            prop_assert_eq!(names_and_data(&events), expected());
        }
    }
}
