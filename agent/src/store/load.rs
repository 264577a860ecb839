//! Reading session files in one streaming pass, and migrating older format versions (1: a flat
//! list without ids, 2: `hookMessage` instead of `custom`) to version 3.
//!
//! [`parse_session`] takes any reader (a file, bytes), which is what a fuzz target calls. Lines
//! are read one at a time and each becomes an [`Entry`] at once; a line longer than the framing
//! limit is an error rather than a buffer without end. [`read_session_file`] opens only regular
//! files (see [`super::paths::open_regular_file`]).

use std::collections::HashSet;
use std::io::Read;
use std::sync::Arc;

use pi_rpc_protocol::framing::DEFAULT_MAX_LINE_BYTES;
use pi_rpc_protocol::session::SESSION_VERSION;
use serde_json::{Map, Value};

use super::assemble::Assembler;
use super::entry::{Entry, generate_id};
use super::{Error, Result, paths};

/// The size of a block read at once: large reads, few allocations.
const BLOCK_BYTES: usize = 4 << 20;
/// How far a header is looked for.
const HEADER_SCAN_BYTES: usize = 1 << 20;

/// A session file's header and entries, at the current format version.
#[derive(Debug, Clone)]
pub struct ParsedSession {
    /// The header line as a JSON object.
    pub header: Map<String, Value>,
    /// The entries in file order.
    pub entries: Vec<Entry>,
    /// Whether an older format version was migrated (the file should be rewritten).
    pub migrated: bool,
}

/// What a session file holds.
#[derive(Debug)]
pub enum SessionFile {
    /// There is no such file.
    Missing,
    /// The file holds no session header first; `empty` when it holds no bytes at all.
    NotASession {
        /// Whether the file is empty.
        empty: bool,
    },
    /// A session.
    Session(ParsedSession),
}

/// Why a session could not be read from a reader.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// Reading failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A line is longer than the limit; nothing of it is kept.
    #[error("line {line} is longer than the limit of {limit} bytes")]
    LineTooLong {
        /// 1-based line number.
        line: usize,
        /// The limit in bytes.
        limit: usize,
    },
}

/// Reads a session from `reader`: the JSON objects of its lines (blank and malformed lines are
/// skipped, as the reference skips them), the first of which must be a session header (`type:
/// "session"` with a string `id`). `Ok(None)` when it is not; lines up to `max_line_bytes`.
pub fn parse_session(
    reader: impl Read,
    max_line_bytes: usize,
) -> Result<Option<ParsedSession>, ParseError> {
    parse(reader, max_line_bytes).map(|(session, _)| session)
}

/// Opens and reads a session file (`path` absolute); only a regular file is opened.
pub fn read_session_file(path: &str) -> Result<SessionFile> {
    let Some(file) = paths::open_regular_file(std::path::Path::new(path))? else {
        return Ok(SessionFile::Missing);
    };
    match parse(file, DEFAULT_MAX_LINE_BYTES) {
        Ok((Some(session), _)) => Ok(SessionFile::Session(session)),
        Ok((None, bytes)) => Ok(SessionFile::NotASession { empty: bytes == 0 }),
        Err(ParseError::Io(source)) => Err(Error::Io {
            path: path.to_owned(),
            source,
        }),
        Err(ParseError::LineTooLong { line, limit }) => Err(Error::LineTooLong {
            path: path.to_owned(),
            line,
            limit,
        }),
    }
}

/// The header of a session file: its first JSON object, when that is a session header. Blank
/// and malformed lines before it are skipped; any other first object means "not a session".
/// The first MiB is looked at, as the reference bounds its header scan.
pub fn read_header(reader: impl Read) -> Option<Map<String, Value>> {
    let mut reader = reader.take(HEADER_SCAN_BYTES as u64);
    let mut lines = Lines::new(HEADER_SCAN_BYTES);
    lines.first_object(&mut reader).ok()?.filter(is_header)
}

