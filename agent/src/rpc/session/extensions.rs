//! The session's side of extensions: it forwards events to the extension host and holds each
//! event until its handlers are done (so that what they cause comes first, as in the
//! reference), runs extension commands invoked by a prompt, and writes what the extensions
//! send: UI requests, `extension_error`, `entry_appended`.

use std::collections::HashMap;

use pi_rpc_protocol::command::ExtensionUiResponse;
use pi_rpc_protocol::event::{Event, ExtensionErrorEvent};
use pi_rpc_protocol::{RequestId, Response};
use serde_json::{Value, json};

use super::{Session, log_store_error};
use crate::extensions::{Host, HostMessage};

/// What a `done` from the host completes.
#[derive(Debug)]
enum Pending {
    /// `session_start` at start-up: commands are served once it is done.
    Startup,
    /// The held run event.
    RunEvent,
    /// An extension command invoked by the `prompt` with this id.
    Command(Option<RequestId>),
}

/// The extension host and what waits for it.
#[derive(Debug)]
pub(crate) struct Extensions {
    host: Host,
    /// Whether the host has ended (then nothing waits for it any more).
    gone: bool,
    /// Whether start-up (`session_start` handlers) is done.
    ready: bool,
    /// A run event whose handlers are running; later run events wait behind it.
    held: Option<Event>,
    pending: HashMap<u64, Pending>,
    next_id: u64,
}

impl Extensions {
    /// Wraps a started host.
    pub(crate) fn new(host: Host) -> Self {
        Self {
            host,
            gone: false,
            ready: false,
            held: None,
            pending: HashMap::new(),
            next_id: 0,
        }
    }
}

/// Whether commands may be read: always without extensions, else after start-up.
pub(super) fn accepts_lines(extensions: &Option<Extensions>) -> bool {
    extensions.as_ref().is_none_or(|ext| ext.ready)
}

/// Whether run events may be taken: not while one is held for its handlers.
pub(super) fn accepts_run_events(extensions: &Option<Extensions>) -> bool {
    extensions.as_ref().is_none_or(|ext| ext.held.is_none())
}

/// The host's next message; never resolves without a live host.
pub(super) async fn next_message(extensions: &mut Option<Extensions>) -> Option<HostMessage> {
    match extensions {
        Some(ext) if !ext.gone => ext.host.recv().await,
        _ => std::future::pending().await,
    }
}

impl Session {
    /// Emits `session_start` (reason `startup`) to the extensions; commands wait until its
    /// handlers are done.
    pub(super) async fn start_extensions(&mut self) {
        let Some(ext) = &mut self.extensions else {
            return;
        };
        if !ext.host.handles("session_start") {
            ext.ready = true;
            return;
        }
        let event = json!({"type": "session_start", "reason": "startup"});
        if !self.send_event(Pending::Startup, &event).await
            && let Some(ext) = &mut self.extensions
        {
            ext.ready = true;
        }
    }

    /// Sends `event` to the host, to be completed as `pending`; false when the host is gone.
    async fn send_event(&mut self, pending: Pending, event: &Value) -> bool {
        let Some(ext) = &mut self.extensions else {
            return false;
        };
        if ext.gone {
            return false;
        }
        let id = ext.next_id;
        ext.next_id += 1;
        if let Err(error) = ext.host.emit(id, event).await {
            tracing::error!(%error, "cannot send an event to the extension host");
            return false;
        }
        ext.pending.insert(id, pending);
        true
    }

    /// A run event: returned to be emitted now, or held while extension handlers run (then
    /// emitted when they are done).
    pub(super) async fn hold_for_extensions(&mut self, event: Event) -> Option<Event> {
        let Some(ext) = &self.extensions else {
            return Some(event);
        };
        if ext.gone || ext.host.events.is_empty() {
            return Some(event);
        }
        let value = match serde_json::to_value(&event) {
            Ok(value) => value,
            Err(_) => return Some(event),
        };
        let handled = value
            .get("type")
            .and_then(Value::as_str)
            .is_some_and(|kind| ext.host.handles(kind));
        if !handled || !self.send_event(Pending::RunEvent, &value).await {
            return Some(event);
        }
        if let Some(ext) = &mut self.extensions {
            ext.held = Some(event);
        }
        None
    }

