//! The resources of one installed package, as the reference collects them: the manifest's
//! lists (paths, globs, `!`/`+`/`-` patterns) when `package.json` has a `pi` object, else the
//! conventional `extensions/`, `skills/`, `prompts/` and `themes/` folders; the object form of
//! a settings entry filters what that gives, kind by kind (a kind left out: all of it, `[]`:
//! none). Each file is kept once, the first time it is met, enabled or not.

use std::path::{Path, PathBuf};

use super::manifest::{Kind, Manifest};
use super::walk::resource_files;
use crate::resources::SourceInfo;
use crate::resources::patterns;

/// The object form's filters: for each kind, its patterns when the entry gives a list;
/// `autoload: false` makes them a change to the global entry of the same package.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Per kind (in [`Kind::ALL`]'s order), the entry's list.
    pub lists: [Option<Vec<String>>; 4],
    /// `autoload: false`.
    pub autoload_off: bool,
}

impl Filter {
    /// The filter of a settings entry's object.
    pub fn of(entry: &serde_json::Map<String, serde_json::Value>) -> Self {
        let mut filter = Self {
            autoload_off: entry.get("autoload") == Some(&serde_json::Value::Bool(false)),
            ..Self::default()
        };
        for (slot, kind) in filter.lists.iter_mut().zip(Kind::ALL) {
            *slot = entry
                .get(kind.key())
                .and_then(|list| list.as_array())
                .map(|list| {
                    list.iter()
                        .filter_map(|pattern| pattern.as_str().map(str::to_owned))
                        .collect()
                });
        }
        filter
    }

    fn list(&self, kind: Kind) -> Option<&[String]> {
        let index = Kind::ALL.iter().position(|known| *known == kind)?;
        self.lists[index].as_deref()
    }
}

/// Where the resources being added come from: the settings entry's text and scope, and the
/// package's folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The entry's `source` as written.
    pub source: String,
    /// `project` or `user`.
    pub scope: &'static str,
    /// The package's folder (a file's folder for a single-file package).
    pub base_dir: PathBuf,
}

/// One resource file of a package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The file (or, for a package that is only a folder, the folder).
    pub path: PathBuf,
    /// Whether it is loaded (a filtered-out file still claims its path).
    pub enabled: bool,
    /// Its `sourceInfo`.
    pub source_info: SourceInfo,
}

/// The resources of every package so far, per kind, each path once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gathered {
    kinds: [Vec<Found>; 4],
}

impl Gathered {
    /// The resources of `kind`, in the order they were met.
    pub fn of(&self, kind: Kind) -> &[Found] {
        &self.kinds[index(kind)]
    }

    /// Adds `path` unless it is already there.
    pub fn add(&mut self, kind: Kind, path: &Path, origin: &Origin, enabled: bool) {
        let list = &mut self.kinds[index(kind)];
        if list.iter().any(|known| known.path == path) {
            return;
        }
        list.push(Found {
            path: path.to_path_buf(),
            enabled,
            source_info: SourceInfo {
                path: path.display().to_string(),
                source: origin.source.clone(),
                scope: origin.scope.to_owned(),
                origin: "package".to_owned(),
                base_dir: Some(origin.base_dir.display().to_string()),
            },
        });
    }
}

fn index(kind: Kind) -> usize {
    Kind::ALL
        .iter()
        .position(|known| *known == kind)
        .unwrap_or(0)
}

/// Adds the resources of the package in `root`; false when it has neither a manifest nor a
/// conventional folder (and no filter), so nothing was added.
pub fn collect_package(
    root: &Path,
    filter: Option<&Filter>,
    origin: &Origin,
    out: &mut Gathered,
) -> bool {
    if let Some(filter) = filter {
        for kind in Kind::ALL {
            match (filter.autoload_off, filter.list(kind)) {
                (true, patterns) => {
                    delta_filter(root, patterns.unwrap_or_default(), kind, origin, out)
                }
                (false, Some(patterns)) => user_filter(root, patterns, kind, origin, out),
                (false, None) => default_resources(root, kind, origin, out),
            }
        }
        return true;
    }
    if let Some(manifest) = Manifest::read(&root.join("package.json")) {
        for kind in Kind::ALL {
            if let Some(entries) = manifest.entries(kind) {
                manifest_entries(entries, root, kind, origin, out);
            }
        }
        return true;
    }
    let mut any_folder = false;
    for kind in Kind::ALL {
        let dir = root.join(kind.key());
        if dir.exists() {
            for file in resource_files(&dir, kind) {
                out.add(kind, &file, origin, true);
            }
            any_folder = true;
        }
    }
    any_folder
}

/// A kind the filter leaves open: the manifest's list for it, else its conventional folder.
fn default_resources(root: &Path, kind: Kind, origin: &Origin, out: &mut Gathered) {
    let manifest = Manifest::read(&root.join("package.json"));
    if let Some(entries) = manifest
        .as_ref()
        .and_then(|manifest| manifest.entries(kind))
    {
        manifest_entries(entries, root, kind, origin, out);
        return;
    }
    let dir = root.join(kind.key());
    if dir.exists() {
        for file in resource_files(&dir, kind) {
            out.add(kind, &file, origin, true);
        }
    }
}