/// The session and how many bytes were read.
fn parse(
    mut reader: impl Read,
    max_line_bytes: usize,
) -> Result<(Option<ParsedSession>, u64), ParseError> {
    let mut lines = Lines::new(max_line_bytes);
    let Some(header) = lines.first_object(&mut reader)?.filter(is_header) else {
        // Bytes were read unless the file is empty.
        return Ok((None, lines.bytes));
    };
    let version = header.get("version").and_then(Value::as_f64).unwrap_or(1.0);
    if version < SESSION_VERSION as f64 {
        let mut objects = vec![header];
        lines.each(&mut reader, |line| {
            if let Ok(Value::Object(object)) = pi_rpc_protocol::surrogates::from_str::<Value>(line)
            {
                objects.push(object);
            }
            Flow::Go
        })?;
        migrate(&mut objects);
        let mut objects = objects.into_iter();
        let header = objects.next().unwrap_or_default();
        let entries = objects.map(Entry::from_raw).collect();
        let session = ParsedSession {
            header,
            entries,
            migrated: true,
        };
        return Ok((Some(session), lines.bytes));
    }
    let mut assembler = Assembler::default();
    lines.each_block(&mut reader, |block, lines| {
        assembler.add_block(block, lines)
    })?;
    let session = ParsedSession {
        header,
        entries: assembler.finish(),
        migrated: false,
    };
    Ok((Some(session), lines.bytes))
}

fn is_header(line: &Map<String, Value>) -> bool {
    line.get("type").and_then(Value::as_str) == Some("session")
        && line.get("id").is_some_and(Value::is_string)
}

/// Whether to go on reading lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Go,
    Stop,
}

/// Splits a reader into LF-terminated lines. The input is read in blocks of whole lines, each
/// kept as one string that the entries of its lines share: no line is copied on its own, and a
/// long session costs a few large allocations. Invalid UTF-8 is replaced as Node decodes it,
/// one trailing CR is stripped, blank lines are skipped, and a line longer than the limit is an
/// error as soon as that many bytes are read without a LF. A block no entry kept (its lines
/// were all normalised) is read into again, so that such a file does not cost a fresh
/// allocation (and its page faults) per block.
struct Lines {
    /// The start of a line that continues in the next read.
    carry: Vec<u8>,
    /// A block's buffer to read the next one into.
    spare: Vec<u8>,
    /// The block being handed out, and where its next line starts.
    block: Option<(Arc<String>, usize)>,
    number: usize,
    bytes: u64,
    max_line_bytes: usize,
    ended: bool,
}

impl Lines {
    fn new(max_line_bytes: usize) -> Self {
        Self {
            carry: Vec::new(),
            spare: Vec::new(),
            block: None,
            number: 0,
            bytes: 0,
            max_line_bytes,
            ended: false,
        }
    }

    /// Hands every line to `handle` until it says stop or the input ends.
    /// The first line that is a JSON object (the header's place), the lines before it skipped.
    fn first_object(
        &mut self,
        reader: &mut impl Read,
    ) -> Result<Option<Map<String, Value>>, ParseError> {
        let mut first = None;
        self.each(reader, |line| {
            match pi_rpc_protocol::surrogates::from_str::<Value>(line) {
                Ok(Value::Object(object)) => {
                    first = Some(object);
                    Flow::Stop
                }
                _ => Flow::Go,
            }
        })?;
        Ok(first)
    }

    /// Hands every line to `handle` until it says stop or the input ends.
    fn each(
        &mut self,
        reader: &mut impl Read,
        mut handle: impl FnMut(&str) -> Flow,
    ) -> Result<(), ParseError> {
        loop {
            let Some((block, at)) = self.next_block(reader)? else {
                return Ok(());
            };
            let stopped = self.split(&block, at, |start, end| handle(&block[start..end]))?;
            if let Some(at) = stopped {
                self.block = Some((block, at));
                return Ok(());
            }
            self.recycle(block);
        }
    }

    /// Hands the lines of each block (ranges of it) to `handle`, a block at a time, until the
    /// input ends.
    fn each_block(
        &mut self,
        reader: &mut impl Read,
        mut handle: impl FnMut(&Arc<String>, &[(usize, usize)]),
    ) -> Result<(), ParseError> {
        let mut lines = Vec::new();
        while let Some((block, at)) = self.next_block(reader)? {
            lines.clear();
            self.split(&block, at, |start, end| {
                lines.push((start, end));
                Flow::Go
            })?;
            handle(&block, &lines);
            self.recycle(block);
        }
        Ok(())
    }

