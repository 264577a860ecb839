//! One line of a session file as the store keeps it: the line's JSON text exactly as the
//! reference writes it (key order and unknown fields included), with the fields the store
//! indexes; a `message` entry made by this agent keeps its message typed instead and is written
//! as JSON when asked. Nothing here is a JSON tree.

use std::sync::Arc;

use pi_rpc_protocol::message::AgentMessage;
use pi_rpc_protocol::session::{EntryBase, SessionEntry};
use serde_json::{Map, Value};

use super::message::{Role, SharedMessage, Slice};
use super::scan::{Scanned, Span, scan};

/// An indexed text field: a span of the line, a known entry type, a short text held inline,
/// or owned text (a field with escapes, or an entry without a line).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum Text {
    #[default]
    Absent,
    Span(Span),
    Known(&'static str),
    /// The span's text, the first `len` bytes of `bytes`.
    Inline {
        span: Span,
        len: u8,
        bytes: [u8; INLINE_BYTES],
    },
    Owned(Box<str>),
}

/// How long a text is held inline: ids as the reference makes them (8 hex digits), so that
/// indexing a long session reads no entry's line.
const INLINE_BYTES: usize = 14;

/// The entry types the reference writes: an entry of one of them answers `kind` without
/// reading its line (which indexing a long session would otherwise visit once more each).
const KNOWN_KINDS: [&str; 9] = [
    "message",
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
];

impl Text {
    fn of_span(span: Option<Span>) -> Self {
        span.map_or(Self::Absent, Self::Span)
    }

    /// The field of `line` at `span`, inline when it is short.
    fn of_short(span: Option<Span>, line: &str) -> Self {
        let Some(span) = span else {
            return Self::Absent;
        };
        let text = span.of(line).as_bytes();
        let mut bytes = [0; INLINE_BYTES];
        match (bytes.get_mut(..text.len()), u8::try_from(text.len())) {
            (Some(start), Ok(len)) => {
                start.copy_from_slice(text);
                Self::Inline { span, len, bytes }
            }
            _ => Self::Span(span),
        }
    }

    /// The `type` field of `line` at `span`.
    fn of_kind(span: Option<Span>, line: &str) -> Self {
        let Some(span) = span else {
            return Self::Absent;
        };
        let kind = span.of(line);
        match KNOWN_KINDS.iter().find(|known| **known == kind) {
            Some(known) => Self::Known(known),
            None => Self::Span(span),
        }
    }

    fn of_value(value: Option<&Value>) -> Self {
        match value.and_then(Value::as_str) {
            Some(text) => Self::Owned(text.into()),
            None => Self::Absent,
        }
    }

    /// Where the text is in the line, when it is the line's.
    fn span(&self) -> Option<Span> {
        match self {
            Self::Span(span) | Self::Inline { span, .. } => Some(*span),
            _ => None,
        }
    }

    fn get<'a>(&'a self, line: Option<&'a str>) -> Option<&'a str> {
        match self {
            Self::Absent => None,
            Self::Span(span) => line.map(|line| span.of(line)),
            Self::Known(text) => Some(text),
            Self::Inline { len, bytes, .. } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).ok()
            }
            Self::Owned(text) => Some(text),
        }
    }
}

/// A session entry (any line after the header).
///
/// Serialises to the object exactly as the file holds it, which is what the reference sends in
/// `get_entries` and `get_tree`.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The line; `None` for a message entry made here (written from its fields and message).
    line: Option<Slice>,
    kind: Text,
    id: Text,
    parent_id: Text,
    timestamp: Text,
    /// The message of a `message` entry whose `message` is an object.
    message: Option<Arc<SharedMessage>>,
}

impl Entry {
    /// The entry of one line of a session file: `None` when the line is not a JSON object.
    pub fn from_line(line: &str) -> Option<Self> {
        Self::from_slice(Slice::own(line.to_owned()))
    }

    /// The entry of a line of a block read from a file.
    pub(crate) fn from_slice(line: Slice) -> Option<Self> {
        if let Some(entry) = Self::from_canonical(line.clone()) {
            return Some(entry);
        }
        match pi_rpc_protocol::surrogates::from_str::<Value>(line.as_str()).ok()? {
            Value::Object(map) => Some(Self::from_raw(map)),
            _ => None,
        }
    }

    /// An entry of a canonical line, when the scanner can index it.
    fn from_canonical(line: Slice) -> Option<Self> {
        let scanned = scan(line.as_str())?;
        Self::from_scanned(line, &scanned)
    }

