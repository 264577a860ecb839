//! The files a compacted stretch of conversation read and changed, gathered from the `read`,
//! `write` and `edit` tool calls (and the lists of the compaction before it), so the summary can
//! name them.

use std::collections::BTreeSet;

use pi_rpc_protocol::content::AssistantContent;
use pi_rpc_protocol::message::AgentMessage;
use serde_json::Value;

/// Paths touched by tool calls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileOps {
    read: BTreeSet<String>,
    changed: BTreeSet<String>,
}

/// The `details` of a compaction: files only read, and files written or edited (each sorted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileLists {
    /// Read and never changed.
    pub read_files: Vec<String>,
    /// Written or edited.
    pub modified_files: Vec<String>,
}

impl FileOps {
    /// Adds the lists a previous compaction recorded in its `details`.
    pub fn add_details(&mut self, details: &Value) {
        let paths = |key: &str| {
            details
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        self.read.extend(paths("readFiles"));
        self.changed.extend(paths("modifiedFiles"));
    }

    /// Adds the paths of an assistant message's `read`, `write` and `edit` calls.
    pub fn add_message(&mut self, message: &AgentMessage) {
        let AgentMessage::Assistant(assistant) = message else {
            return;
        };
        for block in &assistant.content {
            let AssistantContent::ToolCall(call) = block else {
                continue;
            };
            let Some(path) = call.arguments.get("path").and_then(Value::as_str) else {
                continue;
            };
            if path.is_empty() {
                continue;
            }
            match call.name.as_str() {
                "read" => {
                    self.read.insert(path.to_owned());
                }
                "write" | "edit" => {
                    self.changed.insert(path.to_owned());
                }
                _ => {}
            }
        }
    }

    /// The two sorted lists; a file both read and changed counts as changed.
    pub fn lists(&self) -> FileLists {
        FileLists {
            read_files: self.read.difference(&self.changed).cloned().collect(),
            modified_files: self.changed.iter().cloned().collect(),
        }
    }
}

impl FileLists {
    /// The lists as the tagged blocks appended to the summary (empty when both are empty).
    pub fn summary_suffix(&self) -> String {
        let mut sections = Vec::new();
        if !self.read_files.is_empty() {
            sections.push(format!(
                "<read-files>\n{}\n</read-files>",
                self.read_files.join("\n")
            ));
        }
        if !self.modified_files.is_empty() {
            sections.push(format!(
                "<modified-files>\n{}\n</modified-files>",
                self.modified_files.join("\n")
            ));
        }
        if sections.is_empty() {
            return String::new();
        }
        format!("\n\n{}", sections.join("\n\n"))
    }

    /// `{"readFiles":[...],"modifiedFiles":[...]}`.
    pub fn to_details(&self) -> Value {
        serde_json::json!({
            "readFiles": self.read_files,
            "modifiedFiles": self.modified_files,
        })
    }
}
