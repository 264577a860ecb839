//! One client case: the transcript replayed by the stand-in through a relay the client starts,
//! the client driven through its adapter, and the verdict drawn from both sides.

use std::hash::{BuildHasher, RandomState};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::net::TcpListener;
use tokio::time::Instant as Deadline;

use super::adapter::{Adapter, ClientCommand};
use super::log::Log;
use super::session;
use super::steps::{Drive, Failure, short};
use crate::load::Loaded;
use crate::run::{Outcome, RunOptions, Verdict};
use crate::scenario::ClientSpec;
use crate::standin::{Report, Script, Status};

/// How client cases are run.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    /// The `pi-conformance` executable that runs `relay` (the agent the client starts).
    pub relay: PathBuf,
    /// Time limits (their scale and the startup allowance).
    pub run: RunOptions,
}

/// Runs one client case against `client`, the stand-in playing `script` (the scenario's
/// transcript, captured from a passing run).
pub async fn run_case(
    loaded: &Loaded,
    script: &Script,
    client: &ClientCommand,
    options: &ClientOptions,
) -> Outcome {
    let started = Instant::now();
    let scenario = &loaded.scenario;
    let mut outcome = Outcome::new(loaded, &client.name);
    let Some(spec) = &scenario.client else {
        outcome.message = "the scenario has no `client` block".into();
        return outcome;
    };
    let limit =
        options.run.startup_grace + Duration::from_secs(120).mul_f64(options.run.timeout_scale);
    let result = tokio::time::timeout(limit, execute(spec, script, client, options, &mut outcome))
        .await
        .unwrap_or_else(|_| {
            Err(Failure::new(
                Verdict::Timeout,
                "the case did not finish in time; the client was killed",
            ))
        });
    match result {
        Ok(()) => outcome.verdict = Verdict::Pass,
        Err(failure) => {
            outcome.verdict = failure.verdict;
            outcome.message = failure.message;
            outcome.detail = format!("this case catches: {}\n\n{}", spec.mistake, failure.detail);
        }
    }
    outcome.duration = started.elapsed();
    outcome
}

async fn execute(
    spec: &ClientSpec,
    script: &Script,
    client: &ClientCommand,
    options: &ClientOptions,
    outcome: &mut Outcome,
) -> Result<(), Failure> {
    let harness =
        |what: &str, err: std::io::Error| Failure::new(Verdict::Error, format!("{what}: {err}"));
    let script = unprompted(script, spec);
    let listener = TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|e| harness("cannot listen for the relay", e))?;
    let address = listener
        .local_addr()
        .map_err(|e| harness("cannot listen for the relay", e))?;
    let token = format!("{:016x}", RandomState::new().hash_one(Instant::now()));
    outcome.transcript.command = client.words();
    let adapter = Adapter::spawn(client).map_err(|e| {
        harness(
            &format!("cannot start the adapter {}", client.program.display()),
            e,
        )
    })?;
    let log = Arc::new(Mutex::new(Log::default()));
    let startup = Deadline::now() + options.run.startup_grace;
    let departures = spec.stand_in.clone();
    let session_log = Arc::clone(&log);
    let mut accepted = {
        let token = token.clone();
        tokio::spawn(async move {
            let relay = session::accept(&listener, &token, startup).await?;
            Some(session::start(relay, script, &departures, session_log))
        })
    };
    let mut drive = Drive::new(adapter, options.run);
    let agent = [
        options.relay.display().to_string(),
        "relay".to_owned(),
        address.to_string(),
        token,
    ];
    let mut result = start(&mut drive, &agent, startup).await;
    if result.is_ok() {
        result = drive.steps(&spec.steps).await;
    }
    if result.is_ok() {
        result = drive.finish(spec.trailing).await;
    } else {
        // What the client still writes right after the failure (an answer it should not send)
        // is part of the verdict: it is given until it has been quiet a moment.
        settle(&log).await;
        drive.abort().await;
    }
    let session = match tokio::time::timeout(Duration::from_secs(1), &mut accepted).await {
        Ok(Ok(session)) => session,
        _ => {
            // The client never started the agent: stop listening for it.
            accepted.abort();
            None
        }
    };
    let report = match session {
        Some(session) => {
            session
                .report(Deadline::now() + Duration::from_secs(5))
                .await
        }
        None => None,
    };
    let log = log.lock().unwrap_or_else(PoisonError::into_inner);
    outcome.transcript.streams.stdin = log.stdin.clone();
    outcome.transcript.streams.stdout = log.stdout.clone();
    outcome.transcript.streams.stderr = drive.adapter.stderr();
    outcome.transcript.log = std::mem::take(&mut drive.log);
    let observations = log.observations(Instant::now());
    outcome
        .transcript
        .log
        .extend(observations.iter().map(|o| format!("stand-in: {o}")));
    let report = match report {
        Some(Ok(report)) => Some(report),
        Some(Err(err)) => return Err(harness("the stand-in failed", err)),
        None => None,
    };
    if let Some(report) = &report {
        outcome.transcript.log.push(report.text());
    }
    verdict(result, report.as_ref(), log.connected, &observations)
}

/// Waits until the client has written nothing on the agent's stdin for 300 ms (3 s at most).
async fn settle(log: &Mutex<Log>) {
    let written = || {
        log.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .stdin
            .len()
    };
    let until = Deadline::now() + Duration::from_secs(3);
    let mut before = written();
    while Deadline::now() < until {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let now = written();
        if now == before {
            return;
        }
        before = now;
    }
}

