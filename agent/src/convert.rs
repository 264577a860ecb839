//! The conversation as the model sees it: user, assistant and tool-result messages pass as they
//! are; a `bash` command run by the client becomes a user message describing it (unless it was
//! kept out of context), an extension's custom message becomes a user message, and compaction
//! and branch summaries become user messages that present the summary.

use std::borrow::Borrow;
use std::sync::Arc;

use pi_rpc_protocol::content::{MessageContent, TextContent, UserContent};
use pi_rpc_protocol::message::{AgentMessage, BashExecutionMessage, UserMessage};

use crate::store::{Role, SharedMessage};

/// Converts the session's messages to the user/assistant/toolResult messages a provider sends
/// (copies).
pub fn convert_to_llm<M: Borrow<AgentMessage>>(messages: &[M]) -> Vec<AgentMessage> {
    messages
        .iter()
        .filter_map(|message| match convert(message.borrow())? {
            Converted::Same => Some(message.borrow().clone()),
            Converted::New(message) => Some(*message),
        })
        .collect()
}

/// [`convert_to_llm`] for a run's history: user, assistant and tool-result messages stay
/// shared (known by their role, so one read from a session file is not parsed here); the
/// others are parsed to be converted.
pub fn convert_shared(messages: &[Arc<SharedMessage>]) -> Vec<Arc<SharedMessage>> {
    messages
        .iter()
        .filter_map(|message| {
            if matches!(
                message.role(),
                Role::User | Role::Assistant | Role::ToolResult
            ) {
                return Some(Arc::clone(message));
            }
            match message.with_typed(convert)?? {
                Converted::Same => Some(Arc::clone(message)),
                Converted::New(converted) => Some(SharedMessage::new(*converted)),
            }
        })
        .collect()
}

/// What one message becomes for the model.
enum Converted {
    /// It passes as it is.
    Same,
    /// It stands as this user message.
    New(Box<AgentMessage>),
}

fn convert(message: &AgentMessage) -> Option<Converted> {
    let converted = match message {
        AgentMessage::User(_) | AgentMessage::Assistant(_) | AgentMessage::ToolResult(_) => {
            return Some(Converted::Same);
        }
        AgentMessage::BashExecution(bash) => {
            if bash.exclude_from_context == Some(true) {
                return None;
            }
            user_text(bash_execution_text(bash), bash.timestamp)
        }
        AgentMessage::Custom(custom) => {
            let content = match &custom.content {
                MessageContent::Text(text) => {
                    vec![UserContent::Text(TextContent::new(text.clone()))]
                }
                MessageContent::Blocks(blocks) => blocks.clone(),
            };
            AgentMessage::User(UserMessage {
                content: MessageContent::Blocks(content),
                timestamp: custom.timestamp,
                extra: Default::default(),
            })
        }
        AgentMessage::CompactionSummary(summary) => user_text(
            format!(
                "The conversation history before this point was compacted into the following summary:\n\n<summary>\n{}\n</summary>",
                summary.summary
            ),
            summary.timestamp,
        ),
        AgentMessage::BranchSummary(summary) => user_text(
            format!(
                "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n{}</summary>",
                summary.summary
            ),
            summary.timestamp,
        ),
        // The system prompt and tools go with every request as such.
        AgentMessage::System(_) => return None,
    };
    Some(Converted::New(Box::new(converted)))
}

/// The text that stands for an image when the settings block images (`images.blockImages`).
pub const IMAGE_BLOCKED_TEXT: &str = "Image reading is disabled.";

