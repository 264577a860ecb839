//! The RPC loop: a stdin reader task feeds lines to the one session task through a bounded
//! channel; the session writes every record through another bounded channel to the one writer
//! task, which alone touches stdout.

use pi_rpc_protocol::framing::LineResult;
use pi_rpc_protocol::io::{LineReader, RecordWriter};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

pub mod session;

use session::Session;

/// Lines waiting for the session.
const INPUT_QUEUE: usize = 64;
/// Encoded records waiting for the writer.
const OUTPUT_QUEUE: usize = 256;
/// Stop adding waiting lines to one write beyond this size.
const WRITE_BATCH_BYTES: usize = 256 * 1024;

/// Where the session sends finished lines (each a JSON record with its LF; a large answer comes
/// as several pieces in a row, the last one ending its line).
pub type OutputSender = mpsc::Sender<Vec<u8>>;

/// A line of input, and whether another line that arrived with it follows: the reference
/// handles the lines of one read of stdin one after another before anything else happens.
#[derive(Debug)]
pub struct InputLine {
    /// The line, or why it is not one.
    pub line: LineResult,
    /// Whether the next line came in the same read.
    pub more_in_read: bool,
}

impl InputLine {
    /// A line that arrived alone.
    pub fn single(line: String) -> Self {
        Self {
            line: Ok(line),
            more_in_read: false,
        }
    }
}

/// Serves the protocol until `input` ends (or the output is closed). Lines already handed to
/// the writer are written before this returns.
pub async fn serve<R, W>(input: R, output: W, session_builder: impl FnOnce(OutputSender) -> Session)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (line_tx, line_rx) = mpsc::channel::<InputLine>(INPUT_QUEUE);
    let (out_tx, out_rx) = mpsc::channel::<Vec<u8>>(OUTPUT_QUEUE);
    let reader = tokio::spawn(read_lines(input, line_tx));
    let writer = tokio::spawn(write_lines(output, out_rx));
    let session = session_builder(out_tx);
    session.run(line_rx).await;
    reader.abort();
    if let Err(error) = writer.await {
        tracing::warn!(%error, "writer task failed");
    }
}

async fn read_lines<R: AsyncRead + Unpin>(input: R, lines: mpsc::Sender<InputLine>) {
    let mut reader = LineReader::new(input);
    loop {
        match reader.next_line().await {
            Ok(Some(line)) => {
                let more_in_read = reader.has_ready_line();
                if lines.send(InputLine { line, more_in_read }).await.is_err() {
                    return;
                }
            }
            Ok(None) => return,
            Err(error) => {
                tracing::warn!(%error, "cannot read stdin; treating it as closed");
                return;
            }
        }
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(output: W, mut lines: mpsc::Receiver<Vec<u8>>) {
    let mut writer = RecordWriter::new(output);
    while let Some(mut batch) = lines.recv().await {
        // Lines already waiting go out in the same write: a burst of deltas costs one write
        // (stdout is written from a blocking thread, so each write is a thread hop).
        while batch.len() < WRITE_BATCH_BYTES {
            match lines.try_recv() {
                Ok(line) => batch.extend_from_slice(&line),
                Err(_) => break,
            }
        }
        if let Err(error) = writer.write_line_bytes(&batch).await {
            tracing::warn!(%error, "cannot write stdout; stopping output");
            return;
        }
    }
}
