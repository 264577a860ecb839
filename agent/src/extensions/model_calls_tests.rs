//! Reading an extension's model call into the agent's provider call.

use super::*;

fn call(options: Value, simple: bool, registry: bool) -> ModelCall {
    ModelCall {
        model: json!({"id": "m1", "api": "anthropic-messages", "provider": "nowhere",
                      "baseUrl": "http://127.0.0.1:9", "reasoning": true, "maxTokens": 4096,
                      "headers": {"x-model": "1"}}),
        context: json!({
            "systemPrompt": "Be brief.",
            "messages": [{"role": "user", "content": "Hi", "timestamp": 1}],
            "tools": [{"name": "look", "description": "Looks", "parameters": {"type": "object"}}, {"description": "no name"}],
        }),
        options,
        simple,
        registry,
    }
}

fn prepare(call: &ModelCall) -> Result<PreparedCall, ModelCallError> {
    let dir = tempfile::tempdir().unwrap();
    let (registry, _) = ModelRegistry::load(dir.path());
    call.prepare(&registry, None, crate::release::RpcRelease::DEFAULT)
}

#[test]
fn a_call_takes_the_context_and_the_options_the_providers_have() {
    let options = json!({"apiKey": "k", "maxTokens": 100, "sessionId": "s", "cacheRetention": "none",
                         "reasoning": "high", "headers": {"x-call": "2"}, "maxRetries": 2,
                         "thinkingBudgets": {"high": 900}});
    let prepared = prepare(&call(options, true, false)).unwrap();
    let request = &prepared.request;
    assert_eq!(request.system_prompt, "Be brief.");
    assert_eq!(request.messages.len(), 1);
    let names: Vec<&str> = request
        .tools
        .iter()
        .map(|tool| tool.name.as_ref())
        .collect();
    assert_eq!(names, ["look"], "a tool without a name is left out");
    assert_eq!(request.model.max_tokens, 100);
    assert_eq!(request.thinking_level, ThinkingLevel::High);
    assert_eq!(request.thinking_budgets.get(ThinkingLevel::High), Some(900));
    assert_eq!(request.session_id.as_deref(), Some("s"));
    assert_eq!(request.cache_retention, CacheRetention::Off);
    assert_eq!(request.auth.as_ref().unwrap().api_key.as_deref(), Some("k"));
    let headers = request.model.headers.as_ref().unwrap();
    assert_eq!(headers["x-model"], "1");
    assert_eq!(headers["x-call"], "2");
    assert_eq!(prepared.options.max_retries, 2);
    assert_eq!(
        request.model.name, "m1",
        "a model without a name is named by its id"
    );
}

#[test]
fn the_thinking_level_is_the_simple_calls_reasoning_or_a_provider_option() {
    let level = |options: Value, simple: bool| {
        prepare(&call(options, simple, false))
            .unwrap()
            .request
            .thinking_level
    };
    assert_eq!(level(json!({}), true), ThinkingLevel::Off);
    assert_eq!(
        level(json!({"reasoningEffort": "low"}), true),
        ThinkingLevel::Off
    );
    assert_eq!(
        level(json!({"reasoningEffort": "low"}), false),
        ThinkingLevel::Low
    );
    assert_eq!(
        level(json!({"effort": "medium"}), false),
        ThinkingLevel::Medium
    );
    assert_eq!(
        level(json!({"reasoning": "bogus"}), true),
        ThinkingLevel::Off
    );
}

#[test]
fn a_registry_call_needs_a_known_provider_and_its_credentials_or_a_key() {
    let error = prepare(&call(json!({}), false, true)).unwrap_err();
    assert_eq!(error.to_string(), "Unknown provider: nowhere");
    let failed = call(json!({}), false, true).failed(&error);
    assert_eq!(failed.stop_reason, StopReason::Error);
    assert_eq!(failed.provider, "nowhere");
    assert_eq!(failed.model, "m1");
    assert_eq!(
        failed.error_message.as_deref(),
        Some("Unknown provider: nowhere")
    );

    let dir = tempfile::tempdir().unwrap();
    let models = json!({"providers": {"nowhere": {"baseUrl": "http://127.0.0.1:9",
        "api": "anthropic-messages", "apiKey": "$PI_AGENT_TEST_UNSET_KEY", "models": [{"id": "m1"}]}}});
    std::fs::write(dir.path().join("models.json"), models.to_string()).unwrap();
    let (registry, _) = ModelRegistry::load(dir.path());
    let release = crate::release::RpcRelease::DEFAULT;
    let unconfigured = call(json!({}), false, true).prepare(&registry, None, release);
    assert_eq!(
        unconfigured.unwrap_err().to_string(),
        "Provider is not configured: nowhere"
    );
    let given = call(json!({"apiKey": "mine"}), false, true).prepare(&registry, None, release);
    let auth = given.unwrap().request.auth.unwrap();
    assert_eq!(auth.api_key.as_deref(), Some("mine"));
}

#[test]
fn what_cannot_be_read_fails_the_call_with_its_place() {
    let mut bad = call(json!({"apiKey": "k"}), true, false);
    bad.context =
        json!({"messages": [{"role": "user", "content": "ok", "timestamp": 1}, {"role": 3}]});
    let error = prepare(&bad).unwrap_err();
    assert!(
        matches!(error, ModelCallError::Message { index: 1, .. }),
        "{error}"
    );
    bad.model = json!("m1");
    assert!(matches!(
        prepare(&bad).unwrap_err(),
        ModelCallError::Model(_)
    ));
}
