//! Prompt templates (`prompts/*.md`) and skills (`skills/**/SKILL.md`, `skills/*.md`) of the
//! agent folder and, when the project is trusted, of the project's `.pi/` folder (skills also
//! from `.agents/skills` folders): what `get_commands` lists, the `/name args` and
//! `/skill:name args` expansions of a prompt, and the inputs of the system prompt.

mod expand;
mod extension_paths;
mod package_resources;
pub mod packages;
pub(crate) mod patterns;
mod skill_paths;
mod template_paths;

pub use expand::{parse_args, substitute_args};
pub use extension_paths::ExtensionPath;

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::resources::packages::Packages;
use crate::system_prompt::PromptSkill;

/// Where a template or skill came from, as `get_commands` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceInfo {
    /// The file.
    pub path: String,
    /// How it was found (`auto`: discovered in a default folder).
    pub source: String,
    /// `user` (agent folder) or `project` (`.pi/`).
    pub scope: String,
    /// `top-level`.
    pub origin: String,
    /// The folder it was discovered under (none for a skill the settings name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_dir: Option<String>,
}

/// A prompt template: `/name args` expands to its content with the arguments substituted.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptTemplate {
    /// The file name without `.md`.
    pub name: String,
    /// Front matter `description`, else the first non-empty line (60 characters at most).
    pub description: String,
    /// The body after the front matter.
    pub content: String,
    /// Where it came from.
    pub source_info: SourceInfo,
}

/// A skill: `/skill:name args` sends its instructions.
#[derive(Debug, Clone, PartialEq)]
pub struct Skill {
    /// Front matter `name`, else the folder's name.
    pub name: String,
    /// Front matter `description` (required).
    pub description: String,
    /// The skill file.
    pub file_path: PathBuf,
    /// The skill file's folder.
    pub base_dir: PathBuf,
    /// Front matter `disable-model-invocation: true`: the skill is not listed in the system
    /// prompt (`/skill:name` still works).
    pub disable_model_invocation: bool,
    /// Where it came from.
    pub source_info: SourceInfo,
}

/// Templates and skills in the order the reference lists them: project first, then user.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resources {
    /// Prompt templates.
    pub templates: Vec<PromptTemplate>,
    /// Skills (the first of a name wins).
    pub skills: Vec<Skill>,
    /// The system prompt's replacement, appended texts and context files.
    pub prompt: crate::system_prompt::PromptSources,
    /// The tool flags: which tools the model is offered and the system prompt lists.
    pub tools: crate::tools::ToolSelection,
}

/// What the command line says about discovery.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourceOptions {
    /// `--approve` (`Some(true)`) trusts the project; `None` leaves it to the settings.
    pub project_trust: Option<bool>,
    /// `--no-prompt-templates`.
    pub no_prompt_templates: bool,
    /// `--no-skills`.
    pub no_skills: bool,
    /// `--system-prompt`, `--append-system-prompt`, `--no-context-files`.
    pub prompt: crate::system_prompt::PromptOptions,
    /// `--tools`, `--no-tools`, `--no-builtin-tools`, `--exclude-tools`.
    pub tools: crate::tools::ToolSelection,
    /// `--skill` paths (relative to the working folder), loaded even with `--no-skills`.
    pub skill_paths: Vec<PathBuf>,
    /// `--prompt-template` paths, loaded even with `--no-prompt-templates`.
    pub prompt_template_paths: Vec<PathBuf>,
    /// `-e` sources: a package among them brings its prompt templates and skills too (first,
    /// and even with `--no-prompt-templates` and `--no-skills`).
    pub extension_paths: Vec<PathBuf>,
}

/// Whether the project in `cwd` is trusted without `--approve` / `--no-approve`: a saved
/// decision in the agent folder's `trust.json`, else `defaultProjectTrust: "always"`.
/// A `trust.json` that cannot be read trusts nothing here (start-up reports it first).
pub fn project_trusted_by_settings(agent_dir: &Path, cwd: &Path) -> bool {
    crate::config::project_trusted(agent_dir, cwd).unwrap_or(false)
}