    /// The block being handed out and where its next line starts, else the next block read.
    fn next_block(
        &mut self,
        reader: &mut impl Read,
    ) -> Result<Option<(Arc<String>, usize)>, ParseError> {
        if let Some(current) = self.block.take() {
            return Ok(Some(current));
        }
        Ok(self.read_block(reader)?.map(|block| (block, 0)))
    }

    /// Keeps a block's buffer for the next read when nothing else holds it.
    fn recycle(&mut self, block: Arc<String>) {
        if let Ok(text) = Arc::try_unwrap(block) {
            self.spare = text.into_bytes();
        }
    }

    /// Hands the lines of `block` from `at` on (ranges, CR and LF stripped, blank lines
    /// skipped) to `handle`; where the next line starts when it says stop.
    fn split(
        &mut self,
        block: &str,
        mut at: usize,
        mut handle: impl FnMut(usize, usize) -> Flow,
    ) -> Result<Option<usize>, ParseError> {
        let bytes = block.as_bytes();
        while at < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
            let start = at;
            at = end + 1;
            self.number += 1;
            let end = if bytes[start..end].ends_with(b"\r") {
                end - 1
            } else {
                end
            };
            if end - start > self.max_line_bytes {
                return Err(ParseError::LineTooLong {
                    line: self.number,
                    limit: self.max_line_bytes,
                });
            }
            if block[start..end].trim().is_empty() {
                continue;
            }
            if handle(start, end) == Flow::Stop {
                return Ok(Some(at));
            }
        }
        Ok(None)
    }

    /// Reads the next block of whole lines (the last line of the input need not end with a
    /// LF); `None` at the end.
    fn read_block(&mut self, reader: &mut impl Read) -> Result<Option<Arc<String>>, ParseError> {
        if self.ended {
            return Ok(None);
        }
        let mut buffer = std::mem::take(&mut self.spare);
        buffer.clear();
        buffer.extend_from_slice(&self.carry);
        self.carry.clear();
        let mut want = BLOCK_BYTES.max(buffer.len() + 1);
        let end = loop {
            buffer.reserve_exact(want.saturating_sub(buffer.len()));
            let limit = want.saturating_sub(buffer.len()) as u64;
            let read = reader.by_ref().take(limit).read_to_end(&mut buffer)?;
            self.bytes += read as u64;
            if buffer.len() < want {
                self.ended = true;
                break buffer.len();
            }
            if let Some(last) = memchr::memrchr(b'\n', &buffer) {
                break last + 1;
            }
            // One line so far: read on until its LF, up to the limit (one byte of slack for a
            // CR, one to see it is over).
            if buffer.len() > self.max_line_bytes + 1 {
                return Err(ParseError::LineTooLong {
                    line: self.number + 1,
                    limit: self.max_line_bytes,
                });
            }
            want = (want * 2)
                .min(self.max_line_bytes + 2)
                .max(buffer.len() + 1);
        };
        self.carry.extend_from_slice(&buffer[end..]);
        buffer.truncate(end);
        if buffer.is_empty() {
            return Ok(None);
        }
        let text = match String::from_utf8(buffer) {
            Ok(text) => text,
            Err(error) => String::from_utf8_lossy(error.as_bytes()).into_owned(),
        };
        Ok(Some(Arc::new(text)))
    }
}

/// Brings the lines (header first) to the current version, in place and keeping key order as
/// the reference does (new keys go last). Returns whether anything was migrated.
pub fn migrate(lines: &mut [Map<String, Value>]) -> bool {
    let version = lines
        .iter()
        .find(|line| line.get("type").and_then(Value::as_str) == Some("session"))
        .and_then(|header| header.get("version"))
        .and_then(Value::as_f64)
        .unwrap_or(1.0);
    if version >= SESSION_VERSION as f64 {
        return false;
    }
    if version < 2.0 {
        migrate_v1_to_v2(lines);
    }
    migrate_v2_to_v3(lines);
    true
}

