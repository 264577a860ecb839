//! Work the actor parks until the extensions' handlers are done or the run settles, as data:
//! a session replacement and a saved compaction's end. The files that park it (`extensions`)
//! and the ones that carry it out (`replace`, `compaction`) both name it here, so neither
//! imports the other.

use pi_rpc_protocol::RequestId;
use pi_rpc_protocol::event::CompactionReason;
use pi_rpc_protocol::response::CompactionResult;

/// A session replacement waiting to be carried out.
#[derive(Debug, Clone)]
pub(in crate::rpc::session) enum Replacement {
    /// `switch_session` to this path.
    Switch(String),
    /// `fork` before this user message.
    Fork(String),
    /// `clone` at the leaf.
    Clone,
}

/// A session replacement waiting for the extensions' handlers or for the run to settle.
#[derive(Debug, Clone)]
pub(in crate::rpc::session) enum AfterShutdown {
    /// `new_session` (with its parent session).
    NewSession(Option<RequestId>, Option<String>),
    /// `switch_session`, `fork` or `clone`.
    Replace(Option<RequestId>, Replacement),
}

impl AfterShutdown {
    /// The command it answers.
    pub(in crate::rpc::session) fn command(&self) -> &'static str {
        match self {
            Self::NewSession(..) => "new_session",
            Self::Replace(_, Replacement::Switch(_)) => "switch_session",
            Self::Replace(_, Replacement::Fork(_)) => "fork",
            Self::Replace(_, Replacement::Clone) => "clone",
        }
    }

    /// The id of that command.
    pub(in crate::rpc::session) fn id(self) -> Option<RequestId> {
        match self {
            Self::NewSession(id, _) | Self::Replace(id, _) => id,
        }
    }
}

/// A compaction saved, whose `compaction_end` (and answer, or what follows an automatic one)
/// is still due.
#[derive(Debug)]
pub(in crate::rpc::session) struct CompactionEnd {
    pub(in crate::rpc::session) reason: CompactionReason,
    pub(in crate::rpc::session) result: CompactionResult,
    pub(in crate::rpc::session) will_retry: bool,
    pub(in crate::rpc::session) reply: Option<Option<RequestId>>,
}
