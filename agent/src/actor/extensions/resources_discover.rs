//! `resources_discover`, which the reference emits after each `session_start` (at start-up,
//! after a session replacement and after `ctx.reload()`): its handlers may name skill, prompt
//! template and theme paths, whose skills and templates join the session's resources (and so
//! `get_commands` and the system prompt) until the resources are read again. Themes have no
//! use in pi-agent's modes: their paths are not read.

use super::State;
use crate::actor::ops::ids::OpRoute;
use crate::extensions::{DiscoveredPath, DiscoveredResources, HostEvent};
use crate::resources::ExtensionPath;

impl State {
    /// Asks the `resources_discover` handlers (`reason`: `startup` or `reload`), their answer
    /// to go to `route`; false when no live extension handles it.
    pub(in crate::actor) fn ask_resources_discover(
        &mut self,
        route: OpRoute,
        reason: &'static str,
    ) -> bool {
        let cwd = self.config.cwd.clone();
        let event = HostEvent::ResourcesDiscover { cwd: &cwd, reason };
        self.ask_op(route, &event)
    }

    /// Adds the skills and prompt templates of the paths the handlers gave.
    pub(in crate::actor) fn add_discovered_resources(&mut self, found: &DiscoveredResources) {
        let (skills, templates) = (paths(&found.skill_paths), paths(&found.prompt_paths));
        let cwd = self.config.cwd.clone();
        self.resources
            .add_extension_resources(&skills, &templates, &cwd);
    }
}

/// The paths as the resources take them.
fn paths(given: &[DiscoveredPath]) -> Vec<ExtensionPath<'_>> {
    given
        .iter()
        .map(|path| ExtensionPath {
            path: &path.path,
            extension: &path.extension_path,
        })
        .collect()
}