/// The filter's patterns over what the package offers: `[]` disables everything of the kind.
fn user_filter(root: &Path, patterns: &[String], kind: Kind, origin: &Origin, out: &mut Gathered) {
    let offered = offered_files(root, kind);
    let patterns: Vec<&str> = patterns.iter().map(String::as_str).collect();
    let enabled = if patterns.is_empty() {
        Default::default()
    } else {
        patterns::apply_patterns(&offered, &patterns, root)
    };
    for file in &offered {
        out.add(kind, file, origin, enabled.contains(file));
    }
}

/// `autoload: false`: only the files a pattern names are set, enabled by a plain or `+`
/// pattern, disabled by `!` or `-`, the last pattern naming a file deciding.
fn delta_filter(root: &Path, patterns: &[String], kind: Kind, origin: &Origin, out: &mut Gathered) {
    if patterns.is_empty() {
        return;
    }
    let offered = offered_files(root, kind);
    let mut decided: Vec<(PathBuf, bool)> = Vec::new();
    for pattern in patterns {
        let target = pattern.strip_prefix(['+', '-', '!']).unwrap_or(pattern);
        let enabled = !pattern.starts_with(['-', '!']);
        let exact = pattern.starts_with(['+', '-']);
        for file in &offered {
            let names = if exact {
                patterns::matches_any_exact(file, &[target], root)
            } else {
                patterns::matches_any(file, &[target], root)
            };
            if !names {
                continue;
            }
            match decided.iter_mut().find(|(known, _)| known == file) {
                Some(slot) => slot.1 = enabled,
                None => decided.push((file.clone(), enabled)),
            }
        }
    }
    for (file, enabled) in decided {
        out.add(kind, &file, origin, enabled);
    }
}

/// What a package offers of `kind` before filters: the files of the manifest's list that its
/// own patterns leave, else the conventional folder's.
fn offered_files(root: &Path, kind: Kind) -> Vec<PathBuf> {
    let manifest = Manifest::read(&root.join("package.json"));
    if let Some(entries) = manifest
        .as_ref()
        .and_then(|manifest| manifest.entries(kind))
        && !entries.is_empty()
    {
        let all = manifest_files(entries, root, kind);
        let overrides: Vec<&str> = entries
            .iter()
            .map(String::as_str)
            .filter(|entry| is_override(entry))
            .collect();
        if overrides.is_empty() {
            return all;
        }
        let enabled = patterns::apply_patterns(&all, &overrides, root);
        return all
            .into_iter()
            .filter(|file| enabled.contains(file))
            .collect();
    }
    let dir = root.join(kind.key());
    if dir.exists() {
        resource_files(&dir, kind)
    } else {
        Vec::new()
    }
}

/// Adds the files of a manifest list that its `!`, `+` and `-` patterns leave.
fn manifest_entries(
    entries: &[String],
    root: &Path,
    kind: Kind,
    origin: &Origin,
    out: &mut Gathered,
) {
    let all = manifest_files(entries, root, kind);
    let overrides: Vec<&str> = entries
        .iter()
        .map(String::as_str)
        .filter(|entry| is_override(entry))
        .collect();
    let enabled = patterns::apply_patterns(&all, &overrides, root);
    for file in &all {
        if enabled.contains(file) {
            out.add(kind, file, origin, true);
        }
    }
}

fn is_override(entry: &str) -> bool {
    entry.starts_with(['!', '+', '-'])
}

