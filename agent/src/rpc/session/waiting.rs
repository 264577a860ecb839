//! Data the actor's files share without importing each other: what a session replacement
//! replaces the session with, and a saved compaction's end. The files that park the work
//! (`extensions`, `ops`) and the ones that carry it out (`replace`, `compaction`) both name it
//! here.

use pi_rpc_protocol::RequestId;
use pi_rpc_protocol::event::CompactionReason;
use pi_rpc_protocol::response::CompactionResult;

/// What a session replacement makes the current session.
#[derive(Debug, Clone)]
pub(in crate::rpc::session) enum Target {
    /// `new_session` (with its parent session).
    New(Option<String>),
    /// `switch_session` to this path.
    Switch(String),
    /// `fork` before this user message.
    Fork(String),
    /// `clone` at the leaf.
    Clone,
}

impl Target {
    /// The client command that asks for it.
    pub(in crate::rpc::session) fn command(&self) -> &'static str {
        match self {
            Self::New(_) => "new_session",
            Self::Switch(_) => "switch_session",
            Self::Fork(_) => "fork",
            Self::Clone => "clone",
        }
    }

    /// The reason the `session_shutdown` and `session_start` events give.
    pub(in crate::rpc::session) fn reason(&self) -> &'static str {
        match self {
            Self::New(_) => "new",
            Self::Switch(_) => "resume",
            Self::Fork(_) | Self::Clone => "fork",
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
