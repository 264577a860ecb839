//! A model call as a [`Stream`] of [`ProviderEvent`]s, run by whoever reads it.
//!
//! The call (its HTTP exchange and the wire format's decoding) is a future owned by the
//! [`ProviderStream`] and polled in the reader's own task each time the reader asks for the
//! next event: no task of its own and no channel in between. The call hands each event over
//! through an [`EventSender`] and stays parked until the reader asks again, so it never waits
//! on the network (nor runs a timeout) while the reader is busy elsewhere, and holds at most
//! one event. Dropping the stream drops the call, which closes its connection.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use futures_util::Stream;

use super::ProviderEvent;

/// The one event on its way from the call to the reader.
type Slot = Arc<Mutex<Option<ProviderEvent>>>;

fn take(slot: &Slot) -> Option<ProviderEvent> {
    slot.lock().unwrap_or_else(PoisonError::into_inner).take()
}

/// The events of one model call (see [`super::stream_with`]); it ends after `Done`.
pub struct ProviderStream {
    call: Option<Pin<Box<dyn Future<Output = ()> + Send>>>,
    slot: Slot,
}

impl std::fmt::Debug for ProviderStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderStream")
            .field("running", &self.call.is_some())
            .finish_non_exhaustive()
    }
}

impl ProviderStream {
    /// A stream of what `call` sends through the [`EventSender`] given to it.
    pub(crate) fn new<F, C>(call: C) -> Self
    where
        C: FnOnce(EventSender) -> F,
        F: Future<Output = ()> + Send + 'static,
    {
        let slot = Slot::default();
        let sender = EventSender {
            slot: Arc::clone(&slot),
        };
        Self {
            call: Some(Box::pin(call(sender))),
            slot,
        }
    }

    /// The next event; `None` once the call is over.
    pub async fn recv(&mut self) -> Option<ProviderEvent> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }
}

impl Stream for ProviderStream {
    type Item = ProviderEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ProviderEvent>> {
        let this = self.get_mut();
        let Some(call) = this.call.as_mut() else {
            return Poll::Ready(take(&this.slot));
        };
        let finished = call.as_mut().poll(cx).is_ready();
        if finished {
            this.call = None;
        }
        match take(&this.slot) {
            Some(event) => Poll::Ready(Some(event)),
            None if finished => Poll::Ready(None),
            None => Poll::Pending,
        }
    }
}

/// The call's side of a [`ProviderStream`].
pub(crate) struct EventSender {
    slot: Slot,
}

impl EventSender {
    /// Hands `event` to the reader; completes when the reader asks for the next one.
    pub(crate) fn send(&self, event: ProviderEvent) -> Handover<'_> {
        Handover {
            slot: &self.slot,
            event: Some(event),
        }
    }
}

/// [`EventSender::send`]'s future.
pub(crate) struct Handover<'a> {
    slot: &'a Slot,
    event: Option<ProviderEvent>,
}

impl Future for Handover<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let mut slot = this.slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(event) = this.event.take() {
            // The stream's `poll_next` takes the event as soon as this returns: no wake-up is
            // due, the reader's next poll resumes the call.
            *slot = Some(event);
            return Poll::Pending;
        }
        if slot.is_some() {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;

    fn usage() -> ProviderEvent {
        ProviderEvent::Usage(Default::default())
    }

    #[tokio::test]
    async fn the_call_runs_only_when_the_reader_asks_and_ends_after_its_last_event() {
        let steps = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&steps);
        let mut stream = ProviderStream::new(move |sender| async move {
            log.lock().unwrap().push("first");
            sender.send(usage()).await;
            log.lock().unwrap().push("second");
            sender.send(usage()).await;
            log.lock().unwrap().push("end");
        });
        assert!(steps.lock().unwrap().is_empty());
        assert!(stream.next().await.is_some());
        assert_eq!(*steps.lock().unwrap(), ["first"]);
        assert!(stream.recv().await.is_some());
        assert_eq!(*steps.lock().unwrap(), ["first", "second"]);
        assert!(stream.next().await.is_none());
        assert_eq!(*steps.lock().unwrap(), ["first", "second", "end"]);
        assert!(stream.next().await.is_none());
    }
}
