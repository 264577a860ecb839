//! Which provider a request path belongs to, and whether the request carries that provider's
//! credentials.

use std::collections::BTreeMap;

use crate::format::Format;

/// A provider route: the format, the model named by the path (Gemini, Vertex, Bedrock) and
/// whether the path itself says to stream.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Route {
    pub format: Format,
    pub model: Option<String>,
    pub stream: Option<bool>,
}

impl Route {
    fn of(format: Format) -> Option<Route> {
        Some(Route {
            format,
            model: None,
            stream: None,
        })
    }
}

/// The route of a request path, if it is a provider's.
pub(crate) fn route(path: &str) -> Option<Route> {
    if let Some(rest) = path.strip_prefix("/model/") {
        let (model, operation) = rest.rsplit_once('/')?;
        let stream = match operation {
            "converse-stream" => true,
            "converse" => false,
            _ => return None,
        };
        return Some(Route {
            format: Format::Bedrock,
            model: Some(percent_decode(model)),
            stream: Some(stream),
        });
    }
    if path.starts_with("/mistral/") && path.ends_with("/chat/completions") {
        return Route::of(Format::Mistral);
    }
    if path.ends_with("/codex/responses") {
        return Route::of(Format::CodexResponses);
    }
    if path.starts_with("/openai/") && path.ends_with("/responses") {
        return Route::of(Format::AzureResponses);
    }
    if path.ends_with("/chat/completions") {
        return Route::of(Format::OpenAiChat);
    }
    if path.ends_with("/responses") {
        return Route::of(Format::OpenAiResponses);
    }
    if path.ends_with("/messages") {
        return Route::of(Format::Anthropic);
    }
    google_route(path)
}

/// Gemini (`[/v1beta|/v1]/models/{model}:method`) and Vertex
/// (`/v1[beta1]/[projects/{p}/locations/{l}/]publishers/google/models/{model}:method`).
fn google_route(path: &str) -> Option<Route> {
    let (format, rest) = match path.split_once("/publishers/") {
        Some((_, publisher)) => (Format::Vertex, publisher.split_once("/models/")?.1),
        None => {
            let rest = path
                .strip_prefix("/v1beta")
                .or_else(|| path.strip_prefix("/v1"))
                .unwrap_or(path);
            (Format::Gemini, rest.strip_prefix("/models/")?)
        }
    };
    let (model, method) = rest.rsplit_once(':')?;
    let stream = match method {
        "streamGenerateContent" => true,
        "generateContent" => false,
        _ => return None,
    };
    Some(Route {
        format,
        model: Some(model.to_owned()),
        stream: Some(stream),
    })
}

/// Guesses the provider of an unknown path, for the shape of the 404 body.
pub(crate) fn guess_format(path: &str) -> Format {
    if path.starts_with("/model/") {
        Format::Bedrock
    } else if path.contains("/publishers/") {
        Format::Vertex
    } else if path.contains("/models/") {
        Format::Gemini
    } else if path.contains("messages") {
        Format::Anthropic
    } else {
        Format::OpenAiChat
    }
}

/// Why a request's credentials were refused: the status, the provider's error type (where it
/// names one) and the message.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Refused {
    pub status: u16,
    pub kind: Option<&'static str>,
    pub message: String,
}

impl Refused {
    fn new(status: u16, message: &str) -> Refused {
        Refused {
            status,
            kind: None,
            message: message.to_owned(),
        }
    }

    fn aws(kind: &'static str, message: String) -> Refused {
        Refused {
            status: 403,
            kind: Some(kind),
            message,
        }
    }
}

