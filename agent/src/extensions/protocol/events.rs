//! The events the agent hands the extensions' handlers, as the host reads them: one record each,
//! tagged by `type`, fields in the order the reference's handlers see them; a field the
//! reference leaves undefined is absent.

use std::borrow::Cow;

use pi_rpc_protocol::command::StreamingBehavior;
use pi_rpc_protocol::content::{TaggedImage, UserContent};
use pi_rpc_protocol::event::{CompactionReason, Event};
use pi_rpc_protocol::message::AgentMessage;
use pi_rpc_protocol::model::{Model, ThinkingLevel};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::tools::ToolContent;

/// An event for the extensions' handlers.
#[derive(Debug, Serialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum HostEvent<'a> {
    /// A session started: `startup`, `new`, `resume`, `fork` or `reload`.
    SessionStart {
        reason: &'a str,
        /// The session file left (after a replacement).
        #[serde(skip_serializing_if = "Option::is_none")]
        previous_session_file: Option<String>,
    },
    /// The session ends: `quit`, `reload`, or the replacement's reason.
    SessionShutdown {
        reason: &'a str,
        /// The session file that replaces it.
        #[serde(skip_serializing_if = "Option::is_none")]
        target_session_file: Option<String>,
    },
    /// Before `new_session` (`new`) or `switch_session` (`resume`); handlers may cancel.
    SessionBeforeSwitch {
        reason: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        target_session_file: Option<String>,
    },
    /// Before `fork` (`before` the entry) or `clone` (`at` the leaf); handlers may cancel.
    SessionBeforeFork {
        entry_id: Option<String>,
        position: &'a str,
    },
    /// Before a compaction: handlers may cancel it or give its summary.
    SessionBeforeCompact {
        preparation: CompactionPreparation<'a>,
        #[serde(skip_serializing_if = "Option::is_none")]
        custom_instructions: Option<&'a str>,
        reason: CompactionReason,
        will_retry: bool,
    },
    /// A compaction was saved (its `compaction` entry).
    SessionCompact {
        compaction_entry: &'a Value,
        from_extension: bool,
        reason: CompactionReason,
        will_retry: bool,
    },
    /// Before a command's `ctx.navigateTree` moves the leaf: handlers may cancel, give the
    /// summary, or change its instructions and label.
    SessionBeforeTree { preparation: TreePreparation<'a> },
    /// The leaf moved (`summaryEntry`: the `branch_summary` entry made, if any).
    SessionTree {
        new_leaf_id: Option<&'a str>,
        old_leaf_id: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        summary_entry: Option<&'a Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        from_extension: Option<bool>,
    },
    /// A command's `ctx.newSession({setup})`: the new session, for the `setup` callback that
    /// `token` names (run by the host itself, not by handlers).
    SessionSetup {
        token: &'a str,
        header: &'a Map<String, Value>,
        /// The entries the new session starts with, as its file has them.
        entries: Vec<Map<String, Value>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        session_file: Option<String>,
        session_dir: String,
        cwd: String,
        persisted: bool,
    },
    /// After `session_start`: handlers may name more skills, prompt templates and themes
    /// (`reason`: `startup`, or `reload` after `ctx.reload()`).
    ResourcesDiscover {
        cwd: &'a std::path::Path,
        reason: &'a str,
    },
    /// The agent settled after a run.
    AgentSettled,
    /// The model changed (`source`: `set` or `cycle`).
    ModelSelect {
        model: Box<Model>,
        #[serde(skip_serializing_if = "Option::is_none")]
        previous_model: Option<Box<Model>>,
        source: &'a str,
    },
    /// The thinking level changed (after `thinking_level_changed`); notification only.
    ThinkingLevelSelect {
        level: ThinkingLevel,
        previous_level: ThinkingLevel,
    },
    /// The session's name changed (`set_session_name`; the host tells of `pi.setSessionName`
    /// itself); notification only.
    SessionInfoChanged {
        #[serde(skip_serializing_if = "Option::is_none")]
        name: Option<&'a str>,
    },
    /// The client's `bash` command, before it runs.
    UserBash {
        command: &'a str,
        exclude_from_context: bool,
        cwd: String,
    },
    /// A prompt's text as it arrived (`source`: `rpc`), before anything else.
    Input {
        text: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        images: Option<&'a [TaggedImage]>,
        source: &'a str,
        /// How it is queued, when sent during a run.
        #[serde(skip_serializing_if = "Option::is_none")]
        streaming_behavior: Option<StreamingBehavior>,
    },
    /// A run is about to start with this prompt and system prompt.
    BeforeAgentStart {
        prompt: Cow<'a, str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        images: Option<Vec<&'a UserContent>>,
        system_prompt: String,
    },
    /// The messages of the next model request.
    Context { messages: &'a [&'a AgentMessage] },
    /// A tool call, before it runs.
    ToolCall {
        tool_name: &'a str,
        tool_call_id: &'a str,
        input: &'a Value,
    },
    /// A tool call's result, before the model sees it.
    ToolResult {
        tool_name: &'a str,
        tool_call_id: &'a str,
        input: &'a Value,
        content: &'a [ToolContent],
        details: &'a Option<Value>,
        is_error: bool,
    },
    /// The configured headers of a model request, before its payload is built.
    BeforeProviderHeaders { headers: &'a Map<String, Value> },
    /// The payload of a model request, before it is sent.
    BeforeProviderRequest { payload: &'a Value },
    /// The status and headers of a model call's response.
    AfterProviderResponse {
        status: u16,
        headers: &'a Map<String, Value>,
    },
    /// An event of the agent loop, as the client sees it.
    #[serde(untagged)]
    Loop(&'a Event),
}

impl HostEvent<'_> {
    /// The `type` of the event, as extensions register handlers for it.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::SessionStart { .. } => "session_start",
            Self::SessionShutdown { .. } => "session_shutdown",
            Self::SessionBeforeSwitch { .. } => "session_before_switch",
            Self::SessionBeforeFork { .. } => "session_before_fork",
            Self::SessionBeforeCompact { .. } => "session_before_compact",
            Self::SessionCompact { .. } => "session_compact",
            Self::SessionBeforeTree { .. } => "session_before_tree",
            Self::SessionTree { .. } => "session_tree",
            Self::SessionSetup { .. } => "session_setup",
            Self::ResourcesDiscover { .. } => "resources_discover",
            Self::AgentSettled => "agent_settled",
            Self::ModelSelect { .. } => "model_select",
            Self::ThinkingLevelSelect { .. } => "thinking_level_select",
            Self::SessionInfoChanged { .. } => "session_info_changed",
            Self::UserBash { .. } => "user_bash",
            Self::Input { .. } => "input",
            Self::BeforeAgentStart { .. } => "before_agent_start",
            Self::Context { .. } => "context",
            Self::ToolCall { .. } => "tool_call",
            Self::ToolResult { .. } => "tool_result",
            Self::BeforeProviderHeaders { .. } => "before_provider_headers",
            Self::BeforeProviderRequest { .. } => "before_provider_request",
            Self::AfterProviderResponse { .. } => "after_provider_response",
            Self::Loop(event) => event.kind(),
        }
    }
}

