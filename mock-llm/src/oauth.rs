//! OAuth token endpoints, so that clients that exchange credentials for access tokens can do
//! so on loopback: Google's (`POST /token`, also `/v1/oauthtoken`: a service account's signed
//! JWT assertion, or a refresh token) and OpenAI's ChatGPT login (`POST /oauth/token`: a
//! refresh token). They are answered by the server itself, not by the script; each is
//! journaled, and the access tokens they issue are not redacted in the journal (they are the
//! mock's own), so a test can see which token a provider request carried.

use std::collections::BTreeMap;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};

/// The account id in the ChatGPT access tokens the server issues.
pub const CHATGPT_ACCOUNT_ID: &str = "mock-chatgpt-account";

/// A refresh token that every endpoint refuses, to reproduce a revoked login.
pub const REVOKED_REFRESH_TOKEN: &str = "revoked";

/// Which token endpoint a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Endpoint {
    /// Google's OAuth 2.0 token endpoint.
    Google,
    /// OpenAI's (auth.openai.com) token endpoint.
    OpenAi,
}

impl Endpoint {
    /// The endpoint at `path`, if it is one.
    pub fn of(path: &str) -> Option<Endpoint> {
        match path {
            "/token" | "/v1/oauthtoken" => Some(Endpoint::Google),
            "/oauth/token" => Some(Endpoint::OpenAi),
            _ => None,
        }
    }

    /// The name the journal gives the endpoint's requests in `format`.
    pub fn journal_name(self) -> &'static str {
        match self {
            Endpoint::Google => "google-oauth-token",
            Endpoint::OpenAi => "openai-oauth-token",
        }
    }
}

/// The answer of a token endpoint: status and JSON body; `issued` is the access token it
/// hands out, if any.
pub(crate) struct Answer {
    pub status: u16,
    pub body: Value,
    pub issued: Option<String>,
}

/// Reads a form body (or a JSON object, which OpenAI's endpoint also takes).
fn fields(body: &[u8]) -> BTreeMap<String, String> {
    if let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(body) {
        return map
            .into_iter()
            .filter_map(|(k, v)| v.as_str().map(|v| (k, v.to_owned())))
            .collect();
    }
    String::from_utf8_lossy(body)
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (form_decode(k), form_decode(v)))
        .collect()
}