/// Checks the credentials the provider of `format` wants. Any key value is accepted; what is
/// checked is that it is there, in the provider's header, and for AWS that the SigV4
/// `Authorization` header has the signature's shape.
pub(crate) fn check_auth(
    headers: &BTreeMap<String, String>,
    query: Option<&str>,
    format: Format,
) -> Result<(), Refused> {
    let has = |name: &str| headers.get(name).is_some_and(|v| !v.trim().is_empty());
    let bearer = headers
        .get("authorization")
        .is_some_and(|v| v.starts_with("Bearer ") && v.len() > 7);
    let gateway = has("cf-aig-authorization");
    let query_key = query.is_some_and(|q| q.split('&').any(|kv| kv.starts_with("key=")));
    let openai_missing = "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).";
    let google_missing = "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.";
    match format {
        Format::Anthropic if has("x-api-key") || bearer || gateway => Ok(()),
        Format::Anthropic => Err(Refused::new(401, "x-api-key header is required")),
        Format::OpenAiChat | Format::OpenAiResponses if bearer || has("api-key") || gateway => {
            Ok(())
        }
        Format::OpenAiChat | Format::OpenAiResponses => Err(Refused::new(401, openai_missing)),
        Format::Gemini | Format::Vertex if has("x-goog-api-key") || bearer || query_key => Ok(()),
        Format::Gemini | Format::Vertex => Err(Refused::new(403, google_missing)),
        Format::Mistral if bearer => Ok(()),
        Format::Mistral => Err(Refused::new(401, "Unauthorized")),
        Format::AzureResponses if has("api-key") || bearer => Ok(()),
        Format::AzureResponses => Err(Refused::new(
            401,
            "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.",
        )),
        Format::CodexResponses if bearer && has("chatgpt-account-id") => Ok(()),
        Format::CodexResponses if bearer => {
            Err(Refused::new(401, "Missing chatgpt-account-id header"))
        }
        Format::CodexResponses => Err(Refused::new(401, "Unauthorized")),
        Format::Bedrock if bearer => Ok(()),
        Format::Bedrock => check_sigv4(headers),
    }
}

/// Checks an AWS Signature Version 4 `Authorization` header's shape: the algorithm, a
/// credential scope `<key id>/<yyyymmdd>/<region>/bedrock/aws4_request` whose date is the
/// `x-amz-date` header's, signed headers that include `host` and `x-amz-date`, and a signature
/// of 64 lower-case hex digits.
fn check_sigv4(headers: &BTreeMap<String, String>) -> Result<(), Refused> {
    let Some(authorization) = headers.get("authorization") else {
        return Err(Refused::aws(
            "MissingAuthenticationTokenException",
            "Missing Authentication Token".to_owned(),
        ));
    };
    let incomplete = |what: &str| {
        Refused::aws(
            "IncompleteSignatureException",
            format!("Authorization header is not a complete AWS Signature Version 4: {what}"),
        )
    };
    let parameters = authorization
        .strip_prefix("AWS4-HMAC-SHA256 ")
        .ok_or_else(|| incomplete("the algorithm is not AWS4-HMAC-SHA256"))?;
    let mut credential = None;
    let mut signed = None;
    let mut signature = None;
    for part in parameters.split(',').map(str::trim) {
        match part.split_once('=') {
            Some(("Credential", value)) => credential = Some(value),
            Some(("SignedHeaders", value)) => signed = Some(value),
            Some(("Signature", value)) => signature = Some(value),
            _ => return Err(incomplete(&format!("unexpected parameter `{part}`"))),
        }
    }
    let credential = credential.ok_or_else(|| incomplete("no Credential"))?;
    let signed = signed.ok_or_else(|| incomplete("no SignedHeaders"))?;
    let signature = signature.ok_or_else(|| incomplete("no Signature"))?;
    let scope: Vec<&str> = credential.split('/').collect();
    let [key_id, date, region, service, terminator] = scope.as_slice() else {
        return Err(incomplete("the credential scope does not have five parts"));
    };
    if key_id.is_empty() || region.is_empty() {
        return Err(incomplete(
            "the credential scope lacks the key id or the region",
        ));
    }
    if *service != "bedrock" || *terminator != "aws4_request" {
        return Err(incomplete(
            "the credential scope is not for the bedrock service",
        ));
    }
    let amz_date = headers
        .get("x-amz-date")
        .ok_or_else(|| incomplete("no x-amz-date header"))?;
    let well_formed_date = amz_date.len() == 16
        && amz_date.as_bytes()[8] == b'T'
        && amz_date.ends_with('Z')
        && amz_date[..8].bytes().all(|b| b.is_ascii_digit());
    if !well_formed_date || !amz_date.starts_with(date) {
        return Err(incomplete(
            "the credential scope's date is not the x-amz-date header's",
        ));
    }
    let names: Vec<&str> = signed.split(';').collect();
    let sorted = names.windows(2).all(|pair| pair[0] < pair[1]);
    if !names.contains(&"host") || !names.contains(&"x-amz-date") || !sorted {
        return Err(incomplete(
            "SignedHeaders must list host and x-amz-date, sorted",
        ));
    }
    if let Some(missing) = names.iter().find(|name| !headers.contains_key(**name)) {
        return Err(incomplete(&format!(
            "signed header `{missing}` is not in the request"
        )));
    }
    let hex = signature.len() == 64
        && signature
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if !hex {
        return Err(Refused::aws(
            "InvalidSignatureException",
            "The request signature we calculated does not match the signature you provided."
                .to_owned(),
        ));
    }
    Ok(())
}

