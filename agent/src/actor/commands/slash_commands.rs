//! `get_commands`: what a client can offer as slash commands, the extensions' commands
//! (`actor/extensions/commands.rs`) first, then prompt templates and skills.

use pi_rpc_protocol::RequestId;

use crate::actor::State;

impl State {
    pub(super) fn get_commands_command(&mut self, id: Option<RequestId>) {
        let extension_commands = self.extension_commands();
        let builtin = self.builtin_commands.clone();
        let commands = commands_data(extension_commands, builtin, &self.resources);
        self.respond(id, "get_commands", &commands);
    }
}

/// `get_commands` data: the commands of loaded extensions (`extension_commands`), those of the
/// reference's built-in extensions it always lists (`builtin`), then prompt templates, then
/// skills as `skill:NAME`.
fn commands_data(
    extension_commands: Vec<serde_json::Value>,
    builtin: Vec<serde_json::Value>,
    resources: &crate::resources::Resources,
) -> serde_json::Value {
    use serde_json::json;
    let mut commands = extension_commands;
    commands.extend(builtin);
    for template in &resources.templates {
        commands.push(json!({
            "name": template.name,
            "description": template.description,
            "source": "prompt",
            "sourceInfo": template.source_info,
        }));
    }
    for skill in &resources.skills {
        commands.push(json!({
            "name": format!("skill:{}", skill.name),
            "description": skill.description,
            "source": "skill",
            "sourceInfo": skill.source_info,
        }));
    }
    json!({ "commands": commands })
}
