//! What the session asks of its extensions without waiting for them: whether some extension
//! handles an event, the host client and hooks a run or `bash` command takes, and
//! the host's next message or reply.

use super::Extensions;
use crate::extensions::{HostClient, HostInput};

/// Whether a live extension has a handler for run events of this `kind`.
pub(in crate::actor) fn handles_event(extensions: &Option<Extensions>, kind: &str) -> bool {
    extensions
        .as_ref()
        .is_some_and(|ext| !ext.gone && ext.host.handles(kind))
}

/// The live host's client: what extensions do for a run (its hooks), a model call (provider
/// hooks) and a `bash` command, and the tools they registered; `None` without a live host.
pub(in crate::actor) fn host_client(extensions: &Option<Extensions>) -> Option<HostClient> {
    extensions
        .as_ref()
        .filter(|ext| !ext.gone)
        .map(|ext| ext.host.client())
}

/// The extensions' part in a run's model calls: the `before_provider_*` /
/// `after_provider_response` handlers, the providers whose `streamSimple` answers and those
/// whose `oauth` makes the key (from the model `registry`); `None` when no live extension has
/// any.
pub(in crate::actor) fn provider_hooks(
    extensions: &Option<Extensions>,
    registry: &crate::config::ModelRegistry,
) -> Option<std::sync::Arc<dyn crate::provider::hooks::ProviderHooks>> {
    let client = host_client(extensions)?;
    let hooks = crate::extensions::ExtensionProviderHooks::for_run(client, registry)?;
    Some(std::sync::Arc::new(hooks))
}

/// The host's next message or reply to the session; never resolves without a live host.
pub(in crate::actor) async fn next_message(
    extensions: &mut Option<Extensions>,
) -> Option<HostInput> {
    match extensions {
        Some(ext) if !ext.gone => ext.host.recv().await,
        _ => std::future::pending().await,
    }
}
