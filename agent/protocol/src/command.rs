//! Commands a client sends on stdin, one JSON object per line, tagged by `type`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::TaggedImage;
use crate::id::{RequestId, deserialize_optional_id};
use crate::model::ThinkingLevel;

/// How a prompt sent while the agent is streaming is queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum StreamingBehavior {
    /// Delivered after the current turn's tool calls, before the next model call.
    #[serde(rename = "steer")]
    Steer,
    /// Delivered when the agent would otherwise stop.
    #[serde(rename = "followUp")]
    FollowUp,
}

/// How queued steering or follow-up messages are delivered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum QueueMode {
    /// All queued messages at once.
    #[serde(rename = "all")]
    All,
    /// One message per turn (the default).
    #[serde(rename = "one-at-a-time")]
    OneAtATime,
}

/// `prompt`: a user message, or a queued one while streaming.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PromptCommand {
    /// The message text (may be `/template` or `/skill:name`).
    pub message: String,
    /// Attached images.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images: Option<Vec<TaggedImage>>,
    /// Required while streaming: how to queue the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming_behavior: Option<StreamingBehavior>,
}

/// `steer` and `follow_up`: queue a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QueueMessageCommand {
    /// The message text.
    pub message: String,
    /// Attached images.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images: Option<Vec<TaggedImage>>,
}

/// `new_session`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct NewSessionCommand {
    /// Session file recorded as the new session's parent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session: Option<String>,
}

/// `set_model`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SetModelCommand {
    /// Provider name.
    pub provider: String,
    /// Model id.
    pub model_id: String,
}

/// `set_thinking_level`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SetThinkingLevelCommand {
    /// The level wanted; clamped to what the model supports.
    pub level: ThinkingLevel,
}

/// `set_steering_mode` and `set_follow_up_mode`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SetQueueModeCommand {
    /// The mode.
    pub mode: QueueMode,
}

/// `compact`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CompactCommand {
    /// Extra instructions for the summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_instructions: Option<String>,
}

/// `set_auto_compaction` and `set_auto_retry`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SetEnabledCommand {
    /// On or off.
    pub enabled: bool,
}

/// `bash`: run a shell command whose output enters the next prompt's context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BashCommand {
    /// The command line.
    pub command: String,
    /// Keep the output out of the model's context.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_from_context: Option<bool>,
}

/// `export_html`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ExportHtmlCommand {
    /// Where to write; a default name in the working folder otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_path: Option<String>,
}

/// `switch_session`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SwitchSessionCommand {
    /// Session file to load.
    pub session_path: String,
}

/// `fork`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ForkCommand {
    /// A user message entry of the active branch.
    pub entry_id: String,
}

/// `get_entries`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GetEntriesCommand {
    /// Only entries after this entry id (any other JSON value is read as its JavaScript text,
    /// which no entry has: `Entry not found: null`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::id::deserialize_entry_text"
    )]
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub since: Option<String>,
}

/// `set_session_name`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SetSessionNameCommand {
    /// The name; surrounding whitespace is trimmed and it must not end up empty.
    pub name: String,
}

/// A command without fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Empty {}

