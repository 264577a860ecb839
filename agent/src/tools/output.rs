//! Streaming command output with bounded memory, as the reference keeps it: a decoded tail for
//! display, running line and byte counts, and the raw bytes in a temporary file once the output
//! is over a limit.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::truncate::{
    DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncatedBy, Truncation, truncate_tail,
};

/// UTF-8 decoding across chunk boundaries, with U+FFFD for invalid bytes and a leading byte
/// order mark dropped (as `TextDecoder` does).
#[derive(Default)]
pub(crate) struct StreamDecoder {
    pending: Vec<u8>,
    started: bool,
}

impl StreamDecoder {
    /// The text of `chunk`; an incomplete character at its end waits for the next chunk.
    pub(crate) fn decode(&mut self, chunk: &[u8]) -> String {
        let mut bytes = std::mem::take(&mut self.pending);
        bytes.extend_from_slice(chunk);
        let mut out = String::new();
        let mut rest = bytes.as_slice();
        loop {
            match std::str::from_utf8(rest) {
                Ok(text) => {
                    out.push_str(text);
                    break;
                }
                Err(error) => {
                    let valid = error.valid_up_to();
                    out.push_str(std::str::from_utf8(&rest[..valid]).unwrap_or_default());
                    match error.error_len() {
                        Some(length) => {
                            out.push('\u{fffd}');
                            rest = &rest[valid + length..];
                        }
                        None => {
                            self.pending = rest[valid..].to_vec();
                            break;
                        }
                    }
                }
            }
        }
        self.strip_bom(out)
    }

    fn finish(&mut self) -> String {
        let out = if self.pending.is_empty() {
            String::new()
        } else {
            "\u{fffd}".into()
        };
        self.pending.clear();
        self.strip_bom(out)
    }

    fn strip_bom(&mut self, text: String) -> String {
        if self.started || text.is_empty() {
            return text;
        }
        self.started = true;
        match text.strip_prefix('\u{feff}') {
            Some(rest) => rest.to_string(),
            None => text,
        }
    }
}

/// A view of the output so far.
pub(crate) struct Snapshot {
    pub(crate) content: String,
    pub(crate) truncation: Truncation,
    pub(crate) full_output_path: Option<PathBuf>,
}

/// Accumulates a command's output.
pub(crate) struct OutputAccumulator {
    decoder: StreamDecoder,
    raw_chunks: Vec<Vec<u8>>,
    tail: String,
    tail_starts_at_line_boundary: bool,
    total_raw_bytes: usize,
    total_decoded_bytes: usize,
    completed_lines: usize,
    total_lines: usize,
    current_line_bytes: usize,
    has_open_line: bool,
    finished: bool,
    temp_dir: PathBuf,
    temp_path: Option<PathBuf>,
    temp_file: Option<File>,
}

/// Bytes of decoded tail kept for snapshots; trimmed to this when it grows past twice as much.
const MAX_ROLLING_BYTES: usize = DEFAULT_MAX_BYTES * 2;

impl OutputAccumulator {
    pub(crate) fn new(temp_dir: &Path) -> Self {
        Self {
            decoder: StreamDecoder::default(),
            raw_chunks: Vec::new(),
            tail: String::new(),
            tail_starts_at_line_boundary: true,
            total_raw_bytes: 0,
            total_decoded_bytes: 0,
            completed_lines: 0,
            total_lines: 0,
            current_line_bytes: 0,
            has_open_line: false,
            finished: false,
            temp_dir: temp_dir.to_path_buf(),
            temp_path: None,
            temp_file: None,
        }
    }

    /// Adds a chunk of raw output.
    pub(crate) fn append(&mut self, data: &[u8]) {
        if self.finished {
            return;
        }
        self.total_raw_bytes += data.len();
        let text = self.decoder.decode(data);
        self.append_decoded(&text);
        if self.temp_file.is_some() || self.should_use_temp_file() {
            self.ensure_temp_file();
            if let Some(file) = self.temp_file.as_mut() {
                // The file is a convenience copy; a failed write must not fail the command.
                let _ = file.write_all(data);
            }
        } else if !data.is_empty() {
            self.raw_chunks.push(data.to_vec());
        }
    }

    /// Marks the end of the output.
    pub(crate) fn finish(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        let text = self.decoder.finish();
        self.append_decoded(&text);
        if self.should_use_temp_file() {
            self.ensure_temp_file();
        }
    }

