//! Checks a script beyond what its types say: one kind of response and of content item each,
//! options that fit the response, valid patterns and hex.

use super::{RawChunk, Script};
use crate::error::{Error, Result};

impl Script {
    pub(crate) fn validate(&self) -> Result<()> {
        let origin = &self.origin;
        for (index, response) in self.responses.iter().enumerate() {
            let at = format!("{origin}: responses[{index}]");
            let kinds = [
                ("text", response.text.is_some()),
                ("content", response.content.is_some()),
                ("error", response.error.is_some()),
                ("raw", response.raw.is_some()),
            ];
            let set: Vec<&str> = kinds
                .iter()
                .filter(|(_, on)| *on)
                .map(|(k, _)| *k)
                .collect();
            if set.len() != 1 {
                let hint = if set.is_empty() && response.gate.is_some() {
                    "; a response-level `gate` holds the headers of that response's body, a gate \
                     inside a stream is a `content` item `- gate: NAME`"
                } else {
                    ""
                };
                return Err(Error::Script(format!(
                    "{at}: needs exactly one of text, content, error, raw or quirk (found {}){hint}",
                    if set.is_empty() {
                        "none".to_owned()
                    } else {
                        set.join(", ")
                    }
                )));
            }
            if response.error.is_some()
                && (response.fault.is_some()
                    || response.framing.is_some()
                    || response.chunk_delay_ms.is_some()
                    || response.tokens_per_second.is_some())
            {
                return Err(Error::Script(format!(
                    "{at}: `fault`, `framing`, `chunk_delay_ms` and `tokens_per_second` apply to streamed bodies, not to `error`"
                )));
            }
            if response.raw.is_some() && response.framing.is_some() {
                return Err(Error::Script(format!(
                    "{at}: `framing` applies to rendered content; a `raw` body is written as given"
                )));
            }
            if let Some(pattern) = response
                .matcher
                .as_ref()
                .and_then(|m| m.last_message_pattern.as_ref())
            {
                regex::Regex::new(pattern).map_err(|err| {
                    Error::Script(format!("{at}.match.last_message_pattern: {err}"))
                })?;
            }
            if let Some(tps) = response.tokens_per_second
                && (tps.is_nan() || tps <= 0.0)
            {
                return Err(Error::Script(format!("{at}.tokens_per_second must be > 0")));
            }
            for (item_index, item) in response.content.iter().flatten().enumerate() {
                let kinds = [
                    ("text", item.text.is_some()),
                    ("thinking", item.thinking.is_some()),
                    ("redacted_thinking", item.redacted_thinking.is_some()),
                    ("tool_call", item.tool_call.is_some()),
                    ("gate", item.gate.is_some()),
                    ("pause_ms", item.pause_ms.is_some()),
                ];
                let set: Vec<&str> = kinds
                    .iter()
                    .filter(|(_, on)| *on)
                    .map(|(k, _)| *k)
                    .collect();
                if set.len() != 1 {
                    return Err(Error::Script(format!(
                        "{at}.content[{item_index}]: needs exactly one of text, thinking, redacted_thinking, tool_call, gate or pause_ms (found {})",
                        if set.is_empty() {
                            "none".to_owned()
                        } else {
                            set.join(", ")
                        }
                    )));
                }
                if item.signature.is_some() && item.thinking.is_none() {
                    return Err(Error::Script(format!(
                        "{at}.content[{item_index}]: `signature` belongs to a `thinking` item"
                    )));
                }
                if let Some(call) = &item.tool_call {
                    let forms = usize::from(call.arguments.is_some())
                        + usize::from(call.arguments_raw.is_some())
                        + usize::from(call.argument_chunks.is_some());
                    if forms > 1 {
                        return Err(Error::Script(format!(
                            "{at}.content[{item_index}].tool_call: give only one of arguments, arguments_raw, argument_chunks"
                        )));
                    }
                }
            }
            for (chunk_index, chunk) in response
                .raw
                .iter()
                .flat_map(|r| r.chunks.iter())
                .enumerate()
            {
                if let RawChunk::Item(item) = chunk {
                    let count = usize::from(item.text.is_some())
                        + usize::from(item.hex.is_some())
                        + usize::from(item.data.is_some())
                        + usize::from(item.frame.is_some())
                        + usize::from(item.gate.is_some())
                        + usize::from(item.pause_ms.is_some());
                    if count != 1 || (item.event.is_some() && item.data.is_none()) {
                        return Err(Error::Script(format!(
                            "{at}.raw.chunks[{chunk_index}]: needs exactly one of text, hex, data (with optional event), frame, gate or pause_ms"
                        )));
                    }
                    if let Some(frame) = &item.frame {
                        let kinds = usize::from(frame.event.is_some())
                            + usize::from(frame.exception.is_some())
                            + usize::from(frame.error.is_some());
                        if kinds != 1 || (frame.error.is_some() && frame.data.is_some()) {
                            return Err(Error::Script(format!(
                                "{at}.raw.chunks[{chunk_index}].frame: needs exactly one of event, exception or error (an error takes `message`, not `data`)"
                            )));
                        }
                    }
                    if let Some(hex) = &item.hex {
                        decode_hex(hex).map_err(|err| {
                            Error::Script(format!("{at}.raw.chunks[{chunk_index}].hex: {err}"))
                        })?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Why a raw chunk's `hex` is not hexadecimal.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum HexError {
    /// The digits do not pair up.
    #[error("odd number of hex digits")]
    OddDigits,
    /// A pair of digits is not UTF-8 text.
    #[error(transparent)]
    NotText(#[from] std::str::Utf8Error),
    /// A pair of digits is not a hex byte.
    #[error("`{0}` is not a hex byte")]
    NotHexByte(String),
}

/// Decodes hexadecimal text (whitespace ignored).
pub(crate) fn decode_hex(text: &str) -> std::result::Result<Vec<u8>, HexError> {
    let digits: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return Err(HexError::OddDigits);
    }
    digits
        .chunks(2)
        .map(|pair| {
            let s = std::str::from_utf8(pair)?;
            u8::from_str_radix(s, 16).map_err(|_| HexError::NotHexByte(s.to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_decoded_or_refused_with_a_sentence() {
        assert_eq!(decode_hex("0a ff"), Ok(vec![0x0a, 0xff]));
        assert_eq!(decode_hex("f"), Err(HexError::OddDigits));
        assert_eq!(
            decode_hex("zz").unwrap_err().to_string(),
            "`zz` is not a hex byte"
        );
    }
}