/// With `block`, replaces every image of the user and tool-result messages by the text
/// [`IMAGE_BLOCKED_TEXT`] (one text for a run of images), as the reference does for
/// `images.blockImages`; without, returns the messages as they are.
pub fn block_images(mut messages: Vec<Arc<SharedMessage>>, block: bool) -> Vec<Arc<SharedMessage>> {
    if !block {
        return messages;
    }
    let placeholder = || UserContent::Text(TextContent::new(IMAGE_BLOCKED_TEXT));
    let is_placeholder = |block: &UserContent| matches!(block, UserContent::Text(text) if text.text == IMAGE_BLOCKED_TEXT);
    let replace = |blocks: &mut Vec<UserContent>| {
        if !blocks
            .iter()
            .any(|block| matches!(block, UserContent::Image(_)))
        {
            return;
        }
        let mut replaced: Vec<UserContent> = Vec::with_capacity(blocks.len());
        for block in blocks.drain(..) {
            let block = match block {
                UserContent::Image(_) => placeholder(),
                other => other,
            };
            if is_placeholder(&block) && replaced.last().is_some_and(is_placeholder) {
                continue;
            }
            replaced.push(block);
        }
        *blocks = replaced;
    };
    let is_image = |block: &UserContent| matches!(block, UserContent::Image(_));
    for message in &mut messages {
        if !matches!(message.role(), Role::User | Role::ToolResult) {
            continue;
        }
        let has_images = message.with_typed(|message| match message {
            AgentMessage::User(user) => {
                matches!(&user.content, MessageContent::Blocks(blocks) if blocks.iter().any(is_image))
            }
            AgentMessage::ToolResult(result) => result.content.iter().any(is_image),
            _ => false,
        });
        // Only a message with images is copied.
        let Some(mut copy) = has_images
            .unwrap_or(false)
            .then(|| message.typed_copy())
            .flatten()
        else {
            continue;
        };
        match &mut copy {
            AgentMessage::User(user) => {
                if let MessageContent::Blocks(blocks) = &mut user.content {
                    replace(blocks);
                }
            }
            AgentMessage::ToolResult(result) => replace(&mut result.content),
            _ => {}
        }
        *message = SharedMessage::new(copy);
    }
    messages
}

fn user_text(text: String, timestamp: u64) -> AgentMessage {
    AgentMessage::User(UserMessage {
        content: MessageContent::Blocks(vec![UserContent::Text(TextContent::new(text))]),
        timestamp,
        extra: Default::default(),
    })
}

/// "Ran `cmd`" with the output in a fenced block, then the cancellation, exit code and
/// truncation notes, as the reference words them for the model.
pub fn bash_execution_text(bash: &BashExecutionMessage) -> String {
    let mut text = format!("Ran `{}`\n", bash.command);
    if bash.output.is_empty() {
        text.push_str("(no output)");
    } else {
        text.push_str(&format!("```\n{}\n```", bash.output));
    }
    if bash.cancelled {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = bash.exit_code.filter(|code| *code != 0) {
        text.push_str(&format!("\n\nCommand exited with code {code}"));
    }
    if bash.truncated
        && let Some(path) = &bash.full_output_path
    {
        text.push_str(&format!("\n\n[Output truncated. Full output: {path}]"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bash(output: &str, exit_code: Option<i64>, cancelled: bool) -> BashExecutionMessage {
        BashExecutionMessage {
            command: "ls".into(),
            output: output.into(),
            exit_code,
            cancelled,
            truncated: false,
            full_output_path: None,
            timestamp: 5,
            exclude_from_context: None,
            extra: Default::default(),
        }
    }

    #[test]
    fn bash_executions_become_user_text() {
        assert_eq!(
            bash_execution_text(&bash("a\nb", Some(0), false)),
            "Ran `ls`\n```\na\nb\n```"
        );
        assert_eq!(
            bash_execution_text(&bash("", Some(2), false)),
            "Ran `ls`\n(no output)\n\nCommand exited with code 2"
        );
        assert_eq!(
            bash_execution_text(&bash("x", None, true)),
            "Ran `ls`\n```\nx\n```\n\n(command cancelled)"
        );
        let mut excluded = bash("x", Some(0), false);
        excluded.exclude_from_context = Some(true);
        let converted = convert_to_llm(&[
            AgentMessage::BashExecution(bash("x", Some(0), false)),
            AgentMessage::BashExecution(excluded),
        ]);
        assert_eq!(converted.len(), 1);
        assert!(matches!(&converted[0], AgentMessage::User(user) if user.timestamp == 5));
    }
}
