//! Framing the agent's stdout: lines split on LF only, each parsed as one JSON record.

use std::sync::Arc;

use pi_rpc_protocol::FrameError;
use serde_json::Value;

/// A line longer than this is reported as a framing error.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Why a line the agent wrote is not a JSON record.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LineError {
    /// The line breaks the framing (not UTF-8, too long).
    #[error(transparent)]
    Frame(#[from] FrameError),
    /// The line is text but not JSON.
    #[error("not JSON: {0}")]
    NotJson(Arc<serde_json::Error>),
}

/// Splits stdout into lines on LF only; the one place where framing is decided.
#[derive(Debug, Default)]
pub struct Framer {
    pending: Vec<u8>,
}

impl Framer {
    /// Feeds bytes; returns the complete lines (without LF) they finish.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        for &byte in bytes {
            if byte == b'\n' {
                lines.push(std::mem::take(&mut self.pending));
            } else {
                self.pending.push(byte);
            }
        }
        lines
    }

    /// The last line without LF at EOF, if any.
    pub fn finish(&mut self) -> Option<Vec<u8>> {
        if self.pending.is_empty() {
            None
        } else {
            Some(std::mem::take(&mut self.pending))
        }
    }
}

/// Parses one line (without LF) into a JSON record, with the shared strict framing
/// ([`pi_rpc_protocol::LineDecoder`]: one trailing CR stripped, UTF-8 and length checked).
pub fn parse_line(raw: &[u8]) -> Result<Value, LineError> {
    let mut decoder = pi_rpc_protocol::LineDecoder::with_max_line_bytes(MAX_LINE_BYTES);
    let mut line = Vec::with_capacity(raw.len() + 1);
    line.extend_from_slice(raw);
    line.push(b'\n');
    let text = decoder
        .decode(&line)
        .pop()
        .unwrap_or_else(|| Ok(String::new()))?;
    serde_json::from_str(&text).map_err(|err| LineError::NotJson(Arc::new(err)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn framer_splits_on_lf_only_in_any_chunking() {
        let mut framer = Framer::default();
        let mut lines = framer.push(b"a\r\nb\xe2\x80");
        lines.extend(framer.push(b"\xa8c\nd"));
        assert_eq!(
            lines,
            vec![b"a\r".to_vec(), "b\u{2028}c".as_bytes().to_vec()]
        );
        assert_eq!(framer.finish(), Some(b"d".to_vec()));
    }

    #[test]
    fn lines_parse_with_the_shared_framing() {
        assert_eq!(
            parse_line(b"{\"a\":1}\r").ok(),
            Some(serde_json::json!({"a": 1}))
        );
        assert!(matches!(
            parse_line(b"\xff"),
            Err(LineError::Frame(FrameError::InvalidUtf8 { .. }))
        ));
        assert!(
            parse_line(b"\xff")
                .unwrap_err()
                .to_string()
                .contains("UTF-8")
        );
        assert!(
            parse_line(b"")
                .unwrap_err()
                .to_string()
                .starts_with("not JSON")
        );
    }
}
