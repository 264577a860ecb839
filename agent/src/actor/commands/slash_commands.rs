//! `get_commands`: what a client can offer as slash commands, the extensions' commands
//! (`actor/extensions/commands.rs`) first, then those of the built-in extensions, prompt
//! templates and skills. The extension host gets the latter too, for `pi.getCommands()`.

use pi_rpc_protocol::RequestId;
use serde_json::{Value, json};

use crate::actor::State;

impl State {
    pub(super) fn get_commands_command(&mut self, id: Option<RequestId>) {
        let mut commands = self.extension_commands();
        commands.extend(self.agent_commands());
        self.respond(id, "get_commands", &json!({ "commands": commands }));
    }

    /// Tells a live host the commands `pi.getCommands()` lists after the extensions' own (at
    /// start-up and whenever the prompt templates and skills are found again).
    pub(in crate::actor) fn send_slash_commands(&mut self) {
        let commands = self.agent_commands();
        let line = self.live_host().map(|host| host.slash_commands(&commands));
        self.tell_host("cannot tell the extension host the commands", line);
    }

    /// The `get_commands` entries after the extensions' commands: those of the reference's
    /// built-in extensions it always lists, then prompt templates, then skills as `skill:NAME`.
    fn agent_commands(&self) -> Vec<Value> {
        let mut commands = self.builtin_commands.clone();
        for template in &self.resources.templates {
            commands.push(json!({
                "name": template.name,
                "description": template.description,
                "source": "prompt",
                "sourceInfo": template.source_info,
            }));
        }
        for skill in &self.resources.skills {
            commands.push(json!({
                "name": format!("skill:{}", skill.name),
                "description": skill.description,
                "source": "skill",
                "sourceInfo": skill.source_info,
            }));
        }
        commands
    }
}