fn form_decode(text: &str) -> String {
    let text = text.replace('+', " ");
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn refused(status: u16, error: &str, description: &str) -> Answer {
    Answer {
        status,
        body: json!({"error": error, "error_description": description}),
        issued: None,
    }
}

/// Answers a token request; `serial` numbers the tokens the server issues.
pub(crate) fn answer(endpoint: Endpoint, body: &[u8], serial: usize) -> Answer {
    let fields = fields(body);
    let grant = fields.get("grant_type").map(String::as_str).unwrap_or("");
    match endpoint {
        Endpoint::Google => google(grant, &fields, serial),
        Endpoint::OpenAi => openai(grant, &fields, serial),
    }
}

fn google(grant: &str, fields: &BTreeMap<String, String>, serial: usize) -> Answer {
    match grant {
        "urn:ietf:params:oauth:grant-type:jwt-bearer" => {
            let assertion = fields.get("assertion").map(String::as_str).unwrap_or("");
            if let Err(why) = check_assertion(assertion) {
                return refused(400, "invalid_grant", &why.to_string());
            }
        }
        "refresh_token" => match fields.get("refresh_token").map(String::as_str) {
            None | Some("") => {
                return refused(
                    400,
                    "invalid_request",
                    "Missing required parameter: refresh_token",
                );
            }
            Some(REVOKED_REFRESH_TOKEN) => {
                return refused(400, "invalid_grant", "Token has been expired or revoked.");
            }
            Some(_) => {}
        },
        other => {
            return refused(
                400,
                "unsupported_grant_type",
                &format!("Invalid grant_type: {other}"),
            );
        }
    }
    let token = format!("mock-access-token-{serial}");
    Answer {
        status: 200,
        body: json!({"access_token": token, "expires_in": 3599, "token_type": "Bearer"}),
        issued: Some(token),
    }
}

/// Why a service account's assertion is refused; the text is the `error_description` sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum AssertionError {
    #[error("The assertion is not a JWT of three parts")]
    NotThreeParts,
    #[error("A JWT part is not base64url")]
    NotBase64Url,
    #[error("A JWT part is not JSON")]
    NotJson,
    #[error("Invalid JWT: the algorithm must be RS256")]
    Algorithm,
    #[error("Invalid JWT: the claim `{0}` is missing")]
    MissingClaim(&'static str),
    #[error("Invalid JWT: `iat` and `exp` must span at most an hour")]
    Lifetime,
    #[error("Invalid JWT signature")]
    Signature,
}

/// Checks a service account's assertion: a three-part RS256 JWT whose claims name the
/// issuer, the scope, the audience and a lifetime of at most an hour.
fn check_assertion(assertion: &str) -> Result<(), AssertionError> {
    let parts: Vec<&str> = assertion.split('.').collect();
    let [header, claims, signature] = parts.as_slice() else {
        return Err(AssertionError::NotThreeParts);
    };
    let decode = |part: &str| -> Result<Value, AssertionError> {
        let bytes = URL_SAFE_NO_PAD
            .decode(part)
            .map_err(|_| AssertionError::NotBase64Url)?;
        serde_json::from_slice(&bytes).map_err(|_| AssertionError::NotJson)
    };
    let header = decode(header)?;
    if header.get("alg").and_then(Value::as_str) != Some("RS256") {
        return Err(AssertionError::Algorithm);
    }
    let claims = decode(claims)?;
    for claim in ["iss", "scope", "aud"] {
        if claims.get(claim).and_then(Value::as_str).is_none() {
            return Err(AssertionError::MissingClaim(claim));
        }
    }
    let iat = claims.get("iat").and_then(Value::as_i64);
    let exp = claims.get("exp").and_then(Value::as_i64);
    match (iat, exp) {
        (Some(iat), Some(exp)) if exp > iat && exp - iat <= 3600 => {}
        _ => return Err(AssertionError::Lifetime),
    }
    let signature = URL_SAFE_NO_PAD
        .decode(signature)
        .map_err(|_| AssertionError::Signature)?;
    // An RSA-2048 signature is 256 bytes.
    if signature.len() < 128 {
        return Err(AssertionError::Signature);
    }
    Ok(())
}

/// A ChatGPT access token: a JWT whose claims carry the account id (not signed: the mock is
/// its only reader besides the client, which only decodes it).
pub fn chatgpt_access_token(serial: usize) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
    let claims = json!({
        "https://api.openai.com/auth": {"chatgpt_account_id": CHATGPT_ACCOUNT_ID},
        "sub": format!("mock-user-{serial}"),
    });
    let claims = URL_SAFE_NO_PAD.encode(claims.to_string());
    format!("{header}.{claims}.mock-{serial}")
}

fn openai(grant: &str, fields: &BTreeMap<String, String>, serial: usize) -> Answer {
    if grant != "refresh_token" {
        return refused(
            400,
            "unsupported_grant_type",
            &format!("Invalid grant_type: {grant}"),
        );
    }
    let refresh = fields
        .get("refresh_token")
        .map(String::as_str)
        .unwrap_or("");
    if refresh.is_empty() || refresh == REVOKED_REFRESH_TOKEN {
        return Answer {
            status: 401,
            body: json!({"error": {
                "message": "Your refresh token has already been used to generate a new access token. Please try signing in again.",
                "type": "invalid_request_error",
                "param": null,
                "code": "refresh_token_reused"
            }}),
            issued: None,
        };
    }
    let token = chatgpt_access_token(serial);
    Answer {
        status: 200,
        body: json!({
            "id_token": token,
            "access_token": token,
            "refresh_token": format!("mock-refresh-token-{serial}"),
            "expires_in": 864000,
            "token_type": "Bearer",
            "scope": "openid profile email offline_access"
        }),
        issued: Some(token),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_malformed_assertion_is_refused_with_its_reason() {
        assert_eq!(
            check_assertion("a.b").unwrap_err().to_string(),
            "The assertion is not a JWT of three parts"
        );
        assert_eq!(check_assertion("!.b.c"), Err(AssertionError::NotBase64Url));
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"RS256"}"#);
        let claims = URL_SAFE_NO_PAD.encode(br#"{"iss":"i","aud":"a"}"#);
        assert_eq!(
            check_assertion(&format!("{header}.{claims}.c"))
                .unwrap_err()
                .to_string(),
            "Invalid JWT: the claim `scope` is missing"
        );
    }
}
