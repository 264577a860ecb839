//! `models.json` as the reference reads it: comment stripping, the whole-file schema check,
//! per-provider composition errors, `modelOverrides` on built-in and custom models (in the
//! reference's key order), compat merging, and the request headers with their resolution errors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use pi_agent::config::ModelRegistry;
use pi_rpc_protocol::model::Model;
use serde_json::{Value, json};

fn load(text: &str) -> (ModelRegistry, Vec<String>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("models.json"), text).unwrap();
    let (registry, warnings) = ModelRegistry::load(dir.path());
    (registry, warnings, dir)
}

fn custom_ids(registry: &ModelRegistry) -> Vec<String> {
    registry
        .all_models()
        .filter(|model| !pi_agent::config::builtin::provider_names().any(|p| p == model.provider))
        .map(|model| format!("{}/{}", model.provider, model.id))
        .collect()
}

fn model(registry: &ModelRegistry, provider: &str, id: &str) -> Model {
    registry.find(provider, id).cloned().unwrap()
}

const MOCK: &str = r#""mock": {"baseUrl": "http://127.0.0.1:1", "api": "anthropic-messages", "apiKey": "k", "models": [{"id": "m1"}]}"#;

#[test]
fn line_comments_and_trailing_commas_go_but_strings_keep_their_slashes() {
    let (registry, warnings, _dir) = load(
        r#"{
            // a comment, "with quotes"
            "providers": {
                "mock": {"baseUrl": "http://h//x", "api": "anthropic-messages", "apiKey": "k",
                         "models": [{"id": "m1", "name": "a // b, ]"},],}, // trailing
            },
        }"#,
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    let m1 = model(&registry, "mock", "m1");
    assert_eq!(m1.name, "a // b, ]");
    assert_eq!(m1.base_url, "http://h//x");
}

#[test]
fn a_block_comment_is_a_parse_error_and_adds_no_provider() {
    let (registry, warnings, _dir) = load(&format!("{{/* no */ \"providers\": {{{MOCK}}}}}"));
    assert_eq!(custom_ids(&registry), Vec::<String>::new());
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].starts_with("Failed to parse models.json: "),
        "{warnings:?}"
    );
}

#[test]
fn one_schema_error_drops_every_custom_provider() {
    let bad_entries = [
        r#""bad": {"baseUrl": "http://x", "api": "a", "models": [{"name": "no id"}]}"#,
        r#""bad": {"baseUrl": "http://x", "api": "a", "models": [{"id": ""}]}"#,
        r#""bad": {"baseUrl": "http://x", "api": "a", "models": [{"id": "x", "input": ["video"]}]}"#,
        r#""bad": {"baseUrl": "http://x", "headers": {"x-n": 1}}"#,
        r#""bad": {"baseUrl": "http://x", "apiKey": ""}"#,
        r#""bad": {"baseUrl": "http://x", "api": "a", "models": [{"id": "x", "thinkingLevelMap": {"high": 3}}]}"#,
        r#""bad": {"baseUrl": "http://x", "api": "a", "models": [{"id": "x", "cost": {"input": 1}}]}"#,
        r#""bad": {"baseUrl": "http://x", "modelOverrides": {"x": {"contextWindow": "big"}}}"#,
        r#""bad": {"baseUrl": "http://x", "compat": {"supportsLongCacheRetention": "yes"}}"#,
        r#""bad": {"baseUrl": "http://x", "oauth": "other"}"#,
    ];
    for bad in bad_entries {
        let (registry, warnings, _dir) = load(&format!("{{\"providers\": {{{MOCK}, {bad}}}}}"));
        assert_eq!(custom_ids(&registry), Vec::<String>::new(), "{bad}");
        assert_eq!(warnings.len(), 1, "{bad}");
        assert!(
            warnings[0].starts_with("Invalid models.json schema:\n  - providers.bad"),
            "{bad}: {warnings:?}"
        );
    }
    let (_registry, warnings, _dir) = load("{}");
    assert!(
        warnings[0].contains("providers: is required"),
        "{warnings:?}"
    );
}

