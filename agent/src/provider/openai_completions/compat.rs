//! The compat switches of the Chat Completions format: the reference detects them from the
//! provider name and base URL (DeepSeek, z.ai, Together, Moonshot, OpenRouter, Cerebras, xAI,
//! NVIDIA, Cloudflare, ...) and lets the model's `compat` object override each of them. The
//! `chat-template` and `baseten` formats fill `chatTemplateKwargs` / `chatTemplateArgs`, whose
//! `{"$var": "thinking.enabled" | "thinking.effort"}` values stand for the thinking level.

use pi_rpc_protocol::model::Model;
use serde_json::{Map, Value};

use crate::provider::{LlmRequest, RequestDetails};

/// How the model is told to think.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ThinkingFormat {
    /// `reasoning_effort`.
    OpenAi,
    /// `thinking: {type}` plus `reasoning_effort`.
    DeepSeek,
    /// `thinking: {type, clear_thinking}` plus `reasoning_effort`.
    Zai,
    /// `enable_thinking` plus `reasoning_effort`.
    Qwen,
    /// `chat_template_kwargs: {enable_thinking, preserve_thinking}`.
    QwenChatTemplate,
    /// `reasoning: {effort}`.
    OpenRouter,
    /// `reasoning: {enabled}` plus `reasoning_effort`.
    Together,
    /// `thinking: "<level>"`.
    StringThinking,
    /// `chat_template_kwargs` built from the compat's `chatTemplateKwargs`.
    ChatTemplate,
    /// `chat_template_args` built from the compat's `chatTemplateArgs`, plus `reasoning_effort`.
    Baseten,
    /// `reasoning: {effort}` with the model's mapped effort only.
    AntLing,
    /// A format this module does not know: no thinking fields.
    Other,
}

/// The reference's compat switches for this wire format: detected from the provider and base
/// URL, then overridden by the model's `compat`.
#[derive(Debug, Clone)]
pub(crate) struct Compat {
    pub store: bool,
    pub developer_role: bool,
    pub reasoning_effort: bool,
    pub usage_in_streaming: bool,
    pub finish_reason: bool,
    pub max_tokens_field: &'static str,
    pub tool_result_name: bool,
    pub assistant_after_tool_result: bool,
    pub thinking_as_text: bool,
    pub reasoning_content_on_assistant: bool,
    pub thinking_format: ThinkingFormat,
    pub strict_mode: bool,
    pub anthropic_cache_control: bool,
    pub session_affinity_headers: bool,
    pub openrouter_affinity: bool,
    /// Whether the affinity headers include `session_id` (format `openai`, not
    /// `openai-nosession`).
    pub affinity_session_id: bool,
    pub long_cache_retention: bool,
    pub openrouter_routing: Option<Value>,
    pub vercel_gateway_routing: Option<Value>,
    pub chat_template_kwargs: Option<Map<String, Value>>,
    pub chat_template_args: Option<Map<String, Value>>,
    pub zai_tool_stream: bool,
}

impl Compat {
    /// The switches of `model` as 0.84.1 detects them.
    pub(crate) fn of(model: &Model) -> Self {
        Self::detect(model, RequestDetails::default())
    }

    /// The switches of the request's model, as the release that asked for `details` detects
    /// them.
    pub(crate) fn of_request(request: &LlmRequest) -> Self {
        Self::detect(&request.model, request.details)
    }

