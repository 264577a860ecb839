//! Commands that replace the session: `switch_session`, `fork` and `clone` (and the state reset
//! `new_session` shares with them). As in the reference, a replacement asks the extensions'
//! `session_before_*` handlers first and checks its target while a run goes on; only then is
//! the run aborted, and the answer waits for it to settle. A replacement that cannot be made
//! (an unknown entry, a file that is not a session) is answered at once and leaves the run
//! alone.

use std::path::Path;

use pi_rpc_protocol::response::CancelledResult;
use pi_rpc_protocol::{RequestId, Response};
use serde::Serialize;

use super::waiting::{AfterShutdown, Replacement};
use super::{Deferred, Session};
use crate::session::{SavedAt, SessionStore};

/// Why a replacement cannot be made; the text is what the client sees.
#[derive(Debug, thiserror::Error)]
pub(super) enum ReplaceError {
    /// The session store refused (an unknown entry, a file that is not a session, ...).
    #[error(transparent)]
    Session(#[from] crate::session::Error),
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

/// `fork` data.
#[derive(Debug, Serialize)]
struct ForkResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    cancelled: bool,
}

impl Session {
    /// `switch_session`, `fork` or `clone` from the client.
    pub(super) async fn request_replacement(
        &mut self,
        id: Option<RequestId>,
        replacement: Replacement,
    ) {
        if matches!(replacement, Replacement::Clone) && self.store.leaf_id().is_none() {
            let message = "Cannot clone session: no current entry selected";
            self.write(&Response::error(id, Some("clone"), message))
                .await;
            return;
        }
        self.begin_replacement(AfterShutdown::Replace(id, replacement))
            .await;
    }

    /// Starts a replacement (a command, or a command's `ctx` call): the extensions'
    /// `session_before_*` handlers first, which may cancel it while a run goes on.
    pub(super) async fn begin_replacement(&mut self, then: AfterShutdown) {
        if let Some(then) = self.before_replace_handlers(then).await {
            self.proceed_with_replacement(then).await;
        }
    }

    /// A replacement the `session_before_*` handlers let go on: when the agent is busy, its
    /// target is checked first (one that fails leaves the run alone), then the run is aborted
    /// and the replacement carried out once it settled; an idle agent carries it out at once.
    pub(super) async fn proceed_with_replacement(&mut self, then: AfterShutdown) {
        if self.streaming
            && let Err(error) = self.check_replacement(&then)
        {
            self.refuse_replacement(then, error.to_string()).await;
            return;
        }
        if !self.stop_activity() {
            self.carry_out(then).await;
            return;
        }
        let deferred = match then {
            AfterShutdown::NewSession(id, parent) => Deferred::NewSession(id, parent),
            AfterShutdown::Replace(id, replacement) => Deferred::Replace(id, replacement),
        };
        self.deferred.push(deferred);
    }

    /// Whether the replacement can be made, without making it: the session file opens (as
    /// the reference opens it before tearing the old session down), the fork entry is a user
    /// message, a persisted session to branch is written.
    pub(super) fn check_replacement(&self, then: &AfterShutdown) -> Result<(), ReplaceError> {
        match then {
            AfterShutdown::NewSession(..) => Ok(()),
            AfterShutdown::Replace(_, Replacement::Switch(path)) => {
                self.open_session_file(path).map(drop)
            }
            AfterShutdown::Replace(_, Replacement::Fork(entry_id)) => {
                Ok(self.store.check_fork(entry_id)?)
            }
            AfterShutdown::Replace(_, Replacement::Clone) => Ok(self.store.check_clone()?),
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

    /// Carries out a replacement and answers it (after the extensions' `session_shutdown`
    /// and `session_start` handlers).
    pub(super) async fn replace(&mut self, id: Option<RequestId>, replacement: Replacement) {
        let reason = match replacement {
            Replacement::Switch(_) => "resume",
            Replacement::Fork(_) | Replacement::Clone => "fork",
        };
        let then = AfterShutdown::Replace(id.clone(), replacement.clone());
        if self.shutdown_for_extensions(then, reason).await {
            return;
        }
        let previous = self.store.session_file();
        if let Some(prepared) = self.take_prepared_session() {
            self.store = prepared.store;
            self.rebind_session();
            let command = AfterShutdown::Replace(None, replacement).command();
            if command == "fork" {
                let result = ForkResult {
                    text: prepared.fork_text,
                    cancelled: false,
                };
                self.respond_replaced(id, command, &result, reason, previous)
                    .await;
            } else {
                let result = CancelledResult { cancelled: false };
                self.respond_replaced(id, command, &result, reason, previous)
                    .await;
            }
            return;
        }
        match replacement {
            Replacement::Switch(path) => {
                let kind = "switch_session";
                match self.open_session_file(&path) {
                    Ok(store) => {
                        self.store = store;
                        self.rebind_session();
                        let result = CancelledResult { cancelled: false };
                        self.respond_replaced(id, kind, &result, reason, previous)
                            .await;
                    }
                    Err(error) => {
                        let then = AfterShutdown::Replace(id, Replacement::Switch(path));
                        self.refuse_replacement(then, error.to_string()).await;
                    }
                }
            }
            Replacement::Fork(entry_id) => match self.store.fork(&entry_id) {
                Ok(text) => {
                    self.rebind_session();
                    let result = ForkResult {
                        text,
                        cancelled: false,
                    };
                    self.respond_replaced(id, "fork", &result, reason, previous)
                        .await;
                }
                Err(error) => {
                    let then = AfterShutdown::Replace(id, Replacement::Fork(entry_id));
                    self.refuse_replacement(then, error.to_string()).await;
                }
            },
            Replacement::Clone => match self.store.clone_at_leaf() {
                Ok(()) => {
                    self.rebind_session();
                    let result = CancelledResult { cancelled: false };
                    self.respond_replaced(id, "clone", &result, reason, previous)
                        .await;
                }
                Err(error) => {
                    let then = AfterShutdown::Replace(id, Replacement::Clone);
                    self.refuse_replacement(then, error.to_string()).await;
                }
            },
        }
    }

    /// Rebuilds the conversation state from the store, as a new runtime starts on a session
    /// ([`Session::start_on_store`]).
    pub(super) fn rebind_session(&mut self) {
        self.tasks.new_generation();
        self.abort_bash();
        self.steering_texts.clear();
        self.follow_up_texts.clear();
        self.steering_queue.clear();
        self.follow_up_queue.clear();
        self.pending_bash.clear();
        self.last_assistant = None;
        self.retry_attempt = 0;
        self.start_on_store();
    }
}
