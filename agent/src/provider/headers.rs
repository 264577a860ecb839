//! The HTTP headers of a model call, from name/value pairs that the model's configuration may
//! have filled with text HTTP cannot carry.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

/// A header that cannot be sent; the call fails with this text before it is sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// A name that is not an HTTP token.
    #[error("Invalid header name: {0}")]
    Name(String),
    /// A value with characters HTTP does not allow (a line break, a control character).
    #[error("Invalid value for header {0}")]
    Value(String),
}

/// The pairs as a header map, in order: a later pair replaces an earlier one of the same name.
pub(crate) fn header_map(pairs: Vec<(String, String)>) -> Result<HeaderMap, HeaderError> {
    let mut headers = HeaderMap::new();
    for (name, value) in pairs {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| HeaderError::Name(name))?;
        let value =
            HeaderValue::from_str(&value).map_err(|_| HeaderError::Value(name.to_string()))?;
        headers.insert(name, value);
    }
    Ok(headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_pairs_replace_earlier_ones_and_bad_pairs_are_named() {
        let headers = header_map(vec![("x-a".into(), "1".into()), ("X-A".into(), "2".into())])
            .unwrap_or_default();
        assert_eq!(headers.get("x-a").map(|v| v.as_bytes()), Some(&b"2"[..]));
        assert_eq!(
            header_map(vec![("bad name".into(), "1".into())]).map_err(|error| error.to_string()),
            Err("Invalid header name: bad name".to_owned())
        );
        assert_eq!(
            header_map(vec![("x-b".into(), "line\nbreak".into())])
                .map_err(|error| error.to_string()),
            Err("Invalid value for header x-b".to_owned())
        );
    }
}