    fn detect(model: &Model, details: RequestDetails) -> Self {
        let provider = model.provider.as_str();
        let url = model.base_url.as_str();
        let is_zai = matches!(provider, "zai" | "zai-coding-cn")
            || url.contains("api.z.ai")
            || url.contains("open.bigmodel.cn");
        let is_together = provider == "together"
            || url.contains("api.together.ai")
            || url.contains("api.together.xyz");
        let is_moonshot =
            matches!(provider, "moonshotai" | "moonshotai-cn") || url.contains("api.moonshot.");
        let is_openrouter = provider == "openrouter" || url.contains("openrouter.ai");
        let is_cf_workers =
            provider == "cloudflare-workers-ai" || url.contains("api.cloudflare.com");
        let is_cf_gateway =
            provider == "cloudflare-ai-gateway" || url.contains("gateway.ai.cloudflare.com");
        let is_nvidia = provider == "nvidia" || url.contains("integrate.api.nvidia.com");
        let is_ant_ling = provider == "ant-ling" || url.contains("api.ant-ling.com");
        let is_grok = provider == "xai" || url.contains("api.x.ai");
        let is_deepseek = provider == "deepseek" || url.contains("deepseek.com");
        let non_standard = is_nvidia
            || provider == "cerebras"
            || url.contains("cerebras.ai")
            || is_grok
            || is_together
            || url.contains("chutes.ai")
            || url.contains("deepseek.com")
            || is_zai
            || is_moonshot
            || provider == "opencode"
            || url.contains("opencode.ai")
            || is_cf_workers
            || is_cf_gateway
            || is_ant_ling;
        let use_max_tokens = url.contains("chutes.ai")
            || is_moonshot
            || is_cf_gateway
            || is_together
            || is_nvidia
            || is_ant_ling
            || is_zai;
        let developer_role = if details.developer_role_for_openai_only {
            provider == "openai" || url.contains("api.openai.com")
        } else {
            let developer_model = is_openrouter
                && (model.id.starts_with("anthropic/") || model.id.starts_with("openai/"));
            developer_model || (!non_standard && !is_openrouter)
        };
        let detected_format = if is_deepseek {
            "deepseek"
        } else if is_zai {
            "zai"
        } else if is_together {
            "together"
        } else if is_ant_ling {
            "ant-ling"
        } else if is_openrouter {
            "openrouter"
        } else {
            "openai"
        };
        let given = model.compat.as_ref();
        let get = |key: &str| given.and_then(|compat| compat.get(key));
        let flag = |key: &str, default: bool| get(key).and_then(Value::as_bool).unwrap_or(default);
        let text = |key: &str| get(key).and_then(Value::as_str);
        let max_tokens_field = match text("maxTokensField") {
            Some("max_tokens") => "max_tokens",
            Some(_) => "max_completion_tokens",
            None if use_max_tokens => "max_tokens",
            None => "max_completion_tokens",
        };
        let thinking_format = match text("thinkingFormat").unwrap_or(detected_format) {
            "openai" => ThinkingFormat::OpenAi,
            "deepseek" => ThinkingFormat::DeepSeek,
            "zai" => ThinkingFormat::Zai,
            "qwen" => ThinkingFormat::Qwen,
            "qwen-chat-template" => ThinkingFormat::QwenChatTemplate,
            "openrouter" => ThinkingFormat::OpenRouter,
            "together" => ThinkingFormat::Together,
            "string-thinking" => ThinkingFormat::StringThinking,
            "chat-template" => ThinkingFormat::ChatTemplate,
            "baseten" => ThinkingFormat::Baseten,
            "ant-ling" => ThinkingFormat::AntLing,
            _ => ThinkingFormat::Other,
        };
        let cache_format = text("cacheControlFormat").or((provider == "openrouter"
            && model.id.starts_with("anthropic/"))
        .then_some("anthropic"));
        let affinity = text("sessionAffinityFormat").unwrap_or(if is_openrouter {
            "openrouter"
        } else {
            "openai"
        });
        Self {
            store: flag("supportsStore", !non_standard),
            developer_role: flag("supportsDeveloperRole", developer_role),
            reasoning_effort: flag(
                "supportsReasoningEffort",
                !is_grok
                    && !is_zai
                    && !is_moonshot
                    && !is_together
                    && !is_cf_gateway
                    && !is_nvidia
                    && !is_ant_ling,
            ),
            usage_in_streaming: flag("supportsUsageInStreaming", true),
            finish_reason: flag("supportsFinishReason", true),
            max_tokens_field,
            tool_result_name: flag("requiresToolResultName", false),
            assistant_after_tool_result: flag("requiresAssistantAfterToolResult", false),
            thinking_as_text: flag("requiresThinkingAsText", false),
            reasoning_content_on_assistant: flag(
                "requiresReasoningContentOnAssistantMessages",
                is_deepseek,
            ),
            thinking_format,
            strict_mode: flag(
                "supportsStrictMode",
                !is_moonshot && !is_together && !is_cf_gateway && !is_nvidia,
            ),
            anthropic_cache_control: cache_format == Some("anthropic"),
            session_affinity_headers: flag("sendSessionAffinityHeaders", false),
            openrouter_affinity: affinity == "openrouter",
            affinity_session_id: affinity == "openai",
            long_cache_retention: flag(
                "supportsLongCacheRetention",
                !(is_together || is_cf_workers || is_cf_gateway || is_nvidia || is_ant_ling),
            ),
            openrouter_routing: get("openRouterRouting").cloned(),
            vercel_gateway_routing: get("vercelGatewayRouting").cloned(),
            chat_template_kwargs: get("chatTemplateKwargs")
                .and_then(Value::as_object)
                .cloned(),
            chat_template_args: get("chatTemplateArgs").and_then(Value::as_object).cloned(),
            zai_tool_stream: flag("zaiToolStream", false),
        }
    }
}
