//! The HTTP server: accepting connections, routing provider requests, choosing responses.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::Value;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::body::Report;
use crate::conn::ConnIo;
use crate::error::{Error, Result};
use crate::format::Format;
use crate::journal::{JournalEntry, Outcome};
use crate::render::{self, Head, Step, errors};
use crate::request::RequestInfo;
use crate::routes::{Route, check_auth, guess_format, route};
use crate::script::Script;
use crate::shared::{HttpResponse, Shared, respond};

/// A running mock server on a loopback port.
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: watch::Sender<bool>,
    task: Option<JoinHandle<()>>,
}

impl MockServer {
    /// Starts a server on 127.0.0.1 and a free port.
    pub async fn start(script: Script) -> Result<MockServer> {
        MockServer::start_on(SocketAddr::from(([127, 0, 0, 1], 0)), script).await
    }

    /// Starts a server on `addr` (port 0 picks a free one).
    pub async fn start_on(addr: SocketAddr, script: Script) -> Result<MockServer> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::new(script));
        let (shutdown, shutdown_rx) = watch::channel(false);
        let task = tokio::spawn(accept_loop(listener, shared.clone(), shutdown_rx));
        Ok(MockServer {
            addr,
            shared,
            shutdown,
            task: Some(task),
        })
    }

    /// The base URL, `http://127.0.0.1:PORT` (no trailing slash).
    pub fn uri(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every provider request since the last reset, in arrival order.
    pub fn journal(&self) -> Vec<JournalEntry> {
        self.shared.journal.snapshot()
    }

    /// How many provider requests arrived since the last reset.
    pub fn request_count(&self) -> usize {
        self.shared.journal.len()
    }

    /// Waits until at least `n` provider requests arrived.
    pub async fn wait_for_requests(&self, n: usize, timeout: Duration) -> Result<()> {
        let mut receiver = self.shared.journal.subscribe();
        let waited = tokio::time::timeout(timeout, receiver.wait_for(|count| *count >= n)).await;
        match waited {
            Ok(Ok(_)) => Ok(()),
            _ => Err(Error::Timeout {
                timeout,
                wanted: n,
                got: self.request_count(),
            }),
        }
    }

    /// Waits until at least `n` provider requests arrived and the first `n` answers have ended
    /// (completed, failed, faulted or abandoned by the client).
    pub async fn wait_for_outcomes(&self, n: usize, timeout: Duration) -> Result<()> {
        let journal = self.shared.journal.clone();
        let mut receiver = journal.subscribe_changes();
        let waited =
            tokio::time::timeout(timeout, receiver.wait_for(|_| journal.finished(n))).await;
        match waited {
            Ok(Ok(_)) => Ok(()),
            _ => Err(Error::OutcomeTimeout {
                timeout,
                wanted: n,
                got: self.request_count(),
            }),
        }
    }

    /// Waits until a stream has reached the gate `name` (it may be released or not).
    pub async fn wait_for_gate(&self, name: &str, timeout: Duration) -> Result<()> {
        let mut receiver = self
            .shared
            .gates
            .subscribe(name)
            .ok_or_else(|| self.unknown_gate(name))?;
        let waited = tokio::time::timeout(timeout, receiver.wait_for(|s| s.reached > 0)).await;
        match waited {
            Ok(Ok(_)) => Ok(()),
            _ => Err(Error::GateTimeout {
                timeout,
                name: name.to_owned(),
            }),
        }
    }

    fn unknown_gate(&self, name: &str) -> Error {
        Error::UnknownGate {
            name: name.to_owned(),
            origin: self.shared.script_origin(),
            known: self.shared.gates.names().join(", "),
        }
    }

    /// Releases the gate `name`: streams waiting there go on, later ones pass it.
    pub fn release_gate(&self, name: &str) -> Result<()> {
        if self.shared.gates.release(name) {
            Ok(())
        } else {
            Err(self.unknown_gate(name))
        }
    }

    /// Replaces the script (rewound, gates closed); the journal is kept.
    pub fn load_script(&self, script: Script) {
        self.shared.load_script(script);
    }

    /// Clears the journal, rewinds the script and closes the gates.
    pub fn reset(&self) {
        self.shared.reset();
    }

    /// Stops accepting connections and closes the open ones.
    pub async fn shutdown(mut self) {
        self.shutdown.send_replace(true);
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.shutdown.send_replace(true);
    }
}

async fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    mut shutdown: watch::Receiver<bool>,
) {
    loop {
        let accepted = tokio::select! {
            _ = shutdown.wait_for(|stop| *stop) => break,
            accepted = listener.accept() => accepted,
        };
        let Ok((stream, _)) = accepted else { continue };
        let _ = stream.set_nodelay(true);
        tokio::spawn(serve_connection(stream, shared.clone(), shutdown.clone()));
    }
}

async fn serve_connection(
    stream: TcpStream,
    shared: Arc<Shared>,
    mut shutdown: watch::Receiver<bool>,
) {
    let reset = Arc::new(AtomicBool::new(false));
    let io = TokioIo::new(ConnIo {
        stream,
        reset: reset.clone(),
    });
    let service =
        hyper::service::service_fn(move |request| handle(shared.clone(), request, reset.clone()));
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .serve_connection(io, service);
    tokio::select! {
        _ = connection => {}
        _ = shutdown.wait_for(|stop| *stop) => {}
    }
}

