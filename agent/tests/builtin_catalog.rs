//! The built-in providers: which keys make which models available, the model picked when nothing
//! chooses one, and the whole catalog compared with the reference's own `get_available_models`
//! (recorded at test time when the reference is installed).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::Path;

use anyhow::Result;
use serde_json::{Value, json};
use support::{Agent, RPC_ARGS, TestEnv};

/// Every variable the reference reads a provider's credentials from (pi-ai `env-api-keys.js`
/// and the providers' own resolvers): keys, AWS access keys, the Vertex project and location
/// (with `GOOGLE_APPLICATION_CREDENTIALS`, set by `available`), the Cloudflare ids.
const KEY_VARIABLES: [&str; 41] = [
    "ANTHROPIC_API_KEY",
    "COPILOT_GITHUB_TOKEN",
    "ANT_LING_API_KEY",
    "QWEN_TOKEN_PLAN_API_KEY",
    "QWEN_TOKEN_PLAN_CN_API_KEY",
    "OPENAI_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "NVIDIA_API_KEY",
    "DEEPSEEK_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_CLOUD_API_KEY",
    "GROQ_API_KEY",
    "CEREBRAS_API_KEY",
    "XAI_API_KEY",
    "RADIUS_API_KEY",
    "OPENROUTER_API_KEY",
    "AI_GATEWAY_API_KEY",
    "ZAI_API_KEY",
    "ZAI_CODING_CN_API_KEY",
    "MISTRAL_API_KEY",
    "MINIMAX_API_KEY",
    "MINIMAX_CN_API_KEY",
    "MOONSHOT_API_KEY",
    "HF_TOKEN",
    "FIREWORKS_API_KEY",
    "TOGETHER_API_KEY",
    "BASETEN_API_KEY",
    "OPENCODE_API_KEY",
    "KIMI_API_KEY",
    "CLOUDFLARE_API_KEY",
    "XIAOMI_API_KEY",
    "XIAOMI_TOKEN_PLAN_CN_API_KEY",
    "XIAOMI_TOKEN_PLAN_AMS_API_KEY",
    "XIAOMI_TOKEN_PLAN_SGP_API_KEY",
    "CLOUDFLARE_ACCOUNT_ID",
    "CLOUDFLARE_GATEWAY_ID",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
    "GCLOUD_PROJECT",
];

async fn spawn(env: &TestEnv, program: &Path, vars: &[&str]) -> Result<Agent> {
    let mut values: Vec<String> = vars.iter().map(|name| format!("key-{name}")).collect();
    let mut names = vars.to_vec();
    if vars.contains(&"GOOGLE_CLOUD_PROJECT") {
        // Application Default Credentials: a credentials file that exists.
        let file = env.agent_dir().join("adc.json");
        std::fs::write(&file, r#"{"type":"authorized_user"}"#)?;
        names.push("GOOGLE_APPLICATION_CREDENTIALS");
        values.push(file.to_string_lossy().into_owned());
    }
    let pairs: Vec<(&str, &Path)> = names
        .iter()
        .zip(&values)
        .map(|(name, value)| (*name, Path::new(value.as_str())))
        .collect();
    let mut agent = env.spawn_program_with_env(program, &RPC_ARGS, &pairs)?;
    agent.timeout = std::time::Duration::from_secs(60);
    Ok(agent)
}

async fn available(program: &Path, vars: &[&str]) -> Result<Vec<Value>> {
    available_with_login(program, vars, false).await
}

/// The available models, with a ChatGPT login for `openai-codex` in `auth.json` when `codex`.
async fn available_with_login(program: &Path, vars: &[&str], codex: bool) -> Result<Vec<Value>> {
    let env = TestEnv::empty()?;
    if codex {
        let login = json!({"openai-codex": {"type": "oauth", "access": "a.b.c", "refresh": "r",
            "expires": 4_102_444_800_000u64, "accountId": "acc"}});
        std::fs::write(env.agent_dir().join("auth.json"), login.to_string())?;
    }
    let mut agent = spawn(&env, program, vars).await?;
    let response = agent
        .request(json!({"type": "get_available_models"}))
        .await?;
    agent.close_stdin();
    agent.wait_exit().await?;
    let models = response["data"]["models"].as_array().cloned();
    Ok(models.unwrap_or_else(|| panic!("no models in {response}")))
}

fn ours() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_pi-agent"))
}

fn ids(models: &[Value]) -> Vec<String> {
    models
        .iter()
        .map(|m| {
            format!(
                "{}/{}",
                m["provider"].as_str().unwrap(),
                m["id"].as_str().unwrap()
            )
        })
        .collect()
}

#[tokio::test]
async fn a_key_lists_the_models_of_every_provider_reading_it_and_no_other() -> Result<()> {
    let models = available(ours(), &["OPENCODE_API_KEY"]).await?;
    let mut providers: Vec<&str> = models
        .iter()
        .map(|m| m["provider"].as_str().unwrap())
        .collect();
    providers.dedup();
    assert_eq!(providers, ["opencode", "opencode-go"]);
    // A provider of mixed formats keeps each model's own API and base URL.
    let claude = models
        .iter()
        .find(|m| m["provider"] == "opencode" && m["api"] == "anthropic-messages")
        .unwrap();
    assert_eq!(claude["baseUrl"], "https://opencode.ai/zen");
    let gemini = models
        .iter()
        .find(|m| m["provider"] == "opencode" && m["api"] == "google-generative-ai")
        .unwrap();
    assert_eq!(gemini["baseUrl"], "https://opencode.ai/zen/v1");
    Ok(())
}

