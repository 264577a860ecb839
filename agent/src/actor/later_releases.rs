//! What later releases of pi changed in the session: their commands (answered in
//! `commands/`) refused as unknown before them, as those releases' predecessors do, and the
//! `system` messages and token estimates of later releases.

use pi_rpc_protocol::message::{AgentMessage, SystemMessage};
use pi_rpc_protocol::{CommandError, RequestId, Response};
use serde_json::{Map, Value, json};

use super::State;
use crate::release::Feature;
use crate::store::Conversation;

impl State {
    /// Whether the session's release has the command's feature; if not, answers as a release
    /// without the command does (`Unknown command: ...`).
    pub(super) fn known_in_release(
        &mut self,
        id: &Option<RequestId>,
        kind: &str,
        feature: Feature,
    ) -> bool {
        if self.release.has(feature) {
            return true;
        }
        let error = CommandError::UnknownType {
            id: id.clone(),
            command: kind.to_owned(),
        };
        let response = Response::error(id.clone(), error.command(), error.to_string());
        self.write(response);
        false
    }
}

impl State {
    /// A compaction's `estimatedTokensAfter`: the conversation's tokens, counting its `system`
    /// messages from 0.87.0 only.
    pub(super) fn estimated_tokens_after(&self) -> u64 {
        crate::compaction::estimate::sum_tokens(&self.context_for_estimate(self.messages.clone()))
    }

    /// The messages a compaction estimates tokens over: without the `system` messages before
    /// 0.87.0, which counted them from then on.
    pub(super) fn context_for_estimate(&self, messages: Conversation) -> Conversation {
        if self.release.has(Feature::EstimateCountsSystem) {
            messages
        } else {
            messages.without_system()
        }
    }

    /// After a compaction (from 0.86.1) the conversation starts with a `system` message that
    /// declares all that the messages compacted away had declared.
    pub(super) fn keep_system_checkpoint(&mut self, before: &Conversation) {
        if !self.release.has(Feature::SystemMessages)
            || self
                .messages
                .iter()
                .any(|message| matches!(message, AgentMessage::System(_)))
        {
            return;
        }
        let declared = Declared::replay(before.iter());
        if !declared.any {
            return;
        }
        let checkpoint = SystemMessage {
            content: String::new(),
            sections: (!declared.sections.is_empty()).then_some(declared.sections),
            timestamp: crate::js::now_ms(),
            tools_added: (!declared.tools.is_empty()).then_some(declared.tools),
            tools_removed: None,
            extra: Map::new(),
        };
        self.messages.push_front(AgentMessage::System(checkpoint));
    }

    /// From 0.87.0, the failed answer just dropped from the model's context (the session's
    /// latest entry) is recorded as a `context_edit` entry, announced by `entry_appended`.
    pub(super) fn record_context_edit(&mut self) {
        if !self.release.has(Feature::ContextEdits) {
            return;
        }
        let Some(target) = self.store.leaf_id().map(str::to_owned) else {
            return;
        };
        let id = match self.store.append_context_edit(&target) {
            Ok(id) => id,
            Err(error) => {
                super::log_store_error::<()>(Err(error));
                return;
            }
        };
        if let Some(entry) = self.store.entry(&id) {
            let record = json!({"type": "entry_appended", "entry": entry.raw()});
            self.write(record);
        }
    }

    /// The messages a run starts with, preceded from 0.86.1 by a `system` message when the
    /// prompt sections or the tools differ from what the conversation last declared (the first
    /// run of a conversation declares everything).
    pub(super) fn with_system_declaration(
        &self,
        mut prompts: Vec<AgentMessage>,
        system_prompt: &str,
        tools: &[crate::tools::ToolDefinition],
    ) -> Vec<AgentMessage> {
        if !self.release.has(Feature::SystemMessages) {
            return prompts;
        }
        // Only the `system` messages are parsed (the others are not read).
        let declared = Declared::replay(self.messages.with_role(crate::store::Role::System));
        if let Some(message) = declared.changes(system_prompt, tools) {
            prompts.insert(0, AgentMessage::System(message));
        }
        prompts
    }
}

/// What a conversation's `system` messages declared, replayed in order.
#[derive(Debug, Default)]
struct Declared {
    /// Whether any `system` message was seen.
    any: bool,
    sections: Map<String, Value>,
    /// Tool declarations by name.
    tools: Vec<Value>,
}

impl Declared {
    fn replay<'a>(messages: impl Iterator<Item = &'a AgentMessage>) -> Self {
        let mut declared = Self::default();
        for message in messages {
            let AgentMessage::System(system) = message else {
                continue;
            };
            declared.any = true;
            for (name, text) in system.sections.iter().flatten() {
                if text.is_null() {
                    declared.sections.shift_remove(name);
                } else {
                    declared.sections.insert(name.clone(), text.clone());
                }
            }
            for removed in system.tools_removed.iter().flatten() {
                declared
                    .tools
                    .retain(|tool| tool.get("name") != removed.get("name"));
            }
            for added in system.tools_added.iter().flatten() {
                declared
                    .tools
                    .retain(|tool| tool.get("name") != added.get("name"));
                declared.tools.push(added.clone());
            }
        }
        declared
    }

    /// The `system` message that brings the declaration to `system_prompt` and `tools`, if
    /// anything changed: the changed sections (a removed one as `null`), the tools added or
    /// changed, and the tools removed.
    fn changes(
        &self,
        system_prompt: &str,
        tools: &[crate::tools::ToolDefinition],
    ) -> Option<SystemMessage> {
        let now = prompt_sections(system_prompt);
        let mut sections = Map::new();
        for (name, text) in &now {
            if self.sections.get(name) != Some(text) {
                sections.insert(name.clone(), text.clone());
            }
        }
        for name in self.sections.keys().filter(|name| !now.contains_key(*name)) {
            sections.insert(name.clone(), Value::Null);
        }
        let declarations: Vec<Value> = tools
            .iter()
            .map(|tool| {
                json!({"name": tool.name, "description": tool.description, "parameters": tool.parameters})
            })
            .collect();
        let added: Vec<Value> = declarations
            .iter()
            .filter(|tool| !self.tools.contains(tool))
            .cloned()
            .collect();
        let removed: Vec<Value> = self
            .tools
            .iter()
            .filter(|tool| {
                !declarations
                    .iter()
                    .any(|now| now.get("name") == tool.get("name"))
            })
            .map(|tool| json!({"name": tool.get("name")}))
            .collect();
        if self.any && sections.is_empty() && added.is_empty() && removed.is_empty() {
            return None;
        }
        Some(SystemMessage {
            content: String::new(),
            sections: (!sections.is_empty()).then_some(sections),
            timestamp: crate::js::now_ms(),
            tools_added: (!added.is_empty()).then_some(added),
            tools_removed: (!removed.is_empty()).then_some(removed),
            extra: Map::new(),
        })
    }
}

/// pi-agent's prompt as named sections: `prompt` (everything but the working folder) and
/// `cwd` (the working folder's line), in its own words.
fn prompt_sections(system_prompt: &str) -> Map<String, Value> {
    const CWD: &str = "\nCurrent working directory: ";
    let mut sections = Map::new();
    match system_prompt.rfind(CWD) {
        Some(at) => {
            sections.insert("prompt".into(), system_prompt[..at].into());
            sections.insert("cwd".into(), system_prompt[at + 1..].into());
        }
        None => {
            sections.insert("prompt".into(), system_prompt.into());
        }
    }
    sections
}
