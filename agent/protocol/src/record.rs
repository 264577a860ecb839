//! Reading the agent's output as a client: each line is a response, an event, an extension UI
//! request, or something newer than this crate, kept as raw JSON.

use serde_json::Value;

use crate::event::Event;
use crate::extension_ui::ExtensionUiRequest;
use crate::response::Response;

/// One line of the agent's stdout.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputRecord {
    /// `type: "response"`.
    Response(Response),
    /// A known event.
    Event(Box<Event>),
    /// `type: "extension_ui_request"`.
    ExtensionUiRequest(ExtensionUiRequest),
    /// A record whose `type` this crate does not know, kept whole.
    Unknown(Value),
}

impl OutputRecord {
    /// Classifies a parsed JSON value. Known record types must have their required fields;
    /// unknown types are kept as they are.
    pub fn from_value(value: Value) -> serde_json::Result<OutputRecord> {
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        match kind {
            "response" => serde_json::from_value(value).map(OutputRecord::Response),
            "extension_ui_request" => {
                serde_json::from_value(value).map(OutputRecord::ExtensionUiRequest)
            }
            kind if Event::TYPES.contains(&kind) => {
                serde_json::from_value(value).map(|event| OutputRecord::Event(Box::new(event)))
            }
            _ => Ok(OutputRecord::Unknown(value)),
        }
    }

    /// The record's `type`.
    pub fn type_name(&self) -> Option<&str> {
        match self {
            OutputRecord::Response(_) => Some("response"),
            OutputRecord::ExtensionUiRequest(_) => Some("extension_ui_request"),
            OutputRecord::Event(_) | OutputRecord::Unknown(_) => None,
        }
    }
}

/// Parses one line of the agent's stdout.
pub fn parse_output_line(line: &str) -> serde_json::Result<OutputRecord> {
    OutputRecord::from_value(serde_json::from_str(line)?)
}