#[tokio::test]
async fn groq_lists_its_six_models_in_the_reference_order() -> Result<()> {
    let models = available(ours(), &["GROQ_API_KEY"]).await?;
    assert_eq!(
        ids(&models),
        [
            "groq/llama-3.1-8b-instant",
            "groq/llama-3.3-70b-versatile",
            "groq/openai/gpt-oss-120b",
            "groq/openai/gpt-oss-20b",
            "groq/openai/gpt-oss-safeguard-20b",
            "groq/qwen/qwen3.6-27b",
        ]
    );
    assert!(
        models.iter().all(|m| m["api"] == "openai-completions"
            && m["baseUrl"] == "https://api.groq.com/openai/v1")
    );
    Ok(())
}

#[tokio::test]
async fn the_provider_s_default_model_is_picked_when_nothing_chooses_one() -> Result<()> {
    for (vars, expected) in [
        (
            &["GEMINI_API_KEY", "GROQ_API_KEY"][..],
            "google/gemini-3.1-pro-preview",
        ),
        (&["GROQ_API_KEY", "OPENAI_API_KEY"][..], "openai/gpt-5.5"),
        // Z.AI's default (glm-5.1) is not in its catalog: its first model then.
        (&["ZAI_API_KEY"][..], "zai/glm-4.7"),
    ] {
        let env = TestEnv::empty()?;
        let mut agent = spawn(&env, ours(), vars).await?;
        let state = agent.request(json!({"type": "get_state"})).await?;
        let model = &state["data"]["model"];
        assert_eq!(
            format!(
                "{}/{}",
                model["provider"].as_str().unwrap(),
                model["id"].as_str().unwrap()
            ),
            expected,
            "{vars:?}"
        );
        agent.close_stdin();
        agent.wait_exit().await?;
    }
    Ok(())
}

#[tokio::test]
async fn every_built_in_model_matches_the_reference_when_every_key_is_set() -> Result<()> {
    let Some(reference) = pi_reference::launcher_or_skip("the built-in catalog") else {
        return Ok(());
    };
    let expected = available_with_login(&reference, &KEY_VARIABLES, true).await?;
    let actual = available_with_login(ours(), &KEY_VARIABLES, true).await?;
    let mut providers: Vec<&str> = expected
        .iter()
        .map(|m| m["provider"].as_str().unwrap())
        .collect();
    providers.dedup();
    assert_eq!(
        providers.len(),
        39,
        "every built-in provider is listed: {providers:?}"
    );
    let (ours_ids, their_ids) = (ids(&actual), ids(&expected));
    if let Some(index) =
        (0..ours_ids.len().max(their_ids.len())).find(|&i| ours_ids.get(i) != their_ids.get(i))
    {
        panic!(
            "model {index} differs: ours {:?}, the reference's {:?} ({} vs {} models)",
            ours_ids.get(index),
            their_ids.get(index),
            ours_ids.len(),
            their_ids.len()
        );
    }
    for (ours, theirs) in actual.iter().zip(&expected) {
        assert_eq!(ours, theirs);
    }
    Ok(())
}

/// The providers listed for a set of variables.
async fn providers_for(program: &Path, vars: &[&str]) -> Result<Vec<String>> {
    let mut providers: Vec<String> = available(program, vars)
        .await?
        .iter()
        .map(|m| m["provider"].as_str().unwrap().to_owned())
        .collect();
    providers.dedup();
    Ok(providers)
}

#[tokio::test]
async fn credentials_beyond_a_key_configure_providers_as_in_the_reference() -> Result<()> {
    let cases: [&[&str]; 8] = [
        &["AWS_PROFILE"],
        &["AWS_ACCESS_KEY_ID"],
        &["AWS_BEARER_TOKEN_BEDROCK", "AWS_WEB_IDENTITY_TOKEN_FILE"],
        &["CLOUDFLARE_API_KEY"],
        &["CLOUDFLARE_API_KEY", "CLOUDFLARE_ACCOUNT_ID"],
        &["GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"],
        &["GCLOUD_PROJECT"],
        &[
            "GOOGLE_CLOUD_API_KEY",
            "AZURE_OPENAI_API_KEY",
            "MISTRAL_API_KEY",
        ],
    ];
    let expected: [&[&str]; 8] = [
        &["amazon-bedrock"],
        &[],
        &["amazon-bedrock"],
        &[],
        &["cloudflare-workers-ai"],
        &["google-vertex"],
        &[],
        &["azure-openai-responses", "google-vertex", "mistral"],
    ];
    for (vars, expected) in cases.iter().zip(expected) {
        assert_eq!(providers_for(ours(), vars).await?, expected, "{vars:?}");
    }
    let Some(reference) = pi_reference::launcher_or_skip("the credential rules") else {
        return Ok(());
    };
    for (vars, expected) in cases.iter().zip(expected) {
        assert_eq!(
            providers_for(&reference, vars).await?,
            expected,
            "reference, {vars:?}"
        );
    }
    Ok(())
}
