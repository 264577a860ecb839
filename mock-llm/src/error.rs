//! The library's error type.

/// Errors of the mock server library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A script could not be read, parsed or validated; the message names its origin.
    #[error("{0}")]
    Script(String),
    /// `release_gate` named a gate the loaded script does not declare.
    #[error("no gate named `{name}` in script {origin} (gates: {known})")]
    UnknownGate {
        /// The requested gate.
        name: String,
        /// The script's origin.
        origin: String,
        /// The gates the script declares, comma separated.
        known: String,
    },
    /// `wait_for_requests` ran out of time.
    #[error("timed out after {timeout:?} waiting for {wanted} requests (got {got})")]
    Timeout {
        /// How long it waited.
        timeout: std::time::Duration,
        /// How many requests were awaited.
        wanted: usize,
        /// How many had arrived.
        got: usize,
    },
    /// `wait_for_outcomes` ran out of time.
    #[error(
        "timed out after {timeout:?} waiting for the first {wanted} answers to end (journal: {got} requests)"
    )]
    OutcomeTimeout {
        /// How long it waited.
        timeout: std::time::Duration,
        /// How many answers were awaited.
        wanted: usize,
        /// How many requests the journal held.
        got: usize,
    },
    /// `wait_for_gate` ran out of time.
    #[error("timed out after {timeout:?} waiting for a stream to reach gate `{name}`")]
    GateTimeout {
        /// How long it waited.
        timeout: std::time::Duration,
        /// The gate.
        name: String,
    },
    /// An I/O error (binding, reading a script file).
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
