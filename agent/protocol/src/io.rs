//! Async JSONL reading and writing over tokio streams (feature `tokio`).
//!
//! [`LineReader`] wraps [`LineDecoder`]; [`RecordWriter`] writes one record plus LF per write and
//! waits for the stream to take it, so a slow reader slows the writer down instead of growing a
//! buffer without bound.

use std::collections::VecDeque;

use serde::Serialize;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use crate::framing::{LineDecoder, LineResult, encode_record};

const READ_CHUNK_BYTES: usize = 64 * 1024;

/// Reads LF-framed lines from an async byte stream.
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    decoder: LineDecoder,
    ready: VecDeque<LineResult>,
    chunk: Vec<u8>,
    finished: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// A reader with the default line limit.
    pub fn new(inner: R) -> Self {
        Self::with_decoder(inner, LineDecoder::new())
    }

    /// A reader using `decoder` (for a custom line limit).
    pub fn with_decoder(inner: R, decoder: LineDecoder) -> Self {
        Self {
            inner,
            decoder,
            ready: VecDeque::new(),
            chunk: vec![0; READ_CHUNK_BYTES],
            finished: false,
        }
    }

    /// Whether a line that came with the last read is still waiting: lines that arrive
    /// together can then be handled together, as pi handles one chunk of its input.
    pub fn has_ready_line(&self) -> bool {
        !self.ready.is_empty()
    }

    /// The next line, or `None` at the end of the stream. I/O errors end the stream.
    pub async fn next_line(&mut self) -> std::io::Result<Option<LineResult>> {
        loop {
            if let Some(line) = self.ready.pop_front() {
                return Ok(Some(line));
            }
            if self.finished {
                return Ok(None);
            }
            let read = self.inner.read(&mut self.chunk).await?;
            if read == 0 {
                self.finished = true;
                self.ready.extend(self.decoder.finish());
            } else {
                let mut lines = Vec::new();
                self.decoder.decode_into(&self.chunk[..read], &mut lines);
                self.ready.extend(lines);
            }
        }
    }
}

/// Writes JSONL records to an async byte stream, one record and its LF per write.
#[derive(Debug)]
pub struct RecordWriter<W> {
    inner: W,
}

/// Why a record could not be written.
#[derive(Debug)]
pub enum WriteError {
    /// The record could not be serialised.
    Json(serde_json::Error),
    /// The stream refused the bytes (for stdout: usually the reader went away).
    Io(std::io::Error),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::Json(error) => write!(f, "cannot serialise record: {error}"),
            WriteError::Io(error) => write!(f, "cannot write record: {error}"),
        }
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WriteError::Json(error) => Some(error),
            WriteError::Io(error) => Some(error),
        }
    }
}

impl<W: AsyncWrite + Unpin> RecordWriter<W> {
    /// A writer over `inner`.
    pub fn new(inner: W) -> Self {
        Self { inner }
    }

    /// Serialises `record`, writes it with its LF and flushes.
    pub async fn write_record<T: Serialize + ?Sized>(
        &mut self,
        record: &T,
    ) -> Result<(), WriteError> {
        let line = encode_record(record).map_err(WriteError::Json)?;
        self.write_line_bytes(&line).await.map_err(WriteError::Io)
    }

    /// Writes bytes that already hold one whole line including its LF, and flushes.
    pub async fn write_line_bytes(&mut self, line: &[u8]) -> std::io::Result<()> {
        self.inner.write_all(line).await?;
        self.inner.flush().await
    }

    /// The underlying stream.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reader_yields_lines_and_the_final_unterminated_one() {
        let input: &[u8] = b"{\"a\":1}\r\n\xfe\n{\"b\":2}";
        let mut reader = LineReader::new(input);
        assert_eq!(
            reader.next_line().await.unwrap(),
            Some(Ok("{\"a\":1}".into()))
        );
        assert!(matches!(reader.next_line().await.unwrap(), Some(Err(_))));
        assert_eq!(
            reader.next_line().await.unwrap(),
            Some(Ok("{\"b\":2}".into()))
        );
        assert_eq!(reader.next_line().await.unwrap(), None);
    }

    #[tokio::test]
    async fn writer_honours_backpressure_of_a_small_pipe() {
        let (client, mut server) = tokio::io::duplex(8);
        let writer = tokio::spawn(async move {
            let mut writer = RecordWriter::new(client);
            for n in 0..100 {
                writer
                    .write_record(&serde_json::json!({ "n": n }))
                    .await
                    .unwrap();
            }
        });
        let mut received = Vec::new();
        server.read_to_end(&mut received).await.unwrap();
        writer.await.unwrap();
        let text = String::from_utf8(received).unwrap();
        assert_eq!(text.lines().count(), 100);
        assert_eq!(text.lines().nth(42), Some("{\"n\":42}"));
    }
}
