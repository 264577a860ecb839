//! What the host replies to the agent's requests ([`HostReply`]), what the handlers of an event
//! decided (one type per event whose handlers answer), and the agent's answers to the host's
//! calls ([`ReplyValue`]). The handlers' answers come from extensions' JavaScript: a field of
//! another type than expected counts as absent, as the agent has always read them, and a field
//! present as `null` is told apart from an absent one where that changes what follows.

use pi_rpc_protocol::content::TaggedImage;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// A reply of the host to a request of the agent.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum HostReply {
    /// The event or command is fully handled; an event's handlers may have decided something.
    Done {
        #[serde(default)]
        result: Option<Value>,
    },
    /// What the handlers of an intercepted event made of it.
    Intercepted { result: Value },
    /// A partial result of a tool call: `{content, details}`.
    ToolUpdate { partial_result: Value },
    /// The end of a tool call: `{content, details}`, and whether the tool threw.
    ToolResult { result: Value, is_error: bool },
    /// A piece of output of a `bash` command run by an extension's operations (base64).
    BashData { data: String },
    /// The end of that command: its exit code, or why `exec` failed.
    BashExit {
        #[serde(default)]
        exit_code: Option<i64>,
        #[serde(default)]
        error: Option<String>,
    },
    /// An event of an extension provider's stream (pi-ai's, `partial` only on `start`).
    ProviderEvent { event: Value },
    /// The end of that stream: its final message.
    ProviderDone { message: Value },
    /// The key of an extension provider's call; the refreshed login to store; or why there is
    /// no key.
    ProviderKey {
        #[serde(default)]
        api_key: Option<String>,
        #[serde(default)]
        refreshed: Option<Value>,
        #[serde(default)]
        error: Option<String>,
    },
}

impl HostReply {
    /// Whether no reply follows this one.
    pub fn is_final(&self) -> bool {
        !matches!(
            self,
            Self::ToolUpdate { .. } | Self::BashData { .. } | Self::ProviderEvent { .. }
        )
    }

    /// What the handlers decided, read as `T`: from a `done` or `intercepted` reply; `None`
    /// for another reply, without a result, or one that is not a `T`.
    pub fn decision<T: DeserializeOwned>(self) -> Option<T> {
        match self {
            Self::Done {
                result: Some(result),
            }
            | Self::Intercepted { result } => serde_json::from_value(result).ok(),
            _ => None,
        }
    }
}

/// `input`: handled, transformed (the new text and images), or go on.
#[derive(Debug, Default, Deserialize)]
pub struct InputResult {
    #[serde(default, deserialize_with = "lenient")]
    pub action: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub text: Option<String>,
    /// Present: the prompt's images from now on (`None`: none, or none readable).
    #[serde(default, deserialize_with = "present_lenient")]
    pub images: Option<Option<Vec<TaggedImage>>>,
}

/// `before_agent_start`: messages after the prompt, and the run's system prompt.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BeforeAgentStartResult {
    #[serde(default, deserialize_with = "lenient_items")]
    pub messages: Vec<OutgoingCustomMessage>,
    #[serde(default, deserialize_with = "lenient")]
    pub system_prompt: Option<String>,
}

/// `session_before_switch` / `session_before_fork`: whether the replacement is cancelled.
#[derive(Debug, Default, Deserialize)]
pub struct CancelResult {
    #[serde(default, deserialize_with = "lenient")]
    pub cancel: Option<bool>,
}

impl CancelResult {
    /// Whether a handler cancelled.
    pub fn cancelled(&self) -> bool {
        self.cancel == Some(true)
    }
}

/// `session_setup`: the entries a `ctx.newSession` call's `setup` appended (each an object).
#[derive(Debug, Default, Deserialize)]
pub struct SetupResult {
    #[serde(default, deserialize_with = "lenient_items")]
    pub entries: Vec<Map<String, Value>>,
}

