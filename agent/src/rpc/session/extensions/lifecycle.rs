//! Session lifecycle events for extensions: `agent_settled`, `session_shutdown` and
//! `session_start` around session replacements and at the end of input, and `session_compact`
//! after a compaction is saved. Each waits for its handlers, as in the reference.

use pi_rpc_protocol::RequestId;
use serde_json::{Value, json};

use super::{AfterShutdown, Pending, Session, handles_event, next_message};
use crate::extensions::HostMessage;
use crate::rpc::session::replace::Replacement;

impl Session {
    /// Sends `agent_settled` to its handlers; true when it waits for them (then
    /// [`Session::settle`] follows when they are done).
    pub(in crate::rpc::session) async fn hold_settled_for_extensions(&mut self) -> bool {
        handles_event(&self.extensions, "agent_settled")
            && self
                .send_event(Pending::Settled, &json!({"type": "agent_settled"}))
                .await
    }

    /// Before a session replacement: the `session_before_switch` / `session_before_fork`
    /// handlers (which may cancel it), then the `session_shutdown` handlers (with `reason`).
    /// True when the replacement waits for them; it is then carried out again, as `then`.
    pub(in crate::rpc::session) async fn shutdown_for_extensions(
        &mut self,
        then: AfterShutdown,
        reason: &str,
    ) -> bool {
        let Some(ext) = &mut self.extensions else {
            return false;
        };
        if std::mem::take(&mut ext.shut_down) {
            return false;
        }
        if !std::mem::take(&mut ext.replace_allowed) {
            let before = self.before_replace_event(&then);
            let kind = before["type"].as_str().unwrap_or_default();
            if handles_event(&self.extensions, kind) {
                return self.send_event(Pending::BeforeReplace(then), &before).await;
            }
        }
        if !handles_event(&self.extensions, "session_shutdown") {
            return false;
        }
        let event = json!({"type": "session_shutdown", "reason": reason});
        self.send_event(Pending::Shutdown(then), &event).await
    }

    /// `session_before_switch` (`new`, `resume` with the target file) or
    /// `session_before_fork` (the entry, and whether the fork is before it or at it).
    fn before_replace_event(&self, then: &AfterShutdown) -> Value {
        match then {
            AfterShutdown::NewSession(..) => {
                json!({"type": "session_before_switch", "reason": "new"})
            }
            AfterShutdown::Replace(_, Replacement::Switch(path)) => json!({
                "type": "session_before_switch",
                "reason": "resume",
                "targetSessionFile": self.config.cwd.join(path).display().to_string(),
            }),
            AfterShutdown::Replace(_, Replacement::Fork(entry_id)) => {
                json!({"type": "session_before_fork", "entryId": entry_id, "position": "before"})
            }
            AfterShutdown::Replace(_, Replacement::Clone) => json!({
                "type": "session_before_fork",
                "entryId": self.store.leaf_id(),
                "position": "at",
            }),
        }
    }

    /// At the end of input: runs the `session_shutdown` handlers (reason `quit`) and writes
    /// what they send, until they are done or the host is gone.
    pub(in crate::rpc::session) async fn shutdown_extensions_at_exit(&mut self) {
        if self.output_closed || !handles_event(&self.extensions, "session_shutdown") {
            return;
        }
        let Some(ext) = &mut self.extensions else {
            return;
        };
        let id = ext.next_id;
        ext.next_id += 1;
        let event = json!({"type": "session_shutdown", "reason": "quit"});
        if ext.host.emit(id, &event).await.is_err() {
            return;
        }
        loop {
            match next_message(&mut self.extensions).await {
                Some(HostMessage::Done { id: done, .. }) if done == id => return,
                None => return,
                message => self.on_host_message(message).await,
            }
        }
    }

    /// Sends `session_compact` (the saved `entry`) to its handlers; the compaction's end is
    /// handed back when nothing waits for them.
    pub(in crate::rpc::session) async fn hold_compacted_for_extensions(
        &mut self,
        entry: Value,
        from_extension: bool,
        end: crate::rpc::session::compaction::CompactionEnd,
    ) -> Option<crate::rpc::session::compaction::CompactionEnd> {
        if !handles_event(&self.extensions, "session_compact") {
            return Some(end);
        }
        let event = json!({
            "type": "session_compact",
            "compactionEntry": entry,
            "fromExtension": from_extension,
            "reason": end.reason,
            "willRetry": end.will_retry,
        });
        let Some(ext) = self.extensions.as_mut() else {
            return Some(end);
        };
        let id = ext.next_id;
        ext.next_id += 1;
        if let Err(error) = ext.host.emit(id, &event).await {
            tracing::error!(%error, "cannot send an event to the extension host");
            return Some(end);
        }
        ext.pending.insert(id, Pending::Compacted(Box::new(end)));
        None
    }

    /// Answers a session replacement after the `session_start` handlers (with `reason` and
    /// the session file left, if any).
    pub(in crate::rpc::session) async fn respond_replaced<T: serde::Serialize>(
        &mut self,
        id: Option<RequestId>,
        command: &'static str,
        data: &T,
        reason: &str,
        previous: Option<std::path::PathBuf>,
    ) {
        if handles_event(&self.extensions, "session_start") {
            let mut event = json!({"type": "session_start", "reason": reason});
            if let (Some(previous), Some(fields)) = (previous, event.as_object_mut()) {
                fields.insert(
                    "previousSessionFile".into(),
                    previous.display().to_string().into(),
                );
            }
            let data = serde_json::to_value(data).unwrap_or(Value::Null);
            if self
                .send_event(Pending::Started(id.clone(), command, data.clone()), &event)
                .await
            {
                return;
            }
        }
        self.respond(id, command, data).await;
    }
}
