//! Running one scenario against one agent: scratch folders, the mock, the process, the steps.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};
use tokio::time::Instant as Deadline;

use crate::agent::{AgentCommand, AgentProcess, Elapsed, Record, Streams};
use crate::expect::{self, ExitAlternative, Feed, Item, Matcher};
use crate::load::{Loaded, decode_hex};
use crate::mock::MockHost;
use crate::pattern::{self, Captures, MatchOptions, Vars};
use crate::scenario::{ExitSpec, JournalSpec, Scenario, Step, Trailing, WaitRequests};

mod collect;

/// Default time limit of one step.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(10);
/// Default time limit of one scenario.
pub const SCENARIO_TIMEOUT: Duration = Duration::from_secs(60);
/// The default agent arguments.
pub const DEFAULT_ARGS: [&str; 7] = [
    "--mode",
    "rpc",
    "--no-session",
    "--provider",
    "mock",
    "--model",
    "mock-model-1",
];

/// The verdict of one scenario on one agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Everything matched.
    Pass,
    /// Matched, but only through alternatives the scenario allows.
    #[serde(rename = "non-strict")]
    NonStrict,
    /// A mismatch.
    Fail,
    /// The agent answered `Unknown command` where the scenario expected something else.
    Unimplemented,
    /// A harness problem (the agent could not start, the mock failed, a file was unreadable).
    Error,
    /// The agent did not answer in time.
    Timeout,
}

impl Verdict {
    /// Whether the verdict counts as passing.
    pub fn passed(self) -> bool {
        matches!(self, Verdict::Pass | Verdict::NonStrict)
    }

    /// The word used in tables and baselines.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::NonStrict => "non-strict",
            Verdict::Fail => "fail",
            Verdict::Unimplemented => "unimplemented",
            Verdict::Error => "error",
            Verdict::Timeout => "timeout",
        }
    }
}

/// Everything kept about one run.
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    /// The agent's streams.
    pub streams: Streams,
    /// The mock's journal.
    pub journal: Value,
    /// One line per step and event of the run.
    pub log: Vec<String>,
    /// The command line run.
    pub command: Vec<String>,
    /// What each send step wrote, in order (for `stand-in`).
    pub sends: Vec<Sent>,
}

/// What one send step wrote to the agent, and where it fell in the agent's stdout.
#[derive(Debug, Clone, Default)]
pub struct Sent {
    /// 0-based index of the step in the scenario.
    pub step: usize,
    /// The bytes written.
    pub bytes: Vec<u8>,
    /// How many stdout records the runner had read before writing them.
    pub records_before: usize,
}

/// The result of one scenario on one agent.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Scenario id.
    pub id: String,
    /// Scenario title.
    pub title: String,
    /// Scenario file.
    pub file: PathBuf,
    /// Agent name.
    pub agent: String,
    /// The verdict.
    pub verdict: Verdict,
    /// One line saying why (empty on pass).
    pub message: String,
    /// The diff or longer explanation.
    pub detail: String,
    /// Reasons of non-strict matches.
    pub non_strict: Vec<String>,
    /// Wall time.
    pub duration: Duration,
    /// Records read by each `expect` step (normalised), for `record` and `diff`.
    pub collected: Vec<Vec<Value>>,
    /// The transcript.
    pub transcript: Transcript,
}

/// How a run treats expectations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Judge: a mismatch ends the run.
    #[default]
    Judge,
    /// Collect: read each expect step's records without judging (record and diff).
    Collect,
}

/// How a run is done.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunOptions {
    /// Judge or collect.
    pub mode: Mode,
    /// Every time limit is multiplied by this (for slow or loaded machines); default 1, or
    /// `$PI_CONFORMANCE_TIMEOUT_SCALE`.
    pub timeout_scale: f64,
    /// Extra time for the first record of a run, while the agent starts: default
    /// [`STARTUP_GRACE`], or `$PI_CONFORMANCE_STARTUP_MS`.
    pub startup_grace: Duration,
}