/// `resources_discover`: the skill, prompt template and theme paths the handlers gave, each
/// with the extension that gave it, in handler order.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveredResources {
    #[serde(default, deserialize_with = "lenient_items")]
    pub skill_paths: Vec<DiscoveredPath>,
    #[serde(default, deserialize_with = "lenient_items")]
    pub prompt_paths: Vec<DiscoveredPath>,
    #[serde(default, deserialize_with = "lenient_items")]
    pub theme_paths: Vec<DiscoveredPath>,
}

/// A path a `resources_discover` handler gave.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveredPath {
    /// The path as given (relative ones are the working folder's).
    pub path: String,
    /// The extension whose handler gave it.
    pub extension_path: String,
}

/// `user_bash`: the command's result (answered as given), or the id of the event whose
/// operations run it.
#[derive(Debug, Default, Deserialize)]
pub struct UserBashResult {
    #[serde(default, deserialize_with = "present")]
    pub result: Option<Value>,
    #[serde(default, deserialize_with = "lenient")]
    pub operations: Option<u64>,
}

/// `session_before_compact`: cancelled, or the compaction an extension made.
#[derive(Debug, Default, Deserialize)]
pub struct BeforeCompactResult {
    #[serde(default, deserialize_with = "present")]
    pub cancel: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    pub compaction: Option<Value>,
}

impl BeforeCompactResult {
    /// The compaction given, read leniently (whatever it is, it replaces the summary call).
    pub fn given(&self) -> Option<CompactionGiven> {
        let compaction = self.compaction.as_ref()?;
        Some(CompactionGiven::deserialize(compaction).unwrap_or_default())
    }
}

/// A compaction an extension made.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionGiven {
    #[serde(default, deserialize_with = "lenient")]
    pub summary: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub first_kept_entry_id: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub tokens_before: Option<u64>,
}

/// `session_before_tree`: cancelled, a summary given, the summary's instructions or the label
/// changed. A label given as `""` is told apart from none: it drops the caller's.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BeforeTreeResult {
    #[serde(default, deserialize_with = "lenient")]
    pub cancel: Option<bool>,
    #[serde(default, deserialize_with = "lenient")]
    pub summary: Option<GivenBranchSummary>,
    #[serde(default, deserialize_with = "lenient")]
    pub custom_instructions: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub replace_instructions: Option<bool>,
    #[serde(default, deserialize_with = "lenient")]
    pub label: Option<String>,
}

/// A branch summary an extension wrote.
#[derive(Debug, Default, Deserialize)]
pub struct GivenBranchSummary {
    #[serde(default, deserialize_with = "lenient")]
    pub summary: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub details: Option<Value>,
    #[serde(default, deserialize_with = "lenient")]
    pub usage: Option<pi_rpc_protocol::usage::Usage>,
}

/// `tool_call`: the call blocked (with a reason), failed (a handler threw), or run with these
/// arguments.
#[derive(Debug, Default, Deserialize)]
pub struct ToolCallDecision {
    #[serde(default, deserialize_with = "lenient")]
    pub error: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub block: Option<bool>,
    #[serde(default, deserialize_with = "lenient")]
    pub reason: Option<String>,
    #[serde(default, deserialize_with = "present")]
    pub input: Option<Value>,
}

/// `context`: the messages of the next model request, when handlers replaced them.
#[derive(Debug, Default, Deserialize)]
pub struct ContextResult {
    #[serde(default, deserialize_with = "present")]
    pub messages: Option<Value>,
}

/// `before_provider_request`: the payload to send.
#[derive(Debug, Default, Deserialize)]
pub struct ProviderRequestResult {
    #[serde(default, deserialize_with = "present")]
    pub payload: Option<Value>,
}

/// `before_provider_headers`: the headers as the handlers left them.
#[derive(Debug, Default, Deserialize)]
pub struct ProviderHeadersResult {
    #[serde(default)]
    pub headers: Option<Map<String, Value>>,
}

