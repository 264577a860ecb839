//! The RPC loop: a stdin reader task feeds lines to the one session task (the actor, which the
//! caller gives) through a bounded channel; the session writes every record through another
//! bounded channel to the one writer task, which alone touches stdout. The output channel is
//! bounded in bytes too: long records (a whole streamed answer in `message_end`) wait for the
//! writer instead of piling up.

pub mod stdio;

use std::sync::Arc;

use pi_rpc_protocol::framing::LineResult;
use pi_rpc_protocol::io::{LineReader, RecordWriter};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

/// Lines waiting for the session.
const INPUT_QUEUE: usize = 64;
/// Encoded records waiting for the writer.
const OUTPUT_QUEUE: usize = 256;
/// Stop adding waiting lines to one write beyond this size.
const WRITE_BATCH_BYTES: usize = 256 * 1024;
/// Bytes of encoded lines that may wait for the writer; a longer line waits alone.
const OUTPUT_BUDGET_BYTES: u32 = 4 * 1024 * 1024;

/// A line on its way to the writer, with its share of the output budget (given back when the
/// permit is dropped, once the line is written).
pub type Outgoing = (Vec<u8>, OwnedSemaphorePermit);

/// The two ends of the output: the session's and the writer's.
pub fn output_channel() -> (OutputSender, mpsc::Receiver<Outgoing>) {
    let (lines, receiver) = mpsc::channel::<Outgoing>(OUTPUT_QUEUE);
    let sender = OutputSender {
        lines,
        budget: Arc::new(Semaphore::new(OUTPUT_BUDGET_BYTES as usize)),
        long_in_flight: false,
    };
    (sender, receiver)
}

/// Where the session sends finished lines (each a JSON record with its LF; a large answer comes
/// as several pieces in a row, the last one ending its line).
#[derive(Debug)]
pub struct OutputSender {
    lines: mpsc::Sender<Outgoing>,
    budget: Arc<Semaphore>,
    /// The last line took the whole budget: the next record waits until it is written before
    /// it is even encoded, so that two long records are never in memory as text at once.
    long_in_flight: bool,
}

/// The writer is gone (stdout closed).
#[derive(Debug, thiserror::Error)]
#[error("the output is closed")]
pub struct OutputClosed;

impl OutputSender {
    /// Waits, after a long line, until the writer has written it.
    pub async fn ready(&mut self) -> Result<(), OutputClosed> {
        if self.long_in_flight {
            self.flushed().await
        } else {
            Ok(())
        }
    }

    /// Waits until every line queued so far is written.
    pub async fn flushed(&mut self) -> Result<(), OutputClosed> {
        self.long_in_flight = false;
        let _written = self
            .budget
            .acquire_many(OUTPUT_BUDGET_BYTES)
            .await
            .map_err(|_| OutputClosed)?;
        Ok(())
    }

    /// Queues one or more encoded lines for the writer, once the bytes already waiting leave
    /// room for them.
    pub async fn send(&mut self, line: Vec<u8>) -> Result<(), OutputClosed> {
        let weight = u32::try_from(line.len())
            .unwrap_or(u32::MAX)
            .clamp(1, OUTPUT_BUDGET_BYTES);
        self.long_in_flight = weight == OUTPUT_BUDGET_BYTES;
        let permit = Arc::clone(&self.budget)
            .acquire_many_owned(weight)
            .await
            .map_err(|_| OutputClosed)?;
        self.lines
            .send((line, permit))
            .await
            .map_err(|_| OutputClosed)
    }
}

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

/// Serves the protocol until `input` ends (or the output is closed): `serve_lines` (the actor)
/// is given the output and the input lines, and serves them. Lines already handed to the writer
/// are written before this returns.
pub async fn serve<R, W, F>(
    input: R,
    output: W,
    serve_lines: impl FnOnce(OutputSender, mpsc::Receiver<InputLine>) -> F,
) where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
    F: Future<Output = ()>,
{
    let (line_tx, line_rx) = mpsc::channel::<InputLine>(INPUT_QUEUE);
    let (out_tx, out_rx) = output_channel();
    let reader = tokio::spawn(read_lines(input, line_tx));
    let writer = tokio::spawn(write_lines(output, out_rx));
    serve_lines(out_tx, line_rx).await;
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

async fn write_lines<W: AsyncWrite + Unpin>(output: W, mut lines: mpsc::Receiver<Outgoing>) {
    let mut writer = RecordWriter::new(output);
    let mut next = None;
    loop {
        let (mut batch, permit) = match next.take() {
            Some(outgoing) => outgoing,
            None => match lines.recv().await {
                Some(outgoing) => outgoing,
                None => return,
            },
        };
        let mut permits = vec![permit];
        // Lines already waiting go out in the same write: a burst of deltas costs one write
        // system call (and, when stdout is a file or a terminal, one hop to a blocking thread).
        // A long line waits for the next write rather than being copied into this one.
        while batch.len() < WRITE_BATCH_BYTES {
            match lines.try_recv() {
                Ok((line, permit)) if line.len() > WRITE_BATCH_BYTES => {
                    next = Some((line, permit));
                    break;
                }
                Ok((line, permit)) => {
                    batch.extend_from_slice(&line);
                    permits.push(permit);
                }
                Err(_) => break,
            }
        }
        if let Err(error) = writer.write_line_bytes(&batch).await {
            tracing::warn!(%error, "cannot write stdout; stopping output");
            return;
        }
        // The written bytes leave room for more.
        drop(permits);
    }
}
