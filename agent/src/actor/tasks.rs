//! One lifecycle for the actor's long work: an agent loop, a compaction's summary calls, a tree
//! navigation's branch summary, the wait before an automatic retry, a client's `bash` command.
//! Each is a task of a [`TaskKind`] with an id (its kind and a serial), a cancel token that is a
//! child of one root token (the end of input cancels every task through it), and the session
//! generation it started in. Every task reports on one channel, and its last report is the
//! outcome of its work. Each task has credit for [`CREDIT`] reports the actor has not taken yet
//! and waits when it is used up, so a task that runs ahead of the actor (a model streaming
//! faster than stdout is read) is held to that, and no task's reports wait behind another's.
//!
//! [`Tasks::next`] is the one place that decides what is stale: a report of a task that already
//! delivered its outcome, or that the actor forgot ([`Tasks::forget`]: it ended the work on its
//! own, as `abort_retry` does), is dropped there. A cancelled task ([`Tasks::cancel`]) goes on
//! reporting until its outcome: an aborted agent loop still ends its message and `agent_end`.
//! The generation goes with each report to whoever needs it (a `bash` command that outlived its
//! session is answered but not recorded).
//!
//! The agent loop's reports can be held back (while an extension handles one of them, or a
//! command that started the loop waits for its answer) without reordering them: the ones read
//! meanwhile wait in order, ahead of everything the loop sends later (and keep their credit, so
//! the loop waits as it would for a full channel), while the other tasks' reports go on being
//! delivered, as they did when each kind had its own channel.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio_util::sync::CancellationToken;

use crate::agent_loop::{RunMessage, RunSink, SessionGone};

/// The reports of one task the actor may not have taken yet (an agent loop's may each be a
/// burst of up to 256 deltas).
const CREDIT: usize = 32;

/// What a task does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TaskKind {
    /// A run: the agent loop of a prompt or continuation.
    AgentLoop,
    /// The summary calls of a compaction.
    Compaction,
    /// The summary call of the branch a tree navigation leaves.
    BranchSummary,
    /// The wait before an automatic retry.
    RetryWait,
    /// A client's `bash` command.
    Bash,
}

/// A task: its kind and a serial no other task of this actor has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct TaskId {
    kind: TaskKind,
    serial: u64,
}

/// What crosses the channel.
#[derive(Debug)]
struct Envelope<E> {
    task: TaskId,
    event: E,
    /// The task's outcome: nothing of it comes after.
    last: bool,
    /// Given back when the actor takes the report (none for [`TaskSender::send_now`]).
    _credit: Option<OwnedSemaphorePermit>,
}

/// A report that is not stale, with the session generation its task started in.
#[derive(Debug)]
pub(super) struct TaskReport<E> {
    pub(super) generation: u64,
    pub(super) event: E,
}

/// A task that may still report.
#[derive(Debug)]
struct Live {
    task: TaskId,
    generation: u64,
    cancel: CancellationToken,
}

/// The actor's tasks, their one channel and the session generation.
#[derive(Debug)]
pub(super) struct Tasks<E> {
    root: CancellationToken,
    live: Vec<Live>,
    serial: u64,
    /// Counts session replacements (`new_session`, `switch_session`, `fork`, `clone`, ...).
    generation: u64,
    tx: mpsc::UnboundedSender<Envelope<E>>,
    rx: mpsc::UnboundedReceiver<Envelope<E>>,
    /// Agent-loop reports read while they were held back, in order.
    held: VecDeque<Envelope<E>>,
}