    /// A prompt `/name args` naming an extension command runs it, even during a run; the
    /// prompt is answered once the command is done. False when no such command exists.
    pub(super) async fn run_extension_command(
        &mut self,
        id: &Option<RequestId>,
        text: &str,
    ) -> bool {
        let Some(ext) = &mut self.extensions else {
            return false;
        };
        let Some(invocation) = text.strip_prefix('/') else {
            return false;
        };
        let (name, args) = invocation.split_once(' ').unwrap_or((invocation, ""));
        if ext.gone || ext.host.command(name).is_none() {
            return false;
        }
        let serial = ext.next_id;
        ext.next_id += 1;
        if let Err(error) = ext.host.run_command(serial, name, args).await {
            tracing::error!(%error, "cannot send a command to the extension host");
            return false;
        }
        ext.pending.insert(serial, Pending::Command(id.clone()));
        true
    }

    /// Hands a client's dialog answer to the host.
    pub(super) async fn answer_extension_dialog(&mut self, response: ExtensionUiResponse) {
        let Some(ext) = &mut self.extensions else {
            return;
        };
        if ext.gone {
            return;
        }
        if let Err(error) = ext.host.answer(&response).await {
            tracing::error!(%error, "cannot send a dialog answer to the extension host");
        }
    }

    /// `get_commands` entries of the extension commands, as the reference lists them.
    pub(super) fn extension_commands(&self) -> Vec<Value> {
        let Some(ext) = &self.extensions else {
            return Vec::new();
        };
        ext.host
            .commands
            .iter()
            .map(|command| {
                let mut entry = serde_json::Map::new();
                entry.insert("name".into(), command.name.clone().into());
                if let Some(description) = &command.description {
                    entry.insert("description".into(), description.clone().into());
                }
                entry.insert("source".into(), "extension".into());
                entry.insert("sourceInfo".into(), ext.host.source_info(&command.path));
                Value::Object(entry)
            })
            .collect()
    }

    /// One message from the host; `None` when it has ended.
    pub(super) async fn on_host_message(&mut self, message: Option<HostMessage>) {
        let Some(message) = message else {
            self.on_host_gone().await;
            return;
        };
        match message {
            HostMessage::Ui { request } => {
                let mut record = serde_json::Map::with_capacity(request.len() + 1);
                record.insert("type".into(), "extension_ui_request".into());
                record.extend(request);
                self.write(&Value::Object(record)).await;
            }
            HostMessage::ExtensionError {
                extension_path,
                event,
                error,
            } => {
                let event = Event::ExtensionError(ExtensionErrorEvent {
                    extension_path,
                    event,
                    error,
                });
                self.emit(event).await;
            }
            HostMessage::AppendEntry { custom_type, data } => {
                self.append_extension_entry(&custom_type, data).await;
            }
            HostMessage::Done { id } => {
                let pending = self
                    .extensions
                    .as_mut()
                    .and_then(|ext| ext.pending.remove(&id));
                if let Some(pending) = pending {
                    self.complete(pending).await;
                }
            }
            HostMessage::Loaded { .. } => {
                tracing::warn!("the extension host reported loading twice");
            }
        }
    }

    async fn complete(&mut self, pending: Pending) {
        match pending {
            Pending::Startup => {
                if let Some(ext) = &mut self.extensions {
                    ext.ready = true;
                }
            }
            Pending::RunEvent => {
                let held = self.extensions.as_mut().and_then(|ext| ext.held.take());
                if let Some(event) = held {
                    self.on_run_event(event).await;
                }
            }
            Pending::Command(id) => self.write(&Response::ok(id, "prompt")).await,
        }
    }

    /// The host ended: nothing it was doing will finish, so everything waiting goes on.
    async fn on_host_gone(&mut self) {
        let Some(ext) = &mut self.extensions else {
            return;
        };
        tracing::error!("the extension host ended; extensions are disabled from now on");
        ext.gone = true;
        let mut pending: Vec<(u64, Pending)> = ext.pending.drain().collect();
        pending.sort_by_key(|(id, _)| *id);
        for (_, pending) in pending {
            self.complete(pending).await;
        }
        if let Some(ext) = &mut self.extensions {
            ext.ready = true;
        }
    }

    /// `pi.appendEntry`: a `custom` entry in the session, announced as `entry_appended`.
    async fn append_extension_entry(&mut self, custom_type: &str, data: Option<Value>) {
        let id = match self.store.append_custom_entry(custom_type, data) {
            Ok(id) => id,
            Err(error) => {
                log_store_error::<()>(Err(error));
                return;
            }
        };
        let Some(entry) = self.store.entry(&id) else {
            return;
        };
        let record = json!({"type": "entry_appended", "entry": entry.raw()});
        self.write(&record).await;
    }
}
