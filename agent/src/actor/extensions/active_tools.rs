//! `pi.getActiveTools`, `pi.getAllTools` and `pi.setActiveTools`. The host answers the getters
//! from the tools' state the agent last sent it (after every load, registration and change);
//! a `setActiveTools` replaces the tool flags' choice by the given names, as the reference
//! replaces its active tools, until the extensions are loaded afresh for a replaced session
//! (`ctx.reload()` keeps it, and adds every extension tool). A
//! run in progress offers the new choice from its next turn on (the host client shares it).

use std::sync::Arc;

use super::{State, host_client};
use crate::tools::{Tool, ToolSelection, ToolSet};

impl State {
    /// The selection the tool flags made (before any `setActiveTools`).
    fn flag_selection(&self) -> ToolSelection {
        self.extensions
            .as_ref()
            .and_then(|ext| ext.flag_tools.clone())
            .unwrap_or_else(|| self.resources.tools.clone())
    }

    /// The tools extensions registered (none without a live host).
    fn extension_tools(&self) -> Vec<Arc<dyn Tool>> {
        host_client(&self.extensions)
            .map(|client| client.tools())
            .unwrap_or_default()
    }

    /// The tools a run offers now: those the tool flags (or `setActiveTools`) choose among the
    /// built-in ones and those extensions registered.
    pub(in crate::actor) fn active_tools(&self) -> ToolSet {
        ToolSet::for_run(&self.resources.tools, &self.extension_tools())
    }

    /// Every tool the agent may offer: the built-in ones (an extension tool of the same name
    /// in place), then the extension tools, those the tool flags allow.
    fn all_tools(&self) -> ToolSet {
        ToolSet::available(&self.extension_tools()).allowed_by(&self.flag_selection())
    }

    /// Tells the host the tools' state, for its getters, and a run in progress the tools to
    /// offer from its next turn on.
    pub(in crate::actor) fn send_tools_state(&mut self) {
        if let Some(client) = host_client(&self.extensions) {
            client.select_tools(self.resources.tools.clone());
        }
        let extension_tools = self.extension_tools();
        let all = self.all_tools();
        let active = self.active_tools();
        let builtins = ToolSet::builtin().definitions();
        let all = all.names();
        let active = active.names();
        let registered: Vec<&str> = extension_tools.iter().map(|tool| tool.name()).collect();
        let selection = self.flag_selection();
        let line = (self.live_host())
            .map(|host| host.tools_state(&all, &active, &builtins, &registered, &selection));
        self.tell_host("cannot tell the extension host the tools", line);
    }

    /// `pi.setActiveTools(names)`: from the next turn's model request on (of the run in
    /// progress too), these tools (the known ones, in this order) are offered, and listed in
    /// the system prompt.
    pub(in crate::actor) fn set_active_tools(&mut self, names: Vec<String>) {
        let flags = self.flag_selection();
        let all = self.all_tools();
        let mut active: Vec<String> = Vec::new();
        for name in names {
            if all.get(&name).is_some() && !active.contains(&name) {
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
        self.send_tools_state();
    }

    /// After extensions registered tools: once `setActiveTools` chose the tools, a newly
    /// registered one joins them, as in the reference. `before`: the tool names before.
    pub(in crate::actor) fn tools_registered(&mut self, before: &[String]) {
        let chosen = self
            .extensions
            .as_ref()
            .is_some_and(|ext| ext.flag_tools.is_some());
        if chosen {
            let added: Vec<String> = self
                .all_tools()
                .names()
                .into_iter()
                .filter(|name| !before.iter().any(|old| old == name))
                .map(str::to_owned)
                .collect();
            if let Some(active) = &mut self.resources.tools.tools {
                active.extend(added);
            }
        }
        self.send_tools_state();
    }

    /// The tool names the agent may offer now.
    pub(in crate::actor) fn all_tool_names(&self) -> Vec<String> {
        self.all_tools()
            .names()
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// `ctx.reload()` loaded the extensions afresh: as in the reference, the tools active
    /// before (`before`, those still known) stay active, a `setActiveTools` choice included,
    /// and every extension tool joins them (with `--tools`, every tool it allows).
    pub(in crate::actor) fn keep_active_tools(&mut self, before: Vec<String>) {
        let mut names = before;
        if self.flag_selection().tools.is_some() {
            names.extend(self.all_tool_names());
        } else {
            let extension_tools = self.extension_tools();
            names.extend(extension_tools.iter().map(|tool| tool.name().to_owned()));
        }
        self.set_active_tools(names);
    }

    /// The tool names a run offers now.
    pub(in crate::actor) fn active_tool_names(&self) -> Vec<String> {
        self.active_tools()
            .names()
            .into_iter()
            .map(str::to_owned)
            .collect()
    }

    /// The extensions are loaded afresh for a replaced session: the tool flags choose again.
    pub(in crate::actor) fn reset_active_tools(&mut self) {
        if let Some(flags) = self
            .extensions
            .as_mut()
            .and_then(|ext| ext.flag_tools.take())
        {
            self.resources.tools = flags;
        }
    }
}