/// Sends `start` with the agent's command line and waits for the client to start.
async fn start(drive: &mut Drive, agent: &[String], deadline: Deadline) -> Result<(), Failure> {
    let id = drive
        .control(json!({"action": "start", "agent": agent}))
        .await?;
    drive.wait_outcome(id, deadline).await.map_err(|mut f| {
        f.message = format!("starting the client: {}", f.message);
        f
    })?;
    match drive.outcome_of(id) {
        Some(("result", _)) | None => Ok(()),
        Some((_, body)) => Err(Failure::new(
            Verdict::Fail,
            format!("the client could not start the agent: {}", short(body)),
        )),
    }
}

/// The verdict from the client side's result and the stand-in's report: what the client sent
/// wrongly comes first (the rest follows from it), then what it surfaced wrongly, then commands
/// it never sent; every failure carries the stand-in's observations.
fn verdict(
    result: Result<(), Failure>,
    report: Option<&Report>,
    connected: bool,
    observations: &[String],
) -> Result<(), Failure> {
    let sent_wrong = report.and_then(|r| {
        let step = r.steps.iter().find(|s| s.status == Status::Fail).map(|s| {
            format!(
                "the client sent something else than step {} expects: {}",
                s.step,
                s.error.as_deref().unwrap_or("")
            )
        });
        step.or_else(|| {
            r.extra.first().map(|e| {
                format!(
                    "the client sent {} after the last command the scenario expects",
                    short(&e.received)
                )
            })
        })
    });
    let not_sent = report.and_then(|r| {
        r.steps
            .iter()
            .find(|s| s.status == Status::NotSent)
            .map(|s| {
                format!(
                    "the client never sent step {}'s command {}",
                    s.step,
                    short(&s.expected)
                )
            })
    });
    let mut failure = match (sent_wrong, result) {
        (Some(sent), result) => {
            let mut failure = Failure::new(Verdict::Fail, sent);
            if let Err(other) = result {
                failure.detail = format!("then: {}\n{}", other.message, other.detail);
            }
            failure
        }
        (None, Err(failure)) => failure,
        (None, Ok(())) => match not_sent {
            Some(message) => Failure::new(Verdict::Fail, message),
            None if connected && report.is_none() => Failure::new(
                Verdict::Fail,
                "the stand-in did not finish: the client kept the agent's stdin open after it was \
                 stopped",
            ),
            None => return Ok(()),
        },
    };
    let telling: Vec<&String> = observations
        .iter()
        .filter(|o| !o.starts_with("the client's pipe took"))
        .take(3)
        .collect();
    if !telling.is_empty() {
        let joined: Vec<&str> = telling.iter().map(|s| s.as_str()).collect();
        failure.message = format!("{}; stand-in: {}", failure.message, joined.join("; "));
    }
    failure.detail = format!(
        "{}\n\nstand-in observations:\n- {}{}",
        failure.detail,
        observations.join("\n- "),
        report.map_or(String::new(), |r| format!("\n\n{}", r.text()))
    );
    Err(failure)
}

/// The script with the unprompted send steps folded into the next one: their records come when
/// the client sends the next command, before that command's own.
pub fn unprompted(script: &Script, spec: &ClientSpec) -> Script {
    let skipped: Vec<usize> = spec
        .stand_in
        .iter()
        .filter_map(|d| d.unprompted.map(|step| step - 1))
        .collect();
    let mut out = script.clone();
    out.segments.clear();
    let mut carried = Vec::new();
    for segment in &script.segments {
        if skipped.contains(&segment.step) {
            carried.extend(segment.lines.iter().cloned());
            continue;
        }
        let mut segment = segment.clone();
        if !carried.is_empty() {
            let mut lines = std::mem::take(&mut carried);
            lines.extend(segment.lines);
            segment.lines = lines;
        }
        out.segments.push(segment);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::standin::{Expected, Line, Segment};
    use serde_json::json;

    fn segment(step: usize, lines: &[&str]) -> Segment {
        Segment {
            step,
            expected: Expected::Lines(Vec::new()),
            lines: lines
                .iter()
                .map(|l| Line {
                    bytes: l.as_bytes().to_vec(),
                    after_ms: 0,
                })
                .collect(),
        }
    }

    #[test]
    fn an_unprompted_step_brings_its_records_with_the_next_command() {
        let script = Script {
            scenario: "x".into(),
            agent: "ours".into(),
            preamble: Vec::new(),
            segments: vec![segment(0, &["parse error\n"]), segment(2, &["state\n"])],
        };
        let spec: ClientSpec = serde_json::from_value(json!({
            "mistake": "m",
            "stand_in": [{"unprompted": 1, "reason": "r"}],
            "steps": [{"do": "wait_idle"}]
        }))
        .unwrap();
        let out = unprompted(&script, &spec);
        assert_eq!(out.segments.len(), 1);
        assert_eq!(out.segments[0].step, 2);
        let lines: Vec<&[u8]> = out.segments[0]
            .lines
            .iter()
            .map(|l| l.bytes.as_slice())
            .collect();
        assert_eq!(lines, vec![&b"parse error\n"[..], &b"state\n"[..]]);
    }
}