impl Resources {
    /// Discovers what `options` allow: the project's resources when `--approve` or the
    /// settings trust it.
    pub fn discover(cwd: &Path, agent_dir: &Path, options: ResourceOptions) -> Self {
        let trusted = options
            .project_trust
            .unwrap_or_else(|| project_trusted_by_settings(agent_dir, cwd));
        let packages = crate::resources::packages::resolve(agent_dir, cwd, trusted);
        let cli_packages =
            crate::resources::packages::resolve_cli(&options.extension_paths, cwd, agent_dir);
        let mut resources = Self::load(cwd, agent_dir, trusted, &packages);
        // Templates: those of `-e` packages, the discovered ones (unless `-np`), then
        // `--prompt-template` paths; each file once, the first of a name wins.
        let discovered = std::mem::take(&mut resources.templates);
        package_resources::add_templates(
            &mut resources.templates,
            &cli_packages,
            &mut Default::default(),
        );
        if !options.no_prompt_templates {
            package_resources::extend_templates(&mut resources.templates, discovered);
        }
        template_paths::add(&mut resources.templates, &options, cwd);
        package_resources::first_of_each_name(&mut resources.templates);
        // Skills in the reference's precedence: those of `-e` packages; per scope (project,
        // then user) those the settings name, then those discovered; then the packages'; then
        // `--skill` paths.
        let discovered = std::mem::take(&mut resources.skills);
        let mut skills = skill_paths::SkillSet::default();
        package_resources::add_cli_skills(&mut skills, &cli_packages);
        if !options.no_skills {
            let named = skill_paths::settings_skill_paths(cwd, agent_dir, trusted);
            for scope in ["project", "user"] {
                for (path, source) in &named {
                    if *source == skill_paths::PathSource::Settings(scope)
                        && !packages.claims(crate::resources::packages::Kind::Skills, path)
                    {
                        skills.add_path(path, *source);
                    }
                }
                for skill in discovered
                    .iter()
                    .filter(|skill| skill.source_info.scope == scope)
                {
                    skills.add(skill.clone());
                }
            }
            package_resources::add_skills(&mut skills, &packages);
        }
        for path in &options.skill_paths {
            let path = patterns::resolve(&path.to_string_lossy(), cwd);
            skills.add_path(&path, skill_paths::PathSource::Cli);
        }
        resources.skills = skills.into_skills();
        resources.prompt =
            crate::system_prompt::PromptSources::discover(cwd, agent_dir, trusted, &options.prompt);
        resources.tools = options.tools;
        resources
    }

    /// The system prompt for a request: the discovered sources, the skills, the active tools
    /// (built-in, and those among `extension_tools`, which add `extension_prompts`) and the
    /// working folder.
    pub fn system_prompt(
        &self,
        cwd: &Path,
        extension_tools: &[std::sync::Arc<dyn crate::tools::Tool>],
        extension_prompts: &[crate::system_prompt::ToolPrompt],
    ) -> String {
        self.system_prompt_for(&self.tools, cwd, extension_tools, extension_prompts)
    }

    /// [`Resources::system_prompt`] with the tools `selection` chooses instead of the tool
    /// flags' (`pi.setActiveTools` chose them).
    pub fn system_prompt_for(
        &self,
        selection: &crate::tools::ToolSelection,
        cwd: &Path,
        extension_tools: &[std::sync::Arc<dyn crate::tools::Tool>],
        extension_prompts: &[crate::system_prompt::ToolPrompt],
    ) -> String {
        let tools = crate::tools::ToolSet::for_run(selection, extension_tools);
        let names = tools.names();
        // Skills with `disable-model-invocation` are not offered to the model.
        let skills: Vec<PromptSkill<'_>> = self
            .skills
            .iter()
            .filter(|skill| !skill.disable_model_invocation)
            .map(|skill| PromptSkill {
                name: &skill.name,
                description: &skill.description,
                location: &skill.file_path,
            })
            .collect();
        crate::system_prompt::build(crate::system_prompt::PromptInputs {
            cwd,
            sources: &self.prompt,
            skills: &skills,
            tools: &names,
            extension_tools: extension_prompts,
        })
    }