    /// Whether a canonical line that the scanner indexed as `scanned` can be kept as it is
    /// ([`Self::from_scanned`] takes it): all but a user, assistant or tool-result message
    /// without content, which reaches the model with an empty one, so that its text differs
    /// from the line's (the slow path handles it).
    pub(crate) fn is_quotable(text: &str, scanned: &Scanned) -> bool {
        let role = scanned.role.map(|span| Role::from_name(span.of(text)));
        let kind = scanned.kind.map(|span| span.of(text));
        !(kind == Some("message")
            && matches!(role, Some(Role::User | Role::Assistant | Role::ToolResult))
            && !scanned.message_has_content)
    }

    /// The entry of a canonical line that the scanner indexed as `scanned` (the spans are
    /// relative to the line); `None` when it is not quotable (see [`Self::is_quotable`]).
    pub(crate) fn from_scanned(line: Slice, scanned: &Scanned) -> Option<Self> {
        let text = line.as_str();
        if !Self::is_quotable(text, scanned) {
            return None;
        }
        let role = scanned.role.map(|span| Role::from_name(span.of(text)));
        let kind = scanned.kind.map(|span| span.of(text));
        let message = match (kind, scanned.message) {
            (Some("message"), Some(span)) => Some(SharedMessage::from_text(
                line.sub(span),
                role.unwrap_or(Role::Other),
            )),
            _ => None,
        };
        Some(Self {
            kind: Text::of_kind(scanned.kind, text),
            id: Text::of_short(scanned.id, text),
            parent_id: Text::of_short(scanned.parent_id, text),
            timestamp: Text::of_span(scanned.timestamp),
            message,
            line: Some(line),
        })
    }

    /// Wraps a JSON object read from a file (or built by the store).
    pub fn from_raw(raw: Map<String, Value>) -> Self {
        let text = pi_rpc_protocol::json::to_string(&raw).unwrap_or_default();
        let line = Slice::own(text);
        if let Some(entry) = Self::from_canonical(line.clone()) {
            return entry;
        }
        let message = match (raw.get("type").and_then(Value::as_str), raw.get("message")) {
            (Some("message"), Some(Value::Object(message))) => Some(context_message_text(message)),
            _ => None,
        };
        Self {
            kind: Text::of_value(raw.get("type")),
            id: Text::of_value(raw.get("id")),
            parent_id: Text::of_value(raw.get("parentId")),
            timestamp: Text::of_value(raw.get("timestamp")),
            message,
            line: Some(line),
        }
    }

    /// Builds an entry from its typed form.
    pub fn from_typed(entry: SessionEntry) -> Result<Self, serde_json::Error> {
        if let SessionEntry::Message(message) = entry {
            return Ok(Self::new_message(
                message.base,
                SharedMessage::new(message.message),
            ));
        }
        match serde_json::to_value(&entry)? {
            Value::Object(map) => Ok(Self::from_raw(map)),
            other => {
                let text = format!("a session entry serialised as {other}");
                Err(serde::ser::Error::custom(text))
            }
        }
    }

    /// A `message` entry made here: `{"type":"message","id","parentId","timestamp","message"}`.
    pub fn new_message(base: EntryBase, message: Arc<SharedMessage>) -> Self {
        Self {
            line: None,
            kind: Text::Owned("message".into()),
            id: Text::Owned(base.id.into()),
            parent_id: base
                .parent_id
                .map_or(Text::Absent, |id| Text::Owned(id.into())),
            timestamp: Text::Owned(base.timestamp.into()),
            message: Some(message),
        }
    }

    fn line(&self) -> Option<&str> {
        self.line.as_ref().map(Slice::as_str)
    }

    /// The entry id (`""` when the line has none).
    pub fn id(&self) -> &str {
        self.id.get(self.line()).unwrap_or("")
    }

    /// The parent id; `None` for a root (or a line without one).
    pub fn parent_id(&self) -> Option<&str> {
        self.parent_id.get(self.line())
    }

    /// The `type` field (`message`, `model_change`, ...).
    pub fn kind(&self) -> &str {
        self.kind.get(self.line()).unwrap_or("")
    }

    /// The ISO 8601 `timestamp` field.
    pub fn timestamp(&self) -> &str {
        self.timestamp.get(self.line()).unwrap_or("")
    }

    /// The message of a `message` entry.
    pub fn message(&self) -> Option<&Arc<SharedMessage>> {
        self.message.as_ref()
    }

    /// The object as the file holds it, parsed (a copy: for the few fields only some kinds of
    /// entries have).
    pub fn raw(&self) -> Map<String, Value> {
        let parsed = match self.line() {
            Some(line) => pi_rpc_protocol::surrogates::from_str(line).ok(),
            None => std::str::from_utf8(&self.to_json())
                .ok()
                .and_then(|json| pi_rpc_protocol::surrogates::from_str(json).ok()),
        };
        match parsed {
            Some(Value::Object(map)) => map,
            _ => Map::new(),
        }
    }

    /// One field of the object (parsed from the line: for entries other than messages).
    pub fn field(&self, key: &str) -> Option<Value> {
        self.raw().remove(key)
    }