impl<E: Send + 'static> Tasks<E> {
    pub(super) fn new() -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        Self {
            root: CancellationToken::new(),
            live: Vec::new(),
            serial: 0,
            generation: 0,
            tx,
            rx,
            held: VecDeque::new(),
        }
    }

    /// The current session generation.
    pub(super) fn generation(&self) -> u64 {
        self.generation
    }

    /// The session was replaced: tasks started from now on belong to the new one.
    pub(super) fn new_generation(&mut self) {
        self.generation += 1;
    }

    /// Registers a task of `kind` in the current generation; it runs once spawned
    /// ([`NewTask::spawn`]).
    pub(super) fn start(&mut self, kind: TaskKind) -> NewTask<E> {
        self.serial += 1;
        let task = TaskId {
            kind,
            serial: self.serial,
        };
        let cancel = self.root.child_token();
        self.live.push(Live {
            task,
            generation: self.generation,
            cancel: cancel.clone(),
        });
        NewTask {
            cancel,
            sender: TaskSender {
                task,
                tx: self.tx.clone(),
                credit: Arc::new(Semaphore::new(CREDIT)),
            },
        }
    }

    /// Cancels the tasks of `kind`; they go on reporting until their outcome. True when there
    /// was one.
    pub(super) fn cancel(&self, kind: TaskKind) -> bool {
        let mut any = false;
        for live in self.live.iter().filter(|live| live.task.kind == kind) {
            live.cancel.cancel();
            any = true;
        }
        any
    }

    /// Cancels the tasks of `kind` and drops everything they still report: the actor ended
    /// their work itself. True when there was one.
    pub(super) fn forget(&mut self, kind: TaskKind) -> bool {
        let before = self.live.len();
        self.live.retain(|live| {
            let forgotten = live.task.kind == kind;
            if forgotten {
                live.cancel.cancel();
            }
            !forgotten
        });
        self.live.len() != before
    }

    /// Cancels every task (the end of input).
    pub(super) fn cancel_all(&self) {
        self.root.cancel();
    }

    /// The next report that is not stale. Agent-loop reports wait while `loop_reports` is
    /// false, and come in order, before any later one of the loop, once it is true.
    /// Cancel-safe: a report read is delivered or held before anything else is awaited.
    pub(super) async fn next(&mut self, loop_reports: bool) -> TaskReport<E> {
        loop {
            let envelope = match self.held.pop_front() {
                Some(held) if loop_reports => held,
                held => {
                    if let Some(held) = held {
                        self.held.push_front(held);
                    }
                    // Never `None`: the channel's first sender lives here.
                    let Some(envelope) = self.rx.recv().await else {
                        return std::future::pending().await;
                    };
                    if !loop_reports && envelope.task.kind == TaskKind::AgentLoop {
                        self.held.push_back(envelope);
                        continue;
                    }
                    envelope
                }
            };
            if let Some(report) = self.deliver(envelope) {
                return report;
            }
        }
    }

    /// The staleness rule: only a live task's reports are delivered; its outcome ends it. The
    /// report's credit goes back to its task either way.
    fn deliver(&mut self, envelope: Envelope<E>) -> Option<TaskReport<E>> {
        let index = self
            .live
            .iter()
            .position(|live| live.task == envelope.task)?;
        let generation = self.live[index].generation;
        if envelope.last {
            self.live.swap_remove(index);
        }
        Some(TaskReport {
            generation,
            event: envelope.event,
        })
    }
}

/// A registered task, before its work is spawned.
#[derive(Debug)]
pub(super) struct NewTask<E> {
    cancel: CancellationToken,
    sender: TaskSender<E>,
}

impl<E: Send + 'static> NewTask<E> {
    /// What cancels the task (its work must stop when it fires).
    pub(super) fn cancel_token(&self) -> CancellationToken {
        self.cancel.clone()
    }

    /// Where the task's work reports as it goes.
    pub(super) fn sender(&self) -> TaskSender<E> {
        self.sender.clone()
    }

    /// Spawns the work now (the actor's handlers [launch](Self::launch) it at the flush).
    #[cfg(test)]
    pub(super) fn spawn(self, work: impl Future<Output = E> + Send + 'static) {
        self.launch(work).start();
    }

    /// The work, ready to be spawned later ([`Launch::start`]); what it returns is the task's
    /// outcome, its last report.
    pub(super) fn launch(self, work: impl Future<Output = E> + Send + 'static) -> Launch {
        let sender = self.sender;
        Launch(Box::pin(async move {
            let outcome = work.await;
            // The actor may be gone (end of input); then nobody waits for the outcome.
            let _ = sender.send_envelope(outcome, true).await;
        }))
    }
}

/// A task's work, not spawned yet.
pub(super) struct Launch(Pin<Box<dyn Future<Output = ()> + Send>>);

impl std::fmt::Debug for Launch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Launch")
    }
}

