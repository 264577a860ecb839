//! The control API under `/__mock/`: journal, gates, script, reset.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Request, Response};
use serde_json::{Value, json};

use crate::body::MockBody;
use crate::render::Step;
use crate::script::Script;
use crate::shared::{Shared, respond};

fn reply(shared: &Shared, reset: Arc<AtomicBool>, status: u16, body: &Value) -> Response<MockBody> {
    let headers = [("content-type".to_owned(), "application/json".to_owned())];
    let bytes = Bytes::from(body.to_string());
    respond(
        shared,
        reset,
        status,
        &headers,
        vec![Step::Write(bytes)],
        None,
    )
}

/// Answers a control request.
pub(crate) async fn handle(
    shared: &Shared,
    request: Request<Incoming>,
    reset: Arc<AtomicBool>,
) -> Response<MockBody> {
    let method = request.method().as_str().to_owned();
    let path = request.uri().path().to_owned();
    let tail = path
        .trim_start_matches("/__mock")
        .trim_start_matches('/')
        .to_owned();
    let body = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(err) => return reply(shared, reset, 400, &json!({"error": err.to_string()})),
    };
    let segments: Vec<&str> = tail.split('/').collect();
    match (method.as_str(), segments.as_slice()) {
        ("GET", ["journal"]) => {
            let journal = serde_json::to_value(shared.journal.snapshot()).unwrap_or(Value::Null);
            reply(shared, reset, 200, &journal)
        }
        ("GET", ["script"]) => {
            let script = serde_json::to_value(shared.script()).unwrap_or(Value::Null);
            reply(shared, reset, 200, &script)
        }
        ("GET", ["health"]) => reply(shared, reset, 200, &json!({"ok": true})),
        ("POST", ["gates", name, "release"]) => {
            if shared.gates.release(name) {
                reply(shared, reset, 200, &json!({"released": name}))
            } else {
                let message = format!(
                    "no gate named `{name}` in script {} (gates: {})",
                    shared.script_origin(),
                    shared.gates.names().join(", ")
                );
                reply(shared, reset, 404, &json!({"error": message}))
            }
        }
        ("PUT", ["script"]) => {
            let text = String::from_utf8_lossy(&body);
            match Script::from_yaml_str(&text, "PUT /__mock/script") {
                Ok(script) => {
                    let count = script.responses.len();
                    shared.load_script(script);
                    reply(shared, reset, 200, &json!({"loaded": count}))
                }
                Err(err) => reply(shared, reset, 400, &json!({"error": err.to_string()})),
            }
        }
        ("POST", ["reset"]) => {
            shared.reset();
            reply(shared, reset, 200, &json!({"reset": true}))
        }
        _ => reply(
            shared,
            reset,
            404,
            &json!({"error": format!("unknown control route {method} {path}; see GET /__mock/journal, GET /__mock/script, POST /__mock/gates/NAME/release, PUT /__mock/script, POST /__mock/reset")}),
        ),
    }
}