fn is_session_line(line: &Map<String, Value>) -> bool {
    line.get("type").and_then(Value::as_str) == Some("session")
}

fn migrate_v1_to_v2(lines: &mut [Map<String, Value>]) {
    // The reference checks ids against a set it never fills: ids are merely random.
    let taken: HashSet<String> = HashSet::new();
    let mut previous: Option<String> = None;
    for index in 0..lines.len() {
        if is_session_line(&lines[index]) {
            lines[index].insert("version".into(), 2.into());
            continue;
        }
        let id = generate_id(|candidate| taken.contains(candidate));
        lines[index].insert("id".into(), id.clone().into());
        lines[index].insert(
            "parentId".into(),
            previous.take().map_or(Value::Null, Value::String),
        );
        previous = Some(id);
        if lines[index].get("type").and_then(Value::as_str) != Some("compaction") {
            continue;
        }
        let Some(kept_index) = lines[index]
            .get("firstKeptEntryIndex")
            .and_then(Value::as_f64)
        else {
            continue;
        };
        let target_id = (kept_index >= 0.0 && kept_index.fract() == 0.0)
            .then(|| lines.get(kept_index as usize))
            .flatten()
            .filter(|target| !is_session_line(target))
            .and_then(|target| target.get("id").cloned());
        if let Some(target_id) = target_id {
            lines[index].insert("firstKeptEntryId".into(), target_id);
        }
        lines[index].shift_remove("firstKeptEntryIndex");
    }
}

