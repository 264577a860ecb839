//! The client side's steps: actions sent to the adapter, the events it reports matched as
//! records are, and the outcomes of actions checked.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant as Deadline;

use super::adapter::{Adapter, Observation};
use crate::agent::Record;
use crate::expect::{self, Feed, Item, Matcher};
use crate::pattern::{self, Captures, MatchOptions, Vars};
use crate::run::{RunOptions, Verdict};
use crate::scenario::{ClientStep, Expect, OutcomeCheck, Trailing, action_name};

/// Default time limit of a client step.
pub const CLIENT_STEP_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the client side stopped short of passing.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The verdict.
    pub verdict: Verdict,
    /// One line.
    pub message: String,
    /// The diff or longer explanation.
    pub detail: String,
}

impl Failure {
    /// A failure without detail.
    pub fn new(verdict: Verdict, message: impl Into<String>) -> Self {
        Self {
            verdict,
            message: message.into(),
            detail: String::new(),
        }
    }
}

/// An action sent and what came of it.
#[derive(Debug, Clone)]
struct Sent {
    name: String,
    label: String,
    /// Events surfaced before it was sent.
    events_before: usize,
    outcome: Option<Done>,
    checked: bool,
}

/// An action's outcome.
#[derive(Debug, Clone)]
struct Done {
    kind: String,
    body: Value,
    /// Events surfaced before it came.
    events_before: usize,
}

/// The client side of one case in progress.
pub struct Drive {
    /// The adapter.
    pub adapter: Adapter,
    options: RunOptions,
    events: Vec<Value>,
    /// Events already matched by `expect` steps.
    read: usize,
    sent: HashMap<u64, Sent>,
    labels: HashMap<String, u64>,
    captures: Captures,
    /// One line per action and observation.
    pub log: Vec<String>,
    ended: bool,
}

impl Drive {
    /// Drives `adapter`.
    pub fn new(adapter: Adapter, options: RunOptions) -> Self {
        Self {
            adapter,
            options,
            events: Vec::new(),
            read: 0,
            sent: HashMap::new(),
            labels: HashMap::new(),
            captures: Captures::new(),
            log: Vec::new(),
            ended: false,
        }
    }

    fn deadline(&self, timeout_ms: Option<u64>) -> Deadline {
        let limit = timeout_ms.map_or(CLIENT_STEP_TIMEOUT, Duration::from_millis);
        Deadline::now() + limit.mul_f64(self.options.timeout_scale)
    }

    /// Takes one observation (waiting until `deadline`); `Ok(false)` when none came in time.
    async fn pull(&mut self, deadline: Deadline) -> Result<bool, Failure> {
        if self.ended {
            return Err(self.gone().await);
        }
        let Some(observation) = self.adapter.next(deadline).await else {
            return Ok(false);
        };
        self.take(observation)?;
        Ok(true)
    }

    /// Takes every observation already there.
    fn drain(&mut self) -> Result<(), Failure> {
        while let Some(observation) = self.adapter.ready() {
            self.take(observation)?;
        }
        Ok(())
    }

    fn take(&mut self, observation: Observation) -> Result<(), Failure> {
        match observation {
            Observation::Event(event) => {
                self.log.push(format!("< event {}", short(&event)));
                self.events.push(event);
            }
            Observation::Outcome { id, kind, body } => {
                self.log.push(format!("< {kind} #{id} {}", short(&body)));
                let Some(sent) = self.sent.get_mut(&id) else {
                    return Err(Failure::new(
                        Verdict::Fail,
                        format!(
                            "the adapter reported a {kind} for action #{id}, which was never sent"
                        ),
                    ));
                };
                if kind == "unsupported" {
                    return Err(Failure::new(
                        Verdict::Unimplemented,
                        format!(
                            "the client has no API for `{}`: {}",
                            sent.name,
                            body.as_str().unwrap_or("unsupported")
                        ),
                    ));
                }
                if sent.outcome.is_some() {
                    return Err(Failure::new(
                        Verdict::Fail,
                        format!("the adapter reported a second outcome for `{}`", sent.label),
                    ));
                }
                sent.outcome = Some(Done {
                    kind,
                    body,
                    events_before: self.events.len(),
                });
            }
            Observation::Invalid(line) => {
                return Err(Failure::new(
                    Verdict::Error,
                    format!("the adapter wrote a line that is not an observation: {line}"),
                ));
            }
            Observation::End => {
                self.log.push("< the adapter closed its stdout".into());
                self.ended = true;
            }
        }
        Ok(())
    }

