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
    /// after what was asked before), with the context usage when that changed too.
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
        let from = if same_session { mirror.sent } else { 0 };
        let told_usage = mirror.context_usage.take();
        let usage = self.context_usage();
        let store = &self.store;
        let update = MirrorUpdate {
            session_id: store.session_id().to_owned(),
            reset: !same_session,
            from,
            to: store.entries().len(),
            leaf_id: store.leaf_id().map(str::to_owned),
            context_usage: (told_usage.as_ref() != Some(&usage)).then(|| usage.clone()),
        };
        let mirror = SessionMirror {
            session_id: Some(update.session_id.clone()),
            session_file: store.session_file(),
            sent: update.to,
            last_id: store.entries().last().map(|entry| entry.id().to_owned()),
            leaf_id: update.leaf_id.clone(),
            context_usage: Some(usage),
        };
        if let Some(ext) = self.extensions.as_mut() {
            ext.mirror = mirror;
        }
        self.outbox.push(Effect::HostEntries(update));
    }

    /// The context usage to tell the host with the model state, noted as told.
    pub(in crate::actor) fn context_usage_for_host(
        &mut self,
    ) -> Option<pi_rpc_protocol::response::ContextUsage> {
        let usage = self.context_usage();
        if let Some(ext) = self.extensions.as_mut() {
            ext.mirror.context_usage = Some(usage.clone());
        }
        usage
    }
}
