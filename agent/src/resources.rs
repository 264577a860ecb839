//! Prompt templates (`prompts/*.md`) and skills (`skills/**/SKILL.md`, `skills/*.md`) of the
//! agent folder and, when the project is trusted, of the project's `.pi/` folder: what
//! `get_commands` lists, and the `/name args` and `/skill:name args` expansions of a prompt.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

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
    /// The folder it was discovered under.
    pub base_dir: String,
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
}

/// What the command line says about discovery.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResourceOptions {
    /// `--approve` (`Some(true)`) trusts the project; `None` leaves it to the settings.
    pub project_trust: Option<bool>,
    /// `--no-prompt-templates`.
    pub no_prompt_templates: bool,
    /// `--no-skills`.
    pub no_skills: bool,
}

/// Whether the agent settings trust every project (`defaultProjectTrust: "always"`).
pub fn project_trusted_by_settings(agent_dir: &Path) -> bool {
    std::fs::read_to_string(agent_dir.join("settings.json"))
        .ok()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .and_then(|settings| {
            settings
                .get("defaultProjectTrust")
                .and_then(Value::as_str)
                .map(|trust| trust == "always")
        })
        .unwrap_or(false)
}

impl Resources {
    /// Discovers what `options` allow: the project's resources when `--approve` or the
    /// settings trust it.
    pub fn discover(cwd: &Path, agent_dir: &Path, options: ResourceOptions) -> Self {
        let trusted = options
            .project_trust
            .unwrap_or_else(|| project_trusted_by_settings(agent_dir));
        let mut resources = Self::load(cwd, agent_dir, trusted);
        if options.no_prompt_templates {
            resources.templates.clear();
        }
        if options.no_skills {
            resources.skills.clear();
        }
        resources
    }

    /// Discovers templates and skills; the project's only when `project_trusted`.
    pub fn load(cwd: &Path, agent_dir: &Path, project_trusted: bool) -> Self {
        let project = cwd.join(".pi");
        let mut scopes: Vec<(&Path, &str)> = Vec::new();
        if project_trusted {
            scopes.push((&project, "project"));
        }
        scopes.push((agent_dir, "user"));
        let mut resources = Self::default();
        for (base, scope) in &scopes {
            for file in sorted_entries(&base.join("prompts")) {
                if file.is_file()
                    && file.extension().is_some_and(|ext| ext == "md")
                    && let Some(template) = load_template(&file, base, scope)
                {
                    resources.templates.push(template);
                }
            }
        }
        for (base, scope) in &scopes {
            let mut found = Vec::new();
            collect_skills(&base.join("skills"), true, &mut found);
            for file in found {
                if let Some(skill) = load_skill(&file, base, scope)
                    && !resources
                        .skills
                        .iter()
                        .any(|known| known.name == skill.name)
                {
                    resources.skills.push(skill);
                }
            }
        }
        resources
    }

    /// `/skill:name args` as the skill block plus the arguments, then `/template args` with
    /// the arguments substituted; anything else unchanged.
    pub fn expand(&self, text: &str) -> String {
        let text = self.expand_skill(text);
        self.expand_template(&text)
    }

    fn expand_skill(&self, text: &str) -> String {
        let Some(rest) = text.strip_prefix("/skill:") else {
            return text.to_owned();
        };
        let (name, args) = match text.find(' ') {
            Some(space) => (&text[7..space], crate::session::js_trim(&text[space + 1..])),
            None => (rest, ""),
        };
        let Some(skill) = self.skills.iter().find(|skill| skill.name == name) else {
            return text.to_owned();
        };
        let Ok(content) = std::fs::read_to_string(&skill.file_path) else {
            return text.to_owned();
        };
        let (_, body) = split_front_matter(&content);
        let block = format!(
            "<skill name=\"{}\" location=\"{}\">\nReferences are relative to {}.\n\n{}\n</skill>",
            skill.name,
            skill.file_path.display(),
            skill.base_dir.display(),
            crate::session::js_trim(&body)
        );
        if args.is_empty() {
            block
        } else {
            format!("{block}\n\n{args}")
        }
    }

