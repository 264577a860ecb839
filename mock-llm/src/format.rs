//! The provider wire formats the server speaks, and the families they belong to.
//!
//! A format is what a request is answered in: the provider's path, auth, error shape and
//! stream. Several formats share a family (the same request body and stream events): Azure
//! OpenAI and the ChatGPT Codex backend speak OpenAI Responses, Vertex AI speaks Gemini.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A provider wire format, named like the reference's `api` setting in models.json.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum Format {
    /// Anthropic Messages: `POST /v1/messages`.
    #[serde(rename = "anthropic-messages", alias = "anthropic")]
    Anthropic,
    /// OpenAI Chat Completions: `POST /v1/chat/completions`.
    #[serde(rename = "openai-completions", alias = "openai-chat", alias = "chat")]
    OpenAiChat,
    /// OpenAI Responses: `POST /v1/responses`.
    #[serde(rename = "openai-responses", alias = "responses")]
    OpenAiResponses,
    /// Google Gemini: `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`.
    #[serde(rename = "google-generative-ai", alias = "gemini")]
    Gemini,
    /// Amazon Bedrock Converse: `POST /model/{modelId}/converse-stream`, AWS event-stream body.
    #[serde(rename = "bedrock-converse-stream", alias = "bedrock")]
    Bedrock,
    /// Gemini on Vertex AI: `POST /v1/[projects/{p}/locations/{l}/]publishers/google/models/
    /// {model}:streamGenerateContent?alt=sse`.
    #[serde(rename = "google-vertex", alias = "vertex")]
    Vertex,
    /// Mistral chat completions: `POST /mistral/v1/chat/completions` (the `/mistral` prefix
    /// tells it from OpenAI's path).
    #[serde(rename = "mistral-conversations", alias = "mistral")]
    Mistral,
    /// Azure OpenAI Responses: `POST /openai/v1/responses?api-version=...` with `api-key`.
    #[serde(rename = "azure-openai-responses", alias = "azure")]
    AzureResponses,
    /// The ChatGPT Codex backend: `POST .../codex/responses` with a bearer token and
    /// `chatgpt-account-id`.
    #[serde(rename = "openai-codex-responses", alias = "codex")]
    CodexResponses,
}

/// How a format's requests are read and its streams rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// Anthropic Messages events.
    Anthropic,
    /// Chat Completions chunks.
    Chat,
    /// Responses events.
    Responses,
    /// Gemini chunks.
    Gemini,
    /// Bedrock Converse events in binary event-stream messages.
    Bedrock,
    /// Mistral chat chunks.
    Mistral,
}

impl Format {
    /// Every format, in the README's order.
    pub const ALL: [Format; 9] = [
        Format::Anthropic,
        Format::OpenAiChat,
        Format::OpenAiResponses,
        Format::Gemini,
        Format::Bedrock,
        Format::Vertex,
        Format::Mistral,
        Format::AzureResponses,
        Format::CodexResponses,
    ];

    /// The format's name as in models.json (`anthropic-messages`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Format::Anthropic => "anthropic-messages",
            Format::OpenAiChat => "openai-completions",
            Format::OpenAiResponses => "openai-responses",
            Format::Gemini => "google-generative-ai",
            Format::Bedrock => "bedrock-converse-stream",
            Format::Vertex => "google-vertex",
            Format::Mistral => "mistral-conversations",
            Format::AzureResponses => "azure-openai-responses",
            Format::CodexResponses => "openai-codex-responses",
        }
    }

    /// The family whose bodies and streams the format uses.
    pub(crate) fn family(self) -> Family {
        match self {
            Format::Anthropic => Family::Anthropic,
            Format::OpenAiChat => Family::Chat,
            Format::OpenAiResponses | Format::AzureResponses | Format::CodexResponses => {
                Family::Responses
            }
            Format::Gemini | Format::Vertex => Family::Gemini,
            Format::Bedrock => Family::Bedrock,
            Format::Mistral => Family::Mistral,
        }
    }
}
