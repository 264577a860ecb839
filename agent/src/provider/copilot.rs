//! GitHub Copilot's extra request headers, added to every call of the built-in `github-copilot`
//! provider whatever its wire format, as the reference does: who started the call (`user` when
//! the conversation ends with a user message, `agent` after an assistant message or a tool
//! result), the intent, and a flag when the conversation holds an image. On the Anthropic
//! Messages format Copilot takes the key as a bearer token instead of `x-api-key`.

use pi_rpc_protocol::content::{MessageContent, UserContent};
use pi_rpc_protocol::message::AgentMessage;
use serde_json::{Map, Value};

use super::LlmRequest;
use crate::store::Role;

/// The provider these headers are for.
const PROVIDER: &str = "github-copilot";

/// Adds Copilot's headers to `request` when its model is one of Copilot's.
pub(super) fn prepare(request: &mut LlmRequest) {
    if request.model.provider != PROVIDER {
        return;
    }
    // Extension, bash and summary messages reach the model as user messages.
    let last_role = request
        .messages
        .iter()
        .rev()
        .map(|message| message.role())
        .find(|role| *role != Role::Other);
    let initiator = match last_role {
        Some(Role::Assistant | Role::ToolResult) => "agent",
        _ => "user",
    };
    // Only user messages and tool results can carry images; each is parsed just to look.
    let has_images = request.messages.iter().any(|message| {
        matches!(message.role(), Role::User | Role::ToolResult)
            && message
                .with_typed(|message| match message {
                    AgentMessage::User(user) => match &user.content {
                        MessageContent::Text(_) => false,
                        MessageContent::Blocks(blocks) => blocks.iter().any(is_image),
                    },
                    AgentMessage::ToolResult(result) => result.content.iter().any(is_image),
                    _ => false,
                })
                .unwrap_or(false)
    });
    // Anthropic's wire format takes the token as a bearer header instead of a key.
    let bearer = if request.model.api == super::anthropic::API {
        request.take_api_key().filter(|key| !key.is_empty())
    } else {
        None
    };
    let headers = request.model.headers.get_or_insert_with(Map::new);
    headers.insert("X-Initiator".into(), Value::from(initiator));
    headers.insert("Openai-Intent".into(), Value::from("conversation-edits"));
    if has_images {
        headers.insert("Copilot-Vision-Request".into(), Value::from("true"));
    }
    if let Some(key) = bearer {
        headers.insert("Authorization".into(), Value::from(format!("Bearer {key}")));
    }
}

fn is_image(block: &UserContent) -> bool {
    matches!(block, UserContent::Image(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(provider: &str, api: &str, messages: Value) -> LlmRequest {
        let model = json!({"id": "m", "name": "m", "api": api, "provider": provider,
            "baseUrl": "http://127.0.0.1:1", "reasoning": false, "input": ["text", "image"],
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
            "contextWindow": 1000, "maxTokens": 100, "headers": {"User-Agent": "ua"}});
        LlmRequest {
            model: serde_json::from_value(model).unwrap(),
            auth: Ok(crate::config::RequestAuth {
                api_key: Some("token".into()),
                ..Default::default()
            }),
            system_prompt: String::new(),
            messages: serde_json::from_value::<Vec<AgentMessage>>(messages)
                .unwrap()
                .into_iter()
                .map(crate::store::SharedMessage::new)
                .collect(),
            tools: Vec::new(),
            thinking_level: pi_rpc_protocol::model::ThinkingLevel::Off,
            session_id: None,
            cache_retention: Default::default(),
            thinking_budgets: Default::default(),
            details: Default::default(),
        }
    }

    fn headers(request: &LlmRequest) -> Value {
        Value::Object(request.model.headers.clone().unwrap_or_default())
    }

    #[test]
    fn an_image_in_a_tool_result_asks_for_vision_and_the_agent_initiates() {
        let mut request = request(
            PROVIDER,
            "openai-responses",
            json!([
                {"role": "user", "content": "look", "timestamp": 1},
                {"role": "toolResult", "toolCallId": "t", "toolName": "read", "isError": false,
                 "timestamp": 2, "content": [{"type": "image", "data": "AA==", "mimeType": "image/png"}]}
            ]),
        );
        prepare(&mut request);
        assert_eq!(
            headers(&request),
            json!({"User-Agent": "ua", "X-Initiator": "agent", "Openai-Intent": "conversation-edits",
                "Copilot-Vision-Request": "true"})
        );
        assert_eq!(request.api_key().as_deref(), Some("token"));
    }

    #[test]
    fn anthropic_messages_take_the_token_as_a_bearer_and_other_providers_are_untouched() {
        let user = json!([{"role": "user", "content": "hi", "timestamp": 1}]);
        let mut copilot = request(PROVIDER, "anthropic-messages", user.clone());
        prepare(&mut copilot);
        assert_eq!(copilot.api_key(), None);
        assert_eq!(headers(&copilot)["Authorization"], "Bearer token");
        assert_eq!(headers(&copilot)["X-Initiator"], "user");
        let mut other = request("anthropic", "anthropic-messages", user);
        prepare(&mut other);
        assert_eq!(headers(&other), json!({"User-Agent": "ua"}));
        assert_eq!(other.api_key().as_deref(), Some("token"));
    }
}
