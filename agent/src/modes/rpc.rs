//! `--mode rpc`: pi's RPC protocol on stdin and stdout, served by the session actor.

use crate::actor::{Actor, ActorInit};

/// Serves commands from stdin until it ends (or stdout is gone).
pub(super) async fn serve(init: ActorInit) {
    let mut stdio = crate::rpc::stdio::Stdio::new();
    let (input, output) = (stdio.input(), stdio.output());
    crate::rpc::serve(input, output, |out, lines| Actor::new(init, out).run(lines)).await;
}
