//! Where the system prompt's texts come from: the command line's replacement and appended
//! texts, `SYSTEM.md` / `APPEND_SYSTEM.md` of the project (when trusted) or the agent folder,
//! and the project context files of the agent folder and of the working folder's ancestors.

use std::path::{Path, PathBuf};

/// The names a context file may have in one folder, in the order the first existing one wins.
pub const CONTEXT_FILE_NAMES: [&str; 5] = [
    "AGENTS.override.md",
    "AGENTS.md",
    "AGENTS.MD",
    "CLAUDE.md",
    "CLAUDE.MD",
];

/// A project context file: its path (as the model sees it) and its whole text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    /// The file.
    pub path: PathBuf,
    /// Its text, unchanged.
    pub content: String,
}

/// What the command line says about the system prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptOptions {
    /// `--system-prompt`: text, or the path of a file to read; replaces `SYSTEM.md` discovery.
    pub system_prompt: Option<String>,
    /// `--append-system-prompt` (repeatable): texts or file paths; `None` when the flag is not
    /// given, and then `APPEND_SYSTEM.md` is discovered instead.
    pub append_system_prompt: Option<Vec<String>>,
    /// `--no-context-files`: no `AGENTS.md` / `CLAUDE.md` discovery.
    pub no_context_files: bool,
}

/// The discovered inputs of the system prompt (everything but the tools and skills).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptSources {
    /// The replacement of the base prompt, when one is given and not empty.
    pub custom_prompt: Option<String>,
    /// Texts appended to the base prompt, in order.
    pub append: Vec<String>,
    /// Context files: the agent folder's first, then from the filesystem root down to `cwd`.
    pub context_files: Vec<ContextFile>,
}

impl PromptSources {
    /// Discovers the prompt's inputs. `.pi/SYSTEM.md` and `.pi/APPEND_SYSTEM.md` of the project
    /// count only when `project_trusted`; context files are read whatever the trust, as the
    /// reference does.
    pub fn discover(
        cwd: &Path,
        agent_dir: &Path,
        project_trusted: bool,
        options: &PromptOptions,
    ) -> Self {
        let discovered = |name: &str| {
            let project = cwd.join(".pi").join(name);
            if project_trusted && project.exists() {
                return Some(project.to_string_lossy().into_owned());
            }
            let global = agent_dir.join(name);
            global
                .exists()
                .then(|| global.to_string_lossy().into_owned())
        };
        let custom_prompt = options
            .system_prompt
            .clone()
            .or_else(|| discovered("SYSTEM.md"))
            .filter(|input| !input.is_empty())
            .map(|input| resolve_input(cwd, &input))
            .filter(|text| !text.is_empty());
        let append = match &options.append_system_prompt {
            Some(inputs) => inputs.clone(),
            None => discovered("APPEND_SYSTEM.md").into_iter().collect(),
        };
        let append = append
            .iter()
            .filter(|input| !input.is_empty())
            .map(|input| resolve_input(cwd, input))
            .collect();
        let context_files = if options.no_context_files {
            Vec::new()
        } else {
            context_files(cwd, agent_dir)
        };
        Self {
            custom_prompt,
            append,
            context_files,
        }
    }
}

/// A prompt input is the content of the file it names (relative to `cwd`) when that file can
/// be read, else the text itself.
fn resolve_input(cwd: &Path, input: &str) -> String {
    let path = cwd.join(input);
    if path.exists()
        && let Ok(bytes) = std::fs::read(&path)
    {
        return String::from_utf8_lossy(&bytes).into_owned();
    }
    input.to_owned()
}

/// The first context file of `dir` that is a regular file.
fn context_file_in(dir: &Path) -> Option<ContextFile> {
    CONTEXT_FILE_NAMES.iter().find_map(|name| {
        let path = dir.join(name);
        if !path.is_file() {
            return None;
        }
        let bytes = std::fs::read(&path).ok()?;
        Some(ContextFile {
            content: String::from_utf8_lossy(&bytes).into_owned(),
            path,
        })
    })
}

