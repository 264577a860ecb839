//! Read-only observations of what the stand-in wrote to a client: the traits of a record that
//! clients commonly mishandle, and, when a client stops sending, what it was last sent and what
//! in that is suspicious.

use serde_json::Value;

/// Records longer than this trip readers with a line limit (Python asyncio's `StreamReader`
/// stops at 64 KiB by default).
pub const LARGE_RECORD_BYTES: usize = 64 * 1024;

/// The Unicode separators that are valid raw inside a JSON string but that some line readers
/// take for line ends: (UTF-8 bytes, code point, name).
const SEPARATORS: [(&[u8], &str, &str); 3] = [
    (b"\xe2\x80\xa8", "U+2028", "LINE SEPARATOR"),
    (b"\xe2\x80\xa9", "U+2029", "PARAGRAPH SEPARATOR"),
    (b"\xc2\x85", "U+0085", "NEXT LINE"),
];

/// Record types of pi's RPC output that a client knows: the events, responses and extension UI
/// requests.
pub fn known_type(kind: &str) -> bool {
    kind == "response"
        || kind == "extension_ui_request"
        || pi_rpc_protocol::Event::TYPES.contains(&kind)
}

/// What in one record (a line without its LF) a client commonly mishandles, one sentence each
/// naming the trait and the mistake it trips.
pub fn suspicious(line: &[u8]) -> Vec<String> {
    let mut notes = Vec::new();
    for (bytes, code, name) in SEPARATORS {
        let mut at = find_all(line, bytes).into_iter();
        if let Some(offset) = at.next() {
            let more = at.count();
            let times = if more > 0 {
                format!(" (and {more} more)")
            } else {
                String::new()
            };
            notes.push(format!(
                "{code} {name} inside a string at byte {offset}{times}: a reader that splits lines \
                 on Unicode separators (JavaScript's /^$/m or split(/\\r?\\n|\\u2028|\\u2029/), \
                 Python's str.splitlines) cuts the record there"
            ));
        }
    }
    if line.len() > LARGE_RECORD_BYTES {
        notes.push(format!(
            "{} long: over 64 KiB, the default line limit of Python's asyncio streams; a reader \
             with any fixed line limit below it fails on it",
            size(line.len())
        ));
    }
    if std::str::from_utf8(line).is_err() {
        notes.push("not valid UTF-8".into());
        return notes;
    }
    let (kind, has_id, command) = if line.len() <= PARSED_RECORD_BYTES {
        match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(record)) => (
                record
                    .get("type")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                record.contains_key("id"),
                record
                    .get("command")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            ),
            _ => (None, false, None),
        }
    } else {
        // Too long to parse for a note: the record's head says what it is (the reference
        // writes `id` first, then `type`).
        let head = Head::of(line);
        (
            head.field("type"),
            head.text.starts_with("{\"id\""),
            head.field("command"),
        )
    };
    match kind.as_deref() {
        Some(kind) if !known_type(kind) => notes.push(format!(
            "a record of a type pi 0.84.1 does not write, `{kind}`: a client must pass over \
             record types it does not know (later releases add them)"
        )),
        Some("response") if !has_id => notes.push(format!(
            "a response without `id` (command `{}`): a client that pairs responses with its \
             commands by order takes it for the answer to its pending command",
            command.as_deref().unwrap_or("?")
        )),
        _ => {}
    }
    notes
}

/// Records longer than this are described from their head instead of being parsed.
const PARSED_RECORD_BYTES: usize = 1 << 20;

/// The first few KiB of a record, as text, to read its first fields from.
struct Head {
    text: String,
}

impl Head {
    fn of(line: &[u8]) -> Self {
        Self {
            text: String::from_utf8_lossy(&line[..line.len().min(4096)]).into_owned(),
        }
    }

    /// The first string value of `key` in the head (`"key":"value"`).
    fn field(&self, key: &str) -> Option<String> {
        let at = self.text.find(&format!("\"{key}\":\""))? + key.len() + 4;
        let end = self.text[at..].find('"')?;
        Some(self.text[at..at + end].to_owned())
    }
}

/// Every offset of `needle` (2 or 3 bytes starting with a non-ASCII lead byte) in `line`; a
/// long ASCII record is passed over quickly.
fn find_all(line: &[u8], needle: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = line[from..].iter().position(|b| *b == needle[0]) {
        let at = from + at;
        if line[at..].starts_with(needle) {
            found.push(at);
        }
        from = at + 1;
    }
    found
}

