//! The built-in providers: which keys make which models available, the model picked when nothing
//! chooses one, and the whole catalog compared with the reference's own `get_available_models`
//! (recorded at test time when the reference is installed).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::Path;

use anyhow::Result;
use serde_json::{Value, json};
use support::{Agent, RPC_ARGS, TestEnv};

/// Every variable the reference reads a provider's key from (pi-ai `env-api-keys.js`).
const KEY_VARIABLES: [&str; 36] = [
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
];

/// The reference's providers that these variables make available but that we leave out: wire
/// formats we do not speak, or (Cloudflare) a base URL made of the account and gateway ids.
const LEFT_OUT: [&str; 5] = [
    "azure-openai-responses",
    "cloudflare-ai-gateway",
    "cloudflare-workers-ai",
    "google-vertex",
    "mistral",
];

async fn spawn(env: &TestEnv, program: &Path, vars: &[&str]) -> Result<Agent> {
    let values: Vec<String> = vars.iter().map(|name| format!("key-{name}")).collect();
    let pairs: Vec<(&str, &Path)> = vars
        .iter()
        .zip(&values)
        .map(|(name, value)| (*name, Path::new(value.as_str())))
        .collect();
    let mut agent = env.spawn_program_with_env(program, &RPC_ARGS, &pairs)?;
    agent.timeout = std::time::Duration::from_secs(60);
    Ok(agent)
}

async fn available(program: &Path, vars: &[&str]) -> Result<Vec<Value>> {
    let env = TestEnv::empty()?;
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
    let expected = available(&reference, &KEY_VARIABLES).await?;
    let actual = available(ours(), &KEY_VARIABLES).await?;
    let mut left_out: Vec<&str> = expected
        .iter()
        .map(|m| m["provider"].as_str().unwrap())
        .filter(|provider| LEFT_OUT.contains(provider))
        .collect();
    left_out.dedup();
    assert_eq!(left_out, LEFT_OUT, "the providers we leave out changed");
    let expected: Vec<Value> = expected
        .into_iter()
        .filter(|m| !LEFT_OUT.contains(&m["provider"].as_str().unwrap()))
        .collect();
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
