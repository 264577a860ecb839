//! AWS Signature Version 4, as the AWS SDK signs a Bedrock request: the canonical request
//! (method, the path's segments escaped once more, sorted query, lower-case sorted headers,
//! the payload's SHA-256), the string to sign for `<date>/<region>/<service>/aws4_request`, and
//! the HMAC-SHA256 key chain from the secret key.

use ring::{digest, hmac};

/// Credentials that sign requests.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Credentials {
    pub access_key_id: String,
    pub secret_access_key: String,
    pub session_token: Option<String>,
}

/// A request to sign.
pub(super) struct Unsigned<'a> {
    pub method: &'a str,
    /// The path as sent (already percent-encoded).
    pub path: &'a str,
    /// The query as sent, without `?`.
    pub query: &'a str,
    /// Headers to sign, names in any case (`host` included).
    pub headers: &'a [(String, String)],
    /// The payload's SHA-256, in hex ([`sha256_hex`]).
    pub payload_hash: &'a str,
}

/// Lower-case hex.
pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of `bytes` in hex.
pub(super) fn sha256_hex(bytes: &[u8]) -> String {
    hex(digest::digest(&digest::SHA256, bytes).as_ref())
}

/// A SHA-256 fed in pieces.
pub(super) struct Digest(digest::Context);

impl Default for Digest {
    fn default() -> Self {
        Self(digest::Context::new(&digest::SHA256))
    }
}

impl Digest {
    pub(super) fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The digest in hex, as [`sha256_hex`] gives it.
    pub(super) fn finish_hex(self) -> String {
        hex(self.0.finish().as_ref())
    }
}

fn hmac_sha256(key: &[u8], data: &[u8]) -> Vec<u8> {
    let key = hmac::Key::new(hmac::HMAC_SHA256, key);
    hmac::sign(&key, data).as_ref().to_vec()
}

/// URI-encodes as SigV4 does: unreserved characters stay, everything else is `%XX`.
fn uri_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The `Authorization` header for `request` at `amz_date` (`yyyymmddThhmmssZ`).
pub(super) fn authorization(
    request: &Unsigned<'_>,
    credentials: &Credentials,
    region: &str,
    service: &str,
    amz_date: &str,
) -> String {
    let canonical_path: Vec<String> = request.path.split('/').map(uri_encode).collect();
    let mut query: Vec<&str> = request.query.split('&').filter(|p| !p.is_empty()).collect();
    query.sort_unstable();
    let mut headers: Vec<(String, String)> = request
        .headers
        .iter()
        .map(|(name, value)| {
            let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
            (name.to_ascii_lowercase(), value)
        })
        .collect();
    headers.sort();
    let signed: Vec<&str> = headers.iter().map(|(name, _)| name.as_str()).collect();
    let signed = signed.join(";");
    let canonical_headers: String = headers
        .iter()
        .map(|(name, value)| format!("{name}:{value}\n"))
        .collect();
    let canonical = format!(
        "{}\n{}\n{}\n{canonical_headers}\n{signed}\n{}",
        request.method,
        canonical_path.join("/"),
        query.join("&"),
        request.payload_hash
    );
    let date = &amz_date[..8];
    let scope = format!("{date}/{region}/{service}/aws4_request");
    let to_sign = format!(
        "AWS4-HMAC-SHA256\n{amz_date}\n{scope}\n{}",
        sha256_hex(canonical.as_bytes())
    );
    let key = hmac_sha256(
        format!("AWS4{}", credentials.secret_access_key).as_bytes(),
        date.as_bytes(),
    );
    let key = hmac_sha256(&key, region.as_bytes());
    let key = hmac_sha256(&key, service.as_bytes());
    let key = hmac_sha256(&key, b"aws4_request");
    let signature = hex(&hmac_sha256(&key, to_sign.as_bytes()));
    format!(
        "AWS4-HMAC-SHA256 Credential={}/{scope}, SignedHeaders={signed}, Signature={signature}",
        credentials.access_key_id
    )
}

/// `yyyymmddThhmmssZ` for milliseconds since the epoch.
pub(super) fn amz_date(millis: i64) -> String {
    let iso = crate::js::date::format_iso(millis);
    // `YYYY-MM-DDTHH:MM:SS.mmmZ` without separators and fraction.
    let mut out: String = iso[..19]
        .chars()
        .filter(|c| *c != '-' && *c != ':')
        .collect();
    out.push('Z');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_aws_test_suite_s_get_vanilla_signs_alike() {
        let credentials = Credentials {
            access_key_id: "AKIDEXAMPLE".into(),
            secret_access_key: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY".into(),
            session_token: None,
        };
        let headers = [
            ("Host".to_owned(), "example.amazonaws.com".to_owned()),
            ("X-Amz-Date".to_owned(), "20150830T123600Z".to_owned()),
        ];
        let request = Unsigned {
            method: "GET",
            path: "/",
            query: "",
            headers: &headers,
            payload_hash: &sha256_hex(b""),
        };
        assert_eq!(
            authorization(
                &request,
                &credentials,
                "us-east-1",
                "service",
                "20150830T123600Z"
            ),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"
        );
    }

    #[test]
    fn dates_are_compact_utc() {
        assert_eq!(amz_date(1_440_938_160_000), "20150830T123600Z");
    }
}