    /// Discovers templates and skills; the project's only when `project_trusted`. Templates
    /// come in the reference's precedence: per scope (project, then user) those the settings'
    /// `prompts` array names, then those of the `prompts/` folder, then the packages'; the
    /// array's patterns filter both ([`patterns`]), and a file is loaded once (a file a
    /// package claims is the package's).
    pub fn load(cwd: &Path, agent_dir: &Path, project_trusted: bool, packages: &Packages) -> Self {
        use crate::resources::packages::Kind;
        let mut resources = Self::default();
        let mut seen = std::collections::HashSet::new();
        let mut first = |file: &Path| {
            !packages.claims(Kind::Prompts, file)
                && seen.insert(std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf()))
        };
        for group in crate::config::resource_entries(agent_dir, cwd, project_trusted, "prompts") {
            let (patterns, plain): (Vec<&str>, Vec<&str>) = group
                .entries
                .iter()
                .map(String::as_str)
                .partition(|entry| patterns::is_pattern(entry));
            let mut files = Vec::new();
            for entry in plain {
                let path = patterns::resolve(entry, &group.base);
                if path.is_dir() {
                    collect_markdown(&path, &mut files);
                } else if path.is_file() {
                    files.push(path);
                }
            }
            let enabled = patterns::apply_patterns(&files, &patterns, &group.base);
            for file in &files {
                // A file the patterns disable still takes its place: it is not discovered again.
                if first(file)
                    && enabled.contains(file)
                    && let Some(mut template) = load_template(file, &group.base, group.scope)
                {
                    template.source_info.source = "local".into();
                    template.source_info.base_dir = None;
                    resources.templates.push(template);
                }
            }
            for file in sorted_entries(&group.base.join("prompts")) {
                if file.is_file()
                    && file.extension().is_some_and(|ext| ext == "md")
                    && !name_of(&file).starts_with('.')
                    && first(&file)
                    && patterns::enabled_by_overrides(&file, &group.entries, &group.base)
                    && let Some(template) = load_template(&file, &group.base, group.scope)
                {
                    resources.templates.push(template);
                }
            }
        }
        package_resources::add_templates(&mut resources.templates, packages, &mut seen);
        let skill_settings =
            crate::config::resource_entries(agent_dir, cwd, project_trusted, "skills");
        let overrides_of = |scope: &str| {
            skill_settings
                .iter()
                .find(|group| group.scope == scope)
                .map(|group| group.entries.as_slice())
                .unwrap_or_default()
        };
        let mut skills = skill_paths::SkillSet::default();
        for root in skill_roots(cwd, agent_dir, project_trusted) {
            let mut found = Vec::new();
            collect_skills(&root.base.join("skills"), root.root_files, &mut found);
            for file in found {
                if !packages.claims(Kind::Skills, &file)
                    && patterns::enabled_by_overrides(&file, overrides_of(root.scope), &root.base)
                    && let Some(skill) = load_skill(&file, &root.base, root.scope)
                {
                    skills.add(skill);
                }
            }
        }
        resources.skills = skills.into_skills();
        resources
    }
}

/// A folder holding a `skills/` folder, and how its skills are found.
struct SkillRoot {
    /// The folder (`.pi`, `.agents`, the agent dir); skills are under its `skills/`.
    base: PathBuf,
    /// `project` or `user`.
    scope: &'static str,
    /// Whether `.md` files directly in `skills/` are skills too (not under `.agents`).
    root_files: bool,
}

/// Where skills are looked for, first wins: the project's `.pi/skills`, then `.agents/skills`
/// of the working folder and its ancestors up to the git repository's root (both only when the
/// project is trusted), then the agent dir's `skills`, then `~/.agents/skills`.
fn skill_roots(cwd: &Path, agent_dir: &Path, project_trusted: bool) -> Vec<SkillRoot> {
    let user_agents = std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".agents"));
    let mut roots = Vec::new();
    if project_trusted {
        roots.push(SkillRoot {
            base: cwd.join(".pi"),
            scope: "project",
            root_files: true,
        });
        let git_root = cwd.ancestors().find(|dir| dir.join(".git").exists());
        for dir in cwd.ancestors() {
            let base = dir.join(".agents");
            if user_agents.as_ref() != Some(&base) {
                roots.push(SkillRoot {
                    base,
                    scope: "project",
                    root_files: false,
                });
            }
            if Some(dir) == git_root {
                break;
            }
        }
    }
    roots.push(SkillRoot {
        base: agent_dir.to_path_buf(),
        scope: "user",
        root_files: true,
    });
    if let Some(base) = user_agents {
        roots.push(SkillRoot {
            base,
            scope: "user",
            root_files: false,
        });
    }
    roots
}

/// The folder's entries sorted by name (none when it cannot be read).
fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|read| {
            read.filter_map(|entry| entry.ok().map(|e| e.path()))
                .collect()
        })
        .unwrap_or_default();
    entries.sort();
    entries
}