/// What a compaction would summarise and keep, as `session_before_compact` shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionPreparation<'a> {
    /// The first entry kept verbatim.
    pub first_kept_entry_id: &'a str,
    /// The messages the summary replaces.
    pub messages_to_summarize: &'a [AgentMessage],
    /// The start of the turn the cut splits.
    pub turn_prefix_messages: &'a [AgentMessage],
    /// Whether the cut falls inside a turn.
    pub is_split_turn: bool,
    /// The context size before compaction.
    pub tokens_before: u64,
    /// The previous compaction's summary on the branch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_summary: Option<&'a str>,
}

/// What a tree navigation would do, as `session_before_tree` shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreePreparation<'a> {
    /// The entry navigated to.
    pub target_id: &'a str,
    /// The leaf before.
    pub old_leaf_id: Option<&'a str>,
    /// The deepest entry the old and new branches share.
    pub common_ancestor_id: Option<&'a str>,
    /// The entries the old branch leaves behind (oldest first), as the session file has them.
    pub entries_to_summarize: &'a [Map<String, Value>],
    /// Whether the caller asked for a summary.
    pub user_wants_summary: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_instructions: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replace_instructions: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<&'a str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_tagged_and_absent_fields_left_out() {
        let start = HostEvent::SessionStart {
            reason: "new",
            previous_session_file: Some("/s.jsonl".into()),
        };
        assert_eq!(
            serde_json::to_string(&start).unwrap(),
            r#"{"type":"session_start","reason":"new","previousSessionFile":"/s.jsonl"}"#
        );
        assert_eq!(
            serde_json::to_string(&HostEvent::AgentSettled).unwrap(),
            r#"{"type":"agent_settled"}"#
        );
        let fork = HostEvent::SessionBeforeFork {
            entry_id: None,
            position: "at",
        };
        assert_eq!(
            serde_json::to_string(&fork).unwrap(),
            r#"{"type":"session_before_fork","entryId":null,"position":"at"}"#
        );
    }

    #[test]
    fn tree_events_keep_null_leaves_and_leave_out_what_is_undefined() {
        let tree = HostEvent::SessionTree {
            new_leaf_id: None,
            old_leaf_id: Some("a"),
            summary_entry: None,
            from_extension: None,
        };
        assert_eq!(
            serde_json::to_string(&tree).unwrap(),
            r#"{"type":"session_tree","newLeafId":null,"oldLeafId":"a"}"#
        );
        let before = HostEvent::SessionBeforeTree {
            preparation: TreePreparation {
                target_id: "t",
                old_leaf_id: Some("a"),
                common_ancestor_id: None,
                entries_to_summarize: &[],
                user_wants_summary: true,
                custom_instructions: None,
                replace_instructions: Some(false),
                label: Some("l"),
            },
        };
        assert_eq!(before.kind(), "session_before_tree");
        assert_eq!(
            serde_json::to_string(&before).unwrap(),
            r#"{"type":"session_before_tree","preparation":{"targetId":"t","oldLeafId":"a","commonAncestorId":null,"entriesToSummarize":[],"userWantsSummary":true,"replaceInstructions":false,"label":"l"}}"#
        );
    }

    #[test]
    fn a_loop_event_passes_through_as_the_client_sees_it() {
        let event = Event::AgentStart(Default::default());
        let host = HostEvent::Loop(&event);
        assert_eq!(host.kind(), "agent_start");
        assert_eq!(
            serde_json::to_string(&host).unwrap(),
            serde_json::to_string(&event).unwrap()
        );
    }
}