/// The agent folder's context file, then one per folder from the root down to `cwd` (a file
/// already listed is not listed twice, and the main checkout's file that a nested linked
/// worktree's own file shadows is left out).
pub fn context_files(cwd: &Path, agent_dir: &Path) -> Vec<ContextFile> {
    let mut files: Vec<ContextFile> = context_file_in(agent_dir).into_iter().collect();
    let shadowed = shadowed_context_file(cwd);
    let mut ancestors: Vec<ContextFile> = Vec::new();
    for dir in cwd.ancestors() {
        if let Some(file) = context_file_in(dir)
            && shadowed.as_ref() != Some(&canonical(&file.path))
            && !files.iter().any(|known| known.path == file.path)
        {
            ancestors.push(file);
        }
    }
    files.extend(ancestors.into_iter().rev());
    files
}

/// The real path, or the path itself when it cannot be resolved.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The nearest git checkout at or above `cwd`: its folder and the repository's common git
/// folder (the main `.git` folder, also for a linked worktree whose `.git` is a file).
fn git_paths(cwd: &Path) -> Option<(PathBuf, PathBuf)> {
    let dir = cwd.ancestors().find(|dir| dir.join(".git").exists())?;
    let git = dir.join(".git");
    if git.is_dir() {
        return git.join("HEAD").exists().then(|| (dir.to_path_buf(), git));
    }
    let text = std::fs::read_to_string(&git).ok()?;
    let git_dir = dir.join(text.trim().strip_prefix("gitdir: ")?.trim());
    if !git_dir.join("HEAD").exists() {
        return None;
    }
    let common = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(common) => git_dir.join(common.trim()),
        Err(_) => git_dir,
    };
    Some((dir.to_path_buf(), common))
}