#[test]
fn a_provider_that_cannot_be_composed_is_left_out_alone() {
    let (registry, warnings, _dir) = load(&format!(
        r#"{{"providers": {{
            "nobase": {{"api": "anthropic-messages", "models": [{{"id": "a"}}]}},
            {MOCK},
            "noapi": {{"baseUrl": "http://x", "models": [{{"id": "b"}}]}},
            "empty": {{}},
            "zero": {{"baseUrl": "http://x", "api": "anthropic-messages", "models": [{{"id": "c", "maxTokens": 0}}]}},
            "anthropic": {{"models": [{{"id": "d", "contextWindow": -1}}]}}
        }}}}"#
    ));
    assert_eq!(custom_ids(&registry), ["mock/m1"]);
    assert!(registry.find("anthropic", "claude-sonnet-4-6").is_some());
    assert_eq!(
        warnings,
        [
            "Provider \"nobase\": Provider nobase: \"baseUrl\" is required when defining custom models.",
            "Provider \"noapi\": Provider noapi, model b: no \"api\" specified. Set at provider or model level.",
            "Provider \"empty\": Provider empty: must specify \"baseUrl\", \"headers\", \"compat\", \"modelOverrides\", or \"models\".",
            "Provider \"zero\": Provider zero, model c: invalid maxTokens",
            "Provider \"anthropic\": Provider anthropic, model d: invalid contextWindow",
        ]
    );
}

#[test]
fn overrides_and_provider_compat_change_a_builtin_model_in_the_reference_key_order() {
    let (registry, warnings, _dir) = load(
        r#"{"providers": {"anthropic": {
            "baseUrl": "http://proxy",
            "compat": {"supportsLongCacheRetention": false},
            "modelOverrides": {
                "claude-sonnet-4-6": {
                    "name": "Sonnet via proxy", "maxTokens": 1000, "contextWindow": 50000,
                    "cost": {"input": 1}, "thinkingLevelMap": {"xhigh": "xhigh"},
                    "samplingParams": {"temperature": 0.5},
                    "compat": {"supportsEagerToolInputStreaming": false}
                },
                "no-such-model": {"name": "ignored"}
            }
        }}}"#,
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    let sonnet = model(&registry, "anthropic", "claude-sonnet-4-6");
    assert_eq!(
        pi_rpc_protocol::json::to_string(&sonnet).unwrap(),
        r#"{"id":"claude-sonnet-4-6","name":"Sonnet via proxy","api":"anthropic-messages","provider":"anthropic","baseUrl":"http://proxy","reasoning":true,"input":["text","image"],"cost":{"input":1,"output":15,"cacheRead":0.3,"cacheWrite":3.75},"contextWindow":50000,"maxTokens":1000,"thinkingLevelMap":{"max":"max","xhigh":"xhigh"},"compat":{"forceAdaptiveThinking":true,"supportsStrictTools":true,"supportsLongCacheRetention":false,"supportsEagerToolInputStreaming":false},"samplingParams":{"temperature":0.5}}"#
    );
    let request = registry.resolve(&sonnet).model;
    assert_eq!(
        request.sampling_params,
        Some(json!({"temperature": 0.5}).as_object().unwrap().clone())
    );
    assert_eq!(
        request.compat.as_ref().unwrap()["supportsEagerToolInputStreaming"],
        false
    );
    assert!(request.extra.is_empty());
    let haiku = model(&registry, "anthropic", "claude-haiku-4-5");
    assert_eq!(haiku.base_url, "http://proxy");
    assert_eq!(haiku.extra["compat"]["supportsLongCacheRetention"], false);
}

#[test]
fn overrides_apply_to_the_providers_own_models_after_they_are_merged() {
    let (registry, warnings, _dir) = load(
        r#"{"providers": {"mock": {"baseUrl": "http://x", "api": "openai-completions", "apiKey": "k",
            "models": [{"id": "m1", "thinkingLevelMap": {"minimal": null}, "samplingParams": {"top_p": 0.9, "temperature": 1},
                        "cost": {"input": 1, "output": 2, "cacheRead": 3, "cacheWrite": 4}}],
            "modelOverrides": {"m1": {"reasoning": true, "thinkingLevelMap": {"xhigh": "x"}, "input": ["text", "image"],
                                      "cost": {"output": 20}, "samplingParams": {"top_p": 0.5}}}}}}"#,
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    let m1 = serde_json::to_value(model(&registry, "mock", "m1")).unwrap();
    assert_eq!(
        m1,
        json!({"id": "m1", "name": "m1", "api": "openai-completions", "provider": "mock", "baseUrl": "http://x",
            "reasoning": true, "thinkingLevelMap": {"minimal": null, "xhigh": "x"}, "input": ["text", "image"],
            "cost": {"input": 1.0, "output": 20.0, "cacheRead": 3.0, "cacheWrite": 4.0},
            "contextWindow": 128000, "maxTokens": 16384, "samplingParams": {"top_p": 0.5, "temperature": 1}})
    );
}

