//! Commands that replace the session: `switch_session`, `fork` and `clone` (and the state reset
//! `new_session` shares with them). A run in progress is aborted first and the answer waits for
//! it to settle, as the reference tears the old session down before building the new one.

use std::path::Path;

use pi_rpc_protocol::response::CancelledResult;
use pi_rpc_protocol::{RequestId, Response};
use serde::Serialize;

use super::{Deferred, Session};
use crate::session::SessionStore;

/// A session replacement waiting to be carried out.
#[derive(Debug, Clone)]
pub(super) enum Replacement {
    /// `switch_session` to this path.
    Switch(String),
    /// `fork` before this user message.
    Fork(String),
    /// `clone` at the leaf.
    Clone,
}

/// `fork` data.
#[derive(Debug, Serialize)]
struct ForkResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    cancelled: bool,
}

impl Session {
    /// Starts a replacement: at once when idle, else after the aborted run settled.
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
        if self.stop_activity() {
            self.deferred.push(Deferred::Replace(id, replacement));
        } else {
            self.replace(id, replacement).await;
        }
    }

    /// Carries out a replacement and answers it (after the extensions' `session_shutdown`
    /// and `session_start` handlers).
    pub(super) async fn replace(&mut self, id: Option<RequestId>, replacement: Replacement) {
        let reason = match replacement {
            Replacement::Switch(_) => "resume",
            Replacement::Fork(_) | Replacement::Clone => "fork",
        };
        let then = super::extensions::AfterShutdown::Replace(id.clone(), replacement.clone());
        if self.shutdown_for_extensions(then, reason).await {
            return;
        }
        let previous = self.store.session_file();
        if let Some(prepared) = self.take_prepared_session() {
            self.store = prepared.store;
            self.rebind_session();
            let command = super::extensions::AfterShutdown::Replace(None, replacement).command();
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
                match SessionStore::open(Path::new(&path), None, None) {
                    Ok(store) => {
                        self.store = store;
                        self.rebind_session();
                        let result = CancelledResult { cancelled: false };
                        self.respond_replaced(id, kind, &result, reason, previous)
                            .await;
                    }
                    Err(error) => {
                        self.write(&Response::error(id, Some(kind), error.to_string()))
                            .await;
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
                    self.write(&Response::error(id, Some("fork"), error.to_string()))
                        .await;
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
                    self.write(&Response::error(id, Some("clone"), error.to_string()))
                        .await;
                }
            },
        }
    }

    /// Rebuilds the conversation state from the store, as a new runtime starts on a session
    /// ([`Session::start_on_store`]).
    pub(super) fn rebind_session(&mut self) {
        self.session_generation += 1;
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
