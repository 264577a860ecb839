//! The release of pi's RPC protocol pi-agent speaks: `--rpc-release X` or the setting
//! `rpcRelease`, 0.84.1 by default (the release this agent was built to). The one place that
//! answers "does release X have feature Y": [`RpcRelease::has`]. Code that builds a record asks
//! the session's or the run's release, never a version number.

use std::fmt;
use std::str::FromStr;

use pi_rpc_protocol::event::{AgentSettledEvent, AssistantMessageEvent, Event, MessageUpdateEvent};
use pi_rpc_protocol::message::AssistantMessage;
use pi_rpc_protocol::model::ThinkingLevel;
use pi_rpc_protocol::usage::Usage;

/// A release of the reference pi, `MAJOR.MINOR.PATCH`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RpcRelease(u32, u32, u32);

/// A change of the RPC protocol (or of behaviour seen through it) after 0.84.1 that pi-agent
/// follows when asked to speak a release that has it (the registry `conformance/releases.yaml`
/// lists them with the scenarios that prove them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feature {
    /// `message_update` carries the message's cumulative `usage` (0.84.2).
    MessageUpdateUsage,
    /// `toolcall_start` carries the call's `id` and `toolName` (0.84.3).
    ToolcallStartIdentity,
    /// Switching models keeps the thinking level, even from a model without reasoning (whose
    /// level is `off`) rather than going back to the default level (0.84.3).
    ThinkingLevelKept,
    /// A `branch_summary` entry's `fromId` is the leaf the navigation left, not the entry it
    /// went to (0.84.3).
    BranchSummaryFromOldLeaf,
    /// A branch summary whose answer calls a tool fails (0.84.3).
    BranchSummaryRefusesToolCalls,
    /// A failed branch summary says so (`Branch summarization failed: ...`), and one cut at the
    /// token cap fails too (0.84.4).
    BranchSummaryFailureNamed,
    /// A branch summary's answer may have 4096 tokens (at most the model's), not 2048 (0.85.0).
    BranchSummaryLongerAnswer,
    /// A branch summary's answer has the model's own limit (1.4.0).
    BranchSummaryModelMaxTokens,
    /// A branch summary's model thinks at the session's level (1.5.0).
    BranchSummaryThinks,
    /// The `clear_queue` command (0.84.4).
    ClearQueue,
    /// Extensions get `ui_prompt_start` / `ui_prompt_end` around dialogs (0.84.4).
    UiPromptEvents,
    /// `abort` cancels a manual compaction in progress (0.85.0).
    AbortCancelsCompaction,
    /// The `write` tool's result no longer counts bytes (0.85.0).
    WriteResultWithoutSize,
    /// `abort` ends the run with the queued messages still queued (0.86.1).
    AbortKeepsQueues,
    /// A run starts with a `system` message declaring the prompt sections and tools, whenever
    /// they differ from what the conversation last declared (0.86.1).
    SystemMessages,
    /// Dropping a failed answer from the model's context is recorded as a `context_edit` entry
    /// (0.87.0).
    ContextEdits,
    /// A compaction's `estimatedTokensAfter` counts the `system` messages (0.87.0).
    EstimateCountsSystem,
    /// Extensions' `context` handlers no longer see the `system` messages, which 0.86.1 showed
    /// them (0.87.0).
    ContextHidesSystem,
    /// The summary request of a split turn's start is laid out under `# Conversation` and
    /// `# Instructions` headings instead of `<conversation>` tags (0.87.1).
    TurnPrefixHeadings,
    /// Successful `prompt`, `steer` and `follow_up` answers carry `data.disposition` (0.99.1).
    InputDisposition,
    /// Assistant messages carry the `thinkingLevel` they were made with (0.99.1).
    AssistantThinkingLevel,
    /// The built-in extensions are named `builtin:NAME`, and `mcp` joins `llama` (0.99.1).
    BuiltinExtensions,
    /// `bash` results carry `structuredContent`; a non-zero exit is a failure the tool returns,
    /// with `isError` in the result and no `details` (0.99.1).
    BashStructuredResult,
    /// A new session's file is written at its first user message, not its first assistant
    /// message (0.99.1).
    SavedAtFirstMessage,
    /// Assistant messages, tool results and `tool_execution_end` carry `durationMs` (1.3.0).
    Durations,
    /// `read` results carry `structuredContent` (1.3.0).
    ReadStructuredContent,
    /// Tool calls with arguments that are not valid JSON carry `argumentsError` and fail
    /// (1.3.0).
    ArgumentsError,
    /// `agent_settled` carries `aborted` (1.3.0).
    SettledAborted,
    /// A usage's cost carries `totalFromProvider` (1.5.0).
    CostFromProvider,
    /// Tool argument validation failures are worded as JSON Schema checks (`missing`,
    /// `expected string, got object`), one per missing property (1.5.0).
    SchemaValidationMessages,
    /// `--help` and `--list-models` report the start-up errors (extensions that failed to
    /// load, extension flags nobody registered) on stderr before their output (1.5.0).
    MetadataReportsStartupErrors,
    /// The turn an abort ends between tool calls and the next model call stops as `aborted`,
    /// not `error` (1.5.2).
    AbortedTurnIsAborted,
    /// OpenAI Responses requests name their session header `session-id`, not `session_id`
    /// (1.5.2).
    ResponsesSessionHeaderDashed,
    /// Chat Completions requests send the system prompt as `developer` only to OpenAI's own API
    /// by default, `system` to every other host (1.6.0).
    DeveloperRoleForOpenAiOnly,
    /// Google's request parameters, as `before_provider_request` handlers see them, turn the
    /// SDK's automatic continuation off (1.6.0).
    GoogleAutomaticContinuationOff,
}

