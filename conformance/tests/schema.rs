//! The committed JSON Schema matches the scenario types.

use std::path::Path;

#[test]
fn committed_schema_is_up_to_date() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenario.schema.json");
    let generated = pi_conformance::scenario::schema_json();
    if std::env::var("SCENARIOS").as_deref() == Ok("overwrite") {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let diff = similar::TextDiff::from_lines(&committed, &generated)
            .unified_diff()
            .header("committed", "generated")
            .to_string();
        panic!(
            "conformance/scenario.schema.json is out of date; regenerate it with \
             `SCENARIOS=overwrite cargo test -p pi-conformance --test schema`\n{diff}"
        );
    }
}

#[test]
fn every_scenario_file_names_the_schema() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios");
    let files = pi_conformance::load::discover(&[root]).unwrap();
    assert!(!files.is_empty());
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let first = text.lines().next().unwrap_or_default();
        assert!(
            first.starts_with("# yaml-language-server: $schema=")
                && first.ends_with("conformance/scenario.schema.json"),
            "{} must start with `# yaml-language-server: $schema=<relative path>/conformance/scenario.schema.json`",
            file.display()
        );
    }
}
