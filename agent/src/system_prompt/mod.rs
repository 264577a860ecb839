//! The system prompt, in the order the reference assembles it: the base prompt (ours, or a
//! replacement from `--system-prompt` / `SYSTEM.md`), the appended text
//! (`--append-system-prompt` / `APPEND_SYSTEM.md`), the project context files (`AGENTS.md`,
//! `CLAUDE.md` ... of the agent folder and of the working folder and its ancestors), the skills
//! the model may load with `read`, and last the working folder. [`sources`] finds the texts;
//! [`build`] puts a prompt together from them, the active tools and the skills it is given.

use std::path::Path;

mod sources;

pub use sources::{CONTEXT_FILE_NAMES, ContextFile, PromptOptions, PromptSources, context_files};

/// What a tool that is not built in (an extension's) adds to the system prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolPrompt {
    /// The tool's name.
    pub name: String,
    /// Its line in the tool list, on one line (runs of white space become one space).
    pub snippet: Option<String>,
    /// Its guidelines, trimmed, without empty or repeated ones.
    pub guidelines: Vec<String>,
}

/// A skill as the prompt lists it: what it is for and where its file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PromptSkill<'a> {
    /// Its name.
    pub name: &'a str,
    /// What it is for.
    pub description: &'a str,
    /// Its file, which the model loads with `read`.
    pub location: &'a Path,
}

/// What one prompt is built from.
#[derive(Debug, Clone, Copy)]
pub struct PromptInputs<'a> {
    /// The working folder.
    pub cwd: &'a Path,
    /// The discovered replacement, appended texts and context files.
    pub sources: &'a PromptSources,
    /// The skills the model may load.
    pub skills: &'a [PromptSkill<'a>],
    /// The names of the active tools, in order.
    pub tools: &'a [&'a str],
    /// What extension tools add: their line in the tool list (listed only with one, replacing
    /// ours for a built-in tool's name) and their guidelines.
    pub extension_tools: &'a [ToolPrompt],
}

/// What our base prompt says of a built-in tool, and the guidelines it brings.
fn tool_line(name: &str) -> Option<(&'static str, &'static [&'static str])> {
    Some(match name {
        "read" => (
            "Read a file's contents (text, or an image)",
            &["Use read to look at files rather than cat or sed"],
        ),
        "bash" => (
            "Run a shell command in the working directory",
            &["The PI_* environment variables name the current model and session"],
        ),
        "edit" => (
            "Replace exact text in a file; several separate replacements fit in one call",
            &[
                "Use edit for precise changes: each edits[].oldText must match the file exactly",
                "Put several changes to one file into one edit call with several edits[] entries",
                "Every edits[].oldText is matched against the original file; keep the entries \
apart, never overlapping",
                "Keep each edits[].oldText short but unique in the file",
            ],
        ),
        "write" => (
            "Create a file or overwrite one completely",
            &["Use write for new files or whole rewrites only"],
        ),
        "grep" => ("Search file contents", &[]),
        "find" => ("Find files by name pattern", &[]),
        "ls" => ("List a folder", &[]),
        _ => return None,
    })
}

/// The guidelines a built-in tool brings to the system prompt, which `pi.getAllTools` reports
/// as its `promptGuidelines`; `None` for one that brings none (`grep`, `find`, `ls`), as in the
/// reference, or a name that is not built in.
pub fn builtin_guidelines(name: &str) -> Option<&'static [&'static str]> {
    tool_line(name)
        .map(|(_, guidelines)| guidelines)
        .filter(|guidelines| !guidelines.is_empty())
}

