//! `--mode rpc`: pi's RPC protocol on stdin and stdout, served by the session actor.

use crate::actor::{Actor, ActorInit};

/// Serves commands from stdin until it ends (or stdout is gone).
pub(super) async fn serve(init: ActorInit) {
    crate::rpc::serve(tokio::io::stdin(), tokio::io::stdout(), |out, lines| {
        Actor::new(init, out).run(lines)
    })
    .await;
}
