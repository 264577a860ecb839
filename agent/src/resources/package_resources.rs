//! The prompt templates and skills pi packages bring ([`crate::packages`]): after every local
//! one, each real file once, with the package's `sourceInfo`; and the reference's rule for
//! templates of the same name: the first one listed wins.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::skill_paths::SkillSet;
use super::{PromptTemplate, load_skill, load_template};
use crate::packages::{Kind, Packages};

/// Adds the packages' enabled templates (`.md` files) that are not loaded yet; `seen` holds
/// the real paths of those that are.
pub(super) fn add_templates(templates: &mut Vec<PromptTemplate>, packages: &Packages, seen: &mut HashSet<PathBuf>) {
    for found in packages.enabled(Kind::Prompts) {
        if !is_markdown(&found.path) || !seen.insert(real(&found.path)) {
            continue;
        }
        if let Some(mut template) = load_template(&found.path, &found.path, "") {
            template.source_info = found.source_info.clone();
            templates.push(template);
        }
    }
}

/// Adds the packages' enabled skills (`.md` files), after the local ones.
pub(super) fn add_skills(skills: &mut SkillSet, packages: &Packages) {
    for found in packages.enabled(Kind::Skills) {
        if !is_markdown(&found.path) {
            continue;
        }
        if let Some(mut skill) = load_skill(&found.path, &found.path, "") {
            skill.source_info = found.source_info.clone();
            skills.add(skill);
        }
    }
}

/// Keeps the first template of each name, as `get_commands` and `/name` see them.
pub(super) fn first_of_each_name(templates: &mut Vec<PromptTemplate>) {
    let mut names = HashSet::new();
    templates.retain(|template| names.insert(template.name.clone()));
}

fn is_markdown(path: &Path) -> bool {
    path.is_file() && path.extension().is_some_and(|extension| extension == "md")
}

fn real(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
