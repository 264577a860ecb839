//! What the extensions registered, as the agent keeps it: their tools (as the model sees them
//! and as the system prompt lists them) and the events they handle. The host client shares one
//! registry among its clones, so a run sees a tool registered during it.

use super::protocol::RegisteredTool;
use crate::system_prompt::ToolPrompt;
use crate::tools::ToolDefinition;

/// What a registered tool adds to the system prompt: its snippet on one line (runs of white
/// space become one space), its guidelines trimmed, without empty or repeated ones.
fn tool_prompt(tool: &RegisteredTool) -> ToolPrompt {
    let snippet = tool
        .prompt_snippet
        .as_deref()
        .map(|text| text.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|text| !text.is_empty());
    let mut guidelines: Vec<String> = Vec::new();
    for line in &tool.prompt_guidelines {
        let line = line.trim();
        if !line.is_empty() && !guidelines.iter().any(|kept| kept == line) {
            guidelines.push(line.to_owned());
        }
    }
    ToolPrompt {
        name: tool.name.clone(),
        snippet,
        guidelines,
    }
}

/// The registered tools and the events extensions handle.
#[derive(Debug, Default)]
pub(super) struct Registry {
    /// Counts the updates.
    version: u64,
    definitions: Vec<ToolDefinition>,
    prompts: Vec<ToolPrompt>,
    events: Vec<String>,
}

impl Registry {
    /// What the extensions registered now, replacing what they registered before.
    pub(super) fn update(&mut self, tools: &[RegisteredTool], events: &[String]) {
        let definitions = tools
            .iter()
            .map(|tool| ToolDefinition {
                name: tool.name.clone().into(),
                description: tool.description.clone(),
                parameters: tool.parameters.clone(),
            })
            .collect();
        *self = Self {
            version: self.version + 1,
            definitions,
            prompts: tools.iter().map(tool_prompt).collect(),
            events: events.to_vec(),
        };
    }

    /// Counts the updates: a run's system prompt is built anew once it changed.
    pub(super) fn version(&self) -> u64 {
        self.version
    }

    /// Whether some extension handles events of `kind`.
    pub(super) fn handles(&self, kind: &str) -> bool {
        self.events.iter().any(|event| event == kind)
    }

    /// The registered tools as the model sees them, in registration order.
    pub(super) fn definitions(&self) -> &[ToolDefinition] {
        &self.definitions
    }

    /// What the registered tools add to the system prompt, in registration order.
    pub(super) fn prompts(&self) -> &[ToolPrompt] {
        &self.prompts
    }
}