    /// The tail of the output within the limits; with `persist`, a truncated output gets its
    /// temporary file.
    pub(crate) fn snapshot(&mut self, persist: bool) -> Snapshot {
        let mut truncation = truncate_tail(self.snapshot_text());
        let truncated =
            self.total_lines > DEFAULT_MAX_LINES || self.total_decoded_bytes > DEFAULT_MAX_BYTES;
        truncation.truncated_by = truncated.then(|| {
            truncation
                .truncated_by
                .unwrap_or(if self.total_decoded_bytes > DEFAULT_MAX_BYTES {
                    TruncatedBy::Bytes
                } else {
                    TruncatedBy::Lines
                })
        });
        truncation.truncated = truncated;
        truncation.total_lines = self.total_lines;
        truncation.total_bytes = self.total_decoded_bytes;
        if persist && truncated {
            self.ensure_temp_file();
        }
        Snapshot {
            content: truncation.content.clone(),
            truncation,
            full_output_path: self.temp_path.clone(),
        }
    }

    /// Flushes and closes the temporary file, if any.
    pub(crate) fn close_temp_file(&mut self) {
        if let Some(mut file) = self.temp_file.take() {
            let _ = file.flush();
        }
    }

    /// Bytes of the last, unfinished line (0 when the output ends with a newline).
    pub(crate) fn last_line_bytes(&self) -> usize {
        self.current_line_bytes
    }

    fn append_decoded(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.total_decoded_bytes += text.len();
        self.tail.push_str(text);
        if self.tail.len() > MAX_ROLLING_BYTES * 2 {
            self.trim_tail();
        }
        match text.rfind('\n') {
            None => {
                self.current_line_bytes += text.len();
                self.has_open_line = true;
            }
            Some(last) => {
                self.completed_lines += text.matches('\n').count();
                let rest = &text[last + 1..];
                self.current_line_bytes = rest.len();
                self.has_open_line = !rest.is_empty();
            }
        }
        self.total_lines = self.completed_lines + usize::from(self.has_open_line);
    }

    fn trim_tail(&mut self) {
        if self.tail.len() <= MAX_ROLLING_BYTES {
            return;
        }
        let mut start = self.tail.len() - MAX_ROLLING_BYTES;
        while !self.tail.is_char_boundary(start) {
            start += 1;
        }
        self.tail_starts_at_line_boundary = self.tail.as_bytes()[start - 1] == b'\n';
        self.tail = self.tail[start..].to_string();
    }

    fn snapshot_text(&self) -> &str {
        if self.tail_starts_at_line_boundary {
            return &self.tail;
        }
        match self.tail.find('\n') {
            Some(index) => &self.tail[index + 1..],
            None => &self.tail,
        }
    }

    fn should_use_temp_file(&self) -> bool {
        self.total_raw_bytes > DEFAULT_MAX_BYTES
            || self.total_decoded_bytes > DEFAULT_MAX_BYTES
            || self.total_lines > DEFAULT_MAX_LINES
    }

    fn ensure_temp_file(&mut self) {
        if self.temp_path.is_some() {
            return;
        }
        let id = uuid::Uuid::new_v4().simple().to_string();
        let path = self.temp_dir.join(format!("pi-bash-{}.log", &id[..16]));
        self.temp_file = File::create(&path).ok();
        if let Some(file) = self.temp_file.as_mut() {
            for chunk in self.raw_chunks.drain(..) {
                let _ = file.write_all(&chunk);
            }
        }
        self.raw_chunks.clear();
        self.temp_path = Some(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_character_split_across_chunks_decodes_whole() {
        let mut decoder = StreamDecoder::default();
        let bytes = "é".as_bytes();
        assert_eq!(decoder.decode(&bytes[..1]), "");
        assert_eq!(decoder.decode(&bytes[1..]), "é");
        assert_eq!(decoder.decode(b"\xff"), "\u{fffd}");
        assert_eq!(decoder.decode(b"\xe2\x82"), "");
        assert_eq!(decoder.finish(), "\u{fffd}");
    }

    #[test]
    fn a_leading_byte_order_mark_is_dropped_once() {
        let mut decoder = StreamDecoder::default();
        assert_eq!(decoder.decode("\u{feff}a\u{feff}".as_bytes()), "a\u{feff}");
    }
}