/// The files a manifest list names: each path (a glob: each match) as a file, or a folder's
/// resources of `kind`.
fn manifest_files(entries: &[String], root: &Path, kind: Kind) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for entry in entries.iter().filter(|entry| !is_override(entry)) {
        if entry.contains(['*', '?']) {
            paths.extend(super::glob::matches(root, entry));
        } else {
            paths.push(patterns::resolve(entry, root));
        }
    }
    let mut files = Vec::new();
    for path in paths {
        if path.is_file() {
            files.push(path);
        } else if path.is_dir() {
            files.extend(resource_files(&path, kind));
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::resources::packages::write_files as write;

    fn origin(root: &Path) -> Origin {
        Origin {
            source: "../pkg".into(),
            scope: "user",
            base_dir: root.to_path_buf(),
        }
    }

    /// `(path under root, enabled)` of `kind`.
    fn listed(gathered: &Gathered, kind: Kind, root: &Path) -> Vec<(String, bool)> {
        gathered
            .of(kind)
            .iter()
            .map(|found| {
                (
                    super::super::walk::relative(&found.path, root),
                    found.enabled,
                )
            })
            .collect()
    }

    fn on(names: &[&str]) -> Vec<(String, bool)> {
        names.iter().map(|name| (name.to_string(), true)).collect()
    }

    #[test]
    fn a_manifest_lists_what_loads_with_globs_and_exclusions() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let root = dir.path();
        write(
            root,
            &[
                (
                    "package.json",
                    r#"{"pi": {"extensions": ["./src/*.ts", "!src/legacy.ts"], "prompts": ["./prompts"], "skills": ["skills/lint"]}}"#,
                ),
                ("src/main.ts", ""),
                ("src/legacy.ts", ""),
                ("prompts/review.md", ""),
                ("prompts/nested/deep.md", ""),
                ("skills/lint/SKILL.md", ""),
                ("skills/other/SKILL.md", ""),
                ("themes/dark.json", ""),
            ],
        )?;
        let mut gathered = Gathered::default();
        assert!(collect_package(root, None, &origin(root), &mut gathered));
        assert_eq!(
            listed(&gathered, Kind::Extensions, root),
            on(&["src/main.ts"])
        );
        assert_eq!(
            listed(&gathered, Kind::Prompts, root),
            on(&["prompts/nested/deep.md", "prompts/review.md"])
        );
        assert_eq!(
            listed(&gathered, Kind::Skills, root),
            on(&["skills/lint/SKILL.md"])
        );
        // With a manifest the conventional folders are not looked at.
        assert!(gathered.of(Kind::Themes).is_empty());
        let info = &gathered.of(Kind::Extensions)[0].source_info;
        assert_eq!(
            (
                info.source.as_str(),
                info.scope.as_str(),
                info.origin.as_str()
            ),
            ("../pkg", "user", "package")
        );
        assert_eq!(
            info.base_dir.as_deref(),
            Some(root.to_string_lossy().as_ref())
        );
        Ok(())
    }

    #[test]
    fn without_a_manifest_the_conventional_folders_load() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let root = dir.path();
        let mut gathered = Gathered::default();
        assert!(!collect_package(root, None, &origin(root), &mut gathered));
        write(
            root,
            &[
                ("package.json", r#"{"name": "plain"}"#),
                ("extensions/a.ts", ""),
                ("extensions/tool/index.ts", ""),
                ("skills/fmt/SKILL.md", ""),
                ("themes/dark.json", ""),
            ],
        )?;
        assert!(collect_package(root, None, &origin(root), &mut gathered));
        assert_eq!(
            listed(&gathered, Kind::Extensions, root),
            on(&["extensions/a.ts", "extensions/tool/index.ts"])
        );
        assert_eq!(
            listed(&gathered, Kind::Skills, root),
            on(&["skills/fmt/SKILL.md"])
        );
        assert_eq!(
            listed(&gathered, Kind::Themes, root),
            on(&["themes/dark.json"])
        );
        Ok(())
    }

    #[test]
    fn filters_narrow_each_kind_and_keep_the_files_they_disable() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let root = dir.path();
        write(
            root,
            &[
                ("extensions/a.ts", ""),
                ("extensions/b.ts", ""),
                ("prompts/review.md", ""),
                ("prompts/other.md", ""),
                ("skills/fmt/SKILL.md", ""),
                ("skills/lint/SKILL.md", ""),
            ],
        )?;
        let entry = serde_json::json!({
            "source": "../pkg",
            "extensions": ["extensions/*.ts", "!extensions/b.ts"],
            "skills": [],
            "prompts": ["+prompts/review.md", "-prompts/other.md"]
        });
        let filter = Filter::of(entry.as_object().ok_or_else(|| anyhow::anyhow!("object"))?);
        let mut gathered = Gathered::default();
        assert!(collect_package(
            root,
            Some(&filter),
            &origin(root),
            &mut gathered
        ));
        assert_eq!(
            listed(&gathered, Kind::Extensions, root),
            [
                ("extensions/a.ts".to_owned(), true),
                ("extensions/b.ts".to_owned(), false)
            ]
        );
        assert_eq!(
            listed(&gathered, Kind::Skills, root),
            [
                ("skills/fmt/SKILL.md".to_owned(), false),
                ("skills/lint/SKILL.md".to_owned(), false)
            ]
        );
        assert_eq!(
            listed(&gathered, Kind::Prompts, root),
            [
                ("prompts/other.md".to_owned(), false),
                ("prompts/review.md".to_owned(), true)
            ]
        );
        Ok(())
    }

    #[test]
    fn an_autoload_off_entry_sets_only_what_its_patterns_name() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let root = dir.path();
        write(
            root,
            &[
                ("prompts/a.md", ""),
                ("prompts/b.md", ""),
                ("prompts/c.md", ""),
            ],
        )?;
        let entry = serde_json::json!({"source": "x", "autoload": false, "prompts": ["prompts/*.md", "-prompts/b.md"]});
        let filter = Filter::of(entry.as_object().ok_or_else(|| anyhow::anyhow!("object"))?);
        let mut gathered = Gathered::default();
        collect_package(root, Some(&filter), &origin(root), &mut gathered);
        assert_eq!(
            listed(&gathered, Kind::Prompts, root),
            [
                ("prompts/a.md".to_owned(), true),
                ("prompts/b.md".to_owned(), false),
                ("prompts/c.md".to_owned(), true)
            ]
        );
        assert!(gathered.of(Kind::Extensions).is_empty());
        Ok(())
    }
}