    /// The typed entry, when the line has the shape this crate models (parsed, a copy).
    pub fn parsed(&self) -> Option<SessionEntry> {
        if let (Some(message), "message") = (&self.message, self.kind()) {
            return Some(SessionEntry::Message(
                pi_rpc_protocol::session::MessageEntry {
                    base: EntryBase {
                        id: self.id().into(),
                        parent_id: self.parent_id().map(str::to_owned),
                        timestamp: self.timestamp().into(),
                    },
                    message: message.get()?.clone(),
                },
            ));
        }
        serde_json::from_value(Value::Object(self.raw())).ok()
    }

    /// Whether this is a `message` entry holding an assistant message.
    pub fn is_assistant_message(&self) -> bool {
        self.message_role() == Some(Role::Assistant)
    }

    /// The role of a `message` entry's message.
    pub fn message_role(&self) -> Option<Role> {
        if self.kind() != "message" {
            return None;
        }
        self.message.as_ref().map(|message| message.role())
    }

    /// The typed message of a `message` entry (see [`SharedMessage::get`]).
    pub fn typed_message(&self) -> Option<&AgentMessage> {
        self.message.as_ref()?.get()
    }

    /// Appends the entry's JSON text.
    pub fn write_json(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        if let Some(line) = self.line() {
            out.extend_from_slice(line.as_bytes());
            return Ok(());
        }
        use pi_rpc_protocol::json::write_to;
        out.extend_from_slice(b"{\"type\":\"message\",\"id\":");
        write_to(out, self.id())?;
        out.extend_from_slice(b",\"parentId\":");
        write_to(out, &self.parent_id())?;
        out.extend_from_slice(b",\"timestamp\":");
        write_to(out, self.timestamp())?;
        out.extend_from_slice(b",\"message\":");
        match &self.message {
            Some(message) => message.write_json(out)?,
            None => out.extend_from_slice(b"null"),
        }
        out.push(b'}');
        Ok(())
    }

    /// The entry's JSON text.
    pub fn to_json(&self) -> Vec<u8> {
        let mut out = Vec::new();
        // Writing our own types and strings into memory cannot fail.
        let _ = self.write_json(&mut out);
        out
    }

    /// A copy with another parent, the key kept where it was (`{...entry, parentId}`).
    pub(crate) fn with_parent(&self, parent_id: Option<&str>) -> Self {
        if parent_id.is_some() && self.parent_id() == parent_id {
            // The same object: shared, not copied.
            return self.clone();
        }
        let Some(line) = self.line() else {
            let mut entry = self.clone();
            entry.parent_id = parent_id.map_or(Text::Absent, |id| Text::Owned(id.into()));
            return entry;
        };
        if let (Some(span), Some(message)) = (self.parent_id.span(), &self.message)
            && let Some(entry) = self.reparented_line(line, span, parent_id, message)
        {
            return entry;
        }
        let mut raw = self.raw();
        raw.insert(
            "parentId".into(),
            parent_id.map_or(Value::Null, |id| Value::String(id.into())),
        );
        Self::from_raw(raw)
    }

    /// A message entry's line with the parent id's text replaced (no parse of the message).
    fn reparented_line(
        &self,
        line: &str,
        span: Span,
        parent_id: Option<&str>,
        message: &SharedMessage,
    ) -> Option<Self> {
        let (start, end) = (span.start as usize, span.end as usize);
        let replacement = match parent_id {
            Some(id) => pi_rpc_protocol::json::to_string(id).ok()?,
            None => "null".into(),
        };
        // The span is inside the quotes; replace the quoted string.
        let mut text = String::with_capacity(line.len() + replacement.len());
        text.push_str(line.get(..start.checked_sub(1)?)?);
        text.push_str(&replacement);
        text.push_str(line.get(end + 1..)?);
        let entry = Self::from_canonical(Slice::own(text))?;
        if let Some(moved) = &entry.message {
            moved.adopt_parse(message);
        }
        Some(entry)
    }
}

/// The message a `message` entry contributes, as text: a user, assistant or tool-result
/// message without content gets an empty one (as the reference gives the model).
fn context_message_text(message: &Map<String, Value>) -> Arc<SharedMessage> {
    let role = message.get("role").and_then(Value::as_str).unwrap_or("");
    let role = Role::from_name(role);
    let mut message = message.clone();
    if matches!(role, Role::User | Role::Assistant | Role::ToolResult)
        && message.get("content").is_none_or(Value::is_null)
    {
        message.insert("content".into(), Value::Array(Vec::new()));
    }
    let text = pi_rpc_protocol::json::to_string(&message).unwrap_or_default();
    SharedMessage::from_text(Slice::own(text), role)
}

impl serde::Serialize for Entry {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.raw().serialize(serializer)
    }
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