    fn expand_template(&self, text: &str) -> String {
        let Some(rest) = text.strip_prefix('/') else {
            return text.to_owned();
        };
        let name_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let name = &rest[..name_end];
        if name.is_empty() {
            return text.to_owned();
        }
        let args_text = rest[name_end..].trim_start();
        let Some(template) = self.templates.iter().find(|t| t.name == name) else {
            return text.to_owned();
        };
        substitute_args(&template.content, &parse_args(args_text))
    }
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
    let body = crate::session::js_trim(normalized.get(end + 4..).unwrap_or("")).to_owned();
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
        base_dir: base.to_string_lossy().into_owned(),
    }
}

fn load_template(file: &Path, base: &Path, scope: &str) -> Option<PromptTemplate> {
    let content = std::fs::read_to_string(file).ok()?;
    let (front, body) = split_front_matter(&content);
    let name = file.file_stem()?.to_string_lossy().into_owned();
    let description = front_str(&front, "description").unwrap_or_else(|| {
        body.split('\n')
            .find(|line| !crate::session::js_trim(line).is_empty())
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
        .filter(|description| !crate::session::js_trim(description).is_empty())?;
    let base_dir = file.parent()?.to_path_buf();
    let name = front_str(&front, "name").unwrap_or_else(|| {
        base_dir
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    Some(Skill {
        name,
        description,
        file_path: file.to_path_buf(),
        base_dir,
        source_info: source_info(file, base, scope),
    })
}

/// Arguments split on whitespace, with single or double quotes grouping (quotes removed).
pub fn parse_args(text: &str) -> Vec<String> {
    let mut args = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(open) if c == open => quote = None,
            Some(_) => current.push(c),
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c.is_whitespace() => {
                if !current.is_empty() {
                    args.push(std::mem::take(&mut current));
                }
            }
            None => current.push(c),
        }
    }
    if !current.is_empty() {
        args.push(current);
    }
    args
}

/// `$1`, `$@`, `$ARGUMENTS`, `${N:-default}`, `${@:start}` and `${@:start:length}` replaced.
pub fn substitute_args(content: &str, args: &[String]) -> String {
    static PATTERN: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"\$\{(\d+|ARGUMENTS|@):-([^}]*)\}|\$\{@:(\d+)(?::(\d+))?\}|\$(ARGUMENTS|@|\d+)",
        )
        .ok()
    });
    let Some(pattern) = PATTERN.as_ref() else {
        return content.to_owned();
    };
    let all = args.join(" ");
    let nth = |index: &str| -> String {
        index
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| args.get(i).cloned())
            .unwrap_or_default()
    };
    pattern
        .replace_all(content, |caps: &regex::Captures<'_>| {
            if let Some(target) = caps.get(1) {
                let value = match target.as_str() {
                    "@" | "ARGUMENTS" => all.clone(),
                    index => nth(index),
                };
                let default = caps.get(2).map_or("", |m| m.as_str());
                return if value.is_empty() {
                    default.to_owned()
                } else {
                    value
                };
            }
            if let Some(start) = caps.get(3) {
                let start = start
                    .as_str()
                    .parse::<usize>()
                    .unwrap_or(1)
                    .saturating_sub(1)
                    .min(args.len());
                let end = match caps.get(4) {
                    Some(length) => {
                        (start + length.as_str().parse::<usize>().unwrap_or(0)).min(args.len())
                    }
                    None => args.len(),
                };
                return args[start..end].join(" ");
            }
            match caps.get(5).map_or("", |m| m.as_str()) {
                "@" | "ARGUMENTS" => all.clone(),
                index => nth(index),
            }
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_split_on_spaces_with_quotes_grouping() {
        assert_eq!(
            parse_args(r#"Button "click handler" 'a b'"#),
            ["Button", "click handler", "a b"]
        );
        let args = parse_args("a b c");
        assert_eq!(
            substitute_args("$1-$2 [$@] ${4:-none} ${@:2} ${@:1:2}", &args),
            "a-b [a b c] none b c a b"
        );
    }

    #[test]
    fn front_matter_is_split_from_a_trimmed_body() {
        let (front, body) = split_front_matter("---\ndescription: Hi\n---\n\nBody\n");
        assert_eq!(front_str(&front, "description").as_deref(), Some("Hi"));
        assert_eq!(body, "Body");
        let (front, body) = split_front_matter("\nPlain\n");
        assert!(front.is_none());
        assert_eq!(body, "\nPlain\n");
    }
}
