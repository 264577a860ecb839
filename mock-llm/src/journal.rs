//! The journal: every request the server received and how its answer ended.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use serde::Serialize;
use serde_json::Value;
use tokio::sync::watch;

/// One request and what became of it.
#[derive(Debug, Clone, Serialize)]
pub struct JournalEntry {
    /// 0-based position in the journal since the last reset.
    pub index: usize,
    /// HTTP method.
    pub method: String,
    /// Request path.
    pub path: String,
    /// Query string, without `?`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Request headers (lower-case names); key values are redacted.
    pub headers: BTreeMap<String, String>,
    /// The body parsed as JSON, or as a string when it is not JSON.
    pub body: Value,
    /// The wire format the path selects.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// The requested model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The index in the script of the response chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_index: Option<usize>,
    /// How the answer ended.
    pub outcome: Outcome,
}

/// How an answer ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Outcome {
    /// Still being answered.
    InProgress,
    /// The whole answer was written.
    Completed {
        /// Body writes sent.
        chunks: usize,
    },
    /// The client went away before the body was finished.
    ClientDisconnected {
        /// Body writes sent before it went away.
        after_chunks: usize,
    },
    /// A scripted fault ended the connection (`drop`, `reset`) after some writes.
    Fault {
        /// `drop` or `reset`.
        fault: String,
        /// Body writes sent before it.
        after_chunks: usize,
    },
    /// The server answered with an error of its own (unmatched request, bad route, bad body).
    Error {
        /// HTTP status sent.
        status: u16,
        /// What went wrong.
        message: String,
    },
}

/// Header names whose values are redacted in the journal.
const SECRET_HEADERS: [&str; 7] = [
    "x-api-key",
    "authorization",
    "x-goog-api-key",
    "api-key",
    "proxy-authorization",
    "cf-aig-authorization",
    "x-amz-security-token",
];

/// Redacts a header value when the header carries a key.
pub(crate) fn redact(name: &str, value: &str) -> String {
    if let Some(parameters) = value.strip_prefix("AWS4-HMAC-SHA256 ") {
        return redact_sigv4(parameters);
    }
    if SECRET_HEADERS.contains(&name) {
        if value.starts_with("Bearer ") {
            return "Bearer [redacted]".to_owned();
        }
        return "[redacted]".to_owned();
    }
    value.to_owned()
}

/// A SigV4 `Authorization` header with its key id and signature redacted, the rest of the
/// credential scope (date, region, service) and the signed headers kept.
fn redact_sigv4(parameters: &str) -> String {
    let parts: Vec<String> = parameters
        .split(", ")
        .map(|part| match part.split_once('=') {
            Some(("Credential", scope)) => match scope.split_once('/') {
                Some((_, rest)) => format!("Credential=[redacted]/{rest}"),
                None => "Credential=[redacted]".to_owned(),
            },
            Some(("Signature", _)) => "Signature=[redacted]".to_owned(),
            _ => part.to_owned(),
        })
        .collect();
    format!("AWS4-HMAC-SHA256 {}", parts.join(", "))
}

/// A handle on one journal entry, valid until the journal is reset.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EntryRef {
    index: usize,
    generation: u64,
}

impl EntryRef {
    /// The entry's index in the journal.
    pub fn index(self) -> usize {
        self.index
    }
}

struct Entries {
    generation: u64,
    list: Vec<JournalEntry>,
}

/// Redacts the value of a `key=` parameter (Gemini's query-string API key).
pub(crate) fn redact_query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some(("key", _)) => "key=[redacted]".to_owned(),
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// The shared journal with a counter others can wait on.
pub(crate) struct Journal {
    entries: Mutex<Entries>,
    count: watch::Sender<usize>,
    /// Bumped on every change, for waiters on outcomes.
    version: watch::Sender<u64>,
}

impl Journal {
    pub fn new() -> Self {
        Journal {
            entries: Mutex::new(Entries {
                generation: 0,
                list: Vec::new(),
            }),
            count: watch::Sender::new(0),
            version: watch::Sender::new(0),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Appends an entry (its `index` is set here).
    pub fn push(&self, mut entry: JournalEntry) -> EntryRef {
        let mut entries = self.lock();
        let index = entries.list.len();
        entry.index = index;
        entries.list.push(entry);
        let generation = entries.generation;
        drop(entries);
        self.count.send_replace(index + 1);
        self.version.send_modify(|v| *v += 1);
        EntryRef { index, generation }
    }

    /// Changes an entry (ignored if the journal was reset since it was pushed).
    pub fn update(&self, entry: EntryRef, change: impl FnOnce(&mut JournalEntry)) {
        let mut entries = self.lock();
        if entries.generation != entry.generation {
            return;
        }
        if let Some(found) = entries.list.get_mut(entry.index) {
            change(found);
        }
        drop(entries);
        self.version.send_modify(|v| *v += 1);
    }

    /// Whether at least `n` entries exist and none of the first `n` is still in progress.
    pub fn finished(&self, n: usize) -> bool {
        let entries = self.lock();
        entries.list.len() >= n
            && entries.list[..n]
                .iter()
                .all(|e| e.outcome != Outcome::InProgress)
    }

    pub fn subscribe_changes(&self) -> watch::Receiver<u64> {
        self.version.subscribe()
    }

    pub fn snapshot(&self) -> Vec<JournalEntry> {
        self.lock().list.clone()
    }

    pub fn len(&self) -> usize {
        self.lock().list.len()
    }

    pub fn clear(&self) {
        let mut entries = self.lock();
        entries.list.clear();
        entries.generation += 1;
        drop(entries);
        self.count.send_replace(0);
    }

    pub fn subscribe(&self) -> watch::Receiver<usize> {
        self.count.subscribe()
    }
}
