//! What the extension host knows of the session, for `ctx.sessionManager`'s getters (which
//! are synchronous in pi, so the host answers them from a mirror): the actor tells it the
//! entries appended since it last told it, and the leaf, before each message for the host and
//! at the end of each input; another session (a replacement, start-up) is sent whole once.
//! Comparing costs nothing per input: the session id, the number of entries, the last one sent
//! and the leaf. When they changed (or the model did), the context usage is told too, for
//! `ctx.getContextUsage()`, if it changed.

use super::State;
use crate::actor::outbox::{Effect, MirrorUpdate};

/// What the host was last told of the session.
#[derive(Debug, Default)]
pub(in crate::actor) struct SessionMirror {
    /// The session it has (none before the first update).
    session_id: Option<String>,
    session_file: Option<std::path::PathBuf>,
    /// How many of its entries it has, and the id of the last one.
    sent: usize,
    last_id: Option<String>,
    leaf_id: Option<String>,
    /// The context usage it was last told (`None` inside: unknown), for
    /// `ctx.getContextUsage()`; `None`: never told.
    context_usage: Option<Option<pi_rpc_protocol::response::ContextUsage>>,
}

impl State {
    /// Tells a live host what changed in the session since it was last told (at the flush,
    /// after what was asked before).
    pub(in crate::actor) fn sync_session_mirror(&mut self) {
        let Some(ext) = self.extensions.as_mut().filter(|ext| !ext.gone) else {
            return;
        };
        let store = &self.store;
        let mirror = &mut ext.mirror;
        let entries = store.entries();
        let same_session = mirror.session_id.as_deref() == Some(store.session_id())
            && mirror.session_file == store.session_file()
            && entries.len() >= mirror.sent
            && mirror.sent.checked_sub(1).map(|last| entries[last].id())
                == mirror.last_id.as_deref();
        let leaf_id = store.leaf_id();
        if same_session && entries.len() == mirror.sent && mirror.leaf_id.as_deref() == leaf_id {
            return;
        }
        let context_usage = mirror.context_usage.take();
        let update = MirrorUpdate {
            session_id: store.session_id().to_owned(),
            reset: !same_session,
            from: if same_session { mirror.sent } else { 0 },
            to: entries.len(),
            leaf_id: leaf_id.map(str::to_owned),
        };
        *mirror = SessionMirror {
            session_id: Some(update.session_id.clone()),
            session_file: store.session_file(),
            sent: entries.len(),
            last_id: entries.last().map(|entry| entry.id().to_owned()),
            leaf_id: update.leaf_id.clone(),
            context_usage,
        };
        self.outbox.push(Effect::HostEntries(update));
        self.sync_context_usage();
    }

    /// Tells a live host how full the context window is when that changed since it was last
    /// told (after the session's entries or the model changed), for `ctx.getContextUsage()`.
    pub(in crate::actor) fn sync_context_usage(&mut self) {
        let usage = self.context_usage();
        let Some(ext) = self.extensions.as_mut().filter(|ext| !ext.gone) else {
            return;
        };
        if ext.mirror.context_usage.as_ref() == Some(&usage) {
            return;
        }
        let line = ext.host().context_usage(usage.as_ref());
        ext.mirror.context_usage = Some(usage);
        match line {
            Ok(line) => self.outbox.push(Effect::Host {
                line,
                if_lost: crate::actor::outbox::IfLost::Log(
                    "cannot tell the extension host the context usage",
                ),
            }),
            Err(error) => {
                tracing::warn!(%error, "cannot tell the extension host the context usage")
            }
        }
    }
}