impl RunOptions {
    /// Options for `mode`, with the time scale and startup grace from the environment.
    pub fn new(mode: Mode) -> Self {
        let timeout_scale = std::env::var("PI_CONFORMANCE_TIMEOUT_SCALE")
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v > 0.0)
            .unwrap_or(1.0);
        let startup_grace = std::env::var("PI_CONFORMANCE_STARTUP_MS")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .map_or(STARTUP_GRACE, Duration::from_millis);
        Self {
            mode,
            timeout_scale,
            startup_grace,
        }
    }

    fn scaled(&self, duration: Duration) -> Duration {
        duration.mul_f64(self.timeout_scale)
    }
}

/// Extra time for the first record of a run: the agent is starting (the reference needs about
/// a second, more on a loaded machine).
pub const STARTUP_GRACE: Duration = Duration::from_secs(20);

struct Failure {
    verdict: Verdict,
    message: String,
    detail: String,
}

impl Failure {
    fn new(verdict: Verdict, message: impl Into<String>) -> Self {
        Self {
            verdict,
            message: message.into(),
            detail: String::new(),
        }
    }
}

struct Run<'a> {
    scenario: &'a Scenario,
    process: AgentProcess,
    mock: &'a MockHost,
    vars: Vars,
    captures: Captures,
    log: Vec<String>,
    non_strict: Vec<String>,
    collected: Vec<Vec<Value>>,
    deadline: Deadline,
    mode: Mode,
    options: RunOptions,
    started: bool,
    exit_code: Option<Option<i32>>,
    /// The agent exited as an `$exit` alternative allowed: the remaining steps are not run.
    ended: bool,
    /// 0-based index of the step being run.
    step_index: usize,
    /// Stdout records read so far.
    records_read: usize,
    sends: Vec<Sent>,
}

/// Runs one scenario against one agent.
pub async fn run_scenario(loaded: &Loaded, agent: &AgentCommand, options: RunOptions) -> Outcome {
    let started = Instant::now();
    let scenario = &loaded.scenario;
    let mut outcome = Outcome {
        id: scenario.id.clone(),
        title: scenario.title.clone(),
        file: loaded.file.clone(),
        agent: agent.name.clone(),
        verdict: Verdict::Error,
        message: String::new(),
        detail: String::new(),
        non_strict: Vec::new(),
        duration: Duration::ZERO,
        collected: Vec::new(),
        transcript: Transcript::default(),
    };
    // A last guard so that the runner never hangs: every wait inside has its own deadline, and
    // dropping the future kills the agent (kill_on_drop).
    let limit = options.scaled(
        scenario
            .timeout_ms
            .map_or(SCENARIO_TIMEOUT, Duration::from_millis),
    );
    let guarded = tokio::time::timeout(
        limit + options.startup_grace + Duration::from_secs(20),
        execute(loaded, agent, options, &mut outcome),
    )
    .await
    .unwrap_or_else(|_| {
        Err(Failure::new(
            Verdict::Timeout,
            "the scenario did not finish in time; the agent was killed",
        ))
    });
    match guarded {
        Ok(()) => {
            outcome.verdict = if outcome.non_strict.is_empty() {
                Verdict::Pass
            } else {
                Verdict::NonStrict
            };
            if !outcome.non_strict.is_empty() {
                outcome.message = outcome.non_strict.join("; ");
            }
        }
        Err(failure) => {
            outcome.verdict = failure.verdict;
            outcome.message = failure.message;
            outcome.detail = failure.detail;
        }
    }
    outcome.duration = started.elapsed();
    outcome
}