fn name_of(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The `.md` files of a folder and its subfolders, in name order (folders in place), leaving
/// out names that start with `.` and `node_modules`, as the reference collects a prompts folder
/// named in the settings.
fn collect_markdown(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in sorted_entries(dir) {
        let name = name_of(&entry);
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        if entry.is_dir() {
            collect_markdown(&entry, found);
        } else if entry.is_file() && name.ends_with(".md") {
            found.push(entry);
        }
    }
}

/// `SKILL.md` of a folder (then nothing deeper), else its subfolders, plus `.md` files at the
/// top level of the skills folder.
fn collect_skills(dir: &Path, top: bool, found: &mut Vec<PathBuf>) {
    let skill = dir.join("SKILL.md");
    if skill.is_file() {
        found.push(skill);
        return;
    }
    for entry in sorted_entries(dir) {
        let name = entry
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        if entry.is_dir() {
            collect_skills(&entry, false, found);
        } else if top && entry.is_file() && name.ends_with(".md") {
            found.push(entry);
        }
    }
}

/// Front matter (as JSON) and the body: after front matter the body is trimmed, without it
/// the whole text (line ends normalised to LF).
fn split_front_matter(content: &str) -> (Option<Value>, String) {
    let normalized = content.replace("\r\n", "\n").replace('\r', "\n");
    if !normalized.starts_with("---") {
        return (None, normalized);
    }
    let Some(end) = normalized.get(3..).and_then(|rest| rest.find("\n---")) else {
        return (None, normalized);
    };
    let end = end + 3;
    let yaml = normalized.get(4..end).unwrap_or("");
    let body = crate::js::trim(normalized.get(end + 4..).unwrap_or("")).to_owned();
    let front = serde_saphyr::from_str::<Value>(yaml).ok();
    (front, body)
}

fn front_str(front: &Option<Value>, key: &str) -> Option<String> {
    front
        .as_ref()
        .and_then(|front| front.get(key))
        .and_then(Value::as_str)
        .filter(|value| !value.is_empty())
        .map(str::to_owned)
}

fn source_info(file: &Path, base: &Path, scope: &str) -> SourceInfo {
    SourceInfo {
        path: file.to_string_lossy().into_owned(),
        source: "auto".into(),
        scope: scope.into(),
        origin: "top-level".into(),
        base_dir: Some(base.to_string_lossy().into_owned()),
    }
}

fn load_template(file: &Path, base: &Path, scope: &str) -> Option<PromptTemplate> {
    let content = std::fs::read_to_string(file).ok()?;
    let (front, body) = split_front_matter(&content);
    let name = file.file_stem()?.to_string_lossy().into_owned();
    let description = front_str(&front, "description").unwrap_or_else(|| {
        body.split('\n')
            .find(|line| !crate::js::trim(line).is_empty())
            .map(|line| {
                let units: Vec<u16> = line.encode_utf16().collect();
                if units.len() > 60 {
                    format!("{}...", String::from_utf16_lossy(&units[..60]))
                } else {
                    line.to_owned()
                }
            })
            .unwrap_or_default()
    });
    Some(PromptTemplate {
        name,
        description,
        content: body,
        source_info: source_info(file, base, scope),
    })
}

fn load_skill(file: &Path, base: &Path, scope: &str) -> Option<Skill> {
    let content = std::fs::read_to_string(file).ok()?;
    let (front, _) = split_front_matter(&content);
    let description = front_str(&front, "description")
        .filter(|description| !crate::js::trim(description).is_empty())?;
    let base_dir = file.parent()?.to_path_buf();
    let name = front_str(&front, "name").unwrap_or_else(|| {
        base_dir
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let disable_model_invocation = front
        .as_ref()
        .and_then(|front| front.get("disable-model-invocation"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Some(Skill {
        name,
        description,
        file_path: file.to_path_buf(),
        base_dir,
        disable_model_invocation,
        source_info: source_info(file, base, scope),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_is_split_from_a_trimmed_body() {
        let (front, body) = split_front_matter("---\ndescription: Hi\n---\n\nBody\n");
        assert_eq!(front_str(&front, "description").as_deref(), Some("Hi"));
        assert_eq!(body, "Body");
        let (front, body) = split_front_matter("\nPlain\n");
        assert!(front.is_none());
        assert_eq!(body, "\nPlain\n");
    }

    #[test]
    fn skills_that_disable_model_invocation_are_not_offered_in_the_system_prompt() {
        let skill = |name: &str, hidden: bool| Skill {
            name: name.into(),
            description: "d".into(),
            file_path: PathBuf::from(format!("/s/{name}/SKILL.md")),
            base_dir: PathBuf::from(format!("/s/{name}")),
            disable_model_invocation: hidden,
            source_info: SourceInfo {
                path: String::new(),
                source: "auto".into(),
                scope: "user".into(),
                origin: "top-level".into(),
                base_dir: None,
            },
        };
        let resources = Resources {
            skills: vec![skill("shown", false), skill("hidden", true)],
            ..Resources::default()
        };
        let prompt = resources.system_prompt(Path::new("/w"), &[], &[]);
        assert!(prompt.contains("<name>shown</name>"));
        assert!(!prompt.contains("<name>hidden</name>"));
    }
}