/// In a linked worktree checked out inside its main checkout, both hold the same project's
/// context file: the main checkout's (real path), when the worktree has its own.
fn shadowed_context_file(cwd: &Path) -> Option<PathBuf> {
    let (repo_dir, common_git_dir) = git_paths(cwd)?;
    let common = canonical(&common_git_dir);
    let worktree_root = canonical(&repo_dir);
    let main_root = common.parent()?;
    if worktree_root == main_root
        || !worktree_root.starts_with(main_root)
        || canonical(&main_root.join(".git")) != common
    {
        return None;
    }
    let own = context_file_in(&worktree_root)?;
    Some(main_root.join(own.path.file_name()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_files_come_from_the_agent_folder_then_root_down_with_one_per_folder()
    -> anyhow::Result<()> {
        let root = tempfile::tempdir()?;
        let agent = root.path().join("agent");
        let cwd = root.path().join("a").join("b");
        std::fs::create_dir_all(&agent)?;
        std::fs::create_dir_all(&cwd)?;
        std::fs::write(agent.join("AGENTS.md"), "agent")?;
        std::fs::write(root.path().join("CLAUDE.md"), "root")?;
        std::fs::write(root.path().join("a").join("AGENTS.md"), "a")?;
        std::fs::write(root.path().join("a").join("CLAUDE.md"), "a-claude")?;
        std::fs::write(cwd.join("AGENTS.md"), "b")?;
        std::fs::write(cwd.join("AGENTS.override.md"), "b-override")?;
        std::fs::create_dir_all(agent.join("x"))?;
        // Only what lies under the scratch root: the machine's own folders above it are not
        // the test's business.
        let ours = |cwd: &Path| -> Vec<ContextFile> {
            context_files(cwd, &agent)
                .into_iter()
                .filter(|f| f.path.starts_with(root.path()))
                .collect()
        };
        let files = ours(&cwd);
        let seen: Vec<(&Path, &str)> = files
            .iter()
            .map(|f| (f.path.as_path(), f.content.as_str()))
            .collect();
        let expected = [
            (agent.join("AGENTS.md"), "agent"),
            (root.path().join("CLAUDE.md"), "root"),
            (root.path().join("a").join("AGENTS.md"), "a"),
            (cwd.join("AGENTS.override.md"), "b-override"),
        ];
        let expected: Vec<(&Path, &str)> =
            expected.iter().map(|(p, c)| (p.as_path(), *c)).collect();
        assert_eq!(seen, expected);
        // An agent folder that is also the working folder is listed once.
        let paths: Vec<PathBuf> = ours(&agent).into_iter().map(|f| f.path).collect();
        assert_eq!(
            paths,
            [agent.join("AGENTS.md"), root.path().join("CLAUDE.md")]
        );
        Ok(())
    }

    #[test]
    fn a_nested_linked_worktree_shadows_the_main_checkouts_context_file() -> anyhow::Result<()> {
        let root = tempfile::tempdir()?;
        let main = root.path().join("repo");
        let worktree = main.join("trees").join("feature");
        let admin = main.join(".git").join("worktrees").join("feature");
        std::fs::create_dir_all(&admin)?;
        std::fs::create_dir_all(&worktree)?;
        std::fs::write(main.join(".git").join("HEAD"), "ref: refs/heads/main\n")?;
        std::fs::write(admin.join("HEAD"), "ref: refs/heads/feature\n")?;
        std::fs::write(admin.join("commondir"), "../..\n")?;
        std::fs::write(
            worktree.join(".git"),
            format!("gitdir: {}\n", admin.display()),
        )?;
        std::fs::write(main.join("AGENTS.md"), "main")?;
        std::fs::write(main.join("trees").join("CLAUDE.md"), "between")?;
        std::fs::write(worktree.join("AGENTS.md"), "feature")?;
        let agent = root.path().join("agent");
        let contents = |cwd: &Path| -> Vec<String> {
            context_files(cwd, &agent)
                .into_iter()
                .filter(|f| f.path.starts_with(root.path()))
                .map(|f| f.content)
                .collect()
        };
        assert_eq!(contents(&worktree), ["between", "feature"]);
        // Without its own context file the worktree shadows nothing.
        std::fs::remove_file(worktree.join("AGENTS.md"))?;
        assert_eq!(contents(&worktree), ["main", "between"]);
        // The main checkout itself is not a nested worktree.
        assert_eq!(contents(&main), ["main"]);
        Ok(())
    }

    #[test]
    fn system_files_follow_trust_and_flags_replace_discovery() -> anyhow::Result<()> {
        let root = tempfile::tempdir()?;
        let agent = root.path().join("agent");
        let cwd = root.path().join("work");
        std::fs::create_dir_all(&agent)?;
        std::fs::create_dir_all(cwd.join(".pi"))?;
        std::fs::write(agent.join("SYSTEM.md"), "global system")?;
        std::fs::write(agent.join("APPEND_SYSTEM.md"), "global append")?;
        std::fs::write(cwd.join(".pi").join("SYSTEM.md"), "project system")?;
        std::fs::write(cwd.join(".pi").join("APPEND_SYSTEM.md"), "project append")?;
        std::fs::write(cwd.join("extra.md"), "from a file")?;
        let options = PromptOptions::default();
        let untrusted = PromptSources::discover(&cwd, &agent, false, &options);
        assert_eq!(untrusted.custom_prompt.as_deref(), Some("global system"));
        assert_eq!(untrusted.append, ["global append"]);
        let trusted = PromptSources::discover(&cwd, &agent, true, &options);
        assert_eq!(trusted.custom_prompt.as_deref(), Some("project system"));
        assert_eq!(trusted.append, ["project append"]);
        let flags = PromptOptions {
            system_prompt: Some("flag system".into()),
            append_system_prompt: Some(vec!["extra.md".into(), String::new(), "text".into()]),
            no_context_files: true,
        };
        std::fs::write(cwd.join("AGENTS.md"), "context")?;
        let flagged = PromptSources::discover(&cwd, &agent, true, &flags);
        assert_eq!(flagged.custom_prompt.as_deref(), Some("flag system"));
        assert_eq!(flagged.append, ["from a file", "text"]);
        assert!(flagged.context_files.is_empty());
        std::fs::write(agent.join("SYSTEM.md"), "")?;
        let empty = PromptSources::discover(&cwd, &agent, false, &options);
        assert_eq!(empty.custom_prompt, None);
        assert_eq!(empty.context_files.len(), 1);
        Ok(())
    }
}