    /// The failure when the adapter is gone while something was awaited.
    async fn gone(&mut self) -> Failure {
        let code = self
            .adapter
            .wait(Deadline::now() + Duration::from_secs(2))
            .await;
        let mut failure = Failure::new(
            Verdict::Fail,
            format!(
                "the adapter exited ({}) while the case still waited on the client",
                code.map_or("killed".into(), |c| format!("code {c}"))
            ),
        );
        failure.detail = format!("the adapter's stderr ends:\n{}", self.adapter.stderr_tail());
        failure
    }

    /// Sends user actions of the scenario, in one write.
    async fn act(&mut self, actions: &[&Value]) -> Result<(), Failure> {
        let mut named = Vec::new();
        for action in actions {
            let (name, label) =
                action_name(action).map_err(|e| Failure::new(Verdict::Error, e.to_string()))?;
            named.push((
                pattern::substitute_captures(action, &self.captures),
                name,
                label,
            ));
        }
        self.send(named).await.map(|_| ())
    }

    /// Sends the runner's own `start` or `stop`, labelled by its name; returns its id.
    pub async fn control(&mut self, action: Value) -> Result<u64, Failure> {
        let name = action["action"].as_str().unwrap_or_default().to_owned();
        let ids = self.send(vec![(action, name.clone(), name)]).await?;
        Ok(ids.first().copied().unwrap_or_default())
    }

    async fn send(&mut self, actions: Vec<(Value, String, String)>) -> Result<Vec<u64>, Failure> {
        self.drain()?;
        for (action, _, _) in &actions {
            self.log.push(format!("> {}", short(action)));
        }
        let values: Vec<Value> = actions.iter().map(|(a, _, _)| a.clone()).collect();
        let ids = self.adapter.send(&values).await.map_err(|e| {
            Failure::new(
                Verdict::Fail,
                format!("cannot send actions to the adapter: {e}"),
            )
        })?;
        for (id, (_, name, label)) in ids.iter().zip(actions) {
            self.sent.insert(
                *id,
                Sent {
                    name,
                    label: label.clone(),
                    events_before: self.events.len(),
                    outcome: None,
                    checked: false,
                },
            );
            self.labels.insert(label, *id);
        }
        Ok(ids)
    }

    /// Runs the steps in order. Consecutive `do` steps go to the adapter in one write, so that
    /// it starts them together (a `wait_idle` right after a `prompt` is waiting before the
    /// prompt's records can come back).
    pub async fn steps(&mut self, steps: &[ClientStep]) -> Result<(), Failure> {
        for (index, step) in steps.iter().enumerate() {
            let result = match step {
                ClientStep::Do(_) if index > 0 && matches!(steps[index - 1], ClientStep::Do(_)) => {
                    Ok(())
                }
                ClientStep::Do(_) => {
                    let actions: Vec<&Value> = steps[index..]
                        .iter()
                        .map_while(|s| match s {
                            ClientStep::Do(action) => Some(action),
                            _ => None,
                        })
                        .collect();
                    self.act(&actions).await
                }
                ClientStep::Expect(expect) => self.expect(expect).await,
                ClientStep::Outcome(check) => self.outcome(check).await,
            };
            result.map_err(|mut f| {
                f.message = format!("client step {}: {}", index + 1, f.message);
                f
            })?;
        }
        Ok(())
    }

    /// Waits for the outcome of action `id` until `deadline`.
    pub async fn wait_outcome(&mut self, id: u64, deadline: Deadline) -> Result<(), Failure> {
        self.drain()?;
        while self.sent.get(&id).is_some_and(|s| s.outcome.is_none()) {
            if !self.pull(deadline).await? {
                let name = self
                    .sent
                    .get(&id)
                    .map_or("?", |s| s.label.as_str())
                    .to_owned();
                return Err(Failure::new(
                    Verdict::Timeout,
                    format!("the client's `{name}` did not return in time"),
                ));
            }
        }
        Ok(())
    }