impl Feature {
    /// The first release that has it.
    pub const fn since(self) -> RpcRelease {
        match self {
            Feature::MessageUpdateUsage => RpcRelease(0, 84, 2),
            Feature::ToolcallStartIdentity
            | Feature::ThinkingLevelKept
            | Feature::BranchSummaryFromOldLeaf
            | Feature::BranchSummaryRefusesToolCalls => RpcRelease(0, 84, 3),
            Feature::ClearQueue | Feature::UiPromptEvents | Feature::BranchSummaryFailureNamed => {
                RpcRelease(0, 84, 4)
            }
            Feature::AbortCancelsCompaction
            | Feature::WriteResultWithoutSize
            | Feature::BranchSummaryLongerAnswer => RpcRelease(0, 85, 0),
            Feature::SystemMessages | Feature::AbortKeepsQueues => RpcRelease(0, 86, 1),
            Feature::ContextEdits | Feature::EstimateCountsSystem | Feature::ContextHidesSystem => {
                RpcRelease(0, 87, 0)
            }
            Feature::TurnPrefixHeadings => RpcRelease(0, 87, 1),
            Feature::InputDisposition
            | Feature::AssistantThinkingLevel
            | Feature::BuiltinExtensions
            | Feature::BashStructuredResult
            | Feature::SavedAtFirstMessage => RpcRelease(0, 99, 1),
            Feature::Durations
            | Feature::SettledAborted
            | Feature::ReadStructuredContent
            | Feature::ArgumentsError => RpcRelease(1, 3, 0),
            Feature::BranchSummaryModelMaxTokens => RpcRelease(1, 4, 0),
            Feature::CostFromProvider
            | Feature::BranchSummaryThinks
            | Feature::SchemaValidationMessages
            | Feature::MetadataReportsStartupErrors => RpcRelease(1, 5, 0),
            Feature::AbortedTurnIsAborted | Feature::ResponsesSessionHeaderDashed => {
                RpcRelease(1, 5, 2)
            }
            Feature::DeveloperRoleForOpenAiOnly | Feature::GoogleAutomaticContinuationOff => {
                RpcRelease(1, 6, 0)
            }
        }
    }
}

/// A release pi-agent cannot speak.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReleaseError {
    /// Not a release number.
    #[error("--rpc-release: `{0}` is not a release number such as 1.6.0")]
    Malformed(String),
    /// Older than the first or newer than the last release pi-agent knows.
    #[error(
        "--rpc-release: pi-agent speaks pi's RPC protocol of releases {first} to {last}, not {0}",
        first = RpcRelease::DEFAULT,
        last = RpcRelease::NEWEST
    )]
    OutOfRange(RpcRelease),
}