/// Our base prompt: who the agent is, its tools and working rules.
fn base_prompt(tools: &[&str], extension_tools: &[ToolPrompt]) -> String {
    let extension = |name: &str| extension_tools.iter().find(|tool| tool.name == name);
    let lines: Vec<String> = tools
        .iter()
        .filter_map(|name| {
            let line = match extension(name) {
                Some(tool) => tool.snippet.as_deref()?,
                None => tool_line(name)?.0,
            };
            Some(format!("- {name}: {line}"))
        })
        .collect();
    let tool_list = if lines.is_empty() {
        "(none)".to_owned()
    } else {
        lines.join("\n")
    };
    let mut guidelines: Vec<&str> = Vec::new();
    let has = |name: &str| tools.contains(&name);
    if has("bash") && !has("grep") && !has("find") && !has("ls") {
        guidelines.push("Use bash to list and search files (ls, rg, find)");
    }
    for name in tools {
        match extension(name) {
            Some(tool) => guidelines.extend(tool.guidelines.iter().map(String::as_str)),
            None => {
                if let Some((_, extra)) = tool_line(name) {
                    guidelines.extend(extra.iter().copied());
                }
            }
        }
    }
    guidelines.push("Keep your answers short");
    guidelines.push("Name the files you work on by their paths");
    let mut unique: Vec<&str> = Vec::new();
    for guideline in guidelines {
        if !unique.contains(&guideline) {
            unique.push(guideline);
        }
    }
    let guidelines = unique
        .iter()
        .map(|g| format!("- {g}"))
        .collect::<Vec<_>>()
        .join("\n");
    format!(
        "You are a coding assistant working inside pi-agent, a coding agent harness. You help \
the user by reading files, running commands, editing code and writing new files.

Available tools:
{tool_list}

The project may also give you other tools besides these.

Guidelines:
{guidelines}"
    )
}

/// The skills block: what each skill is for and where its file is.
fn skills_section(skills: &[PromptSkill<'_>]) -> String {
    if skills.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n\nSkills give specialised instructions for particular tasks. When a task fits a \
skill's description, load its file with the read tool first.\nPaths that a skill file gives \
relative to itself are relative to the skill's folder (the folder of its file): turn them into \
absolute paths before using them in tool calls.\n\n<available_skills>",
    );
    for skill in skills {
        out.push_str(&format!(
            "\n  <skill>\n    <name>{}</name>\n    <description>{}</description>\n    \
<location>{}</location>\n  </skill>",
            escape_xml(skill.name),
            escape_xml(skill.description),
            escape_xml(&skill.location.to_string_lossy()),
        ));
    }
    out.push_str("\n</available_skills>");
    out
}

fn escape_xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

