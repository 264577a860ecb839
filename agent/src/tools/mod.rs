//! The built-in tools as the reference pi 0.84.1 runs them: the four default ones, `read`,
//! `bash`, `edit` and `write`, and the optional `grep`, `find` and `ls` (offered with `--tools`): the same names and parameter schemas, the same argument coercion and validation errors,
//! the same result texts, `details` objects, truncation rules and streamed partial results.
//!
//! Every tool implements [`Tool`]; a run offers a [`ToolSet`]. The run loop calls
//! [`ToolSet::prepare`] when a tool call starts (unknown tools and invalid arguments fail there,
//! before execution, as in the reference) and then [`PreparedCall::run`]; [`execute`] does both
//! for a built-in tool.

mod args;
mod bash;
mod diff;
mod edit;
mod find;
mod fs_error;
mod grep;
pub(crate) mod image;
mod listing;
mod locks;
mod ls;
pub(crate) mod output;
pub(crate) mod path;
pub(crate) mod process_groups;
mod read;
mod regular_file;
mod schema;
mod selection;
pub mod shell;
mod tool;
mod truncate;
mod write;

use std::path::PathBuf;

use pi_rpc_protocol::content::{ImageContent, TextContent, UserContent};
use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::js;
use crate::release::{Feature, RpcRelease};

pub use args::ArgsError;
pub(crate) use fs_error::node_message;
pub use locks::FileLocks;
pub use schema::ValidationWording;
pub use selection::ToolSelection;
pub use tool::{OnUpdate, Prepared, PreparedCall, Tool, ToolSet};
pub(crate) use truncate::truncate_tail;
pub use truncate::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES};

/// A tool as the model sees it: name, description and JSON schema of its arguments (serialised
/// as `{name, description, parameters}`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDefinition {
    /// The tool name (`read`, `bash`, `edit`, `write`, `grep`, `find`, `ls`, or an extension's).
    pub name: Cow<'static, str>,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON schema of the arguments, keys in the reference's order.
    pub parameters: Value,
}

/// A block of a tool result: text or a base64 image.
///
/// Serialises as `{"type":"text","text":...}` or `{"type":"image","data":...,"mimeType":...}`,
/// the JSON of the wire type [`UserContent`], which it converts into.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ToolContent {
    /// `{"type":"text","text":...}`
    Text {
        /// The text.
        text: String,
    },
    /// `{"type":"image","data":...,"mimeType":...}`
    Image {
        /// Base64 data without a `data:` prefix.
        data: String,
        /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
}

impl ToolContent {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }
}

impl From<ToolContent> for UserContent {
    fn from(block: ToolContent) -> Self {
        match block {
            ToolContent::Text { text } => UserContent::Text(TextContent::new(text)),
            ToolContent::Image { data, mime_type } => UserContent::Image(ImageContent {
                data,
                mime_type,
                extra: serde_json::Map::new(),
            }),
        }
    }
}

/// A text block.
pub fn text_block(text: impl Into<String>) -> ToolContent {
    ToolContent::text(text)
}

/// An image block of base64 `data`.
pub fn image_block(data: impl Into<String>, mime_type: impl Into<String>) -> ToolContent {
    ToolContent::Image {
        data: data.into(),
        mime_type: mime_type.into(),
    }
}

/// A partial result streamed while a tool runs (the `partialResult` of a
/// `tool_execution_update` event). Only `bash` streams.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolUpdate {
    /// The output so far (for `bash`: the tail of the accumulated output).
    pub content: Vec<ToolContent>,
    /// Tool-specific details; `None` is left out of the JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// The final result of a tool call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolOutcome {
    /// Result blocks sent back to the model.
    pub content: Vec<ToolContent>,
    /// Tool-specific details (edit's diff, truncation info); `None` is left out of the JSON.
    /// Failed calls carry `{}`, as the reference's do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// True when the call failed; the text then says why.
    #[serde(rename = "isError")]
    pub is_error: bool,
    /// The result as data for programmatic callers (`read`'s text, `bash`'s output and exit
    /// code), which later releases show as `structuredContent`. A failure that carries it was
    /// returned by the tool rather than raised.
    #[serde(skip)]
    pub structured: Option<Box<Structured>>,
}

/// A tool result's data for programmatic callers, and the release feature that shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Structured {
    /// The feature of the release that shows it.
    pub since: Feature,
    /// The data.
    pub value: Value,
}

impl ToolOutcome {
    /// A successful result.
    pub fn success(content: Vec<ToolContent>, details: Option<Value>) -> Self {
        Self {
            content,
            details,
            is_error: false,
            structured: None,
        }
    }

