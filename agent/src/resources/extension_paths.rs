//! Prompt templates and skills that extensions name in their `resources_discover` handlers
//! (after each `session_start`): added after the ones found so far, the first of a name
//! winning, each file once, with the extension as their source (`extension:<name>`, scope
//! `temporary`, the extension's folder as `baseDir`), as the reference's resource loader
//! extends its resources. They are loaded even with `--no-skills` / `--no-prompt-templates`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::skill_paths::SkillSet;
use super::{Resources, SourceInfo, collect_skills, load_skill, load_template, patterns};

/// A path an extension gave: the path (relative ones are the working folder's) and the
/// extension's own path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtensionPath<'a> {
    /// The skill or prompt template file, or a folder of them.
    pub path: &'a str,
    /// The extension (its file or folder, or a `<name>` of its own).
    pub extension: &'a str,
}

impl Resources {
    /// Adds the skills and prompt templates of the paths extensions gave; whether anything
    /// was added.
    pub fn add_extension_resources(
        &mut self,
        skills: &[ExtensionPath<'_>],
        templates: &[ExtensionPath<'_>],
        cwd: &Path,
    ) -> bool {
        let before = (self.skills.len(), self.templates.len());
        if !skills.is_empty() {
            let mut set = SkillSet::default();
            for skill in std::mem::take(&mut self.skills) {
                set.add(skill);
            }
            for given in skills {
                add_skills(&mut set, given, cwd);
            }
            self.skills = set.into_skills();
        }
        let real = |file: &Path| std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
        let mut seen: HashSet<PathBuf> = self
            .templates
            .iter()
            .map(|template| real(Path::new(&template.source_info.path)))
            .collect();
        for given in templates {
            for file in template_files(&patterns::resolve(given.path, cwd)) {
                let Some(mut template) = load_template(&file, Path::new(""), "temporary") else {
                    continue;
                };
                let taken = self.templates.iter().any(|t| t.name == template.name);
                if taken || !seen.insert(real(&file)) {
                    continue;
                }
                template.source_info = extension_source(&file, given.extension);
                self.templates.push(template);
            }
        }
        before != (self.skills.len(), self.templates.len())
    }
}

/// The skills of one path: a folder is searched as a skills folder, a `.md` file is a skill.
fn add_skills(set: &mut SkillSet, given: &ExtensionPath<'_>, cwd: &Path) {
    let path = patterns::resolve(given.path, cwd);
    let mut files = Vec::new();
    if path.is_dir() {
        collect_skills(&path, true, &mut files);
    } else if path.is_file() && path.extension().is_some_and(|ext| ext == "md") {
        files.push(path.clone());
    }
    for file in files {
        if let Some(mut skill) = load_skill(&file, &path, "temporary") {
            skill.source_info = extension_source(&file, given.extension);
            set.add(skill);
        }
    }
}

/// The templates of one path: a `.md` file, or the `.md` files directly in a folder (in name
/// order).
fn template_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return if path.extension().is_some_and(|ext| ext == "md") {
            vec![path.to_path_buf()]
        } else {
            Vec::new()
        };
    }
    super::sorted_entries(path)
        .into_iter()
        .filter(|file| file.is_file() && file.extension().is_some_and(|ext| ext == "md"))
        .collect()
}

/// Where a resource an extension named comes from: `extension:` and the extension's name (its
/// file's without `.ts` / `.js`, or a `<name>`'s), with the extension's folder as `baseDir`.
fn extension_source(file: &Path, extension: &str) -> SourceInfo {
    let (label, base_dir) = match extension.strip_prefix('<') {
        Some(_) => (extension.replace(['<', '>'], ""), None),
        None => {
            let path = Path::new(extension);
            let name = path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_default();
            let name = name
                .strip_suffix(".ts")
                .or_else(|| name.strip_suffix(".js"))
                .unwrap_or(&name)
                .to_owned();
            let parent = path.parent().map(|dir| dir.to_string_lossy().into_owned());
            (name, parent)
        }
    };
    SourceInfo {
        path: file.to_string_lossy().into_owned(),
        source: format!("extension:{label}"),
        scope: "temporary".into(),
        origin: "top-level".into(),
        base_dir,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn an_extensions_paths_add_its_templates_and_skills_after_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let extension = root.join("exts/dyn");
        write(
            &extension.join("SKILL.md"),
            "---\nname: dyn\ndescription: A skill\n---\nDo it.\n",
        );
        write(
            &extension.join("dyn.md"),
            "---\ndescription: A template\n---\nHello\n",
        );
        write(&root.join("more/one.md"), "One\n");
        write(&root.join("more/notes.txt"), "not a template\n");
        let mut resources = Resources::default();
        let extension_path = extension.to_string_lossy().into_owned();
        let skill = extension.join("SKILL.md").to_string_lossy().into_owned();
        let skills = [ExtensionPath {
            path: &skill,
            extension: &extension_path,
        }];
        let templates = [
            ExtensionPath {
                path: "exts/dyn/dyn.md",
                extension: &extension_path,
            },
            ExtensionPath {
                path: "more",
                extension: "<inline>",
            },
        ];
        assert!(resources.add_extension_resources(&skills, &templates, root));
        let names: Vec<&str> = resources
            .templates
            .iter()
            .map(|t| t.name.as_str())
            .collect();
        assert_eq!(names, ["dyn", "one"]);
        let source = &resources.templates[0].source_info;
        assert_eq!(source.source, "extension:dyn");
        assert_eq!(source.scope, "temporary");
        assert_eq!(
            source.base_dir.as_deref(),
            Some(&*root.join("exts").to_string_lossy())
        );
        let inline = &resources.templates[1].source_info;
        assert_eq!(
            (inline.source.as_str(), inline.base_dir.as_ref()),
            ("extension:inline", None)
        );
        assert_eq!(resources.skills.len(), 1);
        assert_eq!(resources.skills[0].name, "dyn");
        assert_eq!(resources.skills[0].source_info.source, "extension:dyn");
        // The same paths again (the next session_start) add nothing.
        assert!(!resources.add_extension_resources(&skills, &templates, root));
        assert_eq!(resources.templates.len(), 2);
    }
}
