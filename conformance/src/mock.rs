//! The scenario's own mock LLM: a thin adapter over the `mock-llm` crate.

use std::path::Path;
use std::time::Duration;

use mock_llm::{MockServer, Script};
use serde_json::Value;

/// A mock LLM started for one scenario.
pub struct MockHost {
    server: MockServer,
}

/// Builds the script a scenario's `mock:` value names: an inline script (`{responses: [...]}`),
/// a bare list of responses, `{reply: TEXT}`, `{file: PATH}` relative to `base`, or
/// `{quirk: NAME}`. Without a value, the script is empty: any request is an error the journal
/// records.
pub fn script(spec: Option<&Value>, base: &Path, origin: &str) -> Result<Script, String> {
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
        return Script::from_file(&base.join(file)).map_err(|e| e.to_string());
    }
    if let Some(name) = only("quirk") {
        return mock_llm::quirk(name).ok_or_else(|| {
            format!(
                "no quirk named `{name}` (known: {})",
                mock_llm::quirk_names().join(", ")
            )
        });
    }
    if let Some(text) = only("reply") {
        return Ok(Script::reply(text));
    }
    let value = match spec {
        Value::Array(_) => serde_json::json!({"responses": spec}),
        other => other.clone(),
    };
    Script::from_json_value(value, origin).map_err(|e| e.to_string())
}

impl MockHost {
    /// Starts a mock with the scenario's `mock:` value (see [`script`]).
    pub async fn start(spec: Option<&Value>, base: &Path, origin: &str) -> Result<Self, String> {
        let script = script(spec, base, origin)?;
        let server = MockServer::start(script).await.map_err(|e| e.to_string())?;
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
    pub fn release_gate(&self, name: &str) -> Result<(), String> {
        self.server.release_gate(name).map_err(|e| e.to_string())
    }

    /// Stops the server.
    pub async fn shutdown(self) {
        self.server.shutdown().await;
    }
}
