//! `prompt`: handed over to its operation (`ops/prompt_start.rs`), which runs an extension
//! command it names or takes it past the extensions' `input` handlers to its run.

use pi_rpc_protocol::RequestId;
use pi_rpc_protocol::command::PromptCommand;

use crate::actor::State;

impl State {
    pub(super) fn prompt_command(&mut self, id: Option<RequestId>, prompt: PromptCommand) {
        self.begin_prompt(id, prompt);
    }
}
