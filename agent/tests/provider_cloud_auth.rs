//! Credentials exchanged for tokens before a model call, against the mock's token endpoints:
//! an expiring ChatGPT login refreshed and written back to `auth.json`, a Vertex service
//! account's signed JWT exchanged at its `token_uri`, and a refused refresh reported as the
//! reference words it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::Path;

use anyhow::Result;
use serde_json::{Value, json};
use support::{TestEnv, mock};

/// A ChatGPT access token for account `acct-old` (not signed: clients only decode it).
const OLD_TOKEN: &str = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJodHRwczovL2FwaS5vcGVuYWkuY29tL2F1dGgiOnsiY2hhdGdwdF9hY2NvdW50X2lkIjoiYWNjdC1vbGQifX0.sig";

fn last_assistant(records: &[Value]) -> Value {
    records
        .iter()
        .rev()
        .find(|r| r["type"] == "message_end" && r["message"]["role"] == "assistant")
        .map(|r| r["message"].clone())
        .unwrap_or_else(|| panic!("no assistant message in {records:?}"))
}

async fn codex_run(refresh: &str) -> Result<(mock_llm::MockServer, TestEnv, Vec<Value>)> {
    let server = mock("responses:\n  - text: \"refreshed\"\n").await?;
    let env = TestEnv::empty()?;
    env.write_models(&json!({"providers": {"openai-codex": {"baseUrl": format!("{}/backend-api", server.uri())}}}))?;
    let login = json!({"openai-codex": {"type": "oauth", "access": OLD_TOKEN, "refresh": refresh,
        "expires": 1000, "accountId": "acct-old"}, "other": {"type": "api_key", "key": "kept"}});
    std::fs::write(env.agent_dir().join("auth.json"), login.to_string())?;
    let url = server.uri();
    let mut agent = env.spawn_with_env(
        &["--provider", "openai-codex", "--model", "gpt-5.5"],
        &[("PI_AGENT_OPENAI_AUTH_URL", Path::new(&url))],
    )?;
    agent.prompt("hello").await?;
    let records = agent.until_settled().await?;
    agent.close_stdin();
    agent.wait_exit().await?;
    Ok((server, env, records))
}

#[tokio::test]
async fn an_expired_chatgpt_login_is_refreshed_written_back_and_used() -> Result<()> {
    let (server, env, records) = codex_run("refresh-1").await?;
    let message = last_assistant(&records);
    assert_eq!(message["stopReason"], "stop", "{message}");
    let journal = server.journal();
    assert_eq!(journal[0].path, "/oauth/token");
    assert_eq!(
        journal[0].body,
        Value::String(
            "grant_type=refresh_token&refresh_token=refresh-1&client_id=app_EMoamEEZ73f0CkXaXp7hrann"
                .into()
        )
    );
    let new_token = mock_llm::chatgpt_access_token(1);
    assert_eq!(journal[1].path, "/backend-api/codex/responses");
    assert_eq!(
        journal[1].headers["authorization"],
        format!("Bearer {new_token}")
    );
    assert_eq!(
        journal[1].headers["chatgpt-account-id"],
        mock_llm::CHATGPT_ACCOUNT_ID
    );
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(env.agent_dir().join("auth.json"))?)?;
    let login = &stored["openai-codex"];
    assert_eq!(login["access"], new_token);
    assert_eq!(login["refresh"], "mock-refresh-token-1");
    assert_eq!(login["accountId"], mock_llm::CHATGPT_ACCOUNT_ID);
    assert!(login["expires"].as_u64().unwrap() > 1000);
    assert_eq!(stored["other"]["key"], "kept");
    Ok(())
}

#[tokio::test]
async fn a_refused_refresh_fails_the_call_with_the_reference_s_words() -> Result<()> {
    let (server, _env, records) = codex_run(mock_llm::REVOKED_REFRESH_TOKEN).await?;
    let message = last_assistant(&records);
    assert_eq!(message["stopReason"], "error");
    let text = message["errorMessage"].as_str().unwrap();
    assert!(
        text.starts_with(
            "OAuth refresh failed for openai-codex: OpenAI Codex token refresh failed (401): {"
        ),
        "{text}"
    );
    assert_eq!(server.journal().len(), 1, "no model call without a token");
    Ok(())
}

/// A fresh RSA key in PKCS#8 PEM, made by `openssl` (`None` when it is not installed).
fn rsa_key(dir: &Path) -> Option<String> {
    let path = dir.join("key.pem");
    let status = std::process::Command::new("openssl")
        .args([
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
            "-out",
        ])
        .arg(&path)
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    status
        .success()
        .then(|| std::fs::read_to_string(&path).ok())
        .flatten()
}

