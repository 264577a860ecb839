//! Running one scenario against one agent: scratch folders, the mock, the process, the steps.
//!
//! [`run_scenario`] sets up the scratch folders, the mock and the agent process; the steps are
//! run in `steps`, `expect` steps are matched in `matching` (judge mode) or read in `collect`
//! (collect mode, for `record` and `diff`).

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::time::Instant as Deadline;

use crate::agent::{AgentCommand, AgentProcess, Record};
use crate::load::Loaded;
use crate::mock::MockHost;
use crate::pattern::{Captures, Vars};
use crate::release::{Adjustments, Range, ResolveError, Version};
use crate::scenario::Scenario;

pub mod cause;
mod collect;
mod matching;
mod options;
mod outcome;
mod schema_check;
mod steps;

pub use crate::scratch::DEFAULT_ARGS;
pub use options::{Mode, RunOptions, SCENARIO_TIMEOUT, STARTUP_GRACE, STEP_TIMEOUT};
pub use outcome::{Outcome, Sent, Transcript, Verdict};

/// Why a run stopped short of passing.
struct Failure {
    verdict: Verdict,
    message: String,
    detail: String,
    /// The records a mismatch compared (or the one waited for), for the cause.
    difference: Option<Box<cause::Difference>>,
}

impl Failure {
    fn new(verdict: Verdict, message: impl Into<String>) -> Self {
        Self {
            verdict,
            message: message.into(),
            detail: String::new(),
            difference: None,
        }
    }
}

/// One run in progress: the agent process, the mock, and what the steps have gathered so far.
struct Run<'a> {
    scenario: &'a Scenario,
    /// What the release's rules leave out of the records.
    adjustments: &'a Adjustments,
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
    /// When each record read so far arrived (ms since the agent started).
    record_ms: Vec<u64>,
    /// The schema of the agent's release, that every record and command is checked against.
    schema: Option<std::sync::Arc<crate::schema::Validators>>,
    /// What the checks found.
    findings: schema_check::SchemaFindings,
    /// The record the agent's profile says it writes first, set aside ([`AgentCommand`]).
    handshake: Option<Value>,
}

/// Runs one scenario against one agent.
pub async fn run_scenario(loaded: &Loaded, agent: &AgentCommand, options: RunOptions) -> Outcome {
    let started = Instant::now();
    let scenario = &loaded.scenario;
    let mut outcome = Outcome::new(loaded, &agent.label());
    let (loaded, adjustments) = match on_release(loaded, agent.release, options) {
        Ok(Some(resolved)) => resolved,
        Ok(None) => {
            outcome.verdict = Verdict::NotApplicable;
            outcome.message = format!(
                "holds for releases {}; the agent speaks {}",
                scenario.releases.as_deref().unwrap_or("*"),
                agent.release
            );
            return outcome;
        }
        Err(err) => {
            outcome.message = err.to_string();
            return outcome;
        }
    };
    outcome.outside = !in_releases(scenario, agent.release);
    let loaded = &loaded;
    // A last guard so that the runner never hangs: every wait inside has its own deadline, and
    // dropping the future kills the agent (kill_on_drop).
    let limit = options.scaled(
        scenario
            .timeout_ms
            .map_or(SCENARIO_TIMEOUT, Duration::from_millis),
    );
    let guarded = tokio::time::timeout(
        limit + options.startup_grace + Duration::from_secs(20),
        execute(loaded, agent, options, &adjustments, &mut outcome),
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
            let difference = failure.difference.as_deref();
            outcome.cause = Some(cause::classify(
                failure.verdict,
                &failure.message,
                difference,
            ));
            outcome.first_difference = difference
                .map(|d| d.actual.clone())
                .filter(|actual| !actual.is_null());
            outcome.verdict = failure.verdict;
            outcome.message = failure.message;
            outcome.detail = failure.detail;
        }
    }
    outcome.duration = started.elapsed();
    outcome
}

/// Whether the scenario holds for `release` (an unreadable range counts as every release; the
/// loader has refused it already).
pub fn in_releases(scenario: &Scenario, release: Version) -> bool {
    scenario
        .releases
        .as_deref()
        .and_then(|text| text.parse::<Range>().ok())
        .is_none_or(|range| range.contains(release))
}

