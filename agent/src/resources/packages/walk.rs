//! The files of a package's folders, found as the reference finds them: names starting with
//! `.` and `node_modules` are skipped, and the `.gitignore`, `.ignore` and `.fdignore` files
//! met on the way leave out what they match (each file's patterns taken relative to its
//! folder). Entries are visited in name order.

use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::manifest::{Kind, Manifest};

const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".fdignore"];

/// The ignore patterns gathered under one root folder.
pub(super) struct Ignores {
    root: PathBuf,
    builder: GitignoreBuilder,
    matcher: Gitignore,
}

impl Ignores {
    pub(super) fn new(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
            builder: GitignoreBuilder::new(root),
            matcher: Gitignore::empty(),
        }
    }

    /// Adds the patterns of `dir`'s ignore files, prefixed with `dir`'s path under the root.
    pub(super) fn add_dir(&mut self, dir: &Path) {
        let prefix = match relative(dir, &self.root) {
            rel if rel.is_empty() => String::new(),
            rel => format!("{rel}/"),
        };
        let mut added = false;
        for name in IGNORE_FILES {
            let Ok(text) = std::fs::read_to_string(dir.join(name)) else {
                continue;
            };
            for line in text.split('\n') {
                let line = line.strip_suffix('\r').unwrap_or(line);
                if let Some(pattern) = prefixed_pattern(line, &prefix) {
                    added |= self.builder.add_line(None, &pattern).is_ok();
                }
            }
        }
        if added && let Ok(matcher) = self.builder.build() {
            self.matcher = matcher;
        }
    }

    /// Whether `path` (under the root) is ignored.
    pub(super) fn ignores(&self, path: &Path, is_dir: bool) -> bool {
        let rel = relative(path, &self.root);
        !rel.is_empty()
            && self
                .matcher
                .matched_path_or_any_parents(&rel, is_dir)
                .is_ignore()
    }
}

/// An ignore file's line as a pattern of the root: comments and blank lines dropped, a leading
/// `/` removed, the folder's prefix put before it (after a `!`).
fn prefixed_pattern(line: &str, prefix: &str) -> Option<String> {
    let trimmed = line.trim();
    if trimmed.is_empty() || (trimmed.starts_with('#') && !trimmed.starts_with("\\#")) {
        return None;
    }
    let (negated, pattern) = match line.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (
            false,
            line.strip_prefix('\\')
                .filter(|rest| rest.starts_with('!'))
                .unwrap_or(line),
        ),
    };
    let pattern = pattern.strip_prefix('/').unwrap_or(pattern);
    let bang = if negated { "!" } else { "" };
    Some(format!("{bang}{prefix}{pattern}"))
}

/// `path` relative to `root` with `/` separators (empty for the root itself).
pub(super) fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .map(|rel| {
            rel.components()
                .map(|part| part.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        })
        .unwrap_or_else(|_| path.to_string_lossy().into_owned())
}

/// A folder's entries that are not hidden and not `node_modules`, in name order.
fn visible_entries(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut entries: Vec<PathBuf> = read
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            let name = file_name(path);
            !name.starts_with('.') && name != "node_modules"
        })
        .collect();
    entries.sort();
    entries
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The resource files of `kind` in a folder: extensions as an extensions folder gives them,
/// skills as a skills folder, prompts (`.md`) and themes (`.json`) from the whole tree.
pub(super) fn resource_files(dir: &Path, kind: Kind) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut ignores = Ignores::new(dir);
    match kind {
        Kind::Extensions => return extension_entries(dir),
        Kind::Skills => skill_entries(dir, dir, &mut ignores, &mut found),
        Kind::Prompts => tree_files(dir, ".md", &mut ignores, &mut found),
        Kind::Themes => tree_files(dir, ".json", &mut ignores, &mut found),
    }
    found
}

/// The files ending in `suffix` under `dir`, every level.
fn tree_files(dir: &Path, suffix: &str, ignores: &mut Ignores, found: &mut Vec<PathBuf>) {
    ignores.add_dir(dir);
    for entry in visible_entries(dir) {
        let is_dir = entry.is_dir();
        if ignores.ignores(&entry, is_dir) {
            continue;
        }
        if is_dir {
            tree_files(&entry, suffix, ignores, found);
        } else if entry.is_file() && file_name(&entry).ends_with(suffix) {
            found.push(entry);
        }
    }
}

/// A folder's `SKILL.md` (then nothing deeper), else the skills of its sub-folders, and at the
/// top the `.md` files beside them.
fn skill_entries(dir: &Path, root: &Path, ignores: &mut Ignores, found: &mut Vec<PathBuf>) {
    ignores.add_dir(dir);
    let skill = dir.join("SKILL.md");
    if skill.is_file() && !ignores.ignores(&skill, false) {
        found.push(skill);
        return;
    }
    for entry in visible_entries(dir) {
        if dir == root
            && entry.is_file()
            && file_name(&entry).ends_with(".md")
            && !ignores.ignores(&entry, false)
        {
            found.push(entry);
        } else if entry.is_dir() && !ignores.ignores(&entry, true) {
            skill_entries(&entry, root, ignores, found);
        }
    }
}

