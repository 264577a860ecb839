//! Tool names as Claude Code spells them, used with Claude subscription (OAuth) tokens.
//!
//! With an OAuth token the reference presents itself as Claude Code: a tool whose name matches
//! one of Claude Code's tools (ignoring case) is sent in Claude Code's casing, and a name coming
//! back is mapped to the request's own tool of that name.

/// Claude Code's tool names, canonical casing.
const CLAUDE_CODE_TOOLS: [&str; 17] = [
    "Read",
    "Write",
    "Edit",
    "Bash",
    "Grep",
    "Glob",
    "AskUserQuestion",
    "EnterPlanMode",
    "ExitPlanMode",
    "KillShell",
    "NotebookEdit",
    "Skill",
    "Task",
    "TaskOutput",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
];

/// `name` in Claude Code's casing when it is one of its tools.
pub(crate) fn to_claude_code_name(name: &str) -> String {
    let lower = name.to_lowercase();
    CLAUDE_CODE_TOOLS
        .iter()
        .find(|tool| tool.to_lowercase() == lower)
        .map_or_else(|| name.to_owned(), |tool| (*tool).to_owned())
}

/// The request's tool named `name` (ignoring case), else `name` as given.
pub(crate) fn from_claude_code_name(name: &str, tools: &[String]) -> String {
    let lower = name.to_lowercase();
    tools
        .iter()
        .find(|tool| tool.to_lowercase() == lower)
        .map_or_else(|| name.to_owned(), Clone::clone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_claude_code_and_back() {
        assert_eq!(to_claude_code_name("read"), "Read");
        assert_eq!(to_claude_code_name("todowrite"), "TodoWrite");
        assert_eq!(to_claude_code_name("my_tool"), "my_tool");
        let tools = vec!["read".to_owned(), "bash".to_owned()];
        assert_eq!(from_claude_code_name("Read", &tools), "read");
        assert_eq!(from_claude_code_name("Grep", &tools), "Grep");
    }
}