/// The scenario as it holds on `release`, with what the run leaves out; `None` when it does not
/// hold there and `options.outside` does not ask to run it anyway.
fn on_release(
    loaded: &Loaded,
    release: Version,
    options: RunOptions,
) -> Result<Option<(Loaded, Adjustments)>, ResolveError> {
    if !options.outside && !in_releases(&loaded.scenario, release) {
        return Ok(None);
    }
    let registry = crate::release::registry()?;
    let (scenario, adjustments) = crate::release::for_release(&loaded.scenario, release, registry)
        .map_err(|source| ResolveError::OnRelease {
            release,
            source: Box::new(source),
        })?;
    Ok(Some((
        Loaded {
            scenario,
            ..loaded.clone()
        },
        adjustments,
    )))
}

async fn execute(
    loaded: &Loaded,
    agent: &AgentCommand,
    options: RunOptions,
    adjustments: &Adjustments,
    outcome: &mut Outcome,
) -> Result<(), Failure> {
    let scenario = &loaded.scenario;
    let missing = scenario.missing_reference_programs();
    if agent.name == "reference" && !missing.is_empty() {
        return Err(Failure::new(
            Verdict::Error,
            format!(
                "not run: the reference needs {} on PATH for this scenario (see its comments)",
                missing.join(", ")
            ),
        ));
    }
    if let Some(failure) = missing_extension_node(scenario, agent) {
        return Err(failure);
    }
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
    let result = with_mock(
        scenario,
        agent,
        options,
        adjustments,
        scratch.path(),
        &mock,
        outcome,
    )
    .await;
    outcome.transcript.journal = mock.journal();
    mock.shutdown().await;
    result
}

/// Why a scenario that loads extensions cannot run on pi-agent here: no Node.js 20.6 or newer
/// (or 18.19 or a later 18) to run them with ([`crate::scratch::extension_node`]). Not run, saying so, rather than a
/// failure of the agent; an error when `PI_REQUIRE_REFERENCE` (CI) is set.
fn missing_extension_node(scenario: &Scenario, agent: &AgentCommand) -> Option<Failure> {
    if !agent.name.starts_with("ours")
        || !scenario.loads_extensions()
        || crate::scratch::extension_node_found()
    {
        return None;
    }
    let verdict = if pi_reference::required() {
        Verdict::Error
    } else {
        Verdict::Skipped
    };
    Some(Failure::new(verdict, EXTENSION_NODE_MISSING))
}

/// What [`missing_extension_node`] says.
pub const EXTENSION_NODE_MISSING: &str = "not run: it loads an extension, which pi-agent runs with Node.js 20.6 or newer (or 18.19 or a later 18), and none was found (`node` on PATH is missing or older); `bash conformance/reference/install.sh` brings one, or name one with PI_AGENT_NODE";

async fn with_mock(
    scenario: &Scenario,
    agent: &AgentCommand,
    options: RunOptions,
    adjustments: &Adjustments,
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
    let registry =
        crate::release::registry().map_err(|e| Failure::new(Verdict::Error, e.to_string()))?;
    let schema = match options.check_schema {
        true => Some(
            crate::schema::Validators::of(agent.release, registry)
                .map_err(|e| Failure::new(Verdict::Error, e.to_string()))?,
        ),
        false => None,
    };
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
    if !adjustments.applied.is_empty() {
        outcome.transcript.log.push(format!(
            "release {}: the rules of {} apply",
            agent.release,
            adjustments.applied.join(", ")
        ));
    }
    let mut run = Run {
        scenario,
        adjustments,
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
        record_ms: Vec::new(),
        schema,
        findings: Default::default(),
        handshake: agent.handshake.clone(),
    };
    let mut result = run.steps().await;
    if result.is_ok() {
        result = run.finish().await;
        if result.is_ok() {
            result = run.schema_verdict();
        }
    } else {
        run.process.kill().await;
    }
    run.process.drain_stderr().await;
    outcome.transcript.streams = run.process.streams();
    outcome.transcript.log.extend(run.log);
    outcome.transcript.sends = run.sends;
    outcome.transcript.record_ms = run.record_ms;
    outcome.non_strict = run.non_strict;
    outcome.collected = run.collected;
    result
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