/// A byte count for people: `812 bytes`, `70.2 KiB`, `20.0 MiB`.
pub fn size(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b < KIB {
        format!("{bytes} bytes")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{:.1} MiB", b / (KIB * KIB))
    }
}

/// A short description of a record: its type (and the kind of its update or request) and size.
pub fn describe(line: &[u8]) -> String {
    let head = Head::of(line);
    let mut kind = head
        .field("type")
        .unwrap_or_else(|| "not a JSON record".into());
    if let Some(method) = head.field("method") {
        kind = format!("{kind} {method}");
    } else if kind == "response"
        && let Some(command) = head.field("command")
    {
        kind = format!("response to {command}");
    }
    format!("{kind}, {}", size(line.len()))
}

/// What a client has been sent since its last command, kept as lines are written.
#[derive(Debug, Clone, Default)]
pub struct Watch {
    /// Lines written in all.
    pub lines: usize,
    /// The last line: its 1-based number and description.
    pub last: Option<(usize, String)>,
    /// Suspicious traits of the lines since the client's last command: (1-based line, note).
    pub notes: Vec<(usize, String)>,
}

impl Watch {
    /// Notes one line written to the client (with or without its LF).
    pub fn wrote(&mut self, line: &[u8]) {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        self.lines += 1;
        self.last = Some((self.lines, describe(line)));
        for note in suspicious(line) {
            self.notes.push((self.lines, note));
        }
    }

    /// The client sent a command: later notes start afresh.
    pub fn command_received(&mut self) {
        self.notes.clear();
    }

    /// One sentence: what the client was last sent and what in the lines since its last command
    /// is suspicious (empty when nothing was sent).
    pub fn summary(&self) -> String {
        let Some((number, last)) = &self.last else {
            return "it was sent nothing".into();
        };
        let mut text = format!("it was last sent line {number} ({last})");
        if self.notes.is_empty() {
            text.push_str("; nothing suspicious in what it was sent since its last command");
        } else {
            let notes: Vec<String> = self
                .notes
                .iter()
                .map(|(line, note)| format!("line {line}: {note}"))
                .collect();
            text.push_str("; suspicious since its last command: ");
            text.push_str(&notes.join("; "));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_are_found_with_their_offset() {
        let notes = suspicious("{\"type\":\"x\",\"a\":\"a\u{2028}b\u{2028}\"}".as_bytes());
        assert!(
            notes[0].starts_with("U+2028 LINE SEPARATOR inside a string at byte 18 (and 1 more)")
        );
        assert!(notes[1].contains("`x`"));
        let nel = suspicious("{\"type\":\"agent_start\",\"a\":\"\u{85}\"}".as_bytes());
        assert_eq!(nel.len(), 1);
        assert!(nel[0].starts_with("U+0085 NEXT LINE"));
    }

    #[test]
    fn large_records_and_id_less_responses_are_suspicious() {
        let big = format!(
            "{{\"type\":\"agent_start\",\"pad\":\"{}\"}}",
            "x".repeat(70_000)
        );
        assert!(suspicious(big.as_bytes())[0].starts_with("68.4 KiB long"));
        let parse = br#"{"type":"response","command":"parse","success":false}"#;
        assert!(suspicious(parse)[0].contains("without `id` (command `parse`)"));
        assert!(suspicious(br#"{"id":"1","type":"response"}"#).is_empty());
    }

    #[test]
    fn the_summary_names_the_last_line_and_the_notes_since_the_last_command() {
        let mut watch = Watch::default();
        assert_eq!(watch.summary(), "it was sent nothing");
        watch.wrote("{\"type\":\"future\"}\n".as_bytes());
        watch.command_received();
        watch.wrote("{\"type\":\"message_update\",\"d\":\"\u{2029}\"}\n".as_bytes());
        watch.wrote(b"{\"id\":\"1\",\"type\":\"response\",\"command\":\"get_state\"}\n");
        let summary = watch.summary();
        assert!(
            summary.starts_with("it was last sent line 3 (response to get_state, 50 bytes); suspicious since its last command: line 2: U+2029"),
            "{summary}"
        );
        assert!(!summary.contains("future"));
    }
}
