//! `scenarios/COVERAGE.md` is the coverage table generated from the scenario corpus, and is
//! current. `COVERAGE=overwrite cargo test -p pi-conformance --test coverage` rewrites it.

use std::path::PathBuf;

use pi_conformance::{coverage, load};

#[test]
fn the_committed_coverage_table_is_current() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let scenarios_dir = root.join("scenarios");
    let files = load::discover(std::slice::from_ref(&scenarios_dir)).unwrap();
    let (loaded, errors) = load::load_all(&files);
    assert!(errors.is_empty(), "scenarios that do not load: {errors:?}");
    let table = coverage::render(&loaded, &mock_llm::quirk_names());
    let path = scenarios_dir.join("COVERAGE.md");
    if std::env::var("COVERAGE").is_ok_and(|v| v == "overwrite") {
        std::fs::write(&path, &table).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == table,
        "scenarios/COVERAGE.md is out of date; rerun with COVERAGE=overwrite to regenerate it"
    );
}

/// The tags that say a scenario configures the agent through pi's own files are where its
/// setup does so, and only there: the compatibility report counts a port's failures in them.
#[test]
fn pi_configuration_tags_follow_the_setup() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let files = load::discover(&[root.join("scenarios")]).unwrap();
    let (loaded, errors) = load::load_all(&files);
    assert!(errors.is_empty(), "scenarios that do not load: {errors:?}");
    let mut wrong = Vec::new();
    for scenario in loaded.iter().map(|l| &l.scenario) {
        let setup = &scenario.setup;
        let uses = [
            ("pi-settings", setup.settings.is_some()),
            ("pi-agent-dir", !setup.agent_files.is_empty()),
            (
                "pi-models",
                setup.models.is_some() || setup.models_json.is_some(),
            ),
        ];
        for (tag, used) in uses {
            if scenario.tags.iter().any(|t| t == tag) != used {
                wrong.push(format!(
                    "{}: {tag} {}",
                    scenario.id,
                    if used { "missing" } else { "without its setup" }
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
