//! Chat Completions bodies shaped by `models.json` options: the `chat-template`, `baseten` and
//! `ant-ling` thinking formats, Vercel AI Gateway routing, `zaiToolStream`, and
//! `samplingParams` last, each for a model loaded through the registry as the agent loads it.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod provider_common;

use pi_agent::config::ModelRegistry;
use pi_agent::provider::openai_completions::request_body;
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use provider_common::request;
use serde_json::{Value, json};

/// The request model of `mock/m1` declared with `definition` (a model object without its id).
fn chat_model(definition: Value) -> Model {
    let mut entry = definition;
    entry["id"] = json!("m1");
    let file = json!({"providers": {"mock": {
        "baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions", "apiKey": "k", "models": [entry]
    }}});
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("models.json"), file.to_string()).unwrap();
    let (registry, warnings) = ModelRegistry::load(dir.path());
    assert!(warnings.is_empty(), "{warnings:?}");
    registry.resolve(registry.find("mock", "m1").unwrap()).model
}

fn body(model: &Model, level: ThinkingLevel) -> Value {
    let mut req = request(model.clone(), "hello");
    req.thinking_level = level;
    request_body(&req)
}

#[test]
fn chat_template_kwargs_fill_the_thinking_variables() {
    let model = chat_model(json!({
        "reasoning": true,
        "thinkingLevelMap": {"medium": "med", "high": null},
        "compat": {"thinkingFormat": "chat-template", "chatTemplateKwargs": {
            "thinking": {"$var": "thinking.enabled"},
            "effort": {"$var": "thinking.effort"},
            "hint": {"$var": "thinking.effort", "omitWhenOff": true},
            "fixed": "x"
        }}
    }));
    assert_eq!(
        body(&model, ThinkingLevel::Medium)["chat_template_kwargs"],
        json!({"thinking": true, "effort": "med", "hint": "med", "fixed": "x"})
    );
    assert_eq!(
        body(&model, ThinkingLevel::Low)["chat_template_kwargs"],
        json!({"thinking": true, "effort": "low", "hint": "low", "fixed": "x"})
    );
    // A level mapped to null drops the effort; off drops it too when `off` is not mapped.
    assert_eq!(
        body(&model, ThinkingLevel::High)["chat_template_kwargs"],
        json!({"thinking": true, "fixed": "x"})
    );
    assert_eq!(
        body(&model, ThinkingLevel::Off)["chat_template_kwargs"],
        json!({"thinking": false, "fixed": "x"})
    );
}

#[test]
fn chat_template_sends_nothing_when_every_value_drops_out() {
    let model = chat_model(json!({
        "reasoning": true,
        "compat": {"thinkingFormat": "chat-template", "chatTemplateKwargs": {
            "effort": {"$var": "thinking.effort", "omitWhenOff": true}
        }}
    }));
    assert!(
        body(&model, ThinkingLevel::Off)
            .get("chat_template_kwargs")
            .is_none()
    );
}

#[test]
fn baseten_sends_chat_template_args_and_the_effort() {
    let model = chat_model(json!({
        "reasoning": true,
        "thinkingLevelMap": {"off": "none"},
        "compat": {"thinkingFormat": "baseten", "chatTemplateArgs": {"enable_thinking": {"$var": "thinking.enabled"}}}
    }));
    let on = body(&model, ThinkingLevel::High);
    assert_eq!(on["chat_template_args"], json!({"enable_thinking": true}));
    assert_eq!(on["reasoning_effort"], "high");
    let off = body(&model, ThinkingLevel::Off);
    assert_eq!(off["chat_template_args"], json!({"enable_thinking": false}));
    assert_eq!(off["reasoning_effort"], "none");
}

#[test]
fn ant_ling_sends_only_mapped_efforts() {
    let model = chat_model(json!({
        "reasoning": true,
        "thinkingLevelMap": {"high": "deep"},
        "compat": {"thinkingFormat": "ant-ling"}
    }));
    assert_eq!(
        body(&model, ThinkingLevel::High)["reasoning"],
        json!({"effort": "deep"})
    );
    let medium = body(&model, ThinkingLevel::Medium);
    assert!(medium.get("reasoning").is_none() && medium.get("reasoning_effort").is_none());
}

#[test]
fn routing_goes_before_sampling_params_which_win() {
    let model = chat_model(json!({
        "compat": {
            "openRouterRouting": {"only": ["a"]},
            "vercelGatewayRouting": {"order": ["x"], "ignored": true}
        },
        "samplingParams": {"temperature": 0.1, "stream": false}
    }));
    let body = body(&model, ThinkingLevel::Off);
    let keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys[keys.len() - 3..],
        ["provider", "providerOptions", "temperature"]
    );
    assert_eq!(
        body["providerOptions"],
        json!({"gateway": {"order": ["x"]}})
    );
    assert_eq!(body["stream"], false);
}

#[test]
fn zai_tool_stream_follows_the_tools() {
    let model = chat_model(json!({"compat": {"zaiToolStream": true}}));
    let mut req = request(model.clone(), "hello");
    req.tools = vec![pi_agent::tools::ToolDefinition {
        name: "read".into(),
        description: "Read".into(),
        parameters: json!({"type": "object", "properties": {}}),
    }];
    let with_tools = request_body(&req);
    assert_eq!(with_tools["tool_stream"], true);
    assert!(
        body(&model, ThinkingLevel::Off)
            .get("tool_stream")
            .is_none()
    );
}
