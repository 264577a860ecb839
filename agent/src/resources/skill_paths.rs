//! Skills named by path (the settings' `skills` array and `--skill`) and the set that collects
//! every skill source in order, keeping the first skill of a name and each real file once.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{Skill, SourceInfo, collect_skills, load_skill};

/// Where a skill named by path comes from, for its `sourceInfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PathSource {
    /// The `skills` array of the global (`user`) or project (`project`) settings.
    Settings(&'static str),
    /// `--skill` on the command line.
    Cli,
}

/// Skills in the order they were added: a skill whose name is taken is dropped, and so is one
/// whose file (symbolic links resolved) was already loaded.
#[derive(Debug, Default)]
pub(super) struct SkillSet {
    skills: Vec<Skill>,
    real_paths: HashSet<PathBuf>,
}

impl SkillSet {
    /// Adds `skill` unless its file or its name is already there.
    pub(super) fn add(&mut self, skill: Skill) {
        let real =
            std::fs::canonicalize(&skill.file_path).unwrap_or_else(|_| skill.file_path.clone());
        if self.real_paths.contains(&real)
            || self.skills.iter().any(|known| known.name == skill.name)
        {
            return;
        }
        self.real_paths.insert(real);
        self.skills.push(skill);
    }

    /// Adds the skills of `path`: a folder is searched as a skills folder (its `.md` files and
    /// the `SKILL.md` files below it), a `.md` file is one skill; anything else is ignored.
    pub(super) fn add_path(&mut self, path: &Path, source: PathSource) {
        let mut files = Vec::new();
        if path.is_dir() {
            collect_skills(path, true, &mut files);
        } else if path.is_file() && path.extension().is_some_and(|ext| ext == "md") {
            files.push(path.to_path_buf());
        }
        for file in files {
            let Some(mut skill) = load_skill(&file, path, "") else {
                continue;
            };
            skill.source_info = match source {
                PathSource::Settings(scope) => SourceInfo {
                    path: file.to_string_lossy().into_owned(),
                    source: "local".into(),
                    scope: scope.into(),
                    origin: "top-level".into(),
                    base_dir: None,
                },
                PathSource::Cli => SourceInfo {
                    path: file.to_string_lossy().into_owned(),
                    source: "local".into(),
                    scope: "temporary".into(),
                    origin: "top-level".into(),
                    base_dir: Some(skill.base_dir.to_string_lossy().into_owned()),
                },
            };
            self.add(skill);
        }
    }

    /// The skills, in order.
    pub(super) fn into_skills(self) -> Vec<Skill> {
        self.skills
    }
}

/// The skill files the `skills` arrays name: those of the project settings (`.pi/settings.json`,
/// relative to `.pi`, only when the project is trusted), then of the global settings
/// (relative to the agent folder). A folder gives its skills (its `.md` files and the
/// `SKILL.md` files below it); the patterns of the same array then filter them
/// ([`super::patterns`]).
pub(super) fn settings_skill_paths(
    cwd: &Path,
    agent_dir: &Path,
    project_trusted: bool,
) -> Vec<(PathBuf, PathSource)> {
    let mut paths = Vec::new();
    for group in crate::config::resource_entries(agent_dir, cwd, project_trusted, "skills") {
        let (patterns, plain): (Vec<&str>, Vec<&str>) = group
            .entries
            .iter()
            .map(String::as_str)
            .partition(|entry| super::patterns::is_pattern(entry));
        let mut files = Vec::new();
        for entry in plain {
            let path = super::patterns::resolve(entry, &group.base);
            if path.is_dir() {
                collect_skills(&path, true, &mut files);
            } else if path.is_file() {
                files.push(path);
            }
        }
        let enabled = super::patterns::apply_patterns(&files, &patterns, &group.base);
        for file in files {
            if enabled.contains(&file) {
                paths.push((file, PathSource::Settings(group.scope)));
            }
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) -> anyhow::Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
        Ok(())
    }

    #[test]
    fn a_skill_reached_through_a_symlink_is_loaded_once() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let real = dir.path().join("real/lint/SKILL.md");
        write(&real, "---\ndescription: Lint\n---\n\nRun it.\n")?;
        std::os::unix::fs::symlink(dir.path().join("real/lint"), dir.path().join("alias"))?;
        let mut set = SkillSet::default();
        set.add_path(&dir.path().join("real"), PathSource::Cli);
        // Under another name the same file is still skipped: the real file decides.
        let renamed = dir.path().join("alias/SKILL.md");
        set.add_path(&renamed, PathSource::Settings("user"));
        let skills = set.into_skills();
        assert_eq!(skills.len(), 1);
        assert_eq!(skills[0].file_path, real);
        assert_eq!(skills[0].source_info.scope, "temporary");
        Ok(())
    }

    #[test]
    fn the_first_skill_of_a_name_wins_and_settings_paths_resolve_against_their_folder()
    -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let agent = dir.path().join("agent");
        write(
            &agent.join("settings.json"),
            r#"{"skills": ["extra", "!extra/skip", "../shared/one.md", "x/*"]}"#,
        )?;
        write(
            &agent.join("extra/lint/SKILL.md"),
            "---\ndescription: First\n---\n",
        )?;
        write(
            &dir.path().join("shared/one.md"),
            "---\nname: lint\ndescription: Second\n---\n",
        )?;
        write(
            &agent.join("extra/skip/SKILL.md"),
            "---\ndescription: Skipped\n---\n",
        )?;
        let paths = settings_skill_paths(dir.path(), &agent, false);
        // `!extra/skip` drops that skill; `x/*` keeps only files under `x/`, of which there are
        // none: a glob filters the plain entries' files.
        assert!(paths.is_empty());
        write(
            &agent.join("settings.json"),
            r#"{"skills": ["extra", "!extra/skip", "../shared/one.md"]}"#,
        )?;
        let paths = settings_skill_paths(dir.path(), &agent, false);
        assert_eq!(
            paths,
            [
                (
                    agent.join("extra/lint/SKILL.md"),
                    PathSource::Settings("user")
                ),
                (
                    dir.path().join("shared/one.md"),
                    PathSource::Settings("user")
                ),
            ]
        );
        let mut set = SkillSet::default();
        for (path, source) in &paths {
            set.add_path(path, *source);
        }
        let skills = set.into_skills();
        assert_eq!(skills.len(), 1);
        assert_eq!(skills[0].description, "First");
        assert_eq!(skills[0].source_info.base_dir, None);
        Ok(())
    }
}
