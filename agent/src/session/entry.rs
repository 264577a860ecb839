//! One line of a session file as the store keeps it: the JSON object exactly as read or written
//! (key order and unknown fields included) and its typed view.

use pi_rpc_protocol::session::SessionEntry;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

/// A session entry (any line after the header).
///
/// Serialises to the object exactly as the file holds it, which is what the reference sends in
/// `get_entries` and `get_tree`.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    raw: Map<String, Value>,
    parsed: Option<SessionEntry>,
}

impl Entry {
    /// Wraps a JSON object read from a file (or built by the store).
    pub fn from_raw(raw: Map<String, Value>) -> Self {
        let parsed = parse(&raw);
        Self { raw, parsed }
    }

    /// Builds an entry from its typed form.
    pub fn from_typed(entry: SessionEntry) -> Result<Self, serde_json::Error> {
        let raw = match serde_json::to_value(&entry)? {
            Value::Object(map) => map,
            other => {
                let text = format!("a session entry serialised as {other}");
                return Err(serde::ser::Error::custom(text));
            }
        };
        Ok(Self {
            raw,
            parsed: Some(entry),
        })
    }

    /// The entry id (`""` when the line has none).
    pub fn id(&self) -> &str {
        self.raw.get("id").and_then(Value::as_str).unwrap_or("")
    }

    /// The parent id; `None` for a root (or a line without one).
    pub fn parent_id(&self) -> Option<&str> {
        self.raw.get("parentId").and_then(Value::as_str)
    }

    /// The `type` field (`message`, `model_change`, ...).
    pub fn kind(&self) -> &str {
        self.raw.get("type").and_then(Value::as_str).unwrap_or("")
    }

    /// The ISO 8601 `timestamp` field.
    pub fn timestamp(&self) -> &str {
        self.raw
            .get("timestamp")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// The object as the file holds it.
    pub fn raw(&self) -> &Map<String, Value> {
        &self.raw
    }

    /// The typed entry, when the line has the shape this crate models.
    pub fn parsed(&self) -> Option<&SessionEntry> {
        self.parsed.as_ref()
    }

    /// Whether this is a `message` entry holding an assistant message.
    pub fn is_assistant_message(&self) -> bool {
        self.kind() == "message"
            && self
                .raw
                .get("message")
                .and_then(|message| message.get("role"))
                .and_then(Value::as_str)
                == Some("assistant")
    }

    /// The role of a `message` entry's message.
    pub fn message_role(&self) -> Option<&str> {
        if self.kind() != "message" {
            return None;
        }
        self.raw.get("message")?.get("role")?.as_str()
    }

    /// A copy with another parent, the key kept where it was (`{...entry, parentId}`).
    pub(crate) fn with_parent(&self, parent_id: Option<&str>) -> Self {
        let mut raw = self.raw.clone();
        raw.insert(
            "parentId".into(),
            parent_id.map_or(Value::Null, |id| Value::String(id.into())),
        );
        Self::from_raw(raw)
    }
}

impl Serialize for Entry {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(serializer)
    }
}

fn parse(raw: &Map<String, Value>) -> Option<SessionEntry> {
    serde_json::from_value(Value::Object(raw.clone())).ok()
}

/// A fresh entry id: the first 8 hex digits of a random UUID, unique among `taken`.
pub(crate) fn generate_id(taken: impl Fn(&str) -> bool) -> String {
    for _ in 0..100 {
        let uuid = uuid::Uuid::new_v4().hyphenated().to_string();
        let id = &uuid[..8];
        if !taken(id) {
            return id.to_owned();
        }
    }
    uuid::Uuid::new_v4().hyphenated().to_string()
}
