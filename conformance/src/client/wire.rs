//! The frames between the runner and the relay (the agent process a client starts).
//!
//! The relay connects to the runner on 127.0.0.1, writes the session's token and an LF, then both
//! sides exchange frames: one tag byte, a big-endian `u32` length, the payload.

/// Relay to runner: bytes the client wrote on the agent's stdin.
pub const STDIN: u8 = b'i';
/// Relay to runner: the client closed the agent's stdin (no payload).
pub const STDIN_END: u8 = b'e';
/// Relay to runner: the frame with this sequence number (`u64`, counting [`STDOUT`] and
/// [`STDERR`] frames from 1) has been written to the client's pipe.
pub const ACK: u8 = b'a';
/// Runner to relay: bytes to write on stdout, in one write.
pub const STDOUT: u8 = b'o';
/// Runner to relay: bytes to write on stderr.
pub const STDERR: u8 = b'r';
/// Runner to relay: exit with this code (`i32`).
pub const EXIT: u8 = b'x';

/// The largest payload of one frame; longer writes are cut into several frames.
pub const MAX_PAYLOAD: usize = 1 << 20;

/// One frame's bytes.
pub fn frame(tag: u8, payload: &[u8]) -> Vec<u8> {
    let len = u32::try_from(payload.len()).unwrap_or(u32::MAX);
    let mut bytes = Vec::with_capacity(payload.len() + 5);
    bytes.push(tag);
    bytes.extend_from_slice(&len.to_be_bytes());
    bytes.extend_from_slice(&payload[..len as usize]);
    bytes
}

/// Reads frames from a byte stream in any chunking.
#[derive(Debug, Default)]
pub struct Deframer {
    buffer: Vec<u8>,
}

impl Deframer {
    /// Feeds bytes; returns the complete frames.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<(u8, Vec<u8>)> {
        self.buffer.extend_from_slice(bytes);
        let mut frames = Vec::new();
        let mut at = 0;
        while self.buffer.len() - at >= 5 {
            let mut len = [0u8; 4];
            len.copy_from_slice(&self.buffer[at + 1..at + 5]);
            let len = u32::from_be_bytes(len) as usize;
            if self.buffer.len() - at - 5 < len {
                break;
            }
            frames.push((self.buffer[at], self.buffer[at + 5..at + 5 + len].to_vec()));
            at += 5 + len;
        }
        self.buffer.drain(..at);
        frames
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_survive_any_chunking() {
        let mut bytes = frame(STDOUT, b"hello\n");
        bytes.extend(frame(EXIT, &3i32.to_be_bytes()));
        bytes.extend(frame(STDIN_END, b""));
        let mut deframer = Deframer::default();
        let mut frames = Vec::new();
        for byte in &bytes {
            frames.extend(deframer.push(std::slice::from_ref(byte)));
        }
        assert_eq!(
            frames,
            vec![
                (STDOUT, b"hello\n".to_vec()),
                (EXIT, 3i32.to_be_bytes().to_vec()),
                (STDIN_END, Vec::new())
            ]
        );
    }
}