#[test]
fn model_compat_merges_over_provider_compat_and_routing_objects_key_by_key() {
    let (registry, _warnings, _dir) = load(
        r#"{"providers": {"mock": {"baseUrl": "http://x", "api": "openai-completions", "apiKey": "k",
            "compat": {"supportsStore": true, "openRouterRouting": {"only": ["a"], "sort": "price"}, "chatTemplateKwargs": {"a": 1}},
            "models": [{"id": "m1", "compat": {"supportsStore": false, "openRouterRouting": {"only": ["b"]}, "vercelGatewayRouting": {"only": ["v"]}}}]}}}"#,
    );
    let compat = model(&registry, "mock", "m1").compat.unwrap();
    assert_eq!(
        Value::Object(compat),
        json!({"supportsStore": false, "openRouterRouting": {"only": ["b"], "sort": "price"},
            "chatTemplateKwargs": {"a": 1}, "vercelGatewayRouting": {"only": ["v"]}})
    );
}

fn request_headers(text: &str) -> Result<Value, String> {
    let (registry, warnings, _dir) = load(text);
    assert!(warnings.is_empty(), "{warnings:?}");
    let request = registry.resolve(&model(&registry, "mock", "m1"));
    match request.auth {
        Err(error) => Err(error.to_string()),
        Ok(_) => Ok(request
            .model
            .headers
            .map(Value::Object)
            .unwrap_or(Value::Null)),
    }
}

#[test]
fn request_headers_resolve_with_model_headers_last_and_the_bearer_header() {
    let path = std::env::var("PATH").unwrap();
    let headers = request_headers(
        r#"{"providers": {"mock": {"baseUrl": "http://x", "api": "anthropic-messages", "apiKey": "!echo ' k1 '", "authHeader": true,
            "headers": {"x-p": "${PATH}|$$|$!", "x-both": "provider"},
            "modelOverrides": {"m1": {"headers": {"x-o": "override", "x-both": "override"}}},
            "models": [{"id": "m1", "headers": {"x-both": "model", "x-c": "!printf cmd"}}]}}}"#,
    )
    .unwrap();
    assert_eq!(
        headers,
        json!({"x-p": format!("{path}|$|!"), "x-both": "model", "Authorization": "Bearer k1", "x-o": "override", "x-c": "cmd"})
    );
}

#[test]
fn unresolved_values_give_the_reference_error_texts() {
    let provider = |extra: &str| {
        format!(
            r#"{{"providers": {{"mock": {{"baseUrl": "http://x", "api": "anthropic-messages", {extra}, "models": [{{"id": "m1", "headers": {{"x-m": "$PI_MODELS_TEST_UNSET_M"}}}}]}}}}}}"#
        )
    };
    assert_eq!(
        request_headers(&provider(r#""apiKey": "!exit 2""#)),
        Err("API key auth failed for provider mock: Failed to resolve API key for provider \"mock\" from shell command: exit 2".into())
    );
    assert_eq!(
        request_headers(&provider(r#""apiKey": "k", "headers": {"x-h": "${PI_MODELS_TEST_UNSET_A}${PI_MODELS_TEST_UNSET_B}$PI_MODELS_TEST_UNSET_A"}"#)),
        Err("API key auth failed for provider mock: Failed to resolve provider \"mock\" header \"x-h\" from environment variables: PI_MODELS_TEST_UNSET_A, PI_MODELS_TEST_UNSET_B".into())
    );
    assert_eq!(
        request_headers(&provider(r#""apiKey": "k""#)),
        Err("Failed to resolve model \"mock/m1\" header \"x-m\" from environment variable: PI_MODELS_TEST_UNSET_M".into())
    );
}
