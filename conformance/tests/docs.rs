//! The documentation holds together: every relative link of every Markdown file in the
//! repository (READMEs, the book in `docs/`, the corpus's tables) names a file that exists, and
//! a heading there when it names one; the book's `SUMMARY.md` lists every chapter; the chapters
//! on scenarios name every key of the scenario format's schema; the README stays short.

// The patterns are constants and the files the repository's own: `unwrap` on them cannot fail
// at run time but by a mistake this test is there to show.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use regex::Regex;

/// The README's length limit: a newcomer reads it on two screens, the book has the rest.
const README_LINES: usize = 150;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Folders whose Markdown is not the project's own (build output, installed packages).
fn skipped(name: &str) -> bool {
    matches!(name, "target" | "node_modules" | "conformance-out") || name.starts_with('.')
}

/// Every Markdown file under `dir`.
fn markdown_files(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !skipped(&name) {
                markdown_files(&path, found);
            }
        } else if name.ends_with(".md") {
            found.push(path);
        }
    }
}

/// The text outside code: fenced blocks and inline code spans blanked.
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    let inline = Regex::new(r"`[^`\n]*`").unwrap();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push('\n');
            continue;
        }
        if !fenced {
            out.push_str(&inline.replace_all(line, ""));
        }
        out.push('\n');
    }
    out
}

/// The anchor a heading gets (GitHub's and mdBook's rule): lower case, letters, digits, `-`
/// and `_` kept, spaces made `-`, the rest dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings.
fn anchors(text: &str) -> BTreeSet<String> {
    let heading = Regex::new(r"^#{1,6}\s+(.*)$").unwrap();
    prose_lines_with_headings(text)
        .iter()
        .filter_map(|line| heading.captures(line).map(|c| slug(&c[1])))
        .collect()
}

/// The lines outside fenced code (headings keep their inline code).
fn prose_lines_with_headings(text: &str) -> Vec<&str> {
    let mut fenced = false;
    text.lines()
        .filter(|line| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

#[test]
fn every_relative_link_names_a_file_and_heading_that_exist() {
    let root = root();
    let mut files = Vec::new();
    markdown_files(&root, &mut files);
    assert!(files.len() > 10, "found only {files:?}");
    let link = Regex::new(r"\]\(([^)\s]+)(?:\s+\x22[^\x22]*\x22)?\)").unwrap();
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for target in link.captures_iter(&prose(&text)).map(|c| c[1].to_owned()) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let named = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            let shown = file
                .strip_prefix(&root)
                .unwrap_or(file)
                .display()
                .to_string();
            if !named.exists() {
                broken.push(format!("{shown}: {target} (no such file)"));
                continue;
            }
            if !anchor.is_empty() && named.extension().is_some_and(|e| e == "md") {
                let there = anchors(&std::fs::read_to_string(&named).unwrap());
                if !there.contains(anchor) {
                    broken.push(format!("{shown}: {target} (no such heading)"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_book_summary_lists_every_chapter() {
    let src = root().join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let link = Regex::new(r"\]\(([^)]+\.md)\)").unwrap();
    let listed: BTreeSet<PathBuf> = link
        .captures_iter(&summary)
        .map(|c| src.join(&c[1]))
        .collect();
    let mut chapters = Vec::new();
    markdown_files(&src, &mut chapters);
    let chapters: BTreeSet<PathBuf> = chapters
        .into_iter()
        .filter(|path| !path.ends_with("SUMMARY.md"))
        .collect();
    let unlisted: Vec<_> = chapters.difference(&listed).collect();
    let missing: Vec<_> = listed.difference(&chapters).collect();
    assert!(
        unlisted.is_empty(),
        "chapters SUMMARY.md leaves out: {unlisted:?}"
    );
    assert!(
        missing.is_empty(),
        "SUMMARY.md lists chapters that do not exist: {missing:?}"
    );
}

/// Every property name anywhere in a JSON Schema.
fn property_names(schema: &serde_json::Value, names: &mut BTreeSet<String>) {
    match schema {
        serde_json::Value::Object(map) => {
            if let Some(serde_json::Value::Object(properties)) = map.get("properties") {
                names.extend(properties.keys().cloned());
            }
            map.values().for_each(|value| property_names(value, names));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| property_names(v, names)),
        _ => {}
    }
}

#[test]
fn the_scenario_chapters_name_every_key_of_the_scenario_schema() {
    let root = root();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("conformance/scenario.schema.json")).unwrap(),
    )
    .unwrap();
    let mut names = BTreeSet::new();
    property_names(&schema, &mut names);
    assert!(names.len() > 50, "{names:?}");
    let chapters = ["scenarios.md", "testing-an-agent.md", "testing-a-client.md"];
    let text: String = chapters
        .iter()
        .map(|chapter| std::fs::read_to_string(root.join("docs/src").join(chapter)).unwrap())
        .collect();
    // Named as code: in a code block or a code span.
    let code = Regex::new(r"(?s)```.*?```|`[^`\n]+`").unwrap();
    let code: String = code.find_iter(&text).map(|m| m.as_str()).collect();
    let unnamed: Vec<&String> = names
        .iter()
        .filter(|name| !Regex::new(&format!(r"\b{name}\b")).unwrap().is_match(&code))
        .collect();
    assert!(
        unnamed.is_empty(),
        "keys of conformance/scenario.schema.json that {chapters:?} never name: {unnamed:?}"
    );
}

#[test]
fn the_readme_fits_on_two_screens() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= README_LINES,
        "README.md has {lines} lines (at most {README_LINES}: the rest belongs in docs/)"
    );
}
