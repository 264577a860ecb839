//! Data the actor's files share without importing each other: what a session replacement
//! replaces the session with. The operation that parks the work (`ops/replacement.rs`) and the
//! file that carries it out (`replace.rs`) both name it here.

/// What a session replacement makes the current session.
#[derive(Debug, Clone)]
pub(in crate::actor) enum Target {
    /// `new_session` (with its parent session).
    New(Option<String>),
    /// `switch_session` to this path.
    Switch(String),
    /// `fork` before this user message.
    Fork(String),
    /// A command's `ctx.fork` at this entry (`position: "at"`).
    ForkAt(String),
    /// `clone` at the leaf.
    Clone,
}

impl Target {
    /// The client command that asks for it.
    pub(in crate::actor) fn command(&self) -> &'static str {
        match self {
            Self::New(_) => "new_session",
            Self::Switch(_) => "switch_session",
            Self::Fork(_) | Self::ForkAt(_) => "fork",
            Self::Clone => "clone",
        }
    }

    /// The reason the `session_shutdown` and `session_start` events give.
    pub(in crate::actor) fn reason(&self) -> &'static str {
        match self {
            Self::New(_) => "new",
            Self::Switch(_) => "resume",
            Self::Fork(_) | Self::ForkAt(_) | Self::Clone => "fork",
        }
    }
}
