//! Amazon Bedrock Converse (`api: "bedrock-converse-stream"`), as the reference reaches it
//! through the AWS SDK.
//!
//! `POST {endpoint}/model/{modelId}/converse-stream`, signed with AWS Signature Version 4 (or
//! with a Bedrock API key as a bearer token), the answer an AWS event stream. Credentials,
//! region and endpoint come from `credentials`, the body from `request`, the events are read
//! by `events` through the binary framing of `eventstream`. The AWS SDK's own retries are
//! kept: throttling and 5xx answers are sent again, three attempts in all.

mod credentials;
mod events;
pub(crate) mod eventstream;
mod history;
pub mod request;
mod sigv4;
mod web_identity;

use std::sync::Arc;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::body::{Encoders, Outgoing, RequestBody, whole_value};
use super::call::EventSender;
use super::driver::{drive, fail_early};
use super::partial::PartialMessage;
use super::{LlmRequest, StreamOptions};
use credentials::Auth;
use events::BedrockEvents;

/// The `api` value of models using this wire format.
pub const API: &str = "bedrock-converse-stream";

/// The JSON body sent for `request` (as a value, for tests: the request encodes it as it
/// sends it), or the error that stops the request before it is sent (an image type Bedrock
/// cannot take: `Unknown image type: <type>`).
pub fn request_body(request: &LlmRequest) -> serde_json::Result<Value> {
    let encoders = encoders(Arc::new(request.clone()));
    whole_value(
        request::body_skeleton(request),
        request::MESSAGES,
        &encoders,
    )
}

fn encoders(request: Arc<LlmRequest>) -> Encoders {
    let long = request.cache_retention == super::CacheRetention::Long;
    let cache_point = request::caches(&request.model, &request).then_some(long);
    Arc::new(move || {
        Box::new(history::ConverseHistory::new(
            Arc::clone(&request),
            cache_point,
        ))
    })
}

/// Percent-encodes a model id for the path as the AWS SDK does.
fn encode_path_segment(text: &str) -> String {
    text.bytes()
        .map(|byte| {
            if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
                (byte as char).to_string()
            } else {
                format!("%{byte:02X}")
            }
        })
        .collect()
}

/// Whether a caller's header may be sent (SigV4's own headers may not be replaced).
fn reserved(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with("x-amz-") || lower == "authorization" || lower == "host"
}

/// Builds, signs and sends the request, then streams the answer into `tx`.
pub(crate) async fn run(
    http: &reqwest::Client,
    request: LlmRequest,
    options: StreamOptions,
    cancel: CancellationToken,
    tx: EventSender,
) {
    let partial = PartialMessage::new(&request.model);
    let auth = match credentials::resolve(http, &request).await {
        Ok(auth) => auth,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let (region, endpoint) = match credentials::region_and_endpoint(&request) {
        Ok(resolved) => resolved,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let request = Arc::new(request);
    let skeleton = request::body_skeleton(&request);
    let body =
        match RequestBody::prepare(skeleton, request::MESSAGES, encoders(Arc::clone(&request)))
            .await
        {
            Ok(body) => body,
            Err(error) => return fail_early(partial, error.to_string(), tx).await,
        };
    let url = format!(
        "{endpoint}/model/{}/converse-stream",
        encode_path_segment(&request.model.id)
    );
    let parsed = match reqwest::Url::parse(&url) {
        Ok(parsed) => parsed,
        Err(error) => return fail_early(partial, error.to_string(), tx).await,
    };
    let host = match (parsed.host_str(), parsed.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_owned(),
        (None, _) => String::new(),
    };
    let mut signed: Vec<(String, String)> = vec![
        ("content-type".into(), "application/json".into()),
        ("host".into(), host),
    ];
    for (name, value) in request.model.headers.iter().flatten() {
        if let Value::String(value) = value
            && !reserved(name)
        {
            signed.retain(|(existing, _)| !existing.eq_ignore_ascii_case(name));
            signed.push((name.to_ascii_lowercase(), value.clone()));
        }
    }
    let mut sent = signed.clone();
    match &auth {
        Auth::Bearer(token) => sent.push(("authorization".into(), format!("Bearer {token}"))),
        Auth::SigV4(credentials) => {
            let amz_date = sigv4::amz_date(crate::js::now_ms() as i64);
            let mut digest = sigv4::Digest::default();
            if let Err(error) = body.for_each_chunk(|chunk| digest.update(chunk)) {
                return fail_early(partial, error.to_string(), tx).await;
            }
            let payload_hash = digest.finish_hex();
            signed.push(("x-amz-content-sha256".into(), payload_hash.clone()));
            signed.push(("x-amz-date".into(), amz_date.clone()));
            if let Some(token) = &credentials.session_token {
                signed.push(("x-amz-security-token".into(), token.clone()));
            }
            let unsigned = sigv4::Unsigned {
                method: "POST",
                path: parsed.path(),
                query: parsed.query().unwrap_or_default(),
                headers: &signed,
                payload_hash: &payload_hash,
            };
            let authorization =
                sigv4::authorization(&unsigned, credentials, &region, "bedrock", &amz_date);
            sent = signed.clone();
            sent.push(("authorization".into(), authorization));
        }
    }
    let mut headers = HeaderMap::new();
    for (name, value) in sent {
        if name == "host" {
            continue;
        }
        let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(&value),
        ) else {
            return fail_early(partial, format!("Invalid header {name}"), tx).await;
        };
        headers.insert(name, value);
    }
    let http_request = http.post(url).headers(headers);
    let wire = BedrockEvents::new(request.model.clone());
    let outgoing = Outgoing::new(http_request, body);
    drive(outgoing, partial, wire, options, cancel, tx).await;
}
