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

/// `schema/` holds the protocol's schema of every known release, as the wire types make it.
/// `SCHEMA=overwrite cargo test -p pi-conformance --test schema` regenerates the files.
#[test]
fn committed_protocol_schemas_are_up_to_date() {
    use pi_conformance::schema;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema");
    let registry = pi_conformance::release::registry().unwrap();
    let releases = registry.versions();
    if std::env::var("SCHEMA").as_deref() == Ok("overwrite") {
        schema::write_all(&dir, &releases, registry).unwrap();
    }
    let mut expected: Vec<String> = releases.iter().map(|r| schema::file_name(*r)).collect();
    expected.sort();
    let mut present: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.file_name().to_string_lossy().into_owned())
                .filter(|name| name.ends_with(".schema.json"))
                .collect()
        })
        .unwrap_or_default();
    present.sort();
    assert_eq!(
        present, expected,
        "schema/ must hold one file per release of conformance/releases.yaml; regenerate with \
         `SCHEMA=overwrite cargo test -p pi-conformance --test schema`"
    );
    for release in releases {
        let path = dir.join(schema::file_name(release));
        let generated = schema::render(&schema::document(release, registry).unwrap());
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != generated {
            let diff = similar::TextDiff::from_lines(&committed, &generated)
                .unified_diff()
                .context_radius(2)
                .header("committed", "generated")
                .to_string();
            let diff: String = diff.lines().take(60).collect::<Vec<_>>().join("\n");
            panic!(
                "{} is out of date (the wire types changed); regenerate with \
                 `SCHEMA=overwrite cargo test -p pi-conformance --test schema`\n{diff}",
                path.display()
            );
        }
    }
}