/// Every command of the protocol, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Command {
    /// Send a user prompt; the response comes once it is accepted, events follow.
    Prompt(PromptCommand),
    /// Queue a steering message, delivered before the next model call.
    Steer(QueueMessageCommand),
    /// Queue a follow-up message, delivered when the agent would stop.
    FollowUp(QueueMessageCommand),
    /// Abort the current run; the response follows `agent_settled`.
    Abort(Empty),
    /// Start a fresh session.
    NewSession(NewSessionCommand),
    /// Report the session state.
    GetState(Empty),
    /// List the conversation's messages.
    GetMessages(Empty),
    /// Switch to a model; `thinking_level_changed` may precede the response.
    SetModel(SetModelCommand),
    /// Switch to the next available model.
    CycleModel(Empty),
    /// List the configured models.
    GetAvailableModels(Empty),
    /// Set the thinking level; `thinking_level_changed` may precede the response.
    SetThinkingLevel(SetThinkingLevelCommand),
    /// Switch to the next thinking level.
    CycleThinkingLevel(Empty),
    /// List the thinking levels of the current model.
    GetAvailableThinkingLevels(Empty),
    /// How steering messages are delivered.
    SetSteeringMode(SetQueueModeCommand),
    /// How follow-up messages are delivered.
    SetFollowUpMode(SetQueueModeCommand),
    /// Summarise older history; `compaction_start`/`compaction_end` frame it.
    Compact(CompactCommand),
    /// Turn automatic compaction on or off.
    SetAutoCompaction(SetEnabledCommand),
    /// Turn automatic retry on or off.
    SetAutoRetry(SetEnabledCommand),
    /// Cancel a retry wait.
    AbortRetry(Empty),
    /// Run a shell command; `bash_execution_update` events stream its output.
    Bash(BashCommand),
    /// Kill the running `bash` command.
    AbortBash(Empty),
    /// Token, cost and context statistics.
    GetSessionStats(Empty),
    /// Write the session as HTML.
    ExportHtml(ExportHtmlCommand),
    /// Load another session file.
    SwitchSession(SwitchSessionCommand),
    /// Start a new session from a previous user message.
    Fork(ForkCommand),
    /// Copy the active branch into a new session.
    Clone(Empty),
    /// User messages that can be forked from.
    GetForkMessages(Empty),
    /// Session entries in append order.
    GetEntries(GetEntriesCommand),
    /// The session as a tree of entries.
    GetTree(Empty),
    /// Text of the last assistant message.
    GetLastAssistantText(Empty),
    /// Name the session; `session_info_changed` precedes the response.
    SetSessionName(SetSessionNameCommand),
    /// Extension commands, prompt templates and skills.
    GetCommands(Empty),
    /// Take every queued steering and follow-up message out of the queues (from pi 0.84.4);
    /// `queue_update` precedes the response, whose data lists the texts taken.
    ClearQueue(Empty),
}

impl Command {
    /// The command's `type` on the wire.
    pub fn type_name(&self) -> &'static str {
        match self {
            Command::Prompt(_) => "prompt",
            Command::Steer(_) => "steer",
            Command::FollowUp(_) => "follow_up",
            Command::Abort(_) => "abort",
            Command::NewSession(_) => "new_session",
            Command::GetState(_) => "get_state",
            Command::GetMessages(_) => "get_messages",
            Command::SetModel(_) => "set_model",
            Command::CycleModel(_) => "cycle_model",
            Command::GetAvailableModels(_) => "get_available_models",
            Command::SetThinkingLevel(_) => "set_thinking_level",
            Command::CycleThinkingLevel(_) => "cycle_thinking_level",
            Command::GetAvailableThinkingLevels(_) => "get_available_thinking_levels",
            Command::SetSteeringMode(_) => "set_steering_mode",
            Command::SetFollowUpMode(_) => "set_follow_up_mode",
            Command::Compact(_) => "compact",
            Command::SetAutoCompaction(_) => "set_auto_compaction",
            Command::SetAutoRetry(_) => "set_auto_retry",
            Command::AbortRetry(_) => "abort_retry",
            Command::Bash(_) => "bash",
            Command::AbortBash(_) => "abort_bash",
            Command::GetSessionStats(_) => "get_session_stats",
            Command::ExportHtml(_) => "export_html",
            Command::SwitchSession(_) => "switch_session",
            Command::Fork(_) => "fork",
            Command::Clone(_) => "clone",
            Command::GetForkMessages(_) => "get_fork_messages",
            Command::GetEntries(_) => "get_entries",
            Command::GetTree(_) => "get_tree",
            Command::GetLastAssistantText(_) => "get_last_assistant_text",
            Command::SetSessionName(_) => "set_session_name",
            Command::GetCommands(_) => "get_commands",
            Command::ClearQueue(_) => "clear_queue",
        }
    }

    /// Every command type the protocol defines.
    pub const TYPES: [&'static str; 33] = [
        "prompt",
        "steer",
        "follow_up",
        "abort",
        "new_session",
        "get_state",
        "get_messages",
        "set_model",
        "cycle_model",
        "get_available_models",
        "set_thinking_level",
        "cycle_thinking_level",
        "get_available_thinking_levels",
        "set_steering_mode",
        "set_follow_up_mode",
        "compact",
        "set_auto_compaction",
        "set_auto_retry",
        "abort_retry",
        "bash",
        "abort_bash",
        "get_session_stats",
        "export_html",
        "switch_session",
        "fork",
        "clone",
        "get_fork_messages",
        "get_entries",
        "get_tree",
        "get_last_assistant_text",
        "set_session_name",
        "get_commands",
        "clear_queue",
    ];
}

