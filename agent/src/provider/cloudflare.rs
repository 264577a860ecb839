//! The Cloudflare providers, whose URLs are built from ids: Workers AI
//! (`https://api.cloudflare.com/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1`, Chat
//! Completions) and AI Gateway (`https://gateway.ai.cloudflare.com/v1/{CLOUDFLARE_ACCOUNT_ID}/
//! {CLOUDFLARE_GATEWAY_ID}/...`, Anthropic, Chat Completions or Responses by model). The ids
//! come from the key's stored variables in `auth.json`, else the environment, and replace the
//! placeholders of the model's base URL when a call starts, as in the reference (the listed
//! models keep them). Through the gateway the key goes as `cf-aig-authorization: Bearer <key>`
//! and no `Authorization` or `x-api-key` is sent.

use serde_json::{Map, Value};

use super::LlmRequest;
use crate::config::ambient::{CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_GATEWAY_ID};

/// Workers AI.
const WORKERS_AI: &str = "cloudflare-workers-ai";
/// AI Gateway.
const AI_GATEWAY: &str = "cloudflare-ai-gateway";

/// Fills in the ids of a Cloudflare model's base URL and, for the gateway, its auth header.
pub(super) fn prepare(request: &mut LlmRequest) {
    let provider = request.model.provider.as_str();
    if provider != WORKERS_AI && provider != AI_GATEWAY {
        return;
    }
    let gateway = provider == AI_GATEWAY;
    for name in [CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_GATEWAY_ID] {
        if let Some(value) = super::stored_env(request, name) {
            let placeholder = format!("{{{name}}}");
            request.model.base_url = request.model.base_url.replace(&placeholder, &value);
        }
    }
    if gateway && let Some(key) = request.take_api_key() {
        let headers = request.model.headers.get_or_insert_with(Map::new);
        headers.insert(
            "cf-aig-authorization".into(),
            Value::from(format!("Bearer {key}")),
        );
        headers.insert("Authorization".into(), Value::Null);
        headers.insert("x-api-key".into(), Value::Null);
    }
}
