//! Client mode (`pi-conformance client`): the runner plays the agent for an RPC client under test
//! and checks both what the client sends and what it understood.
//!
//! For each client scenario (a scenario with a `client` block), the scenario is first run against
//! an agent (our `pi-agent` by default) and its transcript captured, as `stand-in` does. Then the
//! client's adapter is started and told to start the client with an agent command line: the
//! [`relay`], which connects back to the runner. The runner serves the transcript through the
//! relay with the scenario's departures applied ([`deliver`]), matches what the client sends
//! against the scenario's send steps ([`crate::standin::serve`]), sends the user's actions to the
//! adapter and matches what the client surfaced ([`steps`]). Outcomes are [`crate::run::Outcome`]s,
//! so baselines, transcripts and reports are those of agent runs.

use std::sync::Arc;

use tokio::sync::Semaphore;

use crate::agent::AgentCommand;
use crate::load::Loaded;
use crate::run::{Mode, Outcome, RunOptions, run_scenario};
use crate::standin::{self, Script};

pub mod adapter;
mod deliver;
mod log;
pub mod relay;
mod run;
mod session;
mod steps;
pub mod wire;

pub use adapter::ClientCommand;
pub use run::{ClientOptions, run_case, unprompted};
pub use steps::CLIENT_STEP_TIMEOUT;

/// Runs the scenario against `agent` and keeps its transcript for the stand-in; the error says
/// why there is none (the scenario does not pass, or has no send step).
pub async fn capture(loaded: &Loaded, agent: &AgentCommand) -> Result<Script, standin::Error> {
    Script::check(&loaded.scenario)?;
    let outcome = run_scenario(loaded, agent, RunOptions::new(Mode::Judge)).await;
    Script::from_outcome(&loaded.scenario, &outcome)
}

/// Runs every client scenario against every client, with at most `jobs` cases at once; each
/// transcript is captured once from `agent` and played to every client. Outcomes come back per
/// client, in the order of `scenarios`; `progress` is called after each case.
pub async fn run_all(
    scenarios: &[Loaded],
    agent: &AgentCommand,
    clients: &[ClientCommand],
    options: &ClientOptions,
    jobs: usize,
    mut progress: impl FnMut(&Outcome, usize, usize),
) -> Vec<Vec<Outcome>> {
    let semaphore = Arc::new(Semaphore::new(jobs.max(1)));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    for (index, loaded) in scenarios.iter().enumerate() {
        let semaphore = Arc::clone(&semaphore);
        let loaded = Arc::new(loaded.clone());
        let agent = agent.clone();
        let clients = clients.to_vec();
        let options = options.clone();
        let tx = tx.clone();
        tokio::spawn(async move {
            let script = {
                let _permit = semaphore.acquire().await;
                capture(&loaded, &agent).await.map(Arc::new)
            };
            let mut cases = Vec::new();
            for (which, client) in clients.into_iter().enumerate() {
                let semaphore = Arc::clone(&semaphore);
                let loaded = Arc::clone(&loaded);
                let options = options.clone();
                let script = script.clone();
                let agent_name = agent.name.clone();
                let tx = tx.clone();
                cases.push(tokio::spawn(async move {
                    let _permit = semaphore.acquire().await;
                    let outcome = match &script {
                        Ok(script) => run_case(&loaded, script, &client, &options).await,
                        Err(why) => not_captured(&loaded, &client, &agent_name, why),
                    };
                    let _ = tx.send((which, index, outcome));
                }));
            }
            for case in cases {
                let _ = case.await;
            }
        });
    }
    drop(tx);
    let total = scenarios.len() * clients.len();
    let mut slots: Vec<Vec<Option<Outcome>>> = vec![vec![None; scenarios.len()]; clients.len()];
    let mut done = 0;
    while let Some((which, index, outcome)) = rx.recv().await {
        done += 1;
        progress(&outcome, done, total);
        slots[which][index] = Some(outcome);
    }
    slots
        .into_iter()
        .map(|outcomes| outcomes.into_iter().flatten().collect())
        .collect()
}

/// The outcome of a case whose transcript could not be captured.
fn not_captured(
    loaded: &Loaded,
    client: &ClientCommand,
    agent: &str,
    why: &standin::Error,
) -> Outcome {
    let mut outcome = Outcome::new(loaded, &client.name);
    outcome.message = format!("no transcript to play from {agent}: {why}");
    outcome
}
