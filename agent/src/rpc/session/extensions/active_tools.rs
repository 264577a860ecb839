//! `pi.getActiveTools`, `pi.getAllTools` and `pi.setActiveTools`. The host answers the getters
//! from the tools' state the agent last sent it (after every load, registration and change);
//! a `setActiveTools` replaces the tool flags' choice by the given names, as the reference
//! replaces its active tools, until the extensions are loaded afresh for a replaced session.

use serde_json::{Value, json};

use super::{Session, host_bridge, tool_bridge};
use crate::tools::{ToolDefinition, ToolSelection};

/// Whether the tool flags let a tool of this name be offered at all (`--tools` names it, or
/// there is no `--tools` and no `--no-tools`; `--exclude-tools` does not name it).
fn allows(selection: &ToolSelection, name: &str) -> bool {
    let allowed = match &selection.tools {
        Some(tools) => tools.iter().any(|tool| tool == name),
        None => !selection.no_tools,
    };
    allowed && !selection.exclude_tools.iter().any(|tool| tool == name)
}

impl Session {
    /// The selection the tool flags made (before any `setActiveTools`).
    fn flag_selection(&self) -> ToolSelection {
        self.extensions
            .as_ref()
            .and_then(|ext| ext.flag_tools.clone())
            .unwrap_or_else(|| self.resources.tools.clone())
    }

    /// Every tool the agent may offer: the built-in ones (an extension tool of the same name
    /// in place), then the extension tools, those the tool flags allow.
    fn all_tools(&self) -> Vec<ToolDefinition> {
        let selection = self.flag_selection();
        let mut tools = crate::tools::builtin_tools();
        if let Some(bridge) = host_bridge(&self.extensions) {
            for tool in bridge.definitions() {
                match tools.iter_mut().find(|builtin| builtin.name == tool.name) {
                    Some(builtin) => *builtin = tool,
                    None => tools.push(tool),
                }
            }
        }
        tools.retain(|tool| allows(&selection, tool.name));
        tools
    }

    /// Tells the host the tools' state, for its getters.
    pub(in crate::rpc::session) async fn send_tools_state(&mut self) {
        let bridge = tool_bridge(&self.extensions);
        let all = self.all_tools();
        let active = crate::tools::active(&self.resources.tools, bridge.as_ref());
        let extension_tools = bridge
            .map(|bridge| bridge.definitions())
            .unwrap_or_default();
        let builtins: Vec<Value> = crate::tools::builtin_tools()
            .into_iter()
            .map(|tool| {
                json!({"name": tool.name, "description": tool.description, "parameters": tool.parameters})
            })
            .collect();
        let all: Vec<&str> = all.iter().map(|tool| tool.name).collect();
        let active: Vec<&str> = active.iter().map(|tool| tool.name).collect();
        let registered: Vec<&str> = extension_tools.iter().map(|tool| tool.name).collect();
        let selection = self.flag_selection();
        let flags = json!({
            "tools": selection.tools,
            "noTools": selection.no_tools,
            "exclude": selection.exclude_tools,
        });
        let Some(ext) = self.extensions.as_mut().filter(|ext| !ext.gone) else {
            return;
        };
        if let Err(error) = ext
            .host
            .tools_state(&all, &active, &builtins, &registered, &flags)
            .await
        {
            tracing::warn!(%error, "cannot tell the extension host the tools");
        }
    }

    /// `pi.setActiveTools(names)`: from the next model request on, these tools (the known ones,
    /// in this order) are offered, and listed in the system prompt.
    pub(in crate::rpc::session) async fn set_active_tools(&mut self, names: Vec<String>) {
        let flags = self.flag_selection();
        let all = self.all_tools();
        let mut active: Vec<String> = Vec::new();
        for name in names {
            if all.iter().any(|tool| tool.name == name) && !active.contains(&name) {
                active.push(name);
            }
        }
        if let Some(ext) = &mut self.extensions {
            ext.flag_tools.get_or_insert_with(|| flags.clone());
        }
        self.resources.tools = ToolSelection {
            tools: Some(active),
            exclude_tools: flags.exclude_tools,
            ..ToolSelection::default()
        };
        self.send_tools_state().await;
    }

    /// After extensions registered tools: once `setActiveTools` chose the tools, a newly
    /// registered one joins them, as in the reference. `before`: the tool names before.
    pub(in crate::rpc::session) async fn tools_registered(&mut self, before: &[&str]) {
        let chosen = self
            .extensions
            .as_ref()
            .is_some_and(|ext| ext.flag_tools.is_some());
        if chosen {
            let added: Vec<String> = self
                .all_tools()
                .iter()
                .filter(|tool| !before.contains(&tool.name))
                .map(|tool| tool.name.to_owned())
                .collect();
            if let Some(active) = &mut self.resources.tools.tools {
                active.extend(added);
            }
        }
        self.send_tools_state().await;
    }

    /// The tool names the agent may offer now.
    pub(in crate::rpc::session) fn all_tool_names(&self) -> Vec<&'static str> {
        self.all_tools().iter().map(|tool| tool.name).collect()
    }

    /// The extensions are loaded afresh (a replaced session): the tool flags choose again.
    pub(in crate::rpc::session) fn reset_active_tools(&mut self) {
        if let Some(flags) = self
            .extensions
            .as_mut()
            .and_then(|ext| ext.flag_tools.take())
        {
            self.resources.tools = flags;
        }
    }
}
