//! Extension commands as the client meets them: a prompt `/name args` runs one (sent here; the
//! operation is `ops/extension_command.rs`), `get_commands` lists them, and a client's answer to an extension's dialog goes
//! back to the host.

use pi_rpc_protocol::command::ExtensionUiResponse;
use serde_json::Value;

use super::State;
use crate::actor::ops::ids::OpRoute;
use crate::actor::outbox::IfLost;

impl State {
    /// Sends the command a prompt `/name args` names to the host, its `done` to go to the
    /// operation `route`; false when no live extension has such a command.
    pub(in crate::actor) fn send_extension_command(&mut self, route: OpRoute, text: &str) -> bool {
        let Some(ext) = &mut self.extensions else {
            return false;
        };
        let Some(invocation) = text.strip_prefix('/') else {
            return false;
        };
        let (name, args) = invocation.split_once(' ').unwrap_or((invocation, ""));
        if ext.gone || ext.host.command(name).is_none() {
            return false;
        }
        match ext.host.run_command(name, args) {
            Ok((id, line)) => {
                ext.pending.insert(id, route);
                self.push_host(line, IfLost::Request(id));
                true
            }
            Err(error) => {
                tracing::error!(%error, "cannot send a command to the extension host");
                false
            }
        }
    }

    /// Hands a client's dialog answer to the host.
    pub(in crate::actor) fn answer_extension_dialog(&mut self, response: ExtensionUiResponse) {
        let line = self.live_host().map(|host| host.answer(&response));
        self.tell_host("cannot send a dialog answer to the extension host", line);
    }

    /// `get_commands` entries of the extension commands, as the reference lists them.
    pub(in crate::actor) fn extension_commands(&self) -> Vec<Value> {
        let Some(ext) = &self.extensions else {
            return Vec::new();
        };
        ext.host
            .commands
            .iter()
            .map(|command| {
                let mut entry = serde_json::Map::new();
                entry.insert("name".into(), command.name.clone().into());
                if let Some(description) = &command.description {
                    entry.insert("description".into(), description.clone().into());
                }
                entry.insert("source".into(), "extension".into());
                let source_info = ext.host.source_info(&command.path);
                entry.insert(
                    "sourceInfo".into(),
                    serde_json::to_value(source_info).unwrap_or_default(),
                );
                Value::Object(entry)
            })
            .collect()
    }
}
