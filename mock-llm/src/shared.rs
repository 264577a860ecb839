//! The state the server, its connections, the control API and the [`MockServer`](crate::MockServer)
//! handle share (script, journal, gates, issued tokens), and the response builder they all use.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use bytes::Bytes;
use hyper::Response;
use serde_json::Value;

use crate::body::{Gates, MockBody};
use crate::journal::{Journal, Outcome, redact};
use crate::render::Step;
use crate::request::RequestInfo;
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

/// State shared by the server task, its connections, the control API and the
/// [`MockServer`](crate::MockServer) handle.
pub(crate) struct Shared {
    pub journal: Arc<Journal>,
    pub gates: Arc<Gates>,
    state: Mutex<ScriptState>,
    /// Access tokens the token endpoints issued (not secrets: shown in the journal).
    issued: Mutex<Vec<String>>,
}

impl Shared {
    pub(crate) fn new(script: Script) -> Self {
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
    pub(crate) fn journal_value(&self, name: &str, value: &str) -> String {
        let issued = self.issued.lock().unwrap_or_else(PoisonError::into_inner);
        let token = value.strip_prefix("Bearer ").unwrap_or(value);
        if issued.iter().any(|known| known == token) {
            value.to_owned()
        } else {
            redact(name, value)
        }
    }

    /// Answers a request to a token endpoint and journals the outcome.
    pub(crate) fn token_answer(
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
    pub(crate) fn choose(
        &self,
        info: &mut RequestInfo,
    ) -> std::result::Result<(usize, crate::script::Response), NoResponse> {
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
        Err(NoResponse {
            index: info.index,
            request: crate::matcher::describe(info),
            origin: script.origin.clone(),
            why: if exhausted == total {
                Exhaustion::All { total }
            } else {
                Exhaustion::NoneFits {
                    used_up: exhausted,
                    total,
                }
            },
        })
    }
}

/// A request no scripted response answers (the mock answers it with a 500 naming why).
#[derive(Debug, thiserror::Error)]
#[error(
    "mock-llm: no scripted response for request #{index} ({request}) in script {origin}: {why}"
)]
pub(crate) struct NoResponse {
    index: usize,
    request: String,
    origin: String,
    why: Exhaustion,
}

/// Why no scripted response is left for a request.
#[derive(Debug, thiserror::Error)]
enum Exhaustion {
    #[error("the script is exhausted (all {total} responses used)")]
    All { total: usize },
    #[error("no response with uses left matches ({used_up} of {total} used up)")]
    NoneFits { used_up: usize, total: usize },
}

pub(crate) type HttpResponse = Response<MockBody>;

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
