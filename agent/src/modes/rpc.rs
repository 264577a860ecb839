//! `--mode rpc`: pi's RPC protocol on stdin and stdout, served by the session actor.

use crate::rpc::session::{Session, SessionInit};

/// Serves commands from stdin until it ends (or stdout is gone).
pub(super) async fn serve(init: SessionInit) {
    crate::rpc::serve(tokio::io::stdin(), tokio::io::stdout(), |out| {
        Session::new(init, out)
    })
    .await;
}
