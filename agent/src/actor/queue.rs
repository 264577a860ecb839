//! Steering and follow-up queues: `one-at-a-time` hands out one message per turn, `all` every
//! queued message at once.

use std::collections::VecDeque;

use pi_rpc_protocol::command::QueueMode;
use pi_rpc_protocol::content::{MessageContent, TaggedImage, TextContent, UserContent};
use pi_rpc_protocol::message::{AgentMessage, UserMessage};

/// The user message of a prompt or a queued message: its text first, then its images.
pub fn user_message(text: String, images: Option<Vec<TaggedImage>>) -> AgentMessage {
    let mut content = vec![UserContent::Text(TextContent::new(text))];
    for TaggedImage::Image(image) in images.into_iter().flatten() {
        content.push(UserContent::Image(image));
    }
    AgentMessage::User(UserMessage {
        content: MessageContent::Blocks(content),
        timestamp: crate::js::now_ms(),
        extra: Default::default(),
    })
}

/// Takes what the mode allows from the front of `queue`.
pub fn drain(queue: &mut VecDeque<AgentMessage>, mode: QueueMode) -> Vec<AgentMessage> {
    match mode {
        QueueMode::All => queue.drain(..).collect(),
        QueueMode::OneAtATime => queue.pop_front().into_iter().collect(),
    }
}

/// Removes the first queued text equal to `text`, steering first; true when one was removed.
pub fn remove_text(steering: &mut Vec<String>, follow_up: &mut Vec<String>, text: &str) -> bool {
    for list in [steering, follow_up] {
        if let Some(index) = list.iter().position(|queued| queued == text) {
            list.remove(index);
            return true;
        }
    }
    false
}

/// The text blocks of a message's content, joined without separator.
pub fn content_text(content: &MessageContent) -> String {
    match content {
        MessageContent::Text(text) => text.clone(),
        MessageContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                UserContent::Text(text) => Some(text.text.as_str()),
                UserContent::Image(_) => None,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pi_rpc_protocol::content::MessageContent;
    use pi_rpc_protocol::message::UserMessage;

    fn user(text: &str) -> AgentMessage {
        AgentMessage::User(UserMessage {
            content: MessageContent::Text(text.into()),
            timestamp: 0,
            extra: Default::default(),
        })
    }

    #[test]
    fn one_at_a_time_hands_out_one_message_and_all_hands_out_every_one() {
        let mut queue: VecDeque<AgentMessage> = [user("a"), user("b"), user("c")].into();
        assert_eq!(drain(&mut queue, QueueMode::OneAtATime), [user("a")]);
        assert_eq!(drain(&mut queue, QueueMode::All), [user("b"), user("c")]);
        assert!(drain(&mut queue, QueueMode::OneAtATime).is_empty());
    }

    #[test]
    fn a_delivered_text_leaves_the_steering_list_before_the_follow_up_list() {
        let mut steering = vec!["x".to_owned()];
        let mut follow_up = vec!["x".to_owned(), "y".to_owned()];
        assert!(remove_text(&mut steering, &mut follow_up, "x"));
        assert!(steering.is_empty());
        assert_eq!(follow_up, ["x", "y"]);
        assert!(!remove_text(&mut steering, &mut follow_up, "z"));
    }
}
