//! The patterns of the settings' resource arrays (`skills`, `prompts`, `extensions`), as the reference applies
//! them: a plain entry names a file or folder to load; `!pattern` excludes what matches,
//! `+path` includes an exact path again, `-path` excludes an exact path whatever else says, and
//! an entry with `*` or `?` keeps only the files it matches (of the plain entries' files).
//! Patterns are globs (`*` stays within a folder, `**` crosses folders) matched against the
//! path relative to the settings' folder, the file name and the absolute path; for a
//! `SKILL.md` also against its folder in the same three ways.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};

/// A plain entry as a path: a leading `~` is the home folder, a relative path is relative to
/// `base` (the settings file's folder), `.` and `..` are folded.
pub(crate) fn resolve(entry: &str, base: &Path) -> PathBuf {
    let path = entry.trim();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let expanded = match (path.strip_prefix('~'), home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
            home.join(rest.trim_start_matches('/'))
        }
        _ => PathBuf::from(path),
    };
    let joined = base.join(expanded);
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Whether an entry is a pattern rather than a path to load.
pub(crate) fn is_pattern(entry: &str) -> bool {
    entry.starts_with(['!', '+', '-']) || entry.contains(['*', '?'])
}

/// The files of the plain entries that the patterns leave enabled.
pub(crate) fn apply_patterns(
    files: &[PathBuf],
    patterns: &[&str],
    base: &Path,
) -> HashSet<PathBuf> {
    let mut includes = Vec::new();
    let mut excludes = Vec::new();
    let mut force_includes = Vec::new();
    let mut force_excludes = Vec::new();
    for pattern in patterns {
        if let Some(rest) = pattern.strip_prefix('+') {
            force_includes.push(rest);
        } else if let Some(rest) = pattern.strip_prefix('-') {
            force_excludes.push(rest);
        } else if let Some(rest) = pattern.strip_prefix('!') {
            excludes.push(rest);
        } else {
            includes.push(*pattern);
        }
    }
    let mut enabled: Vec<&PathBuf> = files
        .iter()
        .filter(|file| includes.is_empty() || matches_any(file, &includes, base))
        .filter(|file| excludes.is_empty() || !matches_any(file, &excludes, base))
        .collect();
    for file in files {
        if !enabled.contains(&file) && matches_any_exact(file, &force_includes, base) {
            enabled.push(file);
        }
    }
    enabled
        .into_iter()
        .filter(|file| !matches_any_exact(file, &force_excludes, base))
        .cloned()
        .collect()
}

/// Whether a discovered file (in the settings' own `prompts/` or `skills/` folder) stays
/// enabled under the `!`, `+` and `-` entries of the settings' array.
pub(crate) fn enabled_by_overrides(file: &Path, entries: &[String], base: &Path) -> bool {
    let with = |prefix: char| -> Vec<&str> {
        entries
            .iter()
            .filter_map(|entry| entry.strip_prefix(prefix))
            .collect()
    };
    let (excludes, force_includes, force_excludes) = (with('!'), with('+'), with('-'));
    let mut enabled = excludes.is_empty() || !matches_any(file, &excludes, base);
    if matches_any_exact(file, &force_includes, base) {
        enabled = true;
    }
    if matches_any_exact(file, &force_excludes, base) {
        enabled = false;
    }
    enabled
}

/// The forms of a file a pattern is matched against: relative to `base`, its name, its absolute
/// path, and for a `SKILL.md` the same three of its folder.
fn candidates(file: &Path, base: &Path) -> Vec<String> {
    let mut forms = vec![
        relative(file, base),
        name_of(file),
        file.to_string_lossy().into_owned(),
    ];
    if file.file_name().is_some_and(|name| name == "SKILL.md")
        && let Some(folder) = file.parent()
    {
        forms.push(relative(folder, base));
        forms.push(name_of(folder));
        forms.push(folder.to_string_lossy().into_owned());
    }
    forms
}

pub(crate) fn matches_any(file: &Path, patterns: &[&str], base: &Path) -> bool {
    let forms = candidates(file, base);
    patterns.iter().any(|pattern| {
        globset::GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map(|glob| glob.compile_matcher())
            .is_ok_and(|matcher| forms.iter().any(|form| matcher.is_match(form)))
    })
}

pub(crate) fn matches_any_exact(file: &Path, patterns: &[&str], base: &Path) -> bool {
    if patterns.is_empty() {
        return false;
    }
    let is_skill = file.file_name().is_some_and(|name| name == "SKILL.md");
    let mut forms = vec![relative(file, base), file.to_string_lossy().into_owned()];
    if is_skill && let Some(folder) = file.parent() {
        forms.push(relative(folder, base));
        forms.push(folder.to_string_lossy().into_owned());
    }
    patterns.iter().any(|pattern| {
        let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
        forms.iter().any(|form| form == pattern)
    })
}

fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// `path` relative to `base` with `..` where it leaves it (both absolute and normalised).
fn relative(path: &Path, base: &Path) -> String {
    let path: Vec<Component> = path.components().collect();
    let base: Vec<Component> = base.components().collect();
    let common = path.iter().zip(&base).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); base.len() - common];
    parts.extend(
        path[common..]
            .iter()
            .map(|part| part.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exclusions_globs_and_forced_paths_combine_as_the_reference_orders_them() {
        let base = Path::new("/a/agent");
        let files: Vec<PathBuf> = ["extra/alpha.md", "extra/beta.md", "extra/sub/delta.md"]
            .iter()
            .map(|file| base.join(file))
            .collect();
        let enabled = |patterns: &[&str]| {
            let set = apply_patterns(&files, patterns, base);
            let mut names: Vec<String> = files
                .iter()
                .filter(|file| set.contains(*file))
                .map(|file| name_of(file))
                .collect();
            names.sort();
            names
        };
        assert_eq!(enabled(&[]), ["alpha.md", "beta.md", "delta.md"]);
        assert_eq!(enabled(&["!beta.md"]), ["alpha.md", "delta.md"]);
        // `*` stays within a folder, `**` crosses folders.
        assert_eq!(enabled(&["extra/*"]), ["alpha.md", "beta.md"]);
        assert_eq!(enabled(&["extra/**/*.md", "!a*"]), ["beta.md", "delta.md"]);
        assert_eq!(enabled(&["!extra/**", "+extra/beta.md"]), ["beta.md"]);
        assert_eq!(
            enabled(&["+extra/beta.md", "-extra/beta.md"]),
            ["alpha.md", "delta.md"]
        );
        // A forced path must be exact: no globs, no bare names.
        assert_eq!(enabled(&["!*.md", "+beta.md"]), Vec::<String>::new());
    }

    #[test]
    fn a_skill_matches_by_its_folder_too() {
        let base = Path::new("/a/agent");
        let skill = base.join("skills/lint/SKILL.md");
        assert!(!enabled_by_overrides(&skill, &["!lint".into()], base));
        assert!(!enabled_by_overrides(&skill, &["!skills/*".into()], base));
        assert!(enabled_by_overrides(
            &skill,
            &["!lint".into(), "+skills/lint".into()],
            base
        ));
        assert!(enabled_by_overrides(&skill, &["!other".into()], base));
        assert_eq!(
            relative(Path::new("/a/shared/x.md"), base),
            "../shared/x.md"
        );
    }
}
