//! Every scenario file under `scenarios/` as its own test, against our agent and against the
//! reference pi when it is installed. Expected failures come from `conformance/baselines/`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use libtest_mimic::{Arguments, Failed, Trial};
use pi_conformance::agent::{AgentCommand, find_reference};
use pi_conformance::baseline::Baseline;
use pi_conformance::load::{self, Loaded};
use pi_conformance::run::{Mode, RunOptions, in_releases, run_scenario};
use pi_conformance::transcript;

#[path = "support/ours.rs"]
mod ours;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Our agent, built from the current code, as the runner resolves it.
fn ours_command() -> Result<AgentCommand, String> {
    ours::build_ours()?;
    AgentCommand::resolve("ours").map_err(|e| e.to_string())
}

fn trial(loaded: Arc<Loaded>, agent: Arc<AgentCommand>, baseline: Arc<Baseline>) -> Trial {
    let name = format!("{}::{}", agent.name, loaded.scenario.id);
    // A scenario that does not hold for the agent's release (its `releases`) is not run.
    let applies = in_releases(&loaded.scenario, agent.release);
    Trial::test(name, move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Failed::from(format!("cannot start a runtime: {e}")))?;
        let outcome = runtime.block_on(run_scenario(&loaded, &agent, RunOptions::new(Mode::Judge)));
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("conformance-out");
        let folder = transcript::write(&out, &outcome)
            .map_err(|e| Failed::from(format!("cannot write the transcript: {e}")))?;
        let listed = baseline.entries.get(&outcome.id);
        match (outcome.verdict.passed(), listed) {
            (true, None) | (false, Some(_)) => Ok(()),
            (true, Some(reason)) => Err(format!(
                "{} passes on {} but is listed in baselines/{}.txt ({reason}): remove the entry",
                outcome.id, agent.name, agent.name
            )
            .into()),
            (false, None) => Err(format!(
                "{}: {} on {}: {}\n{}\nfile: {}\ntranscript: {}\nto re-record from the reference for review: \
                 cargo run -p pi-conformance -- record --agent reference {}",
                outcome.id,
                outcome.verdict.word(),
                agent.name,
                outcome.message,
                outcome.detail,
                outcome.file.display(),
                folder.display(),
                outcome.file.display()
            )
            .into()),
        }
    })
    .with_ignored_flag(!applies)
}

fn main() {
    let args = Arguments::from_args();
    let root = manifest_dir().join("../scenarios");
    let files = match load::discover(&[root]) {
        Ok(files) => files,
        Err(err) => {
            eprintln!("cannot list the scenarios: {err}");
            std::process::exit(2);
        }
    };
    let mut trials = Vec::new();
    let mut scenarios = Vec::new();
    let (loaded, errors) = load::load_all(&files);
    for err in errors {
        let name = format!("load::{}", err.file.display());
        trials.push(Trial::test(name, move || Err(err.to_string().into())));
    }
    scenarios.extend(loaded.into_iter().map(Arc::new));

    let agents: Vec<(&str, Result<AgentCommand, String>)> = vec![
        ("ours", ours_command()),
        (
            "reference",
            pi_conformance::release::registry()
                .map_err(|e| e.to_string())
                .and_then(|registry| find_reference(registry.default).map_err(|e| e.to_string()))
                .and_then(|_| AgentCommand::resolve("reference").map_err(|e| e.to_string())),
        ),
    ];
    for (name, agent) in agents {
        match agent {
            Ok(agent) => {
                let path = manifest_dir().join("baselines").join(format!("{name}.txt"));
                let baseline = match Baseline::read(&path, agent.release) {
                    Ok(b) => Arc::new(b),
                    Err(err) => {
                        eprintln!("cannot read {}: {err}", path.display());
                        std::process::exit(2);
                    }
                };
                let agent = Arc::new(agent);
                for loaded in &scenarios {
                    // What this machine lacks for the scenario, when a missing piece skips
                    // it (with PI_REQUIRE_REFERENCE the run says so as a failure instead).
                    let missing = loaded.scenario.missing_reference_programs();
                    let skip = if pi_reference::required() {
                        None
                    } else if name == "reference" && !missing.is_empty() {
                        Some(format!("it needs {} on PATH", missing.join(", ")))
                    } else if name == "ours"
                        && loaded.scenario.loads_extensions()
                        && !pi_conformance::scratch::extension_node_found()
                    {
                        Some(pi_conformance::run::EXTENSION_NODE_MISSING.to_owned())
                    } else {
                        None
                    };
                    if let Some(why) = skip {
                        let id = format!("{name}::{}", loaded.scenario.id);
                        eprintln!("NOTE: {id} is skipped: {why}");
                        trials.push(Trial::test(id, || Ok(())).with_ignored_flag(true));
                        continue;
                    }
                    trials.push(trial(
                        Arc::clone(loaded),
                        Arc::clone(&agent),
                        Arc::clone(&baseline),
                    ));
                }
            }
            Err(reason) => {
                // Our agent must always build; a missing reference skips, unless
                // PI_REQUIRE_REFERENCE (set by CI) makes that a failure of each test.
                let required = name != "reference" || pi_reference::required();
                if !required {
                    eprintln!("NOTE: the {name} scenario tests are skipped: {reason}");
                }
                for loaded in &scenarios {
                    let id = loaded.scenario.id.clone();
                    let trial = if required {
                        let reason = format!("{reason} (PI_REQUIRE_REFERENCE is set)");
                        Trial::test(format!("{name}::{id}"), move || Err(reason.into()))
                    } else {
                        Trial::test(format!("{name}::{id}"), || Ok(())).with_ignored_flag(true)
                    };
                    trials.push(trial);
                }
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
}
