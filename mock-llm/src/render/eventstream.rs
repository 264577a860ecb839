//! The AWS event-stream binary framing (`application/vnd.amazon.eventstream`) that Bedrock's
//! streaming operations use.
//!
//! A message is: total length (u32, big-endian), headers length (u32), the CRC32 of those
//! eight bytes (the prelude CRC), the headers, the payload, and the CRC32 of everything before
//! it (the message CRC). A header is a one-byte name length, the name, a one-byte value type
//! (7: string) and, for a string, a two-byte length and the bytes.

use serde_json::Value;

use crate::script::{BadCrc, RawFrame};

/// Header value type: UTF-8 string.
const STRING: u8 = 7;

/// Encodes one message with string headers.
pub(crate) fn encode(headers: &[(&str, &str)], payload: &[u8], bad: Option<BadCrc>) -> Vec<u8> {
    let mut header_bytes = Vec::new();
    for (name, value) in headers {
        let name = &name.as_bytes()[..name.len().min(255)];
        let value = &value.as_bytes()[..value.len().min(u16::MAX as usize)];
        header_bytes.push(name.len() as u8);
        header_bytes.extend_from_slice(name);
        header_bytes.push(STRING);
        header_bytes.extend_from_slice(&(value.len() as u16).to_be_bytes());
        header_bytes.extend_from_slice(value);
    }
    let total = 12 + header_bytes.len() + payload.len() + 4;
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&(total as u32).to_be_bytes());
    out.extend_from_slice(&(header_bytes.len() as u32).to_be_bytes());
    let mut prelude_crc = crc32fast::hash(&out);
    if bad == Some(BadCrc::Prelude) {
        prelude_crc ^= 0xffff_ffff;
    }
    out.extend_from_slice(&prelude_crc.to_be_bytes());
    out.extend_from_slice(&header_bytes);
    out.extend_from_slice(payload);
    let mut message_crc = crc32fast::hash(&out);
    if bad == Some(BadCrc::Message) {
        message_crc ^= 0xffff_ffff;
    }
    out.extend_from_slice(&message_crc.to_be_bytes());
    out
}

/// An `event` message of type `event_type` with a JSON payload.
pub(crate) fn event(event_type: &str, json: &str, bad: Option<BadCrc>) -> Vec<u8> {
    encode(
        &[
            (":event-type", event_type),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        json.as_bytes(),
        bad,
    )
}

/// An `exception` message (a modelled error such as `throttlingException`) with a JSON
/// payload.
pub(crate) fn exception(exception_type: &str, json: &str, bad: Option<BadCrc>) -> Vec<u8> {
    encode(
        &[
            (":exception-type", exception_type),
            (":content-type", "application/json"),
            (":message-type", "exception"),
        ],
        json.as_bytes(),
        bad,
    )
}

/// An `error` message (an unmodelled error: code and message in headers, no payload).
pub(crate) fn error(code: &str, message: &str, bad: Option<BadCrc>) -> Vec<u8> {
    encode(
        &[
            (":error-code", code),
            (":error-message", message),
            (":message-type", "error"),
        ],
        b"",
        bad,
    )
}

/// The message a raw body's `frame` item describes.
pub(crate) fn raw_frame(frame: &RawFrame) -> Vec<u8> {
    let payload = match &frame.data {
        None => String::new(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    };
    if let Some(event_type) = &frame.event {
        event(event_type, &payload, frame.bad_crc)
    } else if let Some(exception_type) = &frame.exception {
        exception(exception_type, &payload, frame.bad_crc)
    } else {
        let code = frame.error.as_deref().unwrap_or_default();
        let message = frame.message.as_deref().unwrap_or_default();
        error(code, message, frame.bad_crc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_message_matches_the_reference_encoding() {
        // The AWS event-stream specification's example of a message without headers or payload.
        let bytes = encode(&[], b"", None);
        assert_eq!(
            bytes,
            [
                0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x05, 0xc2, 0x48, 0xeb, 0x7d, 0x98,
                0xc8, 0xff
            ]
        );
    }

    #[test]
    fn lengths_and_checksums_cover_headers_and_payload() {
        let bytes = event("messageStart", r#"{"role":"assistant"}"#, None);
        let total = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize;
        assert_eq!(total, bytes.len());
        let crc = u32::from_be_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
        assert_eq!(crc, crc32fast::hash(&bytes[..8]));
        let end = bytes.len() - 4;
        let message_crc =
            u32::from_be_bytes([bytes[end], bytes[end + 1], bytes[end + 2], bytes[end + 3]]);
        assert_eq!(message_crc, crc32fast::hash(&bytes[..end]));
        let spoiled = event(
            "messageStart",
            r#"{"role":"assistant"}"#,
            Some(BadCrc::Message),
        );
        assert_ne!(spoiled[end..], bytes[end..]);
        assert_eq!(spoiled[..end], bytes[..end]);
    }
}