/// A command line as sent: the optional `id` beside the command's fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Request {
    /// Correlation id, echoed in the response. `null` is kept and echoed.
    #[serde(
        default,
        deserialize_with = "deserialize_optional_id",
        skip_serializing_if = "Option::is_none"
    )]
    pub id: Option<RequestId>,
    /// The command.
    #[serde(flatten)]
    pub command: Command,
}

/// An answer to an `extension_ui_request` dialog, sent on stdin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExtensionUiResponse {
    /// The request's id.
    pub id: String,
    /// The answer.
    #[serde(flatten)]
    pub answer: ExtensionUiAnswer,
}

/// What the user answered. Read as the reference reads it: `cancelled: true` is a cancel
/// whatever else the answer holds; otherwise the `value`, else the `confirmed`, is taken
/// (`cancelled: false` is ignored), and an answer with neither is a cancel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged, from = "AnswerFields")]
pub enum ExtensionUiAnswer {
    /// `select`, `input`, `editor`: the chosen or typed text.
    Value {
        /// The text.
        value: String,
    },
    /// `confirm`: yes or no.
    Confirmed {
        /// The answer.
        confirmed: bool,
    },
    /// Any dialog dismissed.
    Cancelled {
        /// Always true.
        cancelled: bool,
    },
}

/// The fields of a dialog's answer as a client sends them: any of the three (`cancelled:
/// true` wins; then `value`, then `confirmed`; none is a cancel).
#[derive(Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
struct AnswerFields {
    /// `select`, `input`, `editor`: the chosen or typed text.
    #[serde(default)]
    value: Option<String>,
    /// `confirm`: yes or no.
    #[serde(default)]
    confirmed: Option<bool>,
    /// The dialog was dismissed.
    #[serde(default)]
    cancelled: Option<bool>,
}

impl From<AnswerFields> for ExtensionUiAnswer {
    fn from(fields: AnswerFields) -> Self {
        match fields {
            AnswerFields {
                cancelled: Some(true),
                ..
            } => Self::Cancelled { cancelled: true },
            AnswerFields {
                value: Some(value), ..
            } => Self::Value { value },
            AnswerFields {
                confirmed: Some(confirmed),
                ..
            } => Self::Confirmed { confirmed },
            AnswerFields { .. } => Self::Cancelled { cancelled: true },
        }
    }
}

/// One line of input, classified.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A command to answer with exactly one response.
    Request(Request),
    /// An answer to an extension UI dialog; never answered.
    ExtensionUiResponse(ExtensionUiResponse),
}

/// Why a line is not a command. Its `Display` is the text of the error response.
#[derive(Debug, Clone, PartialEq)]
pub enum CommandError {
    /// Not JSON. The reference answers `command: "parse"`.
    Parse {
        /// What the parser said.
        message: String,
    },
    /// JSON, but not an object (`null`, `[]`, `42`). The reference answers without `command`.
    NotAnObject,
    /// An object without a string `type`.
    MissingType {
        /// The id to echo.
        id: Option<RequestId>,
    },
    /// A `type` this protocol does not define.
    UnknownType {
        /// The id to echo.
        id: Option<RequestId>,
        /// The type given.
        command: String,
    },
    /// A known command whose fields are missing or mistyped.
    InvalidFields {
        /// The id to echo.
        id: Option<RequestId>,
        /// The command type.
        command: String,
        /// What is wrong, naming the field.
        message: String,
    },
}