/// The agent's answer to a call of the host.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ReplyValue {
    /// `true` or `false` (`pi.setModel`, `ctx.waitForIdle()`, `ctx.reload()`).
    Flag(bool),
    /// `{cancelled}`: a session replacement not made, or made (`false`).
    Cancelled { cancelled: bool },
    /// `{error}`: the call rejects with this message.
    Error { error: String },
    /// The data the command would have answered the client with.
    Data(Value),
}

/// A value of another type counts as absent.
fn lenient<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    Ok(serde_json::from_value(Value::deserialize(deserializer)?).ok())
}

/// A field that is present, even as `null`.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// A field that is present, read as `T` (`None` inside when it is not one).
fn present_lenient<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    deserializer: D,
) -> Result<Option<Option<T>>, D::Error> {
    Ok(Some(lenient(deserializer)?))
}

/// A list whose items that are not `T` are left out (no list: empty).
fn lenient_items<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    deserializer: D,
) -> Result<Vec<T>, D::Error> {
    let items = match Value::deserialize(deserializer)? {
        Value::Array(items) => items,
        _ => return Ok(Vec::new()),
    };
    Ok(items
        .into_iter()
        .filter_map(|item| serde_json::from_value(item).ok())
        .collect())
}

/// The message of `pi.sendMessage`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutgoingCustomMessage {
    /// The extension's kind of message.
    #[serde(default)]
    pub custom_type: String,
    /// A text or content blocks.
    #[serde(default)]
    pub content: Value,
    /// Whether a UI shows it.
    #[serde(default)]
    pub display: Option<bool>,
    /// Extension data.
    #[serde(default)]
    pub details: Option<Value>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fields_of_another_type_count_as_absent() {
        let input: InputResult =
            serde_json::from_value(json!({"action": "transform", "text": 3})).unwrap();
        assert_eq!(input.action.as_deref(), Some("transform"));
        assert_eq!(input.text, None);
        assert!(input.images.is_none());
        let input: InputResult = serde_json::from_value(json!({"images": null})).unwrap();
        assert!(matches!(input.images, Some(None)));
        let cancel: CancelResult = serde_json::from_value(json!({"cancel": "yes"})).unwrap();
        assert!(!cancel.cancelled());
    }

    #[test]
    fn a_present_null_is_told_apart_from_an_absent_field() {
        let decision: ToolCallDecision = serde_json::from_value(json!({"input": null})).unwrap();
        assert_eq!(decision.input, Some(Value::Null));
        let decision: ToolCallDecision = serde_json::from_value(json!({})).unwrap();
        assert_eq!(decision.input, None);
    }

    #[test]
    fn a_tree_decision_tells_an_empty_label_from_none() {
        let decision: BeforeTreeResult = serde_json::from_value(json!({
            "label": "",
            "summary": {"summary": "S", "details": {"k": 1}},
            "replaceInstructions": "yes"
        }))
        .unwrap();
        assert_eq!(decision.label.as_deref(), Some(""));
        assert_eq!(decision.replace_instructions, None);
        let summary = decision.summary.unwrap();
        assert_eq!(summary.summary.as_deref(), Some("S"));
        assert_eq!(summary.details, Some(json!({"k": 1})));
        let decision: BeforeTreeResult = serde_json::from_value(json!({})).unwrap();
        assert!(decision.label.is_none() && decision.cancel.is_none());
    }

    #[test]
    fn answers_to_host_calls_keep_their_shapes() {
        let encode = |value: ReplyValue| serde_json::to_string(&value).unwrap();
        assert_eq!(encode(ReplyValue::Flag(true)), "true");
        assert_eq!(
            encode(ReplyValue::Cancelled { cancelled: true }),
            r#"{"cancelled":true}"#
        );
        assert_eq!(
            encode(ReplyValue::Error { error: "no".into() }),
            r#"{"error":"no"}"#
        );
    }
}
