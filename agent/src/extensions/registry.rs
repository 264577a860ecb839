//! What the extensions registered, as the agent keeps it: their tools (as the model sees them
//! and as the system prompt lists them), the events they handle and the tools they chose to
//! offer (`pi.setActiveTools`). The host client shares one registry among its clones, so a run
//! sees a tool registered, or a choice made, during it.

use super::protocol::RegisteredTool;
use crate::system_prompt::ToolPrompt;
use crate::tools::{ToolDefinition, ToolSelection};

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

/// The registered tools, the events extensions handle and the tools the agent offers.
#[derive(Debug, Default)]
pub(super) struct Registry {
    /// Counts the updates.
    version: u64,
    definitions: Vec<ToolDefinition>,
    prompts: Vec<ToolPrompt>,
    events: Vec<String>,
    /// The tool flags' choice as the session last set it (`pi.setActiveTools` replaces it).
    selection: Option<ToolSelection>,
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
            selection: self.selection.take(),
        };
    }

    /// The tools the session offers now, chosen by the tool flags or `pi.setActiveTools`
    /// (an update only when the choice changed).
    pub(super) fn select(&mut self, selection: ToolSelection) {
        if self.selection.as_ref() != Some(&selection) {
            self.selection = Some(selection);
            self.version += 1;
        }
    }

    /// The tools the session offers now, once it said.
    pub(super) fn selection(&self) -> Option<&ToolSelection> {
        self.selection.as_ref()
    }

    /// Counts the updates (registrations and choices): a run's system prompt is built anew once
    /// it changed.
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

#[cfg(test)]
mod tests {
    use super::*;

    fn chosen(names: &[&str]) -> ToolSelection {
        ToolSelection {
            tools: Some(names.iter().map(|name| (*name).to_owned()).collect()),
            ..ToolSelection::default()
        }
    }

    #[test]
    fn a_new_choice_of_tools_counts_as_an_update_and_outlives_registrations() {
        let mut registry = Registry::default();
        registry.select(chosen(&["read", "bash"]));
        let version = registry.version();
        // The same choice again changes nothing: a run keeps its system prompt.
        registry.select(chosen(&["read", "bash"]));
        assert_eq!(registry.version(), version);
        registry.select(chosen(&["read"]));
        assert_eq!(registry.version(), version + 1);
        // Registrations replace the tools and events, not the choice.
        registry.update(&[], &["turn_start".to_owned()]);
        assert_eq!(registry.version(), version + 2);
        assert_eq!(registry.selection(), Some(&chosen(&["read"])));
        assert!(registry.handles("turn_start"));
    }
}
