//! The response body: one frame per scripted write, each flushed on its own, with pauses,
//! gates and faults in between; and the gates themselves.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use tokio::sync::watch;

use crate::journal::{EntryRef, Journal, Outcome};
use crate::render::Step;

/// The state of one gate.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct GateState {
    /// Released: streams pass it.
    pub released: bool,
    /// How many streams reached it since the last reset.
    pub reached: usize,
}

/// The gates a script declares.
#[derive(Default)]
pub(crate) struct Gates {
    map: Mutex<HashMap<String, watch::Sender<GateState>>>,
}

impl Gates {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, watch::Sender<GateState>>> {
        self.map.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Replaces the gates with these names, all closed. Streams waiting at a gate of the old set
    /// go on.
    pub fn replace(&self, names: &[String]) {
        let fresh = names
            .iter()
            .map(|n| (n.clone(), watch::Sender::new(GateState::default())))
            .collect();
        let old = std::mem::replace(&mut *self.lock(), fresh);
        for sender in old.values() {
            sender.send_modify(|s| s.released = true);
        }
    }

    /// Closes every gate again and forgets who reached it.
    pub fn close_all(&self) {
        for sender in self.lock().values() {
            sender.send_replace(GateState::default());
        }
    }

    /// Releases a gate; false if there is no such gate.
    pub fn release(&self, name: &str) -> bool {
        match self.lock().get(name) {
            Some(sender) => {
                sender.send_modify(|s| s.released = true);
                true
            }
            None => false,
        }
    }

    /// The names of the gates, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.lock().keys().cloned().collect();
        names.sort();
        names
    }

    /// A receiver for a gate's state.
    pub fn subscribe(&self, name: &str) -> Option<watch::Receiver<GateState>> {
        self.lock().get(name).map(watch::Sender::subscribe)
    }

    /// A future that marks the gate reached and completes once it is released (at once for an
    /// unknown gate).
    pub fn wait(&self, name: &str) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        let receiver = self.lock().get(name).map(|sender| {
            sender.send_modify(|s| s.reached += 1);
            sender.subscribe()
        });
        Box::pin(async move {
            if let Some(mut receiver) = receiver {
                let _ = receiver.wait_for(|s| s.released).await;
            }
        })
    }
}

/// Where a body reports how it ended.
pub(crate) struct Report {
    pub journal: Arc<Journal>,
    pub entry: EntryRef,
}

/// A response body made of scripted steps.
pub(crate) struct MockBody {
    steps: std::vec::IntoIter<Step>,
    exact: Option<u64>,
    wait: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    yield_next: bool,
    written: usize,
    ended: bool,
    gates: Arc<Gates>,
    reset: Arc<AtomicBool>,
    report: Option<Report>,
}

impl MockBody {
    /// A body that plays `steps`; `streaming` bodies are always sent chunked.
    pub fn new(
        steps: Vec<Step>,
        streaming: bool,
        gates: Arc<Gates>,
        reset: Arc<AtomicBool>,
        report: Option<Report>,
    ) -> Self {
        let exact = if steps.iter().all(|s| matches!(s, Step::Write(_))) {
            Some(
                steps
                    .iter()
                    .map(|s| match s {
                        Step::Write(b) => b.len() as u64,
                        _ => 0,
                    })
                    .sum(),
            )
        } else {
            None
        };
        // A non-streaming body of one write or none is sent with a content-length.
        let exact = exact.filter(|_| steps.len() <= 1 && !streaming);
        MockBody {
            steps: steps.into_iter(),
            exact,
            wait: None,
            yield_next: false,
            written: 0,
            ended: false,
            gates,
            reset,
            report,
        }
    }

    fn end(&mut self, outcome: Outcome) {
        self.ended = true;
        if let Some(report) = &self.report {
            report.journal.update(report.entry, |e| e.outcome = outcome);
        }
    }
}

impl Body for MockBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        loop {
            if let Some(wait) = this.wait.as_mut() {
                if wait.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                this.wait = None;
            }
            if this.yield_next {
                // Return to hyper once so it flushes the previous frame as its own write.
                this.yield_next = false;
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            match this.steps.next() {
                None => {
                    if !this.ended {
                        let chunks = this.written;
                        this.end(Outcome::Completed { chunks });
                    }
                    return Poll::Ready(None);
                }
                Some(Step::Write(bytes)) => {
                    this.written += 1;
                    if this.steps.as_slice().is_empty() {
                        let chunks = this.written;
                        this.end(Outcome::Completed { chunks });
                    } else {
                        this.yield_next = true;
                    }
                    return Poll::Ready(Some(Ok(Frame::data(bytes))));
                }
                Some(Step::Sleep(duration)) => {
                    this.wait = Some(Box::pin(tokio::time::sleep(duration)));
                }
                Some(Step::Gate(name)) => this.wait = Some(this.gates.wait(&name)),
                Some(Step::StallForever) => this.wait = Some(Box::pin(std::future::pending())),
                Some(Step::Drop) => {
                    let after_chunks = this.written;
                    this.end(Outcome::Fault {
                        fault: "drop".to_owned(),
                        after_chunks,
                    });
                    return Poll::Ready(Some(Err(std::io::Error::other(
                        "mock-llm: scripted drop",
                    ))));
                }
                Some(Step::Reset) => {
                    let after_chunks = this.written;
                    this.reset.store(true, Ordering::SeqCst);
                    this.end(Outcome::Fault {
                        fault: "reset".to_owned(),
                        after_chunks,
                    });
                    return Poll::Ready(Some(Err(std::io::Error::other(
                        "mock-llm: scripted reset",
                    ))));
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.exact == Some(0)
    }

    fn size_hint(&self) -> SizeHint {
        match self.exact {
            Some(len) => SizeHint::with_exact(len),
            None => SizeHint::default(),
        }
    }
}

impl Drop for MockBody {
    fn drop(&mut self) {
        if !self.ended {
            let after_chunks = self.written;
            self.end(Outcome::ClientDisconnected { after_chunks });
        }
    }
}
