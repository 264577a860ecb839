//! The RPC mode's stdin and stdout. A pipe or a socket (what a client that spawns the agent
//! gives it: Rust and Python clients pass pipes, Node's `child_process` UNIX sockets) is read
//! and written through the runtime's own event loop, non-blocking; anything else (a terminal, a
//! file, `/dev/null`) through tokio's blocking threads, which every read and write then crosses.
//!
//! The event loop saves a thread hop per write (a burst of deltas is one write) and the threads
//! themselves (each with its own allocator arena): a start-up that does less and an idle
//! process that holds less. `O_NONBLOCK` belongs to the open file, which the client's end does
//! not share; the flags stdin and stdout had are put back when [`Stdio`] is dropped, for
//! whatever writes to them after the protocol ends.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::FileTypeExt;

use rustix::fs::OFlags;
use tokio::io::{AsyncRead, AsyncWrite};

/// What reads stdin.
pub type Input = Box<dyn AsyncRead + Unpin + Send>;
/// What writes stdout.
pub type Output = Box<dyn AsyncWrite + Unpin + Send>;

/// Opens stdin and stdout for the protocol and keeps the file flags to restore.
#[derive(Default)]
pub struct Stdio {
    /// The descriptors made non-blocking, with the flags they had.
    restore: Vec<(OwnedFd, OFlags)>,
}

impl Stdio {
    /// Nothing opened yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// A reader of stdin (inside the runtime).
    pub fn input(&mut self) -> Input {
        let blocking = || -> Input { Box::new(tokio::io::stdin()) };
        match event_loop_fd(std::io::stdin().as_fd(), &mut self.restore) {
            Some(Kind::Pipe(fd)) => tokio::net::unix::pipe::Receiver::from_owned_fd(fd)
                .map_or_else(|_| blocking(), |pipe| Box::new(pipe)),
            Some(Kind::Socket(fd)) => {
                unix_stream(fd).map_or_else(blocking, |socket| Box::new(socket))
            }
            None => blocking(),
        }
    }

    /// A writer of stdout (inside the runtime).
    pub fn output(&mut self) -> Output {
        let blocking = || -> Output { Box::new(tokio::io::stdout()) };
        match event_loop_fd(std::io::stdout().as_fd(), &mut self.restore) {
            Some(Kind::Pipe(fd)) => tokio::net::unix::pipe::Sender::from_owned_fd(fd)
                .map_or_else(|_| blocking(), |pipe| Box::new(pipe)),
            Some(Kind::Socket(fd)) => {
                unix_stream(fd).map_or_else(blocking, |socket| Box::new(socket))
            }
            None => blocking(),
        }
    }
}

impl Drop for Stdio {
    fn drop(&mut self) {
        for (fd, flags) in &self.restore {
            let _ = rustix::fs::fcntl_setfl(fd, *flags);
        }
    }
}

/// A descriptor the event loop can wait on: a copy of stdin's or stdout's.
enum Kind {
    Pipe(OwnedFd),
    Socket(OwnedFd),
}

/// A copy of `fd` when it is a pipe or a socket, with its flags noted in `restore` (the copy
/// shares the open file, so the runtime making it non-blocking is undone through the note).
fn event_loop_fd(fd: BorrowedFd<'_>, restore: &mut Vec<(OwnedFd, OFlags)>) -> Option<Kind> {
    let copy = fd.try_clone_to_owned().ok()?;
    let kind = std::fs::File::from(copy.try_clone().ok()?)
        .metadata()
        .ok()?
        .file_type();
    let flags = rustix::fs::fcntl_getfl(&copy).ok()?;
    let kind = if kind.is_fifo() {
        Kind::Pipe(copy)
    } else if kind.is_socket() {
        Kind::Socket(copy)
    } else {
        return None;
    };
    restore.push((fd.try_clone_to_owned().ok()?, flags));
    Some(kind)
}

/// A socket end as a non-blocking stream of the runtime.
fn unix_stream(fd: OwnedFd) -> Option<tokio::net::UnixStream> {
    let socket = std::os::unix::net::UnixStream::from(fd);
    socket.set_nonblocking(true).ok()?;
    tokio::net::UnixStream::from_std(socket).ok()
}
