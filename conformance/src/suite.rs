//! Running many scenarios in parallel.

use std::sync::Arc;

use tokio::sync::Semaphore;

use crate::agent::AgentCommand;
use crate::load::Loaded;
use crate::run::{Outcome, RunOptions, run_scenario};

/// The default `--jobs`: the number of cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(2, usize::from)
}

/// Runs every scenario against the agent with at most `jobs` at once; calls `progress` after
/// each one. Outcomes come back in the order of `scenarios`.
pub async fn run_all(
    scenarios: &[Loaded],
    agent: &AgentCommand,
    options: RunOptions,
    jobs: usize,
    mut progress: impl FnMut(&Outcome, usize, usize),
) -> Vec<Outcome> {
    let semaphore = Arc::new(Semaphore::new(jobs.max(1)));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    for (index, loaded) in scenarios.iter().enumerate() {
        let semaphore = Arc::clone(&semaphore);
        let loaded = loaded.clone();
        let agent = agent.clone();
        let tx = tx.clone();
        tokio::spawn(async move {
            let _permit = semaphore.acquire_owned().await;
            let outcome = run_scenario(&loaded, &agent, options).await;
            let _ = tx.send((index, outcome));
        });
    }
    drop(tx);
    let mut slots: Vec<Option<Outcome>> = vec![None; scenarios.len()];
    let mut done = 0;
    while let Some((index, outcome)) = rx.recv().await {
        done += 1;
        progress(&outcome, done, scenarios.len());
        if let Some(slot) = slots.get_mut(index) {
            *slot = Some(outcome);
        }
    }
    slots.into_iter().flatten().collect()
}