#[tokio::test]
async fn a_vertex_service_account_signs_a_jwt_and_exchanges_it_at_its_token_uri() -> Result<()> {
    let server = mock("responses:\n  - text: \"from vertex\"\n").await?;
    let env = TestEnv::empty()?;
    let Some(key) = rsa_key(&env.agent_dir()) else {
        println!("SKIPPED: openssl is not installed to make a service account key");
        return Ok(());
    };
    let account = json!({"type": "service_account", "project_id": "p", "private_key_id": "kid-1",
        "private_key": key, "client_email": "agent@p.iam.gserviceaccount.com",
        "token_uri": format!("{}/token", server.uri())});
    let file = env.agent_dir().join("sa.json");
    std::fs::write(&file, account.to_string())?;
    env.write_models(&json!({"providers": {"google-vertex": {"baseUrl": server.uri()}}}))?;
    let mut agent = env.spawn_with_env(
        &["--provider", "google-vertex", "--model", "gemini-2.5-flash"],
        &[
            ("GOOGLE_APPLICATION_CREDENTIALS", file.as_path()),
            ("GOOGLE_CLOUD_PROJECT", Path::new("my-project")),
            ("GOOGLE_CLOUD_LOCATION", Path::new("europe-west4")),
        ],
    )?;
    agent.prompt("hello").await?;
    let records = agent.until_settled().await?;
    agent.close_stdin();
    agent.wait_exit().await?;
    assert_eq!(last_assistant(&records)["stopReason"], "stop");
    let journal = server.journal();
    // The mock checked the assertion: an RS256 JWT with the account's claims.
    assert_eq!(journal[0].path, "/token");
    assert_eq!(
        journal[0].outcome,
        mock_llm::Outcome::Completed { chunks: 1 }
    );
    let body = journal[0].body.as_str().unwrap();
    assert!(
        body.starts_with(
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=ey"
        ),
        "{body}"
    );
    // The signature checks out with the account's public key.
    let assertion = body.rsplit("assertion=").next().unwrap();
    let (signed, signature) = assertion.rsplit_once('.').unwrap();
    use base64::Engine;
    let signature = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(signature)?;
    let dir = env.agent_dir();
    std::fs::write(dir.join("signed"), signed)?;
    std::fs::write(dir.join("signature"), signature)?;
    let public = std::process::Command::new("openssl")
        .args(["pkey", "-pubout", "-in"])
        .arg(dir.join("key.pem"))
        .arg("-out")
        .arg(dir.join("public.pem"))
        .status()?;
    assert!(public.success());
    let verified = std::process::Command::new("openssl")
        .args(["dgst", "-sha256", "-verify"])
        .arg(dir.join("public.pem"))
        .arg("-signature")
        .arg(dir.join("signature"))
        .arg(dir.join("signed"))
        .output()?;
    assert!(verified.status.success(), "{verified:?}");
    assert_eq!(
        journal[1].path,
        "/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent"
    );
    assert_eq!(
        journal[1].headers["authorization"],
        "Bearer mock-access-token-1"
    );
    Ok(())
}

#[tokio::test]
async fn a_bedrock_web_identity_is_exchanged_at_sts_and_signs_the_call() -> Result<()> {
    use wiremock::matchers::{body_string_contains, method};
    use wiremock::{Mock, MockServer, ResponseTemplate};
    let sts = MockServer::start().await;
    let answer = "<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>ASIAMOCK</AccessKeyId><SecretAccessKey>sts-secret</SecretAccessKey><SessionToken>sts-session</SessionToken></Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>";
    Mock::given(method("POST"))
        .and(body_string_contains("Action=AssumeRoleWithWebIdentity"))
        .and(body_string_contains(
            "RoleArn=arn%3Aaws%3Aiam%3A%3A123%3Arole%2Fagent",
        ))
        .and(body_string_contains("WebIdentityToken=the-oidc-token"))
        .respond_with(ResponseTemplate::new(200).set_body_string(answer))
        .expect(1)
        .mount(&sts)
        .await;
    let server = mock("responses:\n  - text: \"from bedrock\"\n").await?;
    let env = TestEnv::empty()?;
    env.write_models(&json!({"providers": {"amazon-bedrock": {"baseUrl": server.uri()}}}))?;
    let token_file = env.agent_dir().join("token");
    std::fs::write(&token_file, "the-oidc-token\n")?;
    let sts_url = sts.uri();
    let mut agent = env.spawn_with_env(
        &[
            "--provider",
            "amazon-bedrock",
            "--model",
            "amazon.nova-pro-v1:0",
        ],
        &[
            ("AWS_WEB_IDENTITY_TOKEN_FILE", token_file.as_path()),
            ("AWS_ROLE_ARN", Path::new("arn:aws:iam::123:role/agent")),
            ("AWS_ENDPOINT_URL_STS", Path::new(&sts_url)),
            ("AWS_REGION", Path::new("us-west-2")),
        ],
    )?;
    agent.prompt("hello").await?;
    let records = agent.until_settled().await?;
    agent.close_stdin();
    agent.wait_exit().await?;
    assert_eq!(last_assistant(&records)["stopReason"], "stop");
    let call = &server.journal()[0];
    // The mock accepted the SigV4 header; only STS's keys come with a session token.
    assert_eq!(call.headers["x-amz-security-token"], "[redacted]");
    assert!(call.headers.contains_key("x-amz-date"));
    // The signed payload hash is the SHA-256 of the body sent (encoded while it streamed).
    let sent = pi_rpc_protocol::json::to_vec(&call.body)?;
    let digest = ring::digest::digest(&ring::digest::SHA256, &sent);
    let hex: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(call.headers["x-amz-content-sha256"], hex);
    Ok(())
}