fn migrate_v2_to_v3(lines: &mut [Map<String, Value>]) {
    for line in lines.iter_mut() {
        if is_session_line(line) {
            line.insert("version".into(), 3.into());
            continue;
        }
        if line.get("type").and_then(Value::as_str) != Some("message") {
            continue;
        }
        if let Some(Value::Object(message)) = line.get_mut("message")
            && message.get("role").and_then(Value::as_str) == Some("hookMessage")
        {
            message.insert("role".into(), "custom".into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"t","cwd":"/p"}"#;

    fn parse(text: &[u8], limit: usize) -> Result<Option<ParsedSession>, ParseError> {
        parse_session(text, limit)
    }

    #[test]
    fn a_line_over_the_limit_is_reported_with_its_number() {
        let entry = r#"{"type":"custom","id":"a","parentId":null,"timestamp":"t"}"#;
        let text = format!("{HEADER}\n{entry}\n");
        let error = parse(text.as_bytes(), HEADER.len() - 1).unwrap_err();
        let expected = format!(
            "line 1 is longer than the limit of {} bytes",
            HEADER.len() - 1
        );
        assert_eq!(error.to_string(), expected);
        let text = format!("{HEADER}\n{}\n", " ".repeat(HEADER.len() + 10));
        match parse(text.as_bytes(), HEADER.len()) {
            Err(ParseError::LineTooLong { line: 2, limit }) => assert_eq!(limit, HEADER.len()),
            other => panic!("{other:?}"),
        }
        // At the limit, with or without CR and LF, a line is read.
        for ending in ["", "\n", "\r\n"] {
            let text = format!("{HEADER}\n{entry}{ending}");
            let session = parse(text.as_bytes(), HEADER.len().max(entry.len()))
                .unwrap()
                .unwrap();
            assert_eq!(session.entries.len(), 1, "{ending:?}");
        }
    }

    #[test]
    fn lines_across_reads_are_joined() {
        let mut text = format!("{HEADER}\n");
        let big = "x".repeat(BLOCK_BYTES + BLOCK_BYTES / 2);
        text.push_str(&format!(
            "{{\"type\":\"custom\",\"id\":\"big\",\"data\":\"{big}\"}}\n"
        ));
        for n in 0..3000 {
            let pad = "y".repeat(n % 700);
            text.push_str(&format!(
                "{{\"type\":\"custom\",\"id\":\"{n}\",\"data\":\"{pad}\"}}\r\n"
            ));
        }
        let session = parse(text.as_bytes(), 2 * BLOCK_BYTES).unwrap().unwrap();
        assert_eq!(session.entries.len(), 3001);
        assert_eq!(
            session.entries[0].raw()["data"].as_str().map(str::len),
            Some(big.len())
        );
        for (n, entry) in session.entries[1..].iter().enumerate() {
            assert_eq!(entry.id(), n.to_string());
        }
    }

    #[test]
    fn normalised_blocks_are_read_into_again() {
        // Lines that are all normalised let their blocks go, whose buffers take the next
        // reads; lines across reads are joined all the same.
        let mut text = format!("{HEADER}\n");
        let mut expected = Vec::new();
        let mut n = 0;
        while text.len() < 3 * BLOCK_BYTES {
            let pad = "\\u00e9".repeat(n % 900);
            text.push_str(&format!(
                "{{\"type\": \"custom\", \"id\": \"{n}\", \"data\": \"{pad}\"}}\n"
            ));
            expected.push(format!(
                "{{\"type\":\"custom\",\"id\":\"{n}\",\"data\":\"{}\"}}",
                "é".repeat(n % 900)
            ));
            n += 1;
        }
        let mut lines = Lines::new(1 << 20);
        let mut reader = text.as_bytes();
        assert!(lines.first_object(&mut reader).unwrap().is_some());
        let mut assembler = Assembler::default();
        let mut buffers = HashSet::new();
        let mut blocks = 0;
        lines
            .each_block(&mut reader, |block, lines| {
                buffers.insert(block.as_ptr() as usize);
                blocks += 1;
                assembler.add_block(block, lines);
            })
            .unwrap();
        assert!(blocks >= 3, "{blocks} blocks");
        assert!(buffers.len() < blocks, "a buffer is read into again");
        let written: Vec<String> = assembler
            .finish()
            .iter()
            .map(|entry| String::from_utf8(entry.to_json()).unwrap())
            .collect();
        assert_eq!(written, expected);
    }

    #[test]
    fn blank_malformed_and_non_object_lines_are_skipped() {
        let text = format!(
            "\n  \nnot json\n[1]\n{HEADER}\r\n\n{{\"type\":\"custom\",\"id\":\"a\"}}\n{{broken\n5\n{{\"type\":\"custom\",\"id\":\"b\"}}"
        );
        let session = parse(text.as_bytes(), 1 << 20).unwrap().unwrap();
        let ids: Vec<&str> = session.entries.iter().map(Entry::id).collect();
        assert_eq!(ids, ["a", "b"]);
        assert!(!session.migrated);
    }

    #[test]
    fn invalid_utf8_is_replaced_as_node_decodes_it() {
        let mut text = format!("{HEADER}\n").into_bytes();
        text.extend_from_slice(b"{\"type\":\"custom\",\"id\":\"a\xff\"}\n");
        let session = parse(&text, 1 << 20).unwrap().unwrap();
        assert_eq!(session.entries[0].id(), "a\u{fffd}");
    }

    #[test]
    fn a_first_object_that_is_not_a_header_is_not_a_session() {
        let text = "{\"type\":\"custom\",\"id\":\"a\"}\n".to_owned() + HEADER;
        assert!(parse(text.as_bytes(), 1 << 20).unwrap().is_none());
        assert!(parse(b"", 1 << 20).unwrap().is_none());
        let no_id = r#"{"type":"session","version":3}"#;
        assert!(parse(no_id.as_bytes(), 1 << 20).unwrap().is_none());
    }

    #[test]
    fn an_older_version_is_migrated() {
        let text = r#"{"type":"session","id":"s1","timestamp":"t","cwd":"/p"}
{"type":"message","timestamp":"t","message":{"role":"hookMessage","content":"x","timestamp":1}}"#;
        let session = parse(text.as_bytes(), 1 << 20).unwrap().unwrap();
        assert!(session.migrated);
        assert_eq!(session.header["version"], 3);
        assert_eq!(session.entries[0].id().len(), 8);
        assert_eq!(
            session.entries[0].message().map(|m| m.role()),
            Some(super::super::Role::Custom)
        );
    }
}