impl RpcRelease {
    /// The release pi-agent speaks unless asked otherwise.
    pub const DEFAULT: RpcRelease = RpcRelease(0, 84, 1);
    /// The newest release pi-agent knows.
    pub const NEWEST: RpcRelease = RpcRelease(1, 6, 0);
    /// The setting naming the release (`settings.json`), overridden by `--rpc-release`.
    pub const SETTING: &'static str = "rpcRelease";

    /// Whether this release has the feature.
    pub fn has(self, feature: Feature) -> bool {
        self >= feature.since()
    }

    /// The release asked for: the flag's, else the setting's, else [`RpcRelease::DEFAULT`].
    pub fn choose(
        flag: Option<&str>,
        setting: Option<&serde_json::Value>,
    ) -> Result<RpcRelease, ReleaseError> {
        match (flag, setting) {
            (Some(text), _) => text.parse(),
            (None, Some(serde_json::Value::String(text))) => text.parse(),
            (None, Some(other)) => Err(ReleaseError::Malformed(other.to_string())),
            (None, None) => Ok(Self::DEFAULT),
        }
    }
}

/// What became of an accepted `prompt`, `steer` or `follow_up` (`data.disposition`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disposition {
    /// A run started with it.
    Started,
    /// It waits in the steering or follow-up queue.
    Queued,
    /// An extension command or `input` handler took it; no run starts for it.
    Handled,
}

impl Disposition {
    /// The word on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Disposition::Started => "started",
            Disposition::Queued => "queued",
            Disposition::Handled => "handled",
        }
    }
}

impl RpcRelease {
    /// The answer to an accepted `prompt`, `steer` or `follow_up`: with `data.disposition` from
    /// the release that has it.
    pub fn accepted(
        self,
        id: Option<pi_rpc_protocol::RequestId>,
        command: &str,
        disposition: Disposition,
    ) -> pi_rpc_protocol::Response {
        if !self.has(Feature::InputDisposition) {
            return pi_rpc_protocol::Response::ok(id, command);
        }
        let mut response = pi_rpc_protocol::Response::ok(id, command);
        response.data = Some(serde_json::json!({"disposition": disposition.as_str()}));
        response
    }
}

impl RpcRelease {
    /// The `message_update` of one streaming delta: with the message's cumulative `usage`
    /// from 0.84.2, a `toolcall_start` naming the call and its tool from 0.84.3.
    pub fn message_update(
        self,
        mut delta: AssistantMessageEvent,
        usage: Option<&Usage>,
    ) -> MessageUpdateEvent {
        if let AssistantMessageEvent::ToolcallStart(start) = &mut delta
            && !self.has(Feature::ToolcallStartIdentity)
        {
            start.id = None;
            start.tool_name = None;
        }
        let usage = usage
            .filter(|_| self.has(Feature::MessageUpdateUsage))
            .map(|usage| {
                let mut usage = usage.clone();
                self.stamp_usage(&mut usage);
                usage
            });
        MessageUpdateEvent {
            usage,
            assistant_message_event: delta,
        }
    }
}

impl RpcRelease {
    /// `agent_settled`, saying whether the run was aborted from 1.3.0.
    pub fn settled(self, aborted: bool) -> Event {
        Event::AgentSettled(AgentSettledEvent {
            aborted: self.has(Feature::SettledAborted).then_some(aborted),
        })
    }
}

impl RpcRelease {
    /// Stamps the final message of a model call as this release does: `durationMs` (the call's
    /// time, 1.3.0) and the `thinkingLevel` asked for (0.99.1) after its other fields, and for
    /// an answer that did not fail or get aborted `usage.cost.totalFromProvider` (1.5.0; no
    /// provider pi-agent speaks reports a billed total, so it is `false`).
    pub fn stamp_response(
        self,
        message: &mut AssistantMessage,
        took: std::time::Duration,
        thinking_level: ThinkingLevel,
    ) {
        if self.has(Feature::Durations) {
            let ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
            message.extra.insert("durationMs".into(), ms.into());
        }
        if self.has(Feature::AssistantThinkingLevel) {
            message
                .extra
                .insert("thinkingLevel".into(), thinking_level.as_str().into());
        }
        if !matches!(
            message.stop_reason,
            pi_rpc_protocol::message::StopReason::Error
                | pi_rpc_protocol::message::StopReason::Aborted
        ) {
            self.stamp_usage(&mut message.usage);
        }
    }

