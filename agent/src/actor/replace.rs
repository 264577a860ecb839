//! What a session replacement (`ops/replacement.rs`: `new_session`, `switch_session`, `fork`,
//! `clone` and a command's `ctx` calls) does to the session: its target checked while a run
//! goes on, the new session made before the old one's `session_shutdown` handlers, the
//! `session_before_*` event that may cancel it, and the swap itself.

use std::path::Path;

use super::State;
use super::waiting::Target;
use crate::extensions::HostEvent;
use crate::store::{SavedAt, SessionStore};

/// Why a replacement cannot be made; the text is what the client sees.
#[derive(Debug, thiserror::Error)]
pub(super) enum ReplaceError {
    /// The session store refused (an unknown entry, a file that is not a session, ...).
    #[error(transparent)]
    Session(#[from] crate::store::Error),
    /// The session file's working folder is gone (the reference's `MissingSessionCwdError`).
    #[error(
        "Stored session working directory does not exist: {session_cwd}\nSession file: {file}\nCurrent working directory: {cwd}"
    )]
    MissingCwd {
        session_cwd: String,
        file: String,
        cwd: String,
    },
}

/// A replacement session made before the old session's `session_shutdown` handlers run.
#[derive(Debug)]
pub(super) struct PreparedSession {
    /// The new session.
    pub(super) store: SessionStore,
    /// A fork's text (of the user message forked before).
    fork_text: Option<String>,
}

impl State {
    /// Whether the replacement can be made, without making it: the session file opens (as
    /// the reference opens it before tearing the old session down), the fork entry is a user
    /// message, a persisted session to branch is written.
    pub(super) fn check_replacement(&self, target: &Target) -> Result<(), ReplaceError> {
        match target {
            Target::New(_) => Ok(()),
            Target::Switch(path) => self.open_session_file(path).map(drop),
            Target::Fork(entry_id) => Ok(self.store.check_fork(entry_id)?),
            Target::ForkAt(entry_id) => Ok(self.store.check_fork_at(entry_id)?),
            Target::Clone => Ok(self.store.check_clone()?),
        }
    }

    /// The session `switch_session` would switch to: the file opened, and its working folder
    /// still there.
    pub(super) fn open_session_file(&self, path: &str) -> Result<SessionStore, ReplaceError> {
        let mut store = SessionStore::open(Path::new(path), None, None)?;
        store.set_saved_at(SavedAt::for_release(self.release));
        let session_cwd = store.cwd();
        if let Some(file) = store.session_file()
            && !session_cwd.as_os_str().is_empty()
            && !session_cwd.exists()
        {
            return Err(ReplaceError::MissingCwd {
                session_cwd: session_cwd.display().to_string(),
                file: file.display().to_string(),
                cwd: self.config.cwd.display().to_string(),
            });
        }
        Ok(store)
    }

    /// The session that replaces the current one, made as `target` says (the current one
    /// stays until the swap).
    pub(super) fn prepare_replacement(
        &self,
        target: &Target,
    ) -> Result<PreparedSession, ReplaceError> {
        let mut store = self.store.clone();
        let mut fork_text = None;
        match target {
            Target::New(parent) => {
                store.new_session(parent.as_deref());
            }
            Target::Switch(path) => store = self.open_session_file(path)?,
            Target::Fork(entry_id) => fork_text = store.fork(entry_id)?,
            Target::ForkAt(entry_id) => store.fork_at(entry_id)?,
            Target::Clone => store.clone_at_leaf()?,
        }
        Ok(PreparedSession { store, fork_text })
    }

    /// `session_before_switch` (`new`, `resume` with the target file) or
    /// `session_before_fork` (the entry, and whether the fork is before it or at it).
    pub(super) fn before_replace_event(&self, target: &Target) -> HostEvent<'static> {
        match target {
            Target::New(_) => HostEvent::SessionBeforeSwitch {
                reason: "new",
                target_session_file: None,
            },
            Target::Switch(path) => HostEvent::SessionBeforeSwitch {
                reason: "resume",
                target_session_file: Some(self.config.cwd.join(path).display().to_string()),
            },
            Target::Fork(entry_id) => HostEvent::SessionBeforeFork {
                entry_id: Some(entry_id.clone()),
                position: "before",
            },
            Target::ForkAt(entry_id) => HostEvent::SessionBeforeFork {
                entry_id: Some(entry_id.clone()),
                position: "at",
            },
            Target::Clone => HostEvent::SessionBeforeFork {
                entry_id: self.store.leaf_id().map(str::to_owned),
                position: "at",
            },
        }
    }

    /// `new_session`'s swap: a new session (the prepared one, else one made now with its
    /// parent), the conversation and queues emptied.
    pub(super) fn swap_new_session(
        &mut self,
        parent_session: Option<&str>,
        prepared: Option<PreparedSession>,
    ) {
        self.tasks.new_generation();
        self.abort_bash();
        self.pending_bash.clear();
        self.messages.clear();
        self.steering_texts.clear();
        self.follow_up_texts.clear();
        self.steering_queue.clear();
        self.follow_up_queue.clear();
        self.session_name = None;
        match prepared {
            Some(prepared) => self.store = prepared.store,
            None => {
                self.store.new_session(parent_session);
            }
        }
        self.start_on_store();
    }

    /// The swap of `switch_session`, `fork` and `clone`: the prepared session, else the one
    /// made now (a fork in place); the fork's text.
    pub(super) fn swap_replaced(
        &mut self,
        target: &Target,
        prepared: Option<PreparedSession>,
    ) -> Result<Option<String>, ReplaceError> {
        let fork_text = match (prepared, target) {
            (Some(prepared), _) => {
                self.store = prepared.store;
                prepared.fork_text
            }
            (None, Target::Switch(path)) => {
                self.store = self.open_session_file(path)?;
                None
            }
            (None, Target::Fork(entry_id)) => self.store.fork(entry_id)?,
            (None, Target::ForkAt(entry_id)) => {
                self.store.fork_at(entry_id)?;
                None
            }
            (None, Target::Clone) => {
                self.store.clone_at_leaf()?;
                None
            }
            (None, Target::New(parent)) => {
                self.store.new_session(parent.as_deref());
                None
            }
        };
        self.rebind_session();
        Ok(fork_text)
    }

    /// Rebuilds the conversation state from the store, as a new runtime starts on a session
    /// ([`State::start_on_store`]).
    pub(super) fn rebind_session(&mut self) {
        self.tasks.new_generation();
        self.abort_bash();
        self.steering_texts.clear();
        self.follow_up_texts.clear();
        self.steering_queue.clear();
        self.follow_up_queue.clear();
        self.pending_bash.clear();
        self.last_assistant = None;
        self.ops.retry.reset();
        self.start_on_store();
    }
}
