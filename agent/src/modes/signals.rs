//! SIGTERM and SIGHUP, which end the agent with the exit codes the reference uses (143, 129).

/// The termination signals, once registered.
pub(super) struct TerminationSignals {
    streams: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl TerminationSignals {
    /// Installs the handlers; without signal support, [`Self::received`] never resolves.
    pub(super) fn register() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        let streams = match (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) {
            (Ok(term), Ok(hangup)) => Some((term, hangup)),
            _ => None,
        };
        Self { streams }
    }

    /// The exit code of the first signal received.
    pub(super) async fn received(self) -> u8 {
        let Some((mut term, mut hangup)) = self.streams else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = term.recv() => 143,
            _ = hangup.recv() => 129,
        }
    }
}
