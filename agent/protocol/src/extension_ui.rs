//! Extension UI requests the agent writes on stdout (`type: "extension_ui_request"`).
//!
//! Dialogs (`select`, `confirm`, `input`, `editor`) wait for an `extension_ui_response` with the
//! same `id` (see [`crate::command::ExtensionUiResponse`]); the others are fire-and-forget.

use serde::{Deserialize, Serialize};

/// One extension UI request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ExtensionUiRequest {
    /// Always `"extension_ui_request"`.
    #[serde(rename = "type")]
    pub kind: ExtensionUiRequestTag,
    /// Unique id (a UUID) to answer dialogs with.
    pub id: String,
    /// The method and its fields.
    #[serde(flatten)]
    pub method: ExtensionUiMethod,
}

/// The constant `"extension_ui_request"` tag.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum ExtensionUiRequestTag {
    /// `"extension_ui_request"`
    #[default]
    #[serde(rename = "extension_ui_request")]
    ExtensionUiRequest,
}

/// What the extension asks for, tagged by `method`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "method")]
pub enum ExtensionUiMethod {
    /// Choose one of `options`; answer `value` or `cancelled`.
    #[serde(rename = "select")]
    Select {
        /// Question.
        title: String,
        /// Choices.
        options: Vec<String>,
        /// Auto-resolve after this many milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
    },
    /// Yes or no; answer `confirmed` or `cancelled`.
    #[serde(rename = "confirm")]
    Confirm {
        /// Question.
        title: String,
        /// Details.
        message: String,
        /// Auto-resolve after this many milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
    },
    /// Free text; answer `value` or `cancelled`.
    #[serde(rename = "input")]
    Input {
        /// Question.
        title: String,
        /// Hint text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        placeholder: Option<String>,
        /// Auto-resolve after this many milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
    },
    /// Multi-line text; answer `value` or `cancelled`.
    #[serde(rename = "editor")]
    Editor {
        /// Title.
        title: String,
        /// Initial text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prefill: Option<String>,
    },
    /// A notification.
    #[serde(rename = "notify")]
    Notify {
        /// Text.
        message: String,
        /// `info`, `warning` or `error`.
        #[serde(
            rename = "notifyType",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        notify_type: Option<String>,
    },
    /// Set or clear (no `statusText`) a status entry.
    #[serde(rename = "setStatus")]
    SetStatus {
        /// Entry key.
        #[serde(rename = "statusKey")]
        status_key: String,
        /// Text; absent to clear.
        #[serde(
            rename = "statusText",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        status_text: Option<String>,
    },
    /// Set or clear (no `widgetLines`) a widget.
    #[serde(rename = "setWidget")]
    SetWidget {
        /// Widget key.
        #[serde(rename = "widgetKey")]
        widget_key: String,
        /// Lines; absent to clear.
        #[serde(
            rename = "widgetLines",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        widget_lines: Option<Vec<String>>,
        /// `aboveEditor` (default) or `belowEditor`.
        #[serde(
            rename = "widgetPlacement",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        widget_placement: Option<String>,
    },
    /// Set the window title.
    #[serde(rename = "setTitle")]
    SetTitle {
        /// Title.
        title: String,
    },
    /// Set the input editor's text.
    #[serde(rename = "set_editor_text")]
    SetEditorText {
        /// Text.
        text: String,
    },
}
