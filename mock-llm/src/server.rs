//! The HTTP server: accepting connections, routing provider requests, choosing responses.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::Value;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::body::{Gates, MockBody, Report};
use crate::conn::ConnIo;
use crate::error::{Error, Result};
use crate::format::Format;
use crate::journal::{Journal, JournalEntry, Outcome, redact};
use crate::render::{self, Head, Step, errors};
use crate::request::RequestInfo;
use crate::routes::{Route, check_auth, guess_format, route};
use crate::script::Script;

/// The script being served and how far it has been used.
struct ScriptState {
    script: Script,
    used: Vec<u32>,
    next_request: usize,
    /// Tool calls served with explicit ids, as (id, name), so that results that come back
    /// without an id (Gemini) can still be matched by id.
    issued_tools: Vec<(String, String)>,
}

/// State shared by the server task, its connections and the [`MockServer`] handle.
pub(crate) struct Shared {
    pub journal: Arc<Journal>,
    pub gates: Arc<Gates>,
    state: Mutex<ScriptState>,
    /// Access tokens the token endpoints issued (not secrets: shown in the journal).
    issued: Mutex<Vec<String>>,
}

impl Shared {
    fn new(script: Script) -> Self {
        let gates = Gates::default();
        gates.replace(&script.gate_names());
        let used = vec![0; script.responses.len()];
        Shared {
            journal: Arc::new(Journal::new()),
            gates: Arc::new(gates),
            issued: Mutex::new(Vec::new()),
            state: Mutex::new(ScriptState {
                script,
                used,
                next_request: 0,
                issued_tools: Vec::new(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, ScriptState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Replaces the script, rewinds it and replaces the gates.
    pub fn load_script(&self, script: Script) {
        self.gates.replace(&script.gate_names());
        let mut state = self.lock();
        state.used = vec![0; script.responses.len()];
        state.script = script;
        state.next_request = 0;
        state.issued_tools.clear();
    }

    /// Clears the journal, rewinds the script, closes the gates.
    pub fn reset(&self) {
        self.journal.clear();
        self.gates.close_all();
        let mut state = self.lock();
        state.used.iter_mut().for_each(|u| *u = 0);
        state.next_request = 0;
        state.issued_tools.clear();
    }

    /// A header value as the journal shows it: keys redacted, but not the access tokens this
    /// server issued.
    fn journal_value(&self, name: &str, value: &str) -> String {
        let issued = self.issued.lock().unwrap_or_else(PoisonError::into_inner);
        let token = value.strip_prefix("Bearer ").unwrap_or(value);
        if issued.iter().any(|known| known == token) {
            value.to_owned()
        } else {
            redact(name, value)
        }
    }

    /// Answers a request to a token endpoint and journals the outcome.
    fn token_answer(
        &self,
        endpoint: crate::oauth::Endpoint,
        body: &[u8],
        entry: crate::journal::EntryRef,
    ) -> (u16, Value) {
        let answer = crate::oauth::answer(endpoint, body, entry.index() + 1);
        if let Some(token) = answer.issued {
            self.issued
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(token);
        }
        let outcome = if answer.status == 200 {
            Outcome::Completed { chunks: 1 }
        } else {
            Outcome::Error {
                status: answer.status,
                message: answer.body.to_string(),
            }
        };
        self.journal.update(entry, |e| e.outcome = outcome);
        (answer.status, answer.body)
    }

    pub fn script_origin(&self) -> String {
        self.lock().script.origin.clone()
    }

    pub fn script(&self) -> Script {
        self.lock().script.clone()
    }

    /// Takes the next request index and the first response with uses left that matches.
    fn choose(
        &self,
        info: &mut RequestInfo,
    ) -> std::result::Result<(usize, crate::script::Response), String> {
        let mut state = self.lock();
        info.index = state.next_request;
        state.next_request += 1;
        let ScriptState {
            script,
            used,
            issued_tools,
            ..
        } = &mut *state;
        for name in &info.tool_result_names {
            let ids = issued_tools
                .iter()
                .filter(|(_, n)| n == name)
                .map(|(id, _)| id.clone());
            info.tool_result_ids.extend(ids);
        }
        let mut exhausted = 0;
        for (index, response) in script.responses.iter().enumerate() {
            let limit = response.times.unwrap_or(1);
            if !response.repeat && used[index] >= limit {
                exhausted += 1;
                continue;
            }
            let fits = response
                .matcher
                .as_ref()
                .is_none_or(|m| crate::matcher::matches(m, info));
            if fits {
                used[index] += 1;
                let calls = response
                    .content
                    .iter()
                    .flatten()
                    .filter_map(|item| item.tool_call.as_ref());
                for call in calls {
                    if let Some(id) = &call.id {
                        issued_tools.push((id.clone(), call.name.clone()));
                    }
                }
                return Ok((index, response.clone()));
            }
        }
        let total = script.responses.len();
        let why = if exhausted == total {
            format!("the script is exhausted (all {total} responses used)")
        } else {
            format!("no response with uses left matches ({exhausted} of {total} used up)")
        };
        Err(format!(
            "mock-llm: no scripted response for request #{} ({}) in script {}: {why}",
            info.index,
            crate::matcher::describe(info),
            script.origin
        ))
    }
}

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

type HttpResponse = Response<MockBody>;

/// Builds a response from status, headers and steps.
pub(crate) fn respond(
    shared: &Shared,
    reset: Arc<AtomicBool>,
    status: u16,
    headers: &[(String, String)],
    body: Vec<Step>,
    report: Option<crate::body::Report>,
) -> HttpResponse {
    let mut builder = Response::builder().status(status);
    for (name, value) in headers {
        builder = builder.header(name.as_str(), value.as_str());
    }
    let streaming = headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("content-type")
            && (value.starts_with("text/event-stream")
                || value.starts_with("application/vnd.amazon.eventstream"))
    });
    let body = MockBody::new(body, streaming, shared.gates.clone(), reset.clone(), report);
    match builder.body(body) {
        Ok(response) => response,
        Err(err) => {
            let text = format!("mock-llm: cannot build the scripted response: {err}");
            let mut response = Response::new(MockBody::new(
                vec![Step::Write(Bytes::from(text))],
                false,
                shared.gates.clone(),
                reset,
                None,
            ));
            *response.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
            response
        }
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
        Err(message) => return Ok(fail(format, 500, None, message)),
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