    /// A failed call, worded as `message`, with the empty `details` object the reference gives.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![text_block(message)],
            details: Some(Value::Object(serde_json::Map::new())),
            is_error: true,
            structured: None,
        }
    }

    /// The result with its data for programmatic callers, shown from the release that has
    /// `since`.
    pub fn with_structured(mut self, since: Feature, value: Value) -> Self {
        self.structured = Some(Box::new(Structured { since, value }));
        self
    }

    /// The value of `result` in `tool_execution_end` as `release` shows it: `{content,
    /// details}` (without `details` when the tool gave none); with `structuredContent` where the
    /// release shows it (`bash` from 0.99.1, `read` from 1.3.0), and `isError` on a failure the
    /// tool returned, which has no `details` rather than `{}`.
    pub fn result_value(&self, release: RpcRelease) -> Value {
        let mut result = serde_json::Map::new();
        result.insert(
            "content".into(),
            serde_json::to_value(&self.content).unwrap_or_default(),
        );
        if let Some(details) = self.result_details(release) {
            result.insert("details".into(), details);
        }
        if let Some(structured) = self.structured_in(release) {
            result.insert("structuredContent".into(), structured.clone());
            if self.is_error {
                result.insert("isError".into(), true.into());
            }
        }
        Value::Object(result)
    }

    /// The `details` of the result as `release` shows them: a failure the tool returned (with
    /// its data) has none from 1.3.0.
    pub fn result_details(&self, release: RpcRelease) -> Option<Value> {
        if self.is_error && self.structured_in(release).is_some() {
            return None;
        }
        self.details.clone()
    }

    /// The result's data for programmatic callers, when `release` shows it.
    fn structured_in(&self, release: RpcRelease) -> Option<&Value> {
        let structured = self.structured.as_ref()?;
        release.has(structured.since).then_some(&structured.value)
    }

    /// The text blocks joined by newlines (handy for logs and tests).
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|block| match block {
                ToolContent::Text { text } => Some(text.as_str()),
                ToolContent::Image { .. } => None,
            })
            .collect();
        texts.join("\n")
    }
}

/// What a tool call may see of the agent: its working folder, the cancel signal of the run, and
/// the settings that shape the tools.
#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The agent's working folder; relative paths resolve against it and `bash` runs in it.
    pub cwd: PathBuf,
    /// Cancelled when the run is aborted.
    pub cancel: CancellationToken,
    /// Whether the current model accepts images; `Some(false)` adds the reference's note to image
    /// reads, `None` means no model is known.
    pub model_accepts_images: Option<bool>,
    /// Settings `images.autoResize` (default true): oversized images are resized rather than
    /// sent as they are.
    pub auto_resize_images: bool,
    /// The agent folder (`PI_CODING_AGENT_DIR` or `~/.pi/agent`); its `bin` folder is put first on
    /// `bash`'s `PATH`, as the reference does.
    pub agent_dir: Option<PathBuf>,
    /// Extra environment for `bash` (`PI_SESSION_ID`, `PI_SESSION_FILE`, `PI_PROVIDER`,
    /// `PI_MODEL`, `PI_REASONING_LEVEL`); inherited `PI_*` session variables are removed first.
    pub bash_env: Vec<(String, String)>,
    /// Settings `shellPath`: the shell to run instead of `/bin/bash`.
    pub shell_path: Option<PathBuf>,
    /// Settings `shellCommandPrefix`: a line run before every command.
    pub shell_command_prefix: Option<String>,
    /// Folder for the full output of truncated `bash` runs (default: the system temp folder).
    pub temp_dir: Option<PathBuf>,
    /// Serialises `edit` and `write` calls on the same file; share one per session.
    pub file_locks: FileLocks,
    /// Which tools are active (`--tools`, `--no-tools`...); a call of another one is not found.
    pub selection: ToolSelection,
    /// The release of pi's RPC protocol spoken (what the tools' results say).
    pub release: RpcRelease,
}

impl ToolContext {
    /// How argument validation failures are worded in the release spoken.
    pub fn validation_wording(&self) -> ValidationWording {
        ValidationWording::for_release(self.release)
    }

    /// A context for `cwd` with the reference's defaults and a fresh cancel token.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            cancel: CancellationToken::new(),
            model_accepts_images: None,
            auto_resize_images: true,
            agent_dir: None,
            bash_env: Vec::new(),
            shell_path: None,
            shell_command_prefix: None,
            temp_dir: None,
            file_locks: FileLocks::default(),
            selection: ToolSelection::default(),
            release: RpcRelease::DEFAULT,
        }
    }
}

/// Looks the built-in tool up and checks `args` against its schema, coercing them as the
/// reference does (`"5"` for a number, `5` for a string). On failure, the result the call ends
/// with: `Tool NAME not found`, or `Validation failed for tool "NAME": ...`.
pub fn prepare(name: &str, args: &Value) -> Result<PreparedCall, ToolOutcome> {
    ToolSet::builtin().prepare(name, args, ValidationWording::default())
}

/// Rewrites a tool call's arguments in place as the reference's argument preparation rewrites
/// the call object of the assistant message: `edit`'s `edits` given as JSON text of a list
/// becomes that list. Events sent before (`tool_execution_start`, `message_end`) keep the
/// arguments as sent; the assistant message held in memory (`get_messages`) shows them repaired.
pub fn repair_call_arguments(name: &str, args: &mut serde_json::Map<String, Value>) {
    args::repair_in_place(name, args);
}

/// Prepares and runs a call of a built-in tool in one step.
pub async fn execute(
    name: &str,
    args: &Value,
    ctx: &ToolContext,
    on_update: &mut (dyn FnMut(ToolUpdate) + Send),
) -> ToolOutcome {
    match prepare(name, args) {
        Ok(prepared) => prepared.run("", ctx, on_update).await,
        Err(outcome) => outcome,
    }
}

/// A tool failure, worded as the result text the model sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ToolError {
    pub(crate) message: String,
}

impl ToolError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The text of a cancelled file operation.
    pub(crate) fn aborted() -> Self {
        Self::new("Operation aborted")
    }
}

pub(crate) type ToolResult<T = ToolOutcome> = Result<T, ToolError>;
