//! The environment variables holding each well-known provider's API key, as the reference reads
//! them. They apply to the built-in providers and to a `models.json` provider of the same name
//! that gives no `apiKey`.

/// Anthropic: a bearer token sent as `Authorization` instead of a key.
pub(super) const ANTHROPIC_AUTH_TOKEN: &str = "ANTHROPIC_AUTH_TOKEN";

/// Provider name and the variables holding its key, first set one wins.
const PROVIDER_ENV_KEYS: &[(&str, &[&str])] = &[
    (
        "anthropic",
        &[
            ANTHROPIC_AUTH_TOKEN,
            "ANTHROPIC_OAUTH_TOKEN",
            "ANTHROPIC_API_KEY",
        ],
    ),
    ("github-copilot", &["COPILOT_GITHUB_TOKEN"]),
    ("ant-ling", &["ANT_LING_API_KEY"]),
    ("qwen-token-plan", &["QWEN_TOKEN_PLAN_API_KEY"]),
    ("qwen-token-plan-cn", &["QWEN_TOKEN_PLAN_CN_API_KEY"]),
    ("qwen-token-plan-individual", &["QWEN_TOKEN_PLAN_API_KEY"]),
    ("openai", &["OPENAI_API_KEY"]),
    ("azure-openai-responses", &["AZURE_OPENAI_API_KEY"]),
    ("nvidia", &["NVIDIA_API_KEY"]),
    ("deepseek", &["DEEPSEEK_API_KEY"]),
    ("google", &["GEMINI_API_KEY"]),
    ("google-vertex", &["GOOGLE_CLOUD_API_KEY"]),
    ("groq", &["GROQ_API_KEY"]),
    ("cerebras", &["CEREBRAS_API_KEY"]),
    ("xai", &["XAI_API_KEY"]),
    ("radius", &["RADIUS_API_KEY"]),
    ("openrouter", &["OPENROUTER_API_KEY"]),
    ("vercel-ai-gateway", &["AI_GATEWAY_API_KEY"]),
    ("zai", &["ZAI_API_KEY"]),
    ("zai-coding-cn", &["ZAI_CODING_CN_API_KEY"]),
    ("mistral", &["MISTRAL_API_KEY"]),
    ("minimax", &["MINIMAX_API_KEY"]),
    ("minimax-cn", &["MINIMAX_CN_API_KEY"]),
    ("moonshotai", &["MOONSHOT_API_KEY"]),
    ("moonshotai-cn", &["MOONSHOT_API_KEY"]),
    ("huggingface", &["HF_TOKEN"]),
    ("fireworks", &["FIREWORKS_API_KEY"]),
    ("together", &["TOGETHER_API_KEY"]),
    ("baseten", &["BASETEN_API_KEY"]),
    ("opencode", &["OPENCODE_API_KEY"]),
    ("opencode-go", &["OPENCODE_API_KEY"]),
    ("kimi-coding", &["KIMI_API_KEY"]),
    ("cloudflare-workers-ai", &["CLOUDFLARE_API_KEY"]),
    ("cloudflare-ai-gateway", &["CLOUDFLARE_API_KEY"]),
    ("xiaomi", &["XIAOMI_API_KEY"]),
    ("xiaomi-token-plan-cn", &["XIAOMI_TOKEN_PLAN_CN_API_KEY"]),
    ("xiaomi-token-plan-ams", &["XIAOMI_TOKEN_PLAN_AMS_API_KEY"]),
    ("xiaomi-token-plan-sgp", &["XIAOMI_TOKEN_PLAN_SGP_API_KEY"]),
];

/// The variables that may hold `provider`'s key (none for an unknown provider).
pub(super) fn variables(provider: &str) -> &'static [&'static str] {
    PROVIDER_ENV_KEYS
        .iter()
        .find(|(name, _)| *name == provider)
        .map_or(&[], |(_, variables)| variables)
}

/// The value of `variable` when set and not empty.
pub(super) fn value(variable: &str) -> Option<String> {
    std::env::var(variable)
        .ok()
        .filter(|value| !value.is_empty())
}

/// Whether one of `provider`'s variables is set: the provider then counts as configured.
pub(super) fn configured(provider: &str) -> bool {
    variables(provider)
        .iter()
        .any(|variable| value(variable).is_some())
}

/// The API key in `provider`'s variables: the first one set. Anthropic's bearer token is no key:
/// when set, it wins and goes out as an `Authorization` header (see [`anthropic_bearer_token`]).
pub(super) fn api_key(provider: &str) -> Option<String> {
    if anthropic_bearer_token(provider).is_some() {
        return None;
    }
    variables(provider)
        .iter()
        .find_map(|variable| value(variable))
}

/// Anthropic's bearer token (`ANTHROPIC_AUTH_TOKEN`), when set.
pub(super) fn anthropic_bearer_token(provider: &str) -> Option<String> {
    (provider == "anthropic")
        .then(|| value(ANTHROPIC_AUTH_TOKEN))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_and_unknown_providers_map_to_their_variables() {
        assert_eq!(variables("moonshotai-cn"), ["MOONSHOT_API_KEY"]);
        assert_eq!(variables("opencode-go"), variables("opencode"));
        assert_eq!(variables("google"), ["GEMINI_API_KEY"]);
        assert!(variables("mock").is_empty());
        assert!(!configured("mock"));
    }
}