impl CommandError {
    /// The `command` of the error response (`parse` for unparsable lines), if any.
    pub fn command(&self) -> Option<&str> {
        match self {
            CommandError::Parse { .. } => Some("parse"),
            CommandError::NotAnObject | CommandError::MissingType { .. } => None,
            CommandError::UnknownType { command, .. }
            | CommandError::InvalidFields { command, .. } => Some(command),
        }
    }

    /// The `id` of the error response, if the line carried one.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            CommandError::Parse { .. } | CommandError::NotAnObject => None,
            CommandError::MissingType { id }
            | CommandError::UnknownType { id, .. }
            | CommandError::InvalidFields { id, .. } => id.as_ref(),
        }
    }
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CommandError::Parse { message } => write!(f, "Failed to parse command: {message}"),
            CommandError::NotAnObject => {
                write!(
                    f,
                    "Unknown command: undefined (a command must be a JSON object)"
                )
            }
            CommandError::MissingType { .. } => {
                write!(
                    f,
                    "Unknown command: undefined (the \"type\" field is missing)"
                )
            }
            CommandError::UnknownType { command, .. } => write!(f, "Unknown command: {command}"),
            CommandError::InvalidFields {
                command, message, ..
            } => {
                write!(f, "Invalid {command} command: {message}")
            }
        }
    }
}

impl std::error::Error for CommandError {}

/// Classifies one input line: a command, an extension UI answer, or why it is neither.
pub fn parse_line(line: &str) -> Result<Incoming, CommandError> {
    // Lone surrogate escapes are kept (as stand-ins), as `JSON.parse` keeps them.
    let text = crate::surrogates::decode_json(line);
    let value: Value = serde_json::from_str(&text).map_err(|error| CommandError::Parse {
        message: describe_json_error(&text, &error),
    })?;
    parse_value(value)
}

/// Classifies one parsed JSON value (see [`parse_line`]).
pub fn parse_value(value: Value) -> Result<Incoming, CommandError> {
    let Value::Object(mut object) = value else {
        return Err(CommandError::NotAnObject);
    };
    let id = object.get("id").cloned().map(RequestId::from_value);
    let command = match object.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        _ => return Err(CommandError::MissingType { id }),
    };
    if command == "extension_ui_response" {
        return serde_json::from_value(Value::Object(object))
            .map(Incoming::ExtensionUiResponse)
            .map_err(|error| CommandError::InvalidFields {
                id,
                command,
                message: error.to_string(),
            });
    }
    if !Command::TYPES.contains(&command.as_str()) {
        return Err(CommandError::UnknownType { id, command });
    }
    object.remove("id");
    match serde_json::from_value::<Command>(Value::Object(object)) {
        Ok(parsed) => Ok(Incoming::Request(Request {
            id,
            command: parsed,
        })),
        Err(error) => Err(CommandError::InvalidFields {
            id,
            command,
            message: error.to_string(),
        }),
    }
}

/// Words a JSON syntax error as JavaScript's `JSON.parse` does for the common cases clients
/// meet, so that messages read the same as the reference's.
fn describe_json_error(line: &str, error: &serde_json::Error) -> String {
    if line.trim().is_empty() || error.is_eof() {
        return "Unexpected end of JSON input".to_owned();
    }
    if line.starts_with('\u{feff}') {
        return format!(
            "Unexpected token '\u{feff}', \"{}\" is not valid JSON (a byte order mark is not allowed)",
            excerpt(line)
        );
    }
    format!("{error} (in \"{}\")", excerpt(line))
}

fn excerpt(line: &str) -> String {
    const MAX_CHARS: usize = 40;
    if line.chars().count() <= MAX_CHARS {
        return line.to_owned();
    }
    let head: String = line.chars().take(MAX_CHARS).collect();
    format!("{head}...")
}
