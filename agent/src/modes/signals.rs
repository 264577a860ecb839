//! SIGTERM, SIGHUP and SIGINT, which end the agent with the exit codes the reference's
//! handlers use (143, 129) and the shell's for an interrupt (130). The reference has no SIGINT
//! handler in RPC mode: Node dies of the signal, and a running tool's process group lives on;
//! pi-agent ends it as it ends the others.

use std::time::Duration;

/// How long the session actor has, after a signal, to save the session and end.
pub(super) const GRACE: Duration = Duration::from_secs(1);

/// The termination signals, once registered.
pub(super) struct TerminationSignals {
    streams: Option<[tokio::signal::unix::Signal; 3]>,
}

impl TerminationSignals {
    /// Installs the handlers; without signal support, [`Self::received`] never resolves.
    pub(super) fn register() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        let streams = match (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(term), Ok(hangup), Ok(interrupt)) => Some([term, hangup, interrupt]),
            _ => None,
        };
        Self { streams }
    }

    /// The exit code of the first signal received.
    pub(super) async fn received(self) -> u8 {
        let Some([mut term, mut hangup, mut interrupt]) = self.streams else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = term.recv() => 143,
            _ = hangup.recv() => 129,
            _ = interrupt.recv() => 130,
        }
    }
}