/// The extensions of a folder: its own entry points ([`entry_points`]) when it has them, else
/// its `.ts` and `.js` files and the entry points of its sub-folders.
pub(super) fn extension_entries(dir: &Path) -> Vec<PathBuf> {
    if !dir.exists() {
        return Vec::new();
    }
    if let Some(entries) = entry_points(dir) {
        return entries;
    }
    let mut ignores = Ignores::new(dir);
    ignores.add_dir(dir);
    let mut found = Vec::new();
    for entry in visible_entries(dir) {
        let is_dir = entry.is_dir();
        if ignores.ignores(&entry, is_dir) {
            continue;
        }
        let name = file_name(&entry);
        if entry.is_file() && (name.ends_with(".ts") || name.ends_with(".js")) {
            found.push(entry);
        } else if is_dir {
            found.extend(entry_points(&entry).unwrap_or_default());
        }
    }
    found
}

/// A folder's declared entry points: the existing paths of its manifest's `extensions`, else
/// `index.ts`, else `index.js`.
pub(super) fn entry_points(dir: &Path) -> Option<Vec<PathBuf>> {
    let declared: Vec<PathBuf> = Manifest::read(&dir.join("package.json"))
        .and_then(|manifest| manifest.entries(Kind::Extensions).map(<[String]>::to_vec))
        .unwrap_or_default()
        .iter()
        .map(|entry| crate::resources::patterns::resolve(entry, dir))
        .filter(|path| path.exists())
        .collect();
    if !declared.is_empty() {
        return Some(declared);
    }
    ["index.ts", "index.js"]
        .iter()
        .map(|name| dir.join(name))
        .find(|index| index.exists())
        .map(|index| vec![index])
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::resources::packages::write_files as write;

    fn names(root: &Path, files: &[PathBuf]) -> Vec<String> {
        files.iter().map(|file| relative(file, root)).collect()
    }

    #[test]
    fn skills_stop_at_skill_md_and_take_top_level_markdown() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let skills = dir.path().join("skills");
        write(
            &skills,
            &[
                ("a/SKILL.md", ""),
                ("a/deeper/SKILL.md", ""),
                ("b/c/SKILL.md", ""),
                ("b/notes.md", ""),
                ("top.md", ""),
                (".hidden/SKILL.md", ""),
                ("node_modules/x/SKILL.md", ""),
            ],
        )?;
        let found = resource_files(&skills, Kind::Skills);
        assert_eq!(
            names(&skills, &found),
            ["a/SKILL.md", "b/c/SKILL.md", "top.md"]
        );
        Ok(())
    }

    #[test]
    fn ignore_files_leave_out_what_they_match_relative_to_their_folder() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let prompts = dir.path().join("prompts");
        write(
            &prompts,
            &[
                (".gitignore", "# drafts\n/draft.md\nold/\n"),
                ("draft.md", ""),
                ("keep.md", ""),
                ("old/x.md", ""),
                ("sub/.ignore", "*.md\n!wanted.md\n"),
                ("sub/skip.md", ""),
                ("sub/wanted.md", ""),
                ("sub/data.json", ""),
            ],
        )?;
        let found = resource_files(&prompts, Kind::Prompts);
        assert_eq!(names(&prompts, &found), ["keep.md", "sub/wanted.md"]);
        let themes = resource_files(&prompts, Kind::Themes);
        assert_eq!(names(&prompts, &themes), ["sub/data.json"]);
        Ok(())
    }

    #[test]
    fn extensions_come_from_entry_points_or_files_and_sub_folders() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let root = dir.path();
        write(
            root,
            &[
                ("ext/a.ts", ""),
                ("ext/b.js", ""),
                ("ext/c.md", ""),
                ("ext/sub/index.ts", ""),
                (
                    "ext/declared/package.json",
                    r#"{"pi": {"extensions": ["./main.ts", "./gone.ts"]}}"#,
                ),
                ("ext/declared/main.ts", ""),
                ("ext/empty/readme.md", ""),
                ("own/index.js", ""),
                ("own/other.ts", ""),
            ],
        )?;
        let found = extension_entries(&root.join("ext"));
        assert_eq!(
            names(root, &found),
            [
                "ext/a.ts",
                "ext/b.js",
                "ext/declared/main.ts",
                "ext/sub/index.ts"
            ]
        );
        assert_eq!(
            names(root, &extension_entries(&root.join("own"))),
            ["own/index.js"]
        );
        assert!(extension_entries(&root.join("missing")).is_empty());
        Ok(())
    }
}