    /// `cost.totalFromProvider` on a usage (1.5.0).
    pub fn stamp_usage(self, usage: &mut Usage) {
        if self.has(Feature::CostFromProvider) {
            usage.cost.total_from_provider = Some(false);
        }
    }
}

impl RpcRelease {
    /// A tool's running time, shown from 1.3.0 (`None` when it did not run).
    pub fn duration(self, took: Option<std::time::Duration>) -> Option<u64> {
        took.filter(|_| self.has(Feature::Durations))
            .map(|took| u64::try_from(took.as_millis()).unwrap_or(u64::MAX))
    }
}

impl RpcRelease {
    /// The commands of the reference's built-in extensions that `get_commands` lists: `llama`
    /// (an inline extension before 0.99.1), and from 0.99.1 `llama` and `mcp` named
    /// `builtin:NAME`, unless `--no-extensions` (`no_extensions`) leaves them out.
    pub fn builtin_commands(self, no_extensions: bool) -> Vec<serde_json::Value> {
        let command = |name: &str, description: &str, path: &str, source: &str| {
            serde_json::json!({
                "name": name,
                "description": description,
                "source": "extension",
                "sourceInfo": {"path": path, "source": source, "scope": "temporary", "origin": "top-level"},
            })
        };
        const LLAMA: &str = "Manage llama.cpp router models";
        if !self.has(Feature::BuiltinExtensions) {
            return vec![command("llama", LLAMA, "<inline:llama.cpp>", "inline")];
        }
        if no_extensions {
            return Vec::new();
        }
        vec![
            command("llama", LLAMA, "builtin:llama.cpp", "builtin"),
            command(
                "mcp",
                "Manage MCP servers: sign in, reconnect, enable or disable, and change exposure",
                "builtin:mcp",
                "builtin",
            ),
        ]
    }
}

impl FromStr for RpcRelease {
    type Err = ReleaseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let malformed = || ReleaseError::Malformed(text.to_owned());
        let parts: Vec<u32> = text
            .trim()
            .split('.')
            .map(|part| part.parse().map_err(|_| malformed()))
            .collect::<Result<_, _>>()?;
        let [major, minor, patch] = parts[..] else {
            return Err(malformed());
        };
        let release = RpcRelease(major, minor, patch);
        if release < Self::DEFAULT || release > Self::NEWEST {
            return Err(ReleaseError::OutOfRange(release));
        }
        Ok(release)
    }
}

impl fmt::Display for RpcRelease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_has_the_features_of_the_releases_before_it() {
        let release: RpcRelease = "0.99.1".parse().unwrap();
        assert!(release.has(Feature::SystemMessages));
        assert!(release.has(Feature::InputDisposition));
        assert!(!release.has(Feature::Durations));
        assert!(!RpcRelease::DEFAULT.has(Feature::MessageUpdateUsage));
        assert!(RpcRelease::NEWEST.has(Feature::CostFromProvider));
    }

    #[test]
    fn the_flag_wins_over_the_setting_and_bad_releases_are_named() {
        let setting = serde_json::json!("0.84.4");
        assert_eq!(
            RpcRelease::choose(Some("1.6.0"), Some(&setting)),
            Ok(RpcRelease(1, 6, 0))
        );
        assert_eq!(
            RpcRelease::choose(None, Some(&setting)),
            Ok(RpcRelease(0, 84, 4))
        );
        assert_eq!(RpcRelease::choose(None, None), Ok(RpcRelease::DEFAULT));
        assert_eq!(
            "1.6".parse::<RpcRelease>(),
            Err(ReleaseError::Malformed("1.6".into()))
        );
        assert_eq!(
            "2.0.0".parse::<RpcRelease>().unwrap_err().to_string(),
            "--rpc-release: pi-agent speaks pi's RPC protocol of releases 0.84.1 to 1.6.0, not 2.0.0"
        );
    }
}
