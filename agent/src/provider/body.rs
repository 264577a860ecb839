//! Request bodies encoded from the typed history while they are sent.
//!
//! A body is its fixed part (model, limits, tools: small, built once) with a hole where the
//! history's array goes, and a [`HistoryEncoder`] that writes the array's elements one at a
//! time, each straight from one transformed message (parsed, when it was read from a session
//! file, only while it is encoded). The body goes out in chunks of about [`CHUNK`] bytes, with a
//! `Content-Length` (as Node's `fetch` sends a string body) found by a first pass that encodes
//! and only counts; a retry encodes it again. So a request on a long session adds a chunk to
//! memory, not a copy of the history.
//!
//! Only when an extension's `before_provider_request` handler wants the payload is the body
//! made whole, as a JSON value for the handler, and sent as the handler left it.

use std::sync::Arc;

use bytes::Bytes;
use serde::Serialize;
use serde_json::{Map, Value};

/// About how many bytes each chunk of a streamed body holds.
pub(crate) const CHUNK: usize = 64 * 1024;

/// Writes the elements of a body's history array, in order.
pub(crate) trait HistoryEncoder: Send {
    /// Appends the next element's JSON text to `out`; `Ok(false)` (writing nothing) when
    /// there is none left.
    fn write_next(&mut self, out: &mut Vec<u8>) -> serde_json::Result<bool>;
}

/// Makes a fresh encoder of the same history, for each pass over it.
pub(crate) type Encoders = Arc<dyn Fn() -> Box<dyn HistoryEncoder> + Send + Sync>;

/// What a request sends.
#[derive(Clone)]
pub(crate) enum RequestBody {
    /// These bytes.
    Whole(Bytes),
    /// The body encoded as it is sent.
    Streamed(StreamedBody),
}

/// The request of an exchange, to send once or again.
pub(crate) struct Outgoing {
    request: Option<reqwest::RequestBuilder>,
    /// The body to attach to each attempt (`None`: `request` holds it).
    body: Option<RequestBody>,
}

impl From<reqwest::RequestBuilder> for Outgoing {
    fn from(request: reqwest::RequestBuilder) -> Self {
        Self {
            request: Some(request),
            body: None,
        }
    }
}

impl Outgoing {
    /// `request` (without a body) sending `body`.
    pub(crate) fn new(request: reqwest::RequestBuilder, body: RequestBody) -> Self {
        Self {
            request: Some(request),
            body: Some(body),
        }
    }

    /// The request to send now; with `keep`, the request stays for another attempt if it can
    /// be copied (a body streamed by the client cannot: ours are attached to each attempt).
    pub(crate) fn attempt(&mut self, keep: bool) -> Option<reqwest::RequestBuilder> {
        let copy = if keep {
            self.request
                .as_ref()
                .and_then(reqwest::RequestBuilder::try_clone)
        } else {
            None
        };
        let request = match copy {
            Some(copy) => copy,
            None => self.request.take()?,
        };
        Some(match &self.body {
            Some(body) => body.attach(request),
            None => request,
        })
    }

    /// Whether another attempt can be sent.
    pub(crate) fn can_repeat(&self) -> bool {
        self.request.is_some()
    }
}

/// A body whose history is encoded while it is sent (see the module docs).
#[derive(Clone)]
pub(crate) struct StreamedBody {
    /// The text before the history's array.
    head: Bytes,
    /// The text after it.
    tail: Bytes,
    encoders: Encoders,
    /// The whole body's length in bytes.
    len: u64,
}

impl std::fmt::Debug for StreamedBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamedBody")
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl RequestBody {
    /// The body of `skeleton` (a JSON object whose `hole` key, placed where the history goes,
    /// holds anything) with the history `encoders` write at `hole`, or what the
    /// `before_provider_request` handlers make of it.
    pub(crate) async fn prepare(
        skeleton: Map<String, Value>,
        hole: &str,
        encoders: Encoders,
    ) -> serde_json::Result<Self> {
        Self::prepare_with(skeleton, hole, encoders, super::hooks::before_request).await
    }

    /// [`prepare`](Self::prepare) with the format's own way to hand the payload to the
    /// handlers (`hook`: the body as a value in, the body to send out).
    pub(crate) async fn prepare_with<Hook, Handled>(
        mut skeleton: Map<String, Value>,
        hole: &str,
        encoders: Encoders,
        hook: Hook,
    ) -> serde_json::Result<Self>
    where
        Hook: FnOnce(Value) -> Handled,
        Handled: std::future::Future<Output = Value>,
    {
        if !skeleton.contains_key(hole) {
            skeleton.insert(hole.to_owned(), Value::Null);
        }
        // A model's `samplingParams` that name the history's key replace the history, as the
        // reference's `Object.assign` over the built body does: the body is sent as it is.
        let history_given = !skeleton[hole].is_null();
        let wants_payload = super::hooks::wants_payload();
        if history_given || wants_payload {
            let mut payload = if history_given {
                Value::Object(skeleton)
            } else {
                whole_value(skeleton, hole, &encoders)?
            };
            if wants_payload {
                payload = hook(payload).await;
            }
            return pi_rpc_protocol::json::to_vec(&payload).map(|bytes| Self::Whole(bytes.into()));
        }
        StreamedBody::new(&skeleton, hole, encoders).map(Self::Streamed)
    }

    /// Hands the body's bytes to `observe` in order (for a streamed body, one more pass over
    /// the history): what a signature over the payload needs.
    pub(crate) fn for_each_chunk(&self, mut observe: impl FnMut(&[u8])) -> serde_json::Result<()> {
        match self {
            Self::Whole(bytes) => observe(bytes),
            Self::Streamed(body) => {
                for chunk in body.chunks() {
                    observe(&chunk?);
                }
            }
        }
        Ok(())
    }

    /// Attaches the body to `request` (afresh for each attempt).
    pub(crate) fn attach(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match self {
            Self::Whole(bytes) => request.body(bytes.clone()),
            Self::Streamed(body) => request
                .header(reqwest::header::CONTENT_LENGTH, body.len)
                .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
                    body.chunks(),
                ))),
        }
    }
}

