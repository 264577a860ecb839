//! Web identity credentials (IAM roles for service accounts): the token in
//! `AWS_WEB_IDENTITY_TOKEN_FILE` exchanged for temporary keys of `AWS_ROLE_ARN` with STS's
//! `AssumeRoleWithWebIdentity` (an unsigned request), at `AWS_ENDPOINT_URL_STS` or the
//! region's STS endpoint.

use super::super::{LlmRequest, stored_env};
use super::sigv4::Credentials;

/// Why a web identity gave no keys.
#[derive(Debug, thiserror::Error)]
pub enum WebIdentityError {
    /// The token file cannot be read.
    #[error("Failed to read the web identity token file {file}: {source}")]
    TokenFile {
        file: String,
        source: std::io::Error,
    },
    /// A token without the role to assume.
    #[error("AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not")]
    NoRoleArn,
    /// STS could not be reached.
    #[error("Failed to assume the web identity role: {0}")]
    StsUnreachable(#[source] reqwest::Error),
    /// STS refused (its `Message`, else the HTTP status).
    #[error("Failed to assume the web identity role: {0}")]
    StsRefused(String),
}

/// The text of the first `<tag>...</tag>` in an XML document.
fn xml_text<'a>(xml: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let start = xml.find(&open)? + open.len();
    let end = xml[start..].find(&format!("</{tag}>"))? + start;
    Some(xml[start..end].trim())
}

/// Form-encodes a value.
fn form(text: &str) -> String {
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

/// Temporary keys for the web identity of `token_file`.
pub(super) async fn assume_role(
    http: &reqwest::Client,
    request: &LlmRequest,
    token_file: &str,
    region: &str,
) -> Result<Credentials, WebIdentityError> {
    let token =
        std::fs::read_to_string(token_file).map_err(|source| WebIdentityError::TokenFile {
            file: token_file.to_owned(),
            source,
        })?;
    let role = stored_env(request, "AWS_ROLE_ARN").ok_or(WebIdentityError::NoRoleArn)?;
    let session = stored_env(request, "AWS_ROLE_SESSION_NAME")
        .unwrap_or_else(|| format!("pi-agent-{}", crate::js::now_ms()));
    let endpoint = stored_env(request, "AWS_ENDPOINT_URL_STS")
        .or_else(|| stored_env(request, "AWS_ENDPOINT_URL"))
        .unwrap_or_else(|| format!("https://sts.{region}.amazonaws.com"));
    let body = format!(
        "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn={}&RoleSessionName={}&WebIdentityToken={}",
        form(&role),
        form(&session),
        form(token.trim())
    );
    let response = http
        .post(format!("{}/", endpoint.trim_end_matches('/')))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .map_err(WebIdentityError::StsUnreachable)?;
    let status = response.status();
    let xml = response.text().await.unwrap_or_default();
    let keys = (
        xml_text(&xml, "AccessKeyId"),
        xml_text(&xml, "SecretAccessKey"),
        xml_text(&xml, "SessionToken"),
    );
    match keys {
        (Some(id), Some(secret), token) if status.is_success() => Ok(Credentials {
            access_key_id: id.to_owned(),
            secret_access_key: secret.to_owned(),
            session_token: token.map(str::to_owned),
        }),
        _ => Err(WebIdentityError::StsRefused(
            xml_text(&xml, "Message")
                .unwrap_or(status.as_str())
                .to_owned(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sts_answers_are_read_for_their_keys() {
        let xml = "<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials>\n<AccessKeyId>ASIA1</AccessKeyId><SecretAccessKey>s/1</SecretAccessKey><SessionToken>t+1</SessionToken></Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>";
        assert_eq!(xml_text(xml, "AccessKeyId"), Some("ASIA1"));
        assert_eq!(xml_text(xml, "SessionToken"), Some("t+1"));
        assert_eq!(xml_text(xml, "Nothing"), None);
        assert_eq!(
            form("arn:aws:iam::1:role/r"),
            "arn%3Aaws%3Aiam%3A%3A1%3Arole%2Fr"
        );
    }
}