async fn execute(
    loaded: &Loaded,
    agent: &AgentCommand,
    options: RunOptions,
    outcome: &mut Outcome,
) -> Result<(), Failure> {
    let scenario = &loaded.scenario;
    let scratch = tempfile::Builder::new()
        .prefix("pi-conformance-")
        .tempdir()
        .map_err(|e| {
            Failure::new(
                Verdict::Error,
                format!("cannot create a scratch folder: {e}"),
            )
        })?;
    let base = loaded.file.parent().unwrap_or(Path::new("."));
    let mock = MockHost::start(
        scenario.mock.as_ref(),
        base,
        &loaded.file.display().to_string(),
    )
    .await
    .map_err(|e| Failure::new(Verdict::Error, format!("mock: {e}")))?;
    let result = with_mock(scenario, agent, options, scratch.path(), &mock, outcome).await;
    outcome.transcript.journal = mock.journal();
    mock.shutdown().await;
    result
}

async fn with_mock(
    scenario: &Scenario,
    agent: &AgentCommand,
    options: RunOptions,
    scratch: &Path,
    mock: &MockHost,
    outcome: &mut Outcome,
) -> Result<(), Failure> {
    let vars = crate::scratch::prepare(scenario, scratch, &mock.uri()).map_err(|e| {
        Failure::new(
            Verdict::Error,
            format!("cannot prepare the scratch folders: {e}"),
        )
    })?;
    let launch = crate::scratch::launch(scenario, agent, &vars);
    outcome.transcript.command = std::iter::once(agent.program.display().to_string())
        .chain(agent.args.iter().cloned())
        .chain(launch.args.iter().cloned())
        .collect();
    let process =
        AgentProcess::spawn(&launch).map_err(|e| Failure::new(Verdict::Error, e.to_string()))?;
    let limit = options.scaled(
        scenario
            .timeout_ms
            .map_or(SCENARIO_TIMEOUT, Duration::from_millis),
    ) + options.startup_grace;
    let mut run = Run {
        scenario,
        process,
        mock,
        vars,
        captures: Captures::new(),
        log: Vec::new(),
        non_strict: Vec::new(),
        collected: Vec::new(),
        deadline: Deadline::now() + limit,
        mode: options.mode,
        options,
        started: false,
        exit_code: None,
        ended: false,
        step_index: 0,
        records_read: 0,
        sends: Vec::new(),
    };
    let mut result = run.steps().await;
    if result.is_ok() {
        result = run.finish().await;
    } else {
        run.process.kill().await;
    }
    run.process.drain_stderr().await;
    outcome.transcript.streams = run.process.streams();
    outcome.transcript.log = run.log;
    outcome.transcript.sends = run.sends;
    outcome.non_strict = run.non_strict;
    outcome.collected = run.collected;
    result
}