    /// The outcome of action `id`: `(kind, body)`.
    pub fn outcome_of(&self, id: u64) -> Option<(&str, &Value)> {
        let done = self.sent.get(&id)?.outcome.as_ref()?;
        Some((done.kind.as_str(), &done.body))
    }

    async fn expect(&mut self, expect: &Expect) -> Result<(), Failure> {
        let spec = expect.full();
        let mut items: Vec<Item> = spec
            .records
            .iter()
            .map(Item::parse)
            .collect::<Result<_, _>>()
            .map_err(|e| Failure::new(Verdict::Error, e.to_string()))?;
        if let Some(until) = &spec.until {
            items.push(Item::SkipUntil(until.clone()));
        }
        let raw_items = items.iter().any(|i| matches!(i, Item::Raw(_)));
        let mut matcher = Matcher::new(items, spec.ignore.clone(), spec.partial);
        let deadline = self.deadline(spec.timeout_ms);
        let vars = Vars::new();
        while !matcher.is_done() {
            while self.read >= self.events.len() {
                if !self.pull(deadline).await? {
                    let waiting = matcher.waiting_for().unwrap_or(Value::Null);
                    let mut failure = Failure::new(
                        Verdict::Timeout,
                        format!(
                            "the client did not surface the expected event in time (it surfaced \
                             {} event(s) in all)",
                            self.events.len()
                        ),
                    );
                    failure.detail = format!(
                        "waiting for:\n{}",
                        serde_json::to_string_pretty(&waiting).unwrap_or_default()
                    );
                    return Err(failure);
                }
            }
            let event = self.events[self.read].clone();
            // The raw text is only read by `$raw` items: a huge event is not written out for
            // nothing.
            let raw = if raw_items {
                serde_json::to_vec(&event).unwrap_or_default()
            } else {
                Vec::new()
            };
            let record = Record {
                index: self.read,
                raw,
                lf: true,
                json: Ok(event),
                at_ms: 0,
            };
            self.read += 1;
            if let Feed::Mismatch(m) = matcher.feed(&record, &vars, &mut self.captures) {
                let mut failure = Failure::new(
                    Verdict::Fail,
                    m.summary.replacen("stdout line", "surfaced event", 1),
                );
                failure.detail = format!(
                    "{}\n\n{}",
                    m.details.join("\n"),
                    expect::diff(&m.expected, &m.actual)
                );
                return Err(failure);
            }
        }
        Ok(())
    }

    async fn outcome(&mut self, check: &OutcomeCheck) -> Result<(), Failure> {
        let id = *self.labels.get(&check.action).ok_or_else(|| {
            Failure::new(
                Verdict::Error,
                format!("no earlier action is labelled `{}`", check.action),
            )
        })?;
        self.wait_outcome(id, self.deadline(check.timeout_ms))
            .await?;
        let Some(sent) = self.sent.get_mut(&id) else {
            return Ok(());
        };
        sent.checked = true;
        let sent = sent.clone();
        let Some(done) = &sent.outcome else {
            return Ok(());
        };
        let label = &sent.label;
        let (wanted, pattern) = match (&check.result, &check.error) {
            (_, Some(error)) => ("error", Value::String(error.clone())),
            (Some(result), None) => ("result", result.clone()),
            (None, None) => ("result", json!("{{any}}")),
        };
        if done.kind != wanted {
            return Err(Failure::new(
                Verdict::Fail,
                format!(
                    "the client's `{label}` gave {} {}, where {wanted} {} was expected",
                    article(&done.kind),
                    short(&done.body),
                    short(&pattern)
                ),
            ));
        }
        let result = pattern::match_value(
            &pattern,
            &done.body,
            &Vars::new(),
            &self.captures,
            MatchOptions::default(),
        );
        if !result.ok {
            let mut failure = Failure::new(
                Verdict::Fail,
                format!("the client's `{label}` gave a {wanted} that does not match"),
            );
            failure.detail = format!(
                "{}\n\n{}",
                result.mismatches.join("\n"),
                expect::diff(&pattern::display_pattern(&pattern), &result.rendered)
            );
            return Err(failure);
        }
        self.captures = result.captures;
        if let Some(after) = &check.after {
            let window =
                &self.events[sent.events_before.min(done.events_before)..done.events_before];
            let partial = MatchOptions { partial: true };
            let seen = window.iter().any(|event| {
                pattern::match_value(after, event, &Vars::new(), &self.captures, partial).ok
            });
            if !seen {
                let last = window.last().map_or("none".to_owned(), short);
                return Err(Failure::new(
                    Verdict::Fail,
                    format!(
                        "the client's `{label}` returned before it surfaced {} (the last event \
                         it had surfaced by then: {last})",
                        short(after)
                    ),
                ));
            }
        }
        Ok(())
    }

