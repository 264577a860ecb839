//! The system prompt: who the agent is, its tools, a few working rules, and — last, as the
//! reference ends its prompt — the working folder.

use std::path::Path;

/// Builds the system prompt for the working folder `cwd`.
pub fn build(cwd: &Path) -> String {
    let cwd = cwd.to_string_lossy().replace('\\', "/");
    format!(
        "You are a coding assistant working inside pi-agent, a coding agent harness. You help \
the user by reading files, running commands, editing code and writing new files.

Available tools:
- read: Read the contents of a file
- bash: Run a shell command in the working directory
- edit: Replace exact text in a file
- write: Create or overwrite a file

Guidelines:
- Use bash for file operations like ls, rg, find
- Be concise in your responses
- Show file paths clearly when working with files
Current working directory: {cwd}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_ends_with_the_working_folder() {
        assert!(build(Path::new("/work/x")).ends_with("\nCurrent working directory: /work/x"));
    }
}
