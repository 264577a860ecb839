//! Helpers of the wire formats' unit tests: a model of one api, and a reader fed with `data:`
//! events, giving back the deltas it queued as JSON, the message and the stream's outcome.

use pi_rpc_protocol::model::Model;
use serde_json::{Value, json};

use super::StreamError;
use super::driver::WireFormat;
use super::partial::PartialMessage;
use super::sse::SseEvent;

/// A reasoning model of `api` at an address nothing listens on.
pub(crate) fn model(api: &str) -> Model {
    serde_json::from_value(json!({
        "id": "m", "name": "m", "api": api, "provider": "p",
        "baseUrl": "http://127.0.0.1:9", "reasoning": true, "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1000, "maxTokens": 100
    }))
    .unwrap_or_else(|error| panic!("test model: {error}"))
}

/// The deltas `partial` queued, as JSON.
pub(crate) fn deltas(partial: &mut PartialMessage) -> Vec<Value> {
    partial
        .take_events()
        .map(|event| serde_json::to_value(event).unwrap_or_default())
        .collect()
}

/// The `delta` of each delta that has one (text, thinking and tool-call pieces), in order.
pub(crate) fn pieces(deltas: &[Value]) -> Vec<Value> {
    deltas
        .iter()
        .filter_map(|delta| delta.get("delta").cloned())
        .collect()
}

/// Feeds each value as the data of an event named by its `type` (when the wire format names
/// its events) or unnamed; the outcome is the first error, else `on_end`'s.
pub(crate) fn feed(
    wire: &mut impl WireFormat,
    model: &Model,
    named: bool,
    events: &[Value],
) -> (Vec<Value>, PartialMessage, Result<(), StreamError>) {
    let mut partial = PartialMessage::new(model);
    let mut outcome = Ok(());
    for data in events {
        let name = named.then(|| data["type"].as_str().unwrap_or_default().to_owned());
        outcome = wire.on_event(SseEvent::new(name, data.to_string()), &mut partial);
        if outcome.is_err() {
            break;
        }
    }
    if outcome.is_ok() {
        outcome = wire.on_end(&mut partial);
    }
    (deltas(&mut partial), partial, outcome)
}
