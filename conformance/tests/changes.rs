//! `scenarios/CHANGES.md` is generated from `conformance/releases.yaml` and the scenarios, and is
//! current; every change is proven by a scenario. `CHANGES=overwrite cargo test -p
//! pi-conformance --test changes` rewrites it.

use std::path::PathBuf;

use pi_conformance::{changes, load, release};

#[test]
fn the_committed_changes_list_is_current_and_every_change_is_proven() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let scenarios_dir = root.join("scenarios");
    let files = load::discover(std::slice::from_ref(&scenarios_dir)).unwrap();
    let (loaded, errors) = load::load_all(&files);
    assert!(errors.is_empty(), "scenarios that do not load: {errors:?}");
    let registry = release::registry().unwrap();
    let unproven = changes::unproven(registry, &loaded);
    assert!(
        unproven.is_empty(),
        "changes in conformance/releases.yaml that no scenario's `changes` names: {unproven:?}"
    );
    let text = changes::render(registry, &loaded, &scenarios_dir);
    let path = scenarios_dir.join("CHANGES.md");
    if std::env::var("CHANGES").is_ok_and(|v| v == "overwrite") {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "scenarios/CHANGES.md is out of date; rerun with CHANGES=overwrite to regenerate it"
    );
}
