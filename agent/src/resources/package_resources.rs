//! The prompt templates and skills pi packages bring ([`crate::resources::packages`]): after every local
//! one, each real file once, with the package's `sourceInfo`; and the reference's rule for
//! templates of the same name: the first one listed wins.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::skill_paths::SkillSet;
use super::{PromptTemplate, load_skill, load_template};
use crate::resources::packages::{Kind, Packages};

/// Adds the packages' enabled templates (`.md` files) that are not loaded yet; `seen` holds
/// the real paths of those that are.
pub(super) fn add_templates(
    templates: &mut Vec<PromptTemplate>,
    packages: &Packages,
    seen: &mut HashSet<PathBuf>,
) {
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

/// Adds the skills of `-e` packages, reported as `-e`'s (source `cli`, scope `temporary`).
pub(super) fn add_cli_skills(skills: &mut SkillSet, packages: &Packages) {
    for found in packages.enabled(Kind::Skills) {
        if is_markdown(&found.path)
            && let Some(mut skill) = load_skill(&found.path, &found.path, "")
        {
            skill.source_info = super::SourceInfo {
                path: found.source_info.path.clone(),
                source: "cli".into(),
                scope: "temporary".into(),
                origin: "top-level".into(),
                base_dir: None,
            };
            skills.add(skill);
        }
    }
}

/// Appends `more` to `templates`, leaving out the files already there.
pub(super) fn extend_templates(templates: &mut Vec<PromptTemplate>, more: Vec<PromptTemplate>) {
    let mut seen: HashSet<PathBuf> = templates
        .iter()
        .map(|template| real(Path::new(&template.source_info.path)))
        .collect();
    for template in more {
        if seen.insert(real(Path::new(&template.source_info.path))) {
            templates.push(template);
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

#[cfg(test)]
mod tests {
    use super::super::{ResourceOptions, Resources};

    use crate::resources::packages::write_files as write;

    /// `(name, source, description)`.
    type Row = (String, String, String);

    /// The rows of the templates, then of the skills.
    fn listing(resources: &Resources) -> (Vec<Row>, Vec<Row>) {
        let templates = resources.templates.iter().map(|t| {
            (
                t.name.clone(),
                t.source_info.source.clone(),
                t.description.clone(),
            )
        });
        let skills = resources.skills.iter().map(|s| {
            (
                s.name.clone(),
                s.source_info.source.clone(),
                s.description.clone(),
            )
        });
        (templates.collect(), skills.collect())
    }

    fn row(name: &str, source: &str, description: &str) -> Row {
        (name.into(), source.into(), description.into())
    }

    #[test]
    fn package_resources_follow_local_ones_and_e_packages_come_first() -> anyhow::Result<()> {
        let dir = tempfile::tempdir()?;
        let (cwd, agent) = (dir.path().join("work"), dir.path().join("agent"));
        let skill = |description: &str| format!("---\ndescription: {description}\n---\nBody.\n");
        write(
            dir.path(),
            &[
                ("agent/settings.json", r#"{"packages": ["../pkgs/kit"]}"#),
                ("agent/prompts/review.md", "Local review\n"),
                ("agent/skills/lint/SKILL.md", &skill("local lint")),
                ("pkgs/kit/prompts/review.md", "Kit review\n"),
                ("pkgs/kit/prompts/plan.md", "Kit plan\n"),
                ("pkgs/kit/skills/lint/SKILL.md", &skill("kit lint")),
                ("pkgs/kit/skills/fmt/SKILL.md", &skill("kit fmt")),
                ("work/cli/prompts/review.md", "Cli review\n"),
                ("work/cli/skills/fmt/SKILL.md", &skill("cli fmt")),
            ],
        )?;
        let options = ResourceOptions {
            project_trust: Some(false),
            extension_paths: vec!["cli".into()],
            ..ResourceOptions::default()
        };
        let resources = Resources::discover(&cwd, &agent, options.clone());
        let cli = cwd.join("cli").display().to_string();
        assert_eq!(
            listing(&resources),
            (
                vec![
                    row("review", &cli, "Cli review"),
                    row("plan", "../pkgs/kit", "Kit plan"),
                ],
                vec![
                    row("fmt", "cli", "cli fmt"),
                    row("lint", "auto", "local lint"),
                ]
            )
        );
        // -np and -ns leave the `-e` package's templates and skills.
        let without = ResourceOptions {
            no_prompt_templates: true,
            no_skills: true,
            ..options
        };
        let resources = Resources::discover(&cwd, &agent, without);
        assert_eq!(
            listing(&resources),
            (
                vec![row("review", &cli, "Cli review")],
                vec![row("fmt", "cli", "cli fmt")]
            )
        );
        Ok(())
    }
}
