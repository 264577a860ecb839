//! One stand-in session over a relay connection: the client's stdin (from the relay) is matched
//! by the stand-in ([`crate::standin::serve`]) against the scenario's send steps; what the
//! stand-in writes goes through the [`Delivery`] to the relay; the relay's acknowledgements mark
//! what the client's pipes took.

use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::net::tcp::OwnedReadHalf;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio::time::Instant as Deadline;

use super::deliver::Delivery;
use super::log::Log;
use super::wire::{self, Deframer};
use crate::scenario::Departure;
use crate::standin::{self, Report, Script, ServeOptions, Timing};

/// Room in the pipes between the tasks of a session.
const PIPE_BYTES: usize = 1 << 20;

/// A running session.
pub struct Session {
    report: JoinHandle<std::io::Result<Report>>,
}

impl Session {
    /// Waits (until `deadline`) for the stand-in to finish: the client closed the agent's stdin,
    /// or the relay went away. `None` when it did not finish in time.
    pub async fn report(self, deadline: Deadline) -> Option<std::io::Result<Report>> {
        match tokio::time::timeout_at(deadline, self.report).await {
            Ok(Ok(report)) => Some(report),
            Ok(Err(join)) => Some(Err(std::io::Error::other(join.to_string()))),
            Err(_) => None,
        }
    }
}

/// Accepts the relay's connection (the first one that gives `token`) until `deadline`.
pub async fn accept(
    listener: &TcpListener,
    token: &str,
    deadline: Deadline,
) -> Option<(BufReader<OwnedReadHalf>, tokio::net::tcp::OwnedWriteHalf)> {
    loop {
        let (stream, _) = tokio::time::timeout_at(deadline, listener.accept())
            .await
            .ok()?
            .ok()?;
        if let Some(halves) = handshake(stream, token, deadline).await {
            return Some(halves);
        }
    }
}

async fn handshake(
    stream: TcpStream,
    token: &str,
    deadline: Deadline,
) -> Option<(BufReader<OwnedReadHalf>, tokio::net::tcp::OwnedWriteHalf)> {
    stream.set_nodelay(true).ok()?;
    let (read, write) = stream.into_split();
    let mut read = BufReader::new(read);
    let mut line = String::new();
    tokio::time::timeout_at(deadline, read.read_line(&mut line))
        .await
        .ok()?
        .ok()?;
    (line.trim_end() == token).then_some((read, write))
}

/// Starts serving `script` over the relay's connection, with the departures applied.
pub fn start(
    relay: (BufReader<OwnedReadHalf>, tokio::net::tcp::OwnedWriteHalf),
    script: Script,
    departures: &[Departure],
    log: Arc<Mutex<Log>>,
) -> Session {
    let (read, write) = relay;
    log.lock().unwrap_or_else(PoisonError::into_inner).connected = true;
    let (client_stdin, serve_input) = tokio::io::duplex(PIPE_BYTES);
    let (serve_output, delivery_input) = tokio::io::duplex(PIPE_BYTES);
    tokio::spawn(pump(read, client_stdin, Arc::clone(&log)));
    let delivery = Delivery::new(departures, Arc::clone(&log), write);
    tokio::spawn(async move {
        if let Err(err) = delivery.run(delivery_input).await {
            tracing::debug!("delivery to the relay ended: {err}");
        }
    });
    let report = tokio::spawn(async move {
        let options = ServeOptions {
            timing: Timing::None,
            keep_open: true,
        };
        standin::serve(&script, BufReader::new(serve_input), serve_output, options).await
    });
    Session { report }
}

/// Reads the relay's frames: the client's stdin goes to the stand-in, acknowledgements to the
/// log. The stand-in's input ends when the client closes the agent's stdin or the relay goes.
async fn pump(mut relay: BufReader<OwnedReadHalf>, mut stdin: DuplexStream, log: Arc<Mutex<Log>>) {
    let lock = || log.lock().unwrap_or_else(PoisonError::into_inner);
    let mut deframer = Deframer::default();
    let mut buf = vec![0u8; 64 * 1024];
    let mut open = true;
    loop {
        let n = match relay.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        for (tag, payload) in deframer.push(&buf[..n]) {
            match tag {
                wire::STDIN if open => {
                    lock().client_wrote(&payload);
                    open = stdin.write_all(&payload).await.is_ok();
                }
                wire::STDIN_END if open => {
                    let _ = stdin.shutdown().await;
                    open = false;
                }
                wire::ACK if payload.len() == 8 => {
                    let mut seq = [0u8; 8];
                    seq.copy_from_slice(&payload);
                    lock().acked = u64::from_be_bytes(seq);
                }
                _ => {}
            }
        }
    }
    if open {
        let _ = stdin.shutdown().await;
    }
}