async fn handle(
    shared: Arc<Shared>,
    request: Request<Incoming>,
    reset: Arc<AtomicBool>,
) -> std::result::Result<HttpResponse, std::io::Error> {
    let path = request.uri().path().to_owned();
    if path.starts_with("/__mock/") || path == "/__mock" {
        return Ok(crate::control::handle(&shared, request, reset).await);
    }
    let method = request.method().as_str().to_owned();
    let query = request.uri().query().map(str::to_owned);
    let mut headers = BTreeMap::new();
    for (name, value) in request.headers() {
        let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
        headers.insert(name.as_str().to_owned(), value);
    }
    let bytes = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(err) => return Err(std::io::Error::other(err)),
    };
    let bytes = match headers.get("content-encoding").map(String::as_str) {
        // The Codex client compresses its bodies.
        Some("zstd") => crate::request::decode_zstd(&bytes).unwrap_or(bytes),
        _ => bytes,
    };
    let body_value: Option<Value> = serde_json::from_slice(&bytes).ok();
    let routed = route(&path);
    let token_endpoint = crate::oauth::Endpoint::of(&path).filter(|_| method == "POST");
    let entry = JournalEntry {
        index: 0,
        method: method.clone(),
        path: path.clone(),
        query: query.as_deref().map(crate::journal::redact_query),
        headers: headers
            .iter()
            .map(|(k, v)| (k.clone(), shared.journal_value(k, v)))
            .collect(),
        body: body_value
            .clone()
            .unwrap_or_else(|| Value::String(String::from_utf8_lossy(&bytes).into_owned())),
        format: match (&routed, token_endpoint) {
            (Some(route), _) => Some(route.format.name().to_owned()),
            (None, Some(endpoint)) => Some(endpoint.journal_name().to_owned()),
            (None, None) => None,
        },
        model: None,
        response_index: None,
        outcome: Outcome::InProgress,
    };
    let entry = shared.journal.push(entry);
    let fail = |format: Format, status: u16, kind: Option<&str>, message: String| {
        tracing::warn!("{method} {path}: answered {status}: {message}");
        shared.journal.update(entry, |e| {
            e.outcome = Outcome::Error {
                status,
                message: message.clone(),
            }
        });
        match errors::json_head(format, entry.index(), status, kind, &message) {
            Head::Respond {
                status,
                headers,
                body,
            } => respond(&shared, reset.clone(), status, &headers, body, None),
            Head::Drop | Head::Reset => respond(&shared, reset.clone(), 500, &[], Vec::new(), None),
        }
    };
    if let Some(endpoint) = token_endpoint {
        let (status, body) = shared.token_answer(endpoint, &bytes, entry);
        let headers = [("content-type".to_owned(), "application/json".to_owned())];
        let body = vec![Step::Write(Bytes::from(body.to_string()))];
        return Ok(respond(&shared, reset, status, &headers, body, None));
    }
    let Some(Route {
        format,
        model: path_model,
        stream,
    }) = routed
    else {
        let format = guess_format(&path);
        return Ok(fail(
            format,
            404,
            None,
            format!("Invalid URL ({method} {path})"),
        ));
    };
    if method != "POST" {
        return Ok(fail(
            format,
            405,
            None,
            format!("Method {method} not allowed for {path}; use POST"),
        ));
    }
    if let Err(refused) = check_auth(&headers, query.as_deref(), format) {
        return Ok(fail(format, refused.status, refused.kind, refused.message));
    }
    let Some(body_value) = body_value.filter(Value::is_object) else {
        return Ok(fail(
            format,
            400,
            None,
            "The request body is not a valid JSON object".to_owned(),
        ));
    };
    if let Some(message) = crate::request::missing_field(format, &body_value) {
        return Ok(fail(format, 400, None, message));
    }
    let mut info = RequestInfo::parse(format, path_model.as_deref(), &body_value, 0);
    if let Some(stream) = stream {
        info.stream = stream;
    }
    shared
        .journal
        .update(entry, |e| e.model = Some(info.model.clone()));
    let (response_index, response) = match shared.choose(&mut info) {
        Ok(chosen) => chosen,
        Err(unanswered) => return Ok(fail(format, 500, None, unanswered.to_string())),
    };
    shared
        .journal
        .update(entry, |e| e.response_index = Some(response_index));
    tracing::info!(
        "request #{} {method} {path}: {} model `{}` -> response {response_index}",
        info.index,
        format.name(),
        info.model
    );
    let plan = render::plan(&info, &response);
    if let Some(gate) = &plan.gate {
        shared.gates.wait(gate).await;
    }
    if let Some(delay) = plan.delay {
        tokio::time::sleep(delay).await;
    }
    let report = Report {
        journal: shared.journal.clone(),
        entry,
    };
    match plan.head {
        Head::Respond {
            status,
            headers,
            body,
        } => Ok(respond(
            &shared,
            reset,
            status,
            &headers,
            body,
            Some(report),
        )),
        Head::Drop => {
            shared.journal.update(entry, |e| {
                e.outcome = Outcome::Fault {
                    fault: "drop".to_owned(),
                    after_chunks: 0,
                }
            });
            Err(std::io::Error::other(
                "mock-llm: scripted drop before headers",
            ))
        }
        Head::Reset => {
            reset.store(true, Ordering::SeqCst);
            shared.journal.update(entry, |e| {
                e.outcome = Outcome::Fault {
                    fault: "reset".to_owned(),
                    after_chunks: 0,
                }
            });
            Err(std::io::Error::other(
                "mock-llm: scripted reset before headers",
            ))
        }
    }
}
