//! `export_html`: the session as one HTML page, with the system prompt and the active tools.

use pi_rpc_protocol::command::ExportHtmlCommand;
use pi_rpc_protocol::response::ExportHtmlResult;
use pi_rpc_protocol::{RequestId, Response};

use crate::actor::State;

impl State {
    pub(super) fn export_html_command(&mut self, id: Option<RequestId>, export: ExportHtmlCommand) {
        let kind = "export_html";
        let system_prompt = self.system_prompt();
        let tools = self.active_tools();
        let written = crate::export_html::export(
            &self.store,
            &system_prompt,
            &tools,
            export.output_path.as_deref(),
        );
        match written {
            Ok(path) => {
                let result = ExportHtmlResult { path };
                self.respond(id, kind, &result);
            }
            Err(error) => {
                self.write(Response::error(id, Some(kind), error.to_string()));
            }
        }
    }
}
