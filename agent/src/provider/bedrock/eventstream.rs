//! The AWS event-stream framing of Bedrock's streamed answers, decoded as the AWS SDK decodes
//! it: messages of a big-endian total length, headers length and prelude CRC32, then headers,
//! payload and a CRC32 of the whole message, possibly split across reads. The texts of its
//! failures are the SDK's.

/// A broken event stream, in the SDK's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FramingError {
    /// A total length below the prelude and checksum sizes.
    #[error("Provided message too short to accommodate event stream message overhead")]
    TooShort,
    /// The body ended inside a message.
    #[error("Truncated event message received.")]
    Truncated,
    /// The prelude's CRC32 is not the prelude's.
    #[error(
        "The prelude checksum specified in the message ({given}) does not match the calculated CRC32 checksum ({computed})"
    )]
    PreludeChecksum { given: u32, computed: u32 },
    /// The message's CRC32 is not the message's.
    #[error("The message checksum ({computed}) did not match the expected value of {given}")]
    MessageChecksum { given: u32, computed: u32 },
    /// The headers' length runs past the payload.
    #[error("Reported message length does not match received message length")]
    LengthMismatch,
    /// A header cut short or of an unknown type.
    #[error("Event stream headers are malformed")]
    MalformedHeaders,
}

/// One decoded message: its string headers and payload.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Message {
    pub headers: Vec<(String, String)>,
    pub payload: Vec<u8>,
}

impl Message {
    /// The value of a string header.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// Cuts reads into messages.
#[derive(Debug, Default)]
pub(super) struct Decoder {
    buffer: Vec<u8>,
}

/// Prelude (two lengths and their CRC) plus the message CRC.
const OVERHEAD: usize = 16;

impl Decoder {
    /// Adds a read and returns the messages it completed, or the SDK's error for a broken one.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<Message>, FramingError> {
        self.buffer.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(length) = self.buffer.get(..4) {
            let total = u32::from_be_bytes([length[0], length[1], length[2], length[3]]) as usize;
            if total < OVERHEAD {
                return Err(FramingError::TooShort);
            }
            if self.buffer.len() < total {
                break;
            }
            let rest = self.buffer.split_off(total);
            let message = std::mem::replace(&mut self.buffer, rest);
            out.push(decode(&message)?);
        }
        Ok(out)
    }

    /// The body ended: an incomplete message left over is the SDK's truncation error.
    pub fn finish(&self) -> Result<(), FramingError> {
        if self.buffer.is_empty() {
            Ok(())
        } else {
            Err(FramingError::Truncated)
        }
    }
}

fn be32(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_be_bytes(word)
}

/// Decodes one whole message, checking both checksums.
fn decode(bytes: &[u8]) -> Result<Message, FramingError> {
    let total = bytes.len();
    let headers_len = be32(bytes, 4) as usize;
    let prelude_crc = be32(bytes, 8);
    let computed = crc32fast::hash(&bytes[..8]);
    if prelude_crc != computed {
        return Err(FramingError::PreludeChecksum {
            given: prelude_crc,
            computed,
        });
    }
    let message_crc = be32(bytes, total - 4);
    let computed = crc32fast::hash(&bytes[..total - 4]);
    if message_crc != computed {
        return Err(FramingError::MessageChecksum {
            given: message_crc,
            computed,
        });
    }
    let headers_end = 12 + headers_len;
    if headers_end > total - 4 {
        return Err(FramingError::LengthMismatch);
    }
    let headers = decode_headers(&bytes[12..headers_end])?;
    Ok(Message {
        headers,
        payload: bytes[headers_end..total - 4].to_vec(),
    })
}

