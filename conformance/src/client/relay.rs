//! `pi-conformance relay ADDRESS TOKEN [pi flags...]`: the agent process a client under test
//! starts. It connects to the runner, passes the client's stdin on, and writes exactly what the
//! runner sends, one write per frame, on its stdout and stderr; it exits when told to.
//!
//! It does no work of its own, so that everything the client sees is decided, timed and logged in
//! the runner. pi's own flags after the token are accepted and ignored.

use std::fs::File;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex, PoisonError};

use super::wire::{self, Deframer};

/// Runs the relay; returns the exit code (when the runner goes away without saying).
pub fn main(address: &str, token: &str) -> i32 {
    match relay(address, token) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("pi-conformance relay: {err}");
            2
        }
    }
}

fn relay(address: &str, token: &str) -> std::io::Result<i32> {
    let mut socket = TcpStream::connect(address)?;
    socket.set_nodelay(true)?;
    socket.write_all(format!("{token}\n").as_bytes())?;
    let sender = Arc::new(Mutex::new(socket.try_clone()?));
    let stdin_sender = Arc::clone(&sender);
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let frame = match stdin.read(&mut buf) {
                Ok(0) | Err(_) => wire::frame(wire::STDIN_END, b""),
                Ok(n) => wire::frame(wire::STDIN, &buf[..n]),
            };
            let end = frame[0] == wire::STDIN_END;
            let sent = stdin_sender
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .write_all(&frame);
            if end || sent.is_err() {
                return;
            }
        }
    });
    let mut stdout = raw(std::io::stdout())?;
    let mut stderr = raw(std::io::stderr())?;
    let mut deframer = Deframer::default();
    let mut buf = vec![0u8; 256 * 1024];
    let mut seq: u64 = 0;
    loop {
        let n = socket.read(&mut buf)?;
        if n == 0 {
            return Ok(0);
        }
        for (tag, payload) in deframer.push(&buf[..n]) {
            let written = match tag {
                wire::STDOUT => stdout.write_all(&payload).and_then(|()| stdout.flush()),
                wire::STDERR => stderr.write_all(&payload).and_then(|()| stderr.flush()),
                wire::EXIT => {
                    let mut code = [0u8; 4];
                    if payload.len() == 4 {
                        code.copy_from_slice(&payload);
                    }
                    return Ok(i32::from_be_bytes(code));
                }
                _ => continue,
            };
            if written.is_err() {
                // The client closed its end of the pipe, as it may when it stops the agent.
                return Ok(0);
            }
            seq += 1;
            sender
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .write_all(&wire::frame(wire::ACK, &seq.to_be_bytes()))?;
        }
    }
}

/// A writer on the stream's file descriptor itself, unbuffered: one frame, one write (Rust's
/// `Stdout` is line-buffered and would cut a frame at its LF).
#[cfg(unix)]
fn raw(stream: impl std::os::fd::AsFd) -> std::io::Result<File> {
    Ok(File::from(stream.as_fd().try_clone_to_owned()?))
}

#[cfg(windows)]
fn raw(stream: impl std::os::windows::io::AsHandle) -> std::io::Result<File> {
    Ok(File::from(stream.as_handle().try_clone_to_owned()?))
}