/// Builds the system prompt.
pub fn build(inputs: PromptInputs<'_>) -> String {
    let sources = inputs.sources;
    let mut prompt = match &sources.custom_prompt {
        Some(custom) => custom.clone(),
        None => base_prompt(inputs.tools, inputs.extension_tools),
    };
    let append = sources.append.join("\n\n");
    if !append.is_empty() {
        prompt.push_str("\n\n");
        prompt.push_str(&append);
    }
    if !sources.context_files.is_empty() {
        prompt
            .push_str("\n\n<project_context>\n\nInstructions and conventions of this project:\n\n");
        for file in &sources.context_files {
            prompt.push_str(&format!(
                "<project_instructions path=\"{}\">\n{}\n</project_instructions>\n\n",
                file.path.to_string_lossy(),
                file.content
            ));
        }
        prompt.push_str("</project_context>\n");
    }
    if inputs.tools.contains(&"read") {
        prompt.push_str(&skills_section(inputs.skills));
    }
    let cwd = inputs.cwd.to_string_lossy().replace('\\', "/");
    prompt.push_str("\nCurrent working directory: ");
    prompt.push_str(&cwd);
    prompt
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOLS: [&str; 4] = ["read", "bash", "edit", "write"];

    fn skill<'a>(name: &'a str, description: &'a str, location: &'a str) -> PromptSkill<'a> {
        PromptSkill {
            name,
            description,
            location: Path::new(location),
        }
    }

    fn prompt(sources: &PromptSources, skills: &[PromptSkill<'_>], tools: &[&str]) -> String {
        build(PromptInputs {
            cwd: Path::new("/work/x"),
            sources,
            skills,
            tools,
            extension_tools: &[],
        })
    }

    #[test]
    fn extension_tools_are_listed_by_their_snippet_with_their_guidelines() {
        let sources = PromptSources::default();
        let extension_tools = [
            ToolPrompt {
                name: "deploy".into(),
                snippet: Some("Ship the build".into()),
                guidelines: vec!["Deploy only when asked".into()],
            },
            ToolPrompt {
                name: "quiet".into(),
                snippet: None,
                guidelines: vec!["Keep your answers short".into()],
            },
            ToolPrompt {
                name: "read".into(),
                snippet: None,
                guidelines: Vec::new(),
            },
        ];
        let prompt = build(PromptInputs {
            cwd: Path::new("/work/x"),
            sources: &sources,
            skills: &[],
            tools: &["read", "bash", "deploy", "quiet"],
            extension_tools: &extension_tools,
        });
        let tools = prompt
            .split("Available tools:\n")
            .nth(1)
            .and_then(|rest| rest.split("\n\n").next());
        assert_eq!(
            tools,
            Some("- bash: Run a shell command in the working directory\n- deploy: Ship the build")
        );
        let guidelines = prompt
            .split("Guidelines:\n")
            .nth(1)
            .and_then(|rest| rest.split("\nCurrent working directory").next());
        assert_eq!(
            guidelines,
            Some(
                "- Use bash to list and search files (ls, rg, find)\n\
- The PI_* environment variables name the current model and session\n\
- Deploy only when asked\n- Keep your answers short\n\
- Name the files you work on by their paths"
            )
        );
    }

    #[test]
    fn the_default_prompt_lists_the_tools_and_ends_with_the_working_folder() {
        let text = prompt(&PromptSources::default(), &[], &TOOLS);
        assert!(text.starts_with("You are a coding assistant"));
        assert!(text.contains("\n- read: "));
        assert!(text.contains("\n- write: "));
        assert!(text.contains("- Use bash to list and search files (ls, rg, find)\n"));
        assert!(!text.contains("<project_context>"));
        assert!(!text.contains("<available_skills>"));
        assert!(text.ends_with("paths\nCurrent working directory: /work/x"));
    }

    #[test]
    fn a_custom_prompt_replaces_the_base_and_keeps_append_context_skills_and_folder() {
        let sources = PromptSources {
            custom_prompt: Some("CUSTOM".into()),
            append: vec!["ONE".into(), "TWO".into()],
            context_files: vec![
                ContextFile {
                    path: "/a/AGENTS.md".into(),
                    content: "global".into(),
                },
                ContextFile {
                    path: "/work/x/CLAUDE.md".into(),
                    content: "local\n".into(),
                },
            ],
        };
        let text = prompt(
            &sources,
            &[skill("s1", "Does <x> & y", "/s/s1/SKILL.md")],
            &TOOLS,
        );
        let context = "<project_context>\n\nInstructions and conventions of this project:\n\n\
<project_instructions path=\"/a/AGENTS.md\">\nglobal\n</project_instructions>\n\n\
<project_instructions path=\"/work/x/CLAUDE.md\">\nlocal\n\n</project_instructions>\n\n\
</project_context>\n";
        assert!(text.starts_with(&format!("CUSTOM\n\nONE\n\nTWO\n\n{context}\n\n")));
        assert!(text.contains(
            "<available_skills>\n  <skill>\n    <name>s1</name>\n    \
<description>Does &lt;x&gt; &amp; y</description>\n    <location>/s/s1/SKILL.md</location>\n  \
</skill>\n</available_skills>\nCurrent working directory: /work/x"
        ));
        assert!(!text.contains("Available tools"));
    }

    #[test]
    fn skills_need_the_read_tool() {
        let skills = [skill("shown", "d", "/s/shown/SKILL.md")];
        let sources = PromptSources::default();
        assert!(prompt(&sources, &skills, &TOOLS).contains("<name>shown</name>"));
        assert!(!prompt(&sources, &skills, &["bash"]).contains("<available_skills>"));
        assert!(!prompt(&sources, &[], &TOOLS).contains("<available_skills>"));
    }
}
