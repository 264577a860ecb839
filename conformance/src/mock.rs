//! The scenario's own mock LLM: a thin adapter over the `mock-llm` crate.

use std::path::Path;
use std::time::Duration;

use mock_llm::{MockServer, Script};
use serde_json::Value;

/// Why a scenario's mock cannot be built or driven.
#[derive(Debug, thiserror::Error)]
pub enum MockError {
    /// `{quirk: NAME}` names no quirk.
    #[error("no quirk named `{name}` (known: {known})")]
    UnknownQuirk {
        /// The name written.
        name: String,
        /// The known quirks, comma separated.
        known: String,
    },
    /// The mock library refused the script, could not start, or has no such gate.
    #[error(transparent)]
    Mock(#[from] mock_llm::Error),
}

/// A mock LLM started for one scenario.
pub struct MockHost {
    server: MockServer,
}

/// Builds the script a scenario's `mock:` value names: an inline script (`{responses: [...]}`),
/// a bare list of responses, `{reply: TEXT}`, `{file: PATH}` relative to `base`, or
/// `{quirk: NAME}`. Without a value, the script is empty: any request is an error the journal
/// records.
pub fn script(spec: Option<&Value>, base: &Path, origin: &str) -> Result<Script, MockError> {
    let Some(spec) = spec else {
        return Ok(Script::default());
    };
    let only = |key: &str| {
        spec.as_object()
            .filter(|m| m.len() == 1)
            .and_then(|m| m.get(key))
            .and_then(Value::as_str)
    };
    if let Some(file) = only("file") {
        return Ok(Script::from_file(&base.join(file))?);
    }
    if let Some(name) = only("quirk") {
        return mock_llm::quirk(name).ok_or_else(|| MockError::UnknownQuirk {
            name: name.to_owned(),
            known: mock_llm::quirk_names().join(", "),
        });
    }
    if let Some(text) = only("reply") {
        return Ok(Script::reply(text));
    }
    let value = match spec {
        Value::Array(_) => serde_json::json!({"responses": spec}),
        other => other.clone(),
    };
    Ok(Script::from_json_value(value, origin)?)
}

impl MockHost {
    /// Starts a mock with the scenario's `mock:` value (see [`script`]).
    pub async fn start(spec: Option<&Value>, base: &Path, origin: &str) -> Result<Self, MockError> {
        let script = script(spec, base, origin)?;
        let server = MockServer::start(script).await?;
        Ok(Self { server })
    }

    /// `http://127.0.0.1:PORT`.
    pub fn uri(&self) -> String {
        self.server.uri()
    }

    /// Every request received so far, as JSON.
    pub fn journal(&self) -> Value {
        serde_json::to_value(self.server.journal()).unwrap_or(Value::Null)
    }

    /// How many requests were received so far.
    pub fn request_count(&self) -> usize {
        self.server.request_count()
    }

    /// Waits until `count` requests were received; false on timeout.
    pub async fn wait_for_requests(&self, count: usize, timeout: Duration) -> bool {
        self.server.wait_for_requests(count, timeout).await.is_ok()
    }

    /// Releases a gate of the script.
    pub fn release_gate(&self, name: &str) -> Result<(), MockError> {
        Ok(self.server.release_gate(name)?)
    }

    /// Stops the server.
    pub async fn shutdown(self) {
        self.server.shutdown().await;
    }
}