/// Decodes `%XX` escapes (Bedrock model ids arrive with `:` as `%3A`).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%' && i + 2 < bytes.len())
            .then(|| std::str::from_utf8(&bytes[i + 1..i + 3]).ok())
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format_of(path: &str) -> Option<Format> {
        route(path).map(|r| r.format)
    }

    #[test]
    fn paths_select_their_provider() {
        assert_eq!(format_of("/v1/messages"), Some(Format::Anthropic));
        assert_eq!(
            format_of("/v1/acc/gw/anthropic/v1/messages"),
            Some(Format::Anthropic)
        );
        assert_eq!(
            format_of("/client/v4/accounts/a/ai/v1/chat/completions"),
            Some(Format::OpenAiChat)
        );
        assert_eq!(
            format_of("/v1/acc/gw/openai/responses"),
            Some(Format::OpenAiResponses)
        );
        assert_eq!(
            format_of("/openai/v1/responses"),
            Some(Format::AzureResponses)
        );
        assert_eq!(
            format_of("/backend-api/codex/responses"),
            Some(Format::CodexResponses)
        );
        assert_eq!(
            format_of("/mistral/v1/chat/completions"),
            Some(Format::Mistral)
        );
        assert_eq!(format_of("/v1/nothing"), None);
        let bedrock = route("/model/us.anthropic.claude%3A0/converse-stream").unwrap();
        assert_eq!(bedrock.format, Format::Bedrock);
        assert_eq!(bedrock.model.as_deref(), Some("us.anthropic.claude:0"));
        let vertex =
            route("/v1/projects/p/locations/l/publishers/google/models/g:streamGenerateContent")
                .unwrap();
        assert_eq!(
            (vertex.format, vertex.model.as_deref()),
            (Format::Vertex, Some("g"))
        );
        let gemini = route("/v1beta/models/g:generateContent").unwrap();
        assert_eq!(
            (gemini.format, gemini.stream),
            (Format::Gemini, Some(false))
        );
    }

    fn sigv4(authorization: &str, date: &str) -> BTreeMap<String, String> {
        [
            ("authorization", authorization),
            ("x-amz-date", date),
            ("host", "h"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect()
    }

    #[test]
    fn sigv4_headers_are_checked_for_shape() {
        let good = format!(
            "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature={}",
            "a".repeat(64)
        );
        assert_eq!(
            check_auth(&sigv4(&good, "20260101T000000Z"), None, Format::Bedrock),
            Ok(())
        );
        let refused = check_auth(&sigv4(&good, "20260102T000000Z"), None, Format::Bedrock);
        assert_eq!(
            refused.unwrap_err().kind,
            Some("IncompleteSignatureException")
        );
        let short = good.replace(&"a".repeat(64), "abc");
        let refused = check_auth(&sigv4(&short, "20260101T000000Z"), None, Format::Bedrock);
        assert_eq!(refused.unwrap_err().kind, Some("InvalidSignatureException"));
        let none = check_auth(&BTreeMap::new(), None, Format::Bedrock).unwrap_err();
        assert_eq!(
            (none.status, none.kind),
            (403, Some("MissingAuthenticationTokenException"))
        );
    }
}