impl StreamedBody {
    fn new(
        skeleton: &Map<String, Value>,
        hole: &str,
        encoders: Encoders,
    ) -> serde_json::Result<Self> {
        let (head, tail) = split_around(skeleton, hole)?;
        let mut counter = Chunks::new(Bytes::new(), Bytes::new(), encoders());
        let mut history = 0u64;
        for chunk in counter.by_ref() {
            history += chunk?.len() as u64;
        }
        Ok(Self {
            len: (head.len() + tail.len()) as u64 + history,
            head: head.into(),
            tail: tail.into(),
            encoders,
        })
    }

    fn chunks(&self) -> Chunks {
        Chunks::new(self.head.clone(), self.tail.clone(), (self.encoders)())
    }
}

/// The chunks of a streamed body: the head, the history's array in pieces of about
/// [`CHUNK`] bytes, the tail.
struct Chunks {
    head: Option<Bytes>,
    tail: Option<Bytes>,
    encoder: Box<dyn HistoryEncoder>,
    /// Elements written so far (`None` before the array opened).
    written: Option<usize>,
    /// The array is closed.
    closed: bool,
}

impl Chunks {
    fn new(head: Bytes, tail: Bytes, encoder: Box<dyn HistoryEncoder>) -> Self {
        Self {
            head: Some(head),
            tail: Some(tail),
            encoder,
            written: None,
            closed: false,
        }
    }

    fn fill(&mut self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        let written = self.written.get_or_insert_with(|| {
            out.push(b'[');
            0
        });
        while out.len() < CHUNK {
            let before = out.len();
            if *written > 0 {
                out.push(b',');
            }
            if !self.encoder.write_next(out)? {
                out.truncate(before);
                out.push(b']');
                self.closed = true;
                return Ok(());
            }
            *written += 1;
        }
        Ok(())
    }
}

impl Iterator for Chunks {
    type Item = serde_json::Result<Bytes>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(head) = self.head.take().filter(|head| !head.is_empty()) {
            return Some(Ok(head));
        }
        if !self.closed {
            let mut out = Vec::with_capacity(CHUNK + CHUNK / 4);
            if let Err(error) = self.fill(&mut out) {
                self.closed = true;
                self.tail = None;
                return Some(Err(error));
            }
            return Some(Ok(out.into()));
        }
        self.tail.take().filter(|tail| !tail.is_empty()).map(Ok)
    }
}

/// `skeleton`'s JSON text before and after the value of its `hole` key (which is left out).
fn split_around(
    skeleton: &Map<String, Value>,
    hole: &str,
) -> serde_json::Result<(Vec<u8>, Vec<u8>)> {
    let mut out = vec![b'{'];
    let mut split = None;
    for (index, (key, value)) in skeleton.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        pi_rpc_protocol::json::write_to(&mut out, key)?;
        out.push(b':');
        if key == hole {
            split = Some(out.len());
        } else {
            pi_rpc_protocol::json::write_to(&mut out, value)?;
        }
    }
    out.push(b'}');
    // `prepare` makes sure the hole is there.
    let split = split.unwrap_or(out.len() - 1);
    let tail = out.split_off(split);
    Ok((out, tail))
}

/// The whole body as a JSON value: `skeleton` with the history at `hole`.
pub(crate) fn whole_value(
    mut skeleton: Map<String, Value>,
    hole: &str,
    encoders: &Encoders,
) -> serde_json::Result<Value> {
    let mut encoder = encoders();
    let mut elements = Vec::new();
    let mut text = Vec::new();
    while encoder.write_next(&mut text)? {
        let element = std::str::from_utf8(&text).map_err(serde::ser::Error::custom)?;
        elements.push(pi_rpc_protocol::surrogates::from_str::<Value>(element)?);
        text.clear();
    }
    skeleton.insert(hole.to_owned(), Value::Array(elements));
    Ok(Value::Object(skeleton))
}

/// Holds each element an encoder converts until the next one is known, so that the last one
/// can be changed (given a cache mark) before it is written.
#[derive(Debug)]
pub(crate) struct LastHeld<T> {
    held: Option<T>,
}

impl<T> Default for LastHeld<T> {
    fn default() -> Self {
        Self { held: None }
    }
}

impl<T: Serialize> LastHeld<T> {
    /// Takes the next converted element (`None` after the last) and writes the one held
    /// before it, the last one after `mark_last` saw it: `Some(written)` as
    /// [`HistoryEncoder::write_next`] answers, `None` when nothing was written yet (pass the
    /// next one).
    pub(crate) fn pass(
        &mut self,
        next: Option<T>,
        out: &mut Vec<u8>,
        mark_last: impl FnOnce(&mut T),
    ) -> serde_json::Result<Option<bool>> {
        match (self.held.take(), next) {
            (Some(held), Some(next)) => {
                self.held = Some(next);
                write_element(out, &held)?;
                Ok(Some(true))
            }
            (Some(mut last), None) => {
                mark_last(&mut last);
                write_element(out, &last)?;
                Ok(Some(true))
            }
            (None, Some(next)) => {
                self.held = Some(next);
                Ok(None)
            }
            (None, None) => Ok(Some(false)),
        }
    }
}

/// Appends `value` as JSON text, as the reference writes it (for encoders).
pub(crate) fn write_element<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
) -> serde_json::Result<()> {
    pi_rpc_protocol::json::write_to(out, value)
}
