//! How the operations in flight are named and answered: the key each has for its life, the
//! route of a host request one waits for, and whom it answers.

use pi_rpc_protocol::RequestId;

/// One operation in flight (unique for the actor's life).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(in crate::actor) struct OpKey(pub(in crate::actor) u64);

/// The operation a host request's reply (its handlers' `done`) goes to: whatever waits for
/// the host is an operation's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::actor) enum OpRoute {
    /// The `session_start` handlers at start-up (`settle.rs`).
    Startup,
    /// The `resources_discover` handlers at start-up (`settle.rs`).
    StartupDiscover,
    /// The `resources_discover` handlers after a restart's `session_start` (`reload.rs`).
    Discover(OpKey),
    /// The `agent_settled` handlers (`settle.rs`).
    Settled,
    /// A model change's `model_select` handlers (`model_select.rs`).
    ModelSelect(OpKey),
    /// A thinking level change's `thinking_level_select` handlers (`model_select.rs`).
    ThinkingLevelSelect(OpKey),
    /// A name change's `session_info_changed` handlers (`model_select.rs`).
    SessionInfoChanged(OpKey),
    /// A replacement's `session_before_*` or `session_shutdown` handlers.
    Replacement(OpKey),
    /// A `ctx.reload()`'s `session_shutdown` handlers.
    Reload(OpKey),
    /// The `session_start` handlers after the extensions were loaded afresh.
    Restart(OpKey),
    /// A `ctx.newSession`'s `setup`, run by the host before them (`reload.rs`).
    Setup(OpKey),
    /// An extension command's handlers (`extension_command.rs`).
    Command(OpKey),
    /// The `before_agent_start` handlers of an extension's user message.
    UserMessage(OpKey),
    /// The handlers of the held loop event (`agent_loop.rs`; one at a time).
    LoopEvent,
    /// A prompt's `input` handlers (`prompt_start.rs`).
    PromptInput(OpKey),
    /// The `before_agent_start` handlers of a prompt's run.
    PromptBeforeStart(OpKey),
    /// A `bash` command's `user_bash` handlers.
    Bash(OpKey),
    /// A compaction's `session_before_compact` handlers, which decide whether and how it goes
    /// on.
    BeforeCompact(OpKey),
    /// A saved compaction's `session_compact` handlers.
    Compaction(OpKey),
    /// A tree navigation's `session_before_tree` handlers, which decide how it goes on.
    BeforeTree(OpKey),
    /// A tree navigation's `session_tree` handlers, after the leaf moved.
    TreeHandlers(OpKey),
}

/// Whom an operation answers.
#[derive(Debug, Clone)]
pub(in crate::actor) enum Answer {
    /// The client's command (its id and name).
    Client(Option<RequestId>, &'static str),
    /// An extension command's `ctx` call (the host's reply id).
    Host(String),
}
