//! A connection's socket that a scripted reset can break: I/O fails and the socket closes with
//! RST (zero linger).

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// The connection's socket; when the reset flag is set it fails I/O and closes with RST.
pub(crate) struct ConnIo {
    pub stream: TcpStream,
    pub reset: Arc<AtomicBool>,
}

impl ConnIo {
    fn check(&self) -> std::io::Result<()> {
        if self.reset.load(Ordering::SeqCst) {
            let _ = self.stream.set_zero_linger();
            return Err(std::io::ErrorKind::ConnectionReset.into());
        }
        Ok(())
    }
}

impl Drop for ConnIo {
    fn drop(&mut self) {
        if self.reset.load(Ordering::SeqCst) {
            let _ = self.stream.set_zero_linger();
        }
    }
}

impl AsyncRead for ConnIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        this.check()?;
        Pin::new(&mut this.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for ConnIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        this.check()?;
        Pin::new(&mut this.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        this.check()?;
        Pin::new(&mut this.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        this.check()?;
        Pin::new(&mut this.stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}