impl Run<'_> {
    /// The next record; the first one ends the startup grace.
    async fn next_record(&mut self, deadline: Deadline) -> Result<Option<Record>, Elapsed> {
        let next = self.process.next_record(deadline).await;
        if let Ok(Some(record)) = &next {
            self.started = true;
            self.records_read = record.index + 1;
        }
        next
    }

    /// The deadline of a step: its time limit (scaled), plus the startup grace while the agent
    /// has not written its first record, capped by the scenario's deadline.
    fn step_deadline(&self, timeout_ms: Option<u64>) -> Deadline {
        let mut limit = self
            .options
            .scaled(timeout_ms.map_or(STEP_TIMEOUT, Duration::from_millis));
        if !self.started {
            limit += self.options.startup_grace;
        }
        (Deadline::now() + limit).min(self.deadline)
    }

    async fn steps(&mut self) -> Result<(), Failure> {
        for (index, step) in self.scenario.steps.iter().enumerate() {
            let label = format!("step {}", index + 1);
            self.step_index = index;
            self.step(step).await.map_err(|mut f| {
                f.message = format!("{label}: {}", f.message);
                f
            })?;
            if self.ended {
                let left = self.scenario.steps.len() - index - 1;
                if left > 0 {
                    self.log.push(format!(
                        "the agent is gone: the {left} step(s) after {label} were not run"
                    ));
                }
                break;
            }
        }
        Ok(())
    }

    async fn send(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.sends.push(Sent {
            step: self.step_index,
            bytes: bytes.to_vec(),
            records_before: self.records_read,
        });
        self.log
            .push(format!("> {}", String::from_utf8_lossy(bytes).trim_end()));
        let deadline = self.step_deadline(None);
        let Ok(sent) = tokio::time::timeout_at(deadline, self.process.send(bytes)).await else {
            return Err(Failure::new(
                Verdict::Timeout,
                "the agent did not read its stdin in time",
            ));
        };
        if let Err(err) = sent {
            let exit = self.process.exited();
            return Err(Failure::new(
                Verdict::Fail,
                format!(
                    "cannot write to the agent's stdin ({err}); exit: {}",
                    exit_text(exit)
                ),
            ));
        }
        Ok(())
    }

    async fn step(&mut self, step: &Step) -> Result<(), Failure> {
        match step {
            Step::Send(value) => {
                let value = pattern::substitute_captures(value, &self.captures);
                let value = crate::scratch::substitute_value(&value, &self.vars);
                let mut line = serde_json::to_vec(&value).unwrap_or_default();
                line.push(b'\n');
                self.send(&line).await
            }
            Step::SendRaw(text) => self.send(text.as_bytes()).await,
            Step::SendHex(hex) => {
                let bytes = decode_hex(hex).map_err(|e| Failure::new(Verdict::Error, e))?;
                self.send(&bytes).await
            }
            Step::Expect(spec) => self.expect(spec.full()).await,
            Step::ExpectQuiet(ms) => {
                let quiet = self.options.scaled(Duration::from_millis(*ms));
                let deadline = (Deadline::now() + quiet).min(self.deadline);
                match self.next_record(deadline).await {
                    Err(_) | Ok(None) => Ok(()),
                    Ok(Some(record)) => {
                        self.log
                            .push(format!("< +{}ms {}", record.at_ms, record.text()));
                        Err(Failure::new(
                            Verdict::Fail,
                            format!("expected no record for {ms} ms, got {}", record.text()),
                        ))
                    }
                }
            }
            Step::ReleaseGate(name) => {
                self.log.push(format!("release gate {name}"));
                self.mock
                    .release_gate(name)
                    .map_err(|e| Failure::new(Verdict::Error, format!("release_gate: {e}")))
            }
            Step::WaitRequests(spec) => {
                let (count, timeout_ms) = match spec {
                    WaitRequests::Count(count) => (*count, None),
                    WaitRequests::Full { count, timeout_ms } => (*count, *timeout_ms),
                };
                let deadline = self.step_deadline(timeout_ms);
                let wait = deadline.saturating_duration_since(Deadline::now());
                self.log.push(format!("wait for {count} mock requests"));
                if self.mock.wait_for_requests(count, wait).await {
                    Ok(())
                } else {
                    Err(Failure::new(
                        Verdict::Timeout,
                        format!(
                            "the mock received {} requests, not {count}, in time",
                            self.mock.request_count()
                        ),
                    ))
                }
            }
            Step::Journal(spec) => self.journal(spec),
            Step::File(check) => crate::files::check(check, &self.vars, &mut self.captures)
                .map_err(|(message, detail)| Failure {
                    verdict: Verdict::Fail,
                    message,
                    detail,
                }),
            Step::Stdout(check) => {
                let stdout = self.process.streams().stdout;
                crate::files::check_stdout(check, &stdout)
                    .map_err(|m| Failure::new(Verdict::Fail, m))
            }
            Step::CloseStdin => {
                self.log.push("close stdin".into());
                self.process.close_stdin();
                Ok(())
            }
            Step::Exit(spec) => {
                let (code, timeout_ms) = match spec {
                    ExitSpec::Code(code) => (Some(*code), None),
                    ExitSpec::Full { code, timeout_ms } => (*code, *timeout_ms),
                };
                let deadline = self.step_deadline(timeout_ms);
                match self.process.wait(deadline).await {
                    Err(_) => Err(Failure::new(
                        Verdict::Timeout,
                        "the agent did not exit in time",
                    )),
                    Ok(actual) => {
                        self.exit_code = Some(actual);
                        self.log.push(format!("exit {}", exit_text(Some(actual))));
                        match code {
                            Some(code) if actual != Some(code) => Err(Failure::new(
                                Verdict::Fail,
                                format!(
                                    "expected exit code {code}, got {}",
                                    exit_text(Some(actual))
                                ),
                            )),
                            _ => Ok(()),
                        }
                    }
                }
            }
        }
    }

    async fn expect(&mut self, spec: crate::scenario::ExpectFull) -> Result<(), Failure> {
        let items: Vec<Item> = spec
            .records
            .iter()
            .map(Item::parse)
            .collect::<Result<_, _>>()
            .map_err(|e| Failure::new(Verdict::Error, e))?;
        let mut items = items;
        if let Some(until) = &spec.until {
            items.push(Item::SkipUntil(until.clone()));
        }
        if self.mode == Mode::Collect {
            return self
                .collect(&items, spec.until.as_ref(), &spec.ignore, spec.timeout_ms)
                .await;
        }
        let mut matcher = Matcher::new(items, spec.ignore.clone(), spec.partial);
        let deadline = self.step_deadline(spec.timeout_ms);
        let mut seen = Vec::new();
        while !matcher.is_done() {
            let record = match self.next_record(deadline).await {
                Ok(Some(record)) => record,
                Ok(None) => {
                    if let Some((exits, reason)) = matcher.exit_alternatives() {
                        let (exits, reason) = (exits.to_vec(), reason.to_owned());
                        self.accept_exit(&exits, &reason).await?;
                        self.non_strict.extend(matcher.non_strict);
                        self.non_strict.push(reason);
                        self.ended = true;
                        return Ok(());
                    }
                    return Err(self.ended_while_waiting(&matcher).await);
                }
                Err(_) => {
                    let waiting = matcher.waiting_for().unwrap_or(Value::Null);
                    let mut failure = Failure::new(
                        Verdict::Timeout,
                        "the agent did not send the expected record in time",
                    );
                    failure.detail = format!(
                        "waiting for:\n{}\nrecords read in this step:\n{}",
                        pretty(&waiting),
                        seen.join("\n")
                    );
                    return Err(failure);
                }
            };
            self.log
                .push(format!("< +{}ms {}", record.at_ms, record.text()));
            seen.push(record.text());
            match matcher.feed(&record, &self.vars, &mut self.captures) {
                Feed::More | Feed::Done => {}
                Feed::Mismatch(m) => {
                    let verdict = if m.unknown_command {
                        Verdict::Unimplemented
                    } else {
                        Verdict::Fail
                    };
                    let detail = format!(
                        "{}\n\n{}",
                        m.details.join("\n"),
                        expect::diff(&m.expected, &m.actual)
                    );
                    return Err(Failure {
                        verdict,
                        message: m.summary,
                        detail,
                    });
                }
            }
        }
        self.non_strict.extend(matcher.non_strict);
        Ok(())
    }

    /// Stdout closed where an `$either` with exit alternatives was due: the exit must be one of
    /// them.
    async fn accept_exit(
        &mut self,
        exits: &[ExitAlternative],
        reason: &str,
    ) -> Result<(), Failure> {
        if self.process.flooded() {
            return Err(Failure::new(
                Verdict::Fail,
                format!(
                    "the agent flooded stdout (over {} bytes)",
                    crate::agent::MAX_STDOUT_BYTES
                ),
            ));
        }
        let deadline = self.step_deadline(None);
        let Ok(code) = self.process.wait(deadline).await else {
            return Err(Failure::new(
                Verdict::Timeout,
                "the agent closed stdout but did not exit in time",
            ));
        };
        self.exit_code = Some(code);
        self.process.drain_stderr().await;
        let stderr = String::from_utf8_lossy(&self.process.streams().stderr).into_owned();
        if exits.iter().any(|e| e.accepts(code, &stderr)) {
            self.log.push(format!(
                "exit {}: an allowed alternative (non-strict: {reason})",
                exit_text(Some(code))
            ));
            return Ok(());
        }
        let allowed: Vec<String> = exits.iter().map(ExitAlternative::describe).collect();
        let mut failure = Failure::new(
            Verdict::Fail,
            format!(
                "the agent closed stdout (exit: {}) before the expected record, and that exit is \
                 not the allowed one ({})",
                exit_text(Some(code)),
                allowed.join(" or ")
            ),
        );
        failure.detail = format!("stderr:\n{stderr}");
        Err(failure)
    }

    async fn ended_while_waiting(&mut self, matcher: &Matcher) -> Failure {
        let flooded = self.process.flooded();
        let exit = self
            .process
            .wait(Deadline::now() + Duration::from_secs(2))
            .await
            .ok();
        let waiting = matcher.waiting_for().unwrap_or(Value::Null);
        let mut failure = Failure::new(
            Verdict::Fail,
            if flooded {
                format!(
                    "the agent flooded stdout (over {} bytes)",
                    crate::agent::MAX_STDOUT_BYTES
                )
            } else {
                format!(
                    "the agent closed stdout (exit: {}) before the expected record",
                    exit_text(exit)
                )
            },
        );
        failure.detail = format!("waiting for:\n{}", pretty(&waiting));
        failure
    }

    fn journal(&mut self, spec: &JournalSpec) -> Result<(), Failure> {
        let (entries, exact) = match spec {
            JournalSpec::List(entries) => (entries.clone(), false),
            JournalSpec::Full { entries, exact } => (entries.clone(), *exact),
        };
        let journal = self.mock.journal();
        let pattern = Value::Array(entries);
        let result = pattern::match_value(
            &pattern,
            &journal,
            &self.vars,
            &self.captures,
            MatchOptions { partial: !exact },
        );
        if result.ok {
            self.captures = result.captures;
            Ok(())
        } else {
            Err(Failure {
                verdict: Verdict::Fail,
                message: "the mock's journal does not match".into(),
                detail: format!(
                    "{}\n\n{}",
                    result.mismatches.join("\n"),
                    expect::diff(&pattern::display_pattern(&pattern), &result.rendered)
                ),
            })
        }
    }

    /// After the last step: close stdin, wait for the exit, and check unread records.
    async fn finish(&mut self) -> Result<(), Failure> {
        self.process.close_stdin();
        let mut trailing = Vec::new();
        let deadline = Deadline::now() + Duration::from_secs(5);
        while let Ok(Some(record)) = self.next_record(deadline).await {
            self.log
                .push(format!("< +{}ms {}", record.at_ms, record.text()));
            trailing.push(record.text());
        }
        if self.exit_code.is_none()
            && self
                .process
                .wait(Deadline::now() + Duration::from_secs(5))
                .await
                .is_err()
        {
            self.log
                .push("the agent did not exit after stdin closed: killed".into());
            self.process.kill().await;
        }
        if self.mode == Mode::Collect {
            if self.ended {
                // `record` pairs lists with expect steps: no trailing list after an early end.
                return Ok(());
            }
            self.collected.push(
                trailing
                    .iter()
                    .map(|t| crate::normalise::normalise_record(&text_value(t), &self.vars))
                    .collect(),
            );
            return Ok(());
        }
        if !trailing.is_empty() && self.scenario.trailing == Trailing::Fail {
            let mut failure = Failure::new(
                Verdict::Fail,
                format!(
                    "{} unexpected record(s) after the last step",
                    trailing.len()
                ),
            );
            failure.detail = trailing.join("\n");
            return Err(failure);
        }
        Ok(())
    }
}

fn record_value(record: &Record) -> Value {
    match &record.json {
        Ok(json) => json.clone(),
        Err(_) => json!({"$raw": record.text()}),
    }
}

fn text_value(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| json!({"$raw": text}))
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

fn exit_text(exit: Option<Option<i32>>) -> String {
    match exit {
        None => "still running".into(),
        Some(None) => "killed by a signal".into(),
        Some(Some(code)) => format!("code {code}"),
    }
}
