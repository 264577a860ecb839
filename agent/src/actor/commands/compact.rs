//! `set_auto_compaction`. The `compact` command's entry point, `compact_command`, stays
//! beside the compaction it starts (`actor/compaction.rs`).

use pi_rpc_protocol::command::SetEnabledCommand;
use pi_rpc_protocol::{RequestId, Response};

use crate::actor::State;

impl State {
    pub(super) fn set_auto_compaction_command(
        &mut self,
        id: Option<RequestId>,
        set: SetEnabledCommand,
    ) {
        self.config.settings.set_compaction_enabled(set.enabled);
        self.auto_compaction = self.config.settings.compaction_enabled();
        self.write(Response::ok(id, "set_auto_compaction"));
    }
}