/// The headers; values of other types than strings are skipped (Bedrock sends strings only).
fn decode_headers(mut bytes: &[u8]) -> Result<Vec<(String, String)>, FramingError> {
    let broken = || FramingError::MalformedHeaders;
    let mut out = Vec::new();
    while let Some((&name_len, rest)) = bytes.split_first() {
        let name_len = name_len as usize;
        let name = rest.get(..name_len).ok_or_else(broken)?;
        let name = String::from_utf8_lossy(name).into_owned();
        let rest = &rest[name_len..];
        let (&kind, rest) = rest.split_first().ok_or_else(broken)?;
        let (value, rest) = match kind {
            0 | 1 => (None, rest),
            2 => (None, rest.get(1..).ok_or_else(broken)?),
            3 => (None, rest.get(2..).ok_or_else(broken)?),
            4 => (None, rest.get(4..).ok_or_else(broken)?),
            5 | 8 => (None, rest.get(8..).ok_or_else(broken)?),
            9 => (None, rest.get(16..).ok_or_else(broken)?),
            6 | 7 => {
                let len = rest.get(..2).ok_or_else(broken)?;
                let len = u16::from_be_bytes([len[0], len[1]]) as usize;
                let value = rest.get(2..2 + len).ok_or_else(broken)?;
                let text = (kind == 7).then(|| String::from_utf8_lossy(value).into_owned());
                (text, &rest[2 + len..])
            }
            _ => return Err(broken()),
        };
        if let Some(value) = value {
            out.push((name, value));
        }
        bytes = rest;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Encodes a message as Bedrock does (string headers).
    fn encode(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
        let mut header_bytes = Vec::new();
        for (name, value) in headers {
            header_bytes.push(name.len() as u8);
            header_bytes.extend_from_slice(name.as_bytes());
            header_bytes.push(7);
            header_bytes.extend_from_slice(&(value.len() as u16).to_be_bytes());
            header_bytes.extend_from_slice(value.as_bytes());
        }
        let total = 16 + header_bytes.len() + payload.len();
        let mut out = (total as u32).to_be_bytes().to_vec();
        out.extend_from_slice(&(header_bytes.len() as u32).to_be_bytes());
        out.extend_from_slice(&crc32fast::hash(&out).to_be_bytes());
        out.extend_from_slice(&header_bytes);
        out.extend_from_slice(payload);
        out.extend_from_slice(&crc32fast::hash(&out).to_be_bytes());
        out
    }

    #[test]
    fn messages_split_anywhere_come_out_whole() {
        let one = encode(
            &[(":event-type", "messageStart")],
            br#"{"role":"assistant"}"#,
        );
        let two = encode(
            &[(":event-type", "messageStop")],
            br#"{"stopReason":"end_turn"}"#,
        );
        let stream = [one.clone(), two].concat();
        let mut decoder = Decoder::default();
        let mut messages = Vec::new();
        for byte in &stream {
            messages.extend(decoder.feed(std::slice::from_ref(byte)).unwrap());
        }
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0].header(":event-type"), Some("messageStart"));
        assert_eq!(messages[1].payload, br#"{"stopReason":"end_turn"}"#);
        assert_eq!(decoder.finish(), Ok(()));
        let mut partial = Decoder::default();
        assert!(partial.feed(&one[..10]).unwrap().is_empty());
        assert_eq!(partial.finish(), Err(FramingError::Truncated));
        assert_eq!(
            FramingError::Truncated.to_string(),
            "Truncated event message received."
        );
    }

    #[test]
    fn a_bad_checksum_is_refused_with_the_sdk_s_words() {
        let mut message = encode(&[(":event-type", "x")], b"{}");
        let last = message.len() - 1;
        message[last] ^= 1;
        let error = Decoder::default().feed(&message).unwrap_err().to_string();
        assert!(
            error.starts_with("The message checksum (") && error.contains("did not match"),
            "{error}"
        );
        let mut message = encode(&[], b"");
        message[9] ^= 1;
        let error = Decoder::default().feed(&message).unwrap_err().to_string();
        assert!(error.starts_with("The prelude checksum specified in the message ("));
    }
}
