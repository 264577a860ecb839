//! Helpers shared by the provider tests: models pointing at a loopback server, requests, and
//! collecting a stream's events with a timeout.
#![allow(dead_code, clippy::expect_used, clippy::unwrap_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

use pi_agent::provider::{
    LlmRequest, ProviderEvent, ProviderStream, SharedMessage, ToolDefinition, stream,
};
use pi_agent::release::RpcRelease;
use pi_rpc_protocol::event::Event;
use pi_rpc_protocol::message::{AgentMessage, AssistantMessage};
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// How long a test waits for a stream to finish.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// A reasoning model of provider `mock` at `base_url`, priced like the reference run's model.
pub fn model(base_url: &str) -> Model {
    serde_json::from_value(json!({
        "id": "mock-model-1", "name": "mock-model-1", "api": "anthropic-messages",
        "provider": "mock", "baseUrl": base_url, "reasoning": true, "input": ["text"],
        "cost": {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
        "contextWindow": 200000, "maxTokens": 8192
    }))
    .expect("model")
}

/// A user message.
pub fn user(text: &str) -> AgentMessage {
    serde_json::from_value(json!({
        "role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1
    }))
    .expect("user message")
}

/// Messages as a request holds them.
pub fn shared(messages: Vec<AgentMessage>) -> Vec<Arc<SharedMessage>> {
    messages.into_iter().map(SharedMessage::new).collect()
}

/// A request of one user message with the key `mock-key`, thinking off.
pub fn request(model: Model, text: &str) -> LlmRequest {
    LlmRequest {
        model,
        auth: Ok(pi_agent::config::RequestAuth {
            api_key: Some("mock-key".to_owned()),
            ..Default::default()
        }),
        system_prompt: "You are a test.".to_owned(),
        messages: vec![SharedMessage::new(user(text))],
        tools: Vec::new(),
        thinking_level: ThinkingLevel::Off,
        session_id: None,
        cache_retention: Default::default(),
        thinking_budgets: Default::default(),
        details: Default::default(),
    }
}

/// Tool definitions from JSON objects with `name`, `description`, `parameters`.
pub fn tools(values: &[Value]) -> Vec<ToolDefinition> {
    values
        .iter()
        .map(|tool| ToolDefinition {
            name: tool["name"].as_str().expect("tool name").to_owned().into(),
            description: tool["description"]
                .as_str()
                .expect("description")
                .to_owned(),
            parameters: tool["parameters"].clone(),
        })
        .collect()
}

/// Reads events until `Done` (which must be last), failing after [`TIMEOUT`].
pub async fn collect(mut rx: ProviderStream) -> Vec<ProviderEvent> {
    let mut events = Vec::new();
    let read = async {
        while let Some(event) = rx.recv().await {
            let done = matches!(event, ProviderEvent::Done(_));
            events.push(event);
            if done {
                break;
            }
        }
    };
    tokio::time::timeout(TIMEOUT, read)
        .await
        .expect("the stream ends in time");
    assert!(
        matches!(events.last(), Some(ProviderEvent::Done(_))),
        "the stream ends with Done: {events:?}"
    );
    assert!(rx.recv().await.is_none(), "nothing follows Done");
    events
}

/// Runs a request to its end.
pub async fn run(request: LlmRequest) -> Vec<ProviderEvent> {
    let http = reqwest::Client::new();
    collect(stream(&http, request, CancellationToken::new())).await
}

/// The final message of a finished stream.
/// Sends `request` for the session `sess-1` twice, with caching on and then off, and returns
/// what `server` received.
pub async fn sent_cached_then_uncached(
    server: &wiremock::MockServer,
    mut request: LlmRequest,
) -> Vec<wiremock::Request> {
    request.session_id = Some("sess-1".to_owned());
    run(request.clone()).await;
    request.cache_retention = pi_agent::provider::CacheRetention::Off;
    run(request).await;
    server.received_requests().await.unwrap()
}

pub fn done(events: &[ProviderEvent]) -> &AssistantMessage {
    match events.last() {
        Some(ProviderEvent::Done(message)) => message,
        other => panic!("no Done at the end: {other:?}"),
    }
}

/// Whether the stream sent `Start`.
pub fn started(events: &[ProviderEvent]) -> bool {
    events
        .iter()
        .any(|event| matches!(event, ProviderEvent::Start(_)))
}

/// The events as the RPC stream shows them: `message_start` (from `Start`), one
/// `message_update` per delta, `message_end` (from `Done`), with timestamps zeroed.
pub fn as_rpc_lines(events: &[ProviderEvent]) -> Vec<Value> {
    let mut lines = Vec::new();
    for event in events {
        match event {
            ProviderEvent::Start(message) => lines.push(json!({
                "type": "message_start",
                "message": AgentMessage::Assistant(message.clone()),
            })),
            // As pi 0.84.1 shows them: without usage, and `toolcall_start` without the call's
            // id and tool name.
            ProviderEvent::Usage(_) => {}
            ProviderEvent::Deltas(deltas) => lines.extend(deltas.iter().map(|delta| {
                json!(Event::MessageUpdate(
                    RpcRelease::DEFAULT.message_update(delta.clone(), None)
                ))
            })),
            ProviderEvent::Done(message) => lines.push(json!({
                "type": "message_end",
                "message": AgentMessage::Assistant(message.clone()),
            })),
            // Only a paced stream sends these; nothing shows them.
            ProviderEvent::Written(_) => {}
        }
    }
    for line in &mut lines {
        if let Some(stamp) = line.pointer_mut("/message/timestamp") {
            *stamp = json!(0);
        }
    }
    lines
}

/// Serialises as the reference (JavaScript's `JSON.stringify`) does, key order included.
pub fn js(value: &impl serde::Serialize) -> String {
    pi_rpc_protocol::json::to_string(value).expect("serialise")
}

/// The request of one recorded case of a `provider_fixtures/*_requests.json` file: the case's
/// model (pointed at `base_url`), messages, system prompt, thinking level and session id, with
/// the file's tools.
pub fn case_request(fixtures: &Value, case: &Value, base_url: &str) -> LlmRequest {
    let mut model_json = case["model"].clone();
    model_json["baseUrl"] = json!(base_url);
    let model: Model = serde_json::from_value(model_json).unwrap();
    let messages: Vec<AgentMessage> = serde_json::from_value(case["messages"].clone()).unwrap();
    LlmRequest {
        model,
        auth: Ok(pi_agent::config::RequestAuth {
            api_key: Some("mock-key".to_owned()),
            ..Default::default()
        }),
        system_prompt: case["systemPrompt"].as_str().unwrap().to_owned(),
        messages: shared(messages),
        tools: tools(fixtures["tools"].as_array().unwrap()),
        thinking_level: ThinkingLevel::parse(case["thinkingLevel"].as_str().unwrap()).unwrap(),
        session_id: case["sessionId"].as_str().map(str::to_owned),
        cache_retention: match case["cacheRetention"].as_str() {
            Some("none") => pi_agent::provider::CacheRetention::Off,
            Some("long") => pi_agent::provider::CacheRetention::Long,
            _ => Default::default(),
        },
        thinking_budgets: Default::default(),
        details: Default::default(),
    }
}

/// A wiremock server where `mock` (a method and path to match) answers 200 with the
/// `text/event-stream` body `reply`.
pub async fn sse_server(mock: wiremock::MockBuilder, reply: &str) -> wiremock::MockServer {
    let server = wiremock::MockServer::start().await;
    mock.respond_with(
        wiremock::ResponseTemplate::new(200).set_body_raw(reply, "text/event-stream"),
    )
    .mount(&server)
    .await;
    server
}

/// Sends the recorded case `case` of a `provider_fixtures/*_requests.json` file (see
/// [`case_request`]) to `server` (fresh, answering with a whole reply) at its URL plus
/// `base_suffix`; checks that the run stops normally after one request whose body is the
/// recorded one byte for byte, and returns that request.
pub async fn assert_case_body(
    fixtures: &Value,
    case: &Value,
    server: &wiremock::MockServer,
    base_suffix: &str,
) -> wiremock::Request {
    let name = case["name"].as_str().unwrap();
    let base_url = format!("{}{base_suffix}", server.uri());
    let events = run(case_request(fixtures, case, &base_url)).await;
    assert_eq!(
        done(&events).stop_reason,
        pi_rpc_protocol::message::StopReason::Stop,
        "{name}"
    );
    let mut received = server.received_requests().await.unwrap();
    assert_eq!(received.len(), 1, "{name}");
    let request = received.remove(0);
    let body = String::from_utf8(request.body.clone()).unwrap();
    assert_eq!(body, js(&case["body"]), "{name}");
    request
}