    /// After the last step: stop the client, let the adapter exit, and check what is left:
    /// events nobody expected, calls that failed unchecked or never returned.
    pub async fn finish(&mut self, trailing: Trailing) -> Result<(), Failure> {
        let stop = self.control(json!({"action": "stop"})).await?;
        let stopped = self.wait_outcome(stop, self.deadline(None)).await;
        self.adapter.close();
        while !self.ended && self.pull(self.deadline(None)).await? {}
        let code = self.adapter.wait(self.deadline(None)).await;
        stopped?;
        if let Some((kind, body)) = self.outcome_of(stop)
            && kind != "result"
        {
            return Err(Failure::new(
                Verdict::Fail,
                format!("stopping the client failed: {}", short(body)),
            ));
        }
        if code != Some(0) {
            let mut failure = Failure::new(
                Verdict::Fail,
                format!(
                    "the adapter exited with {} after the client was stopped",
                    code.map_or("a signal".into(), |c| format!("code {c}"))
                ),
            );
            failure.detail = self.adapter.stderr_tail();
            return Err(failure);
        }
        let mut open: Vec<&Sent> = self.sent.values().filter(|s| !s.checked).collect();
        open.sort_by_key(|s| s.events_before);
        for sent in open {
            match &sent.outcome {
                None => {
                    return Err(Failure::new(
                        Verdict::Fail,
                        format!("the client's `{}` never returned", sent.label),
                    ));
                }
                Some(done) if done.kind == "error" => {
                    return Err(Failure::new(
                        Verdict::Fail,
                        format!(
                            "the client's `{}` failed: {}",
                            sent.label,
                            short(&done.body)
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
        if trailing == Trailing::Fail && self.read < self.events.len() {
            let mut failure = Failure::new(
                Verdict::Fail,
                format!(
                    "the client surfaced {} event(s) after the last expected one",
                    self.events.len() - self.read
                ),
            );
            failure.detail = self.events[self.read..]
                .iter()
                .map(short)
                .collect::<Vec<_>>()
                .join("\n");
            return Err(failure);
        }
        Ok(())
    }

    /// After a failure: close the adapter and give it a moment, then kill it.
    pub async fn abort(&mut self) {
        self.adapter.close();
        let _ = self
            .adapter
            .wait(Deadline::now() + Duration::from_secs(1))
            .await;
        self.drain().ok();
    }
}

fn article(kind: &str) -> &'static str {
    if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// A value as one line, cut to a readable length (without writing out a huge value first).
pub fn short(value: &Value) -> String {
    const MAX: usize = 300;
    let mut out = Bounded(Vec::with_capacity(MAX + 4));
    let whole = serde_json::to_writer(&mut out, value).is_ok();
    let text = String::from_utf8_lossy(&out.0).into_owned();
    if whole && text.chars().count() <= MAX {
        text
    } else {
        text.chars().take(MAX - 3).collect::<String>() + "..."
    }
}

/// A writer that takes a little more than [`short`] shows, then refuses.
struct Bounded(Vec<u8>);

impl std::io::Write for Bounded {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.0.len() > 400 {
            return Err(std::io::Error::other("long enough"));
        }
        self.0.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