impl Launch {
    /// Spawns the work.
    pub(super) fn start(self) {
        tokio::spawn(self.0);
    }
}

/// Sends one task's reports to the actor.
#[derive(Debug)]
pub(super) struct TaskSender<E> {
    task: TaskId,
    tx: mpsc::UnboundedSender<Envelope<E>>,
    /// The task's credit ([`CREDIT`]), shared by its senders.
    credit: Arc<Semaphore>,
}

impl<E> Clone for TaskSender<E> {
    fn clone(&self) -> Self {
        Self {
            task: self.task,
            tx: self.tx.clone(),
            credit: Arc::clone(&self.credit),
        }
    }
}

impl<E> TaskSender<E> {
    /// Reports `event`, first waiting while the task's credit is used up; fails once the actor
    /// is gone.
    pub(super) async fn send(&self, event: E) -> Result<(), SessionGone> {
        self.send_envelope(event, false).await
    }

    /// Reports `event` at once, without credit: for reports whose number the task itself
    /// keeps small (a compaction's retry events), from code that cannot wait.
    pub(super) fn send_now(&self, event: E) -> Result<(), SessionGone> {
        self.post(event, false, None)
    }

    async fn send_envelope(&self, event: E, last: bool) -> Result<(), SessionGone> {
        // The semaphore is never closed; an error could only mean that nobody takes reports.
        let credit = Arc::clone(&self.credit)
            .acquire_owned()
            .await
            .map_err(|_| SessionGone)?;
        self.post(event, last, Some(credit))
    }

    fn post(
        &self,
        event: E,
        last: bool,
        credit: Option<OwnedSemaphorePermit>,
    ) -> Result<(), SessionGone> {
        let envelope = Envelope {
            task: self.task,
            event,
            last,
            _credit: credit,
        };
        self.tx.send(envelope).map_err(|_| SessionGone)
    }
}

/// An agent loop's sender: the run's messages are its task's reports.
impl<E> RunSink for TaskSender<E>
where
    E: From<RunMessage> + Send + std::fmt::Debug + 'static,
{
    fn send(
        &self,
        message: RunMessage,
    ) -> Pin<Box<dyn Future<Output = Result<(), SessionGone>> + Send + '_>> {
        Box::pin(self.send_envelope(E::from(message), false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum Report {
        Step(&'static str),
        Done(&'static str),
    }

    /// Whether a task of `kind` has yet to deliver its outcome.
    fn is_running(tasks: &Tasks<Report>, kind: TaskKind) -> bool {
        tasks.live.iter().any(|live| live.task.kind == kind)
    }

    async fn next_event(tasks: &mut Tasks<Report>, loop_reports: bool) -> Report {
        tasks.next(loop_reports).await.event
    }

    #[tokio::test]
    async fn an_outcome_ends_the_task_and_later_reports_of_it_are_dropped() {
        let mut tasks = Tasks::new();
        let task = tasks.start(TaskKind::Bash);
        let late = task.sender();
        task.spawn(async { Report::Done("bash") });
        assert_eq!(next_event(&mut tasks, true).await, Report::Done("bash"));
        assert!(!is_running(&tasks, TaskKind::Bash));
        late.send(Report::Step("late")).await.unwrap();
        let other = tasks.start(TaskKind::RetryWait);
        other.spawn(async { Report::Done("retry") });
        assert_eq!(next_event(&mut tasks, true).await, Report::Done("retry"));
    }

    #[tokio::test]
    async fn a_forgotten_task_is_cancelled_and_nothing_it_reports_is_delivered() {
        let mut tasks = Tasks::new();
        let task = tasks.start(TaskKind::RetryWait);
        let cancel = task.cancel_token();
        task.spawn(async move {
            cancel.cancelled().await;
            Report::Done("cancelled wait")
        });
        assert!(tasks.forget(TaskKind::RetryWait));
        assert!(!tasks.forget(TaskKind::RetryWait));
        let next = tasks.start(TaskKind::Compaction);
        let sender = next.sender();
        next.spawn(async move {
            sender.send(Report::Step("summary retry")).await.unwrap();
            Report::Done("summary")
        });
        assert_eq!(
            next_event(&mut tasks, true).await,
            Report::Step("summary retry")
        );
        assert_eq!(next_event(&mut tasks, true).await, Report::Done("summary"));
    }

    #[tokio::test]
    async fn a_cancelled_task_reports_until_its_outcome() {
        let mut tasks = Tasks::new();
        let task = tasks.start(TaskKind::AgentLoop);
        let (cancel, sender) = (task.cancel_token(), task.sender());
        task.spawn(async move {
            cancel.cancelled().await;
            sender.send(Report::Step("aborted message")).await.unwrap();
            Report::Done("agent_end")
        });
        assert!(tasks.cancel(TaskKind::AgentLoop));
        assert_eq!(
            next_event(&mut tasks, true).await,
            Report::Step("aborted message")
        );
        assert!(is_running(&tasks, TaskKind::AgentLoop));
        assert_eq!(
            next_event(&mut tasks, true).await,
            Report::Done("agent_end")
        );
        assert!(!is_running(&tasks, TaskKind::AgentLoop));
    }

    #[tokio::test]
    async fn held_loop_reports_keep_their_order_while_other_tasks_report() {
        let mut tasks = Tasks::new();
        let run = tasks.start(TaskKind::AgentLoop).sender();
        let bash = tasks.start(TaskKind::Bash).sender();
        run.send(Report::Step("delta 1")).await.unwrap();
        bash.send(Report::Step("chunk")).await.unwrap();
        run.send(Report::Step("delta 2")).await.unwrap();
        assert_eq!(next_event(&mut tasks, false).await, Report::Step("chunk"));
        run.send(Report::Step("delta 3")).await.unwrap();
        bash.send(Report::Step("chunk 2")).await.unwrap();
        assert_eq!(next_event(&mut tasks, false).await, Report::Step("chunk 2"));
        for delta in ["delta 1", "delta 2", "delta 3"] {
            assert_eq!(next_event(&mut tasks, true).await, Report::Step(delta));
        }
    }

    #[tokio::test]
    async fn a_task_waits_once_its_credit_is_used_up_and_others_go_on() {
        let mut tasks = Tasks::new();
        let run = tasks.start(TaskKind::AgentLoop).sender();
        for _ in 0..CREDIT {
            run.send(Report::Step("delta")).await.unwrap();
        }
        let wait = std::time::Duration::from_millis(50);
        let waited = tokio::time::timeout(wait, tasks.next(false)).await;
        assert!(waited.is_err(), "a held-back report came: {waited:?}");
        assert_eq!(tasks.held.len(), CREDIT);
        let sent = tokio::time::timeout(wait, run.send(Report::Step("one too many"))).await;
        assert!(sent.is_err(), "sent beyond the credit");
        let bash = tasks.start(TaskKind::Bash).sender();
        bash.send(Report::Step("chunk")).await.unwrap();
        assert_eq!(next_event(&mut tasks, false).await, Report::Step("chunk"));
        assert_eq!(next_event(&mut tasks, true).await, Report::Step("delta"));
        run.send(Report::Step("last delta")).await.unwrap();
        for _ in 1..CREDIT {
            assert_eq!(next_event(&mut tasks, true).await, Report::Step("delta"));
        }
        assert_eq!(
            next_event(&mut tasks, true).await,
            Report::Step("last delta")
        );
    }

    #[tokio::test]
    async fn the_end_of_input_cancels_every_task_and_reports_carry_their_generation() {
        let mut tasks = Tasks::<Report>::new();
        let first = tasks.start(TaskKind::Bash);
        tasks.new_generation();
        let second = tasks.start(TaskKind::Compaction);
        let tokens = [first.cancel_token(), second.cancel_token()];
        first.spawn(async { Report::Done("first") });
        tasks.cancel_all();
        assert!(tokens.iter().all(CancellationToken::is_cancelled));
        let report = tasks.next(true).await;
        assert_eq!(
            (report.event, report.generation),
            (Report::Done("first"), 0)
        );
        second.spawn(async { Report::Done("second") });
        let report = tasks.next(true).await;
        assert_eq!(
            (report.event, report.generation),
            (Report::Done("second"), 1)
        );
        assert_eq!(tasks.generation(), 1);
    }
}
