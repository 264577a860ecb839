//! Starting a session: a chosen session id, and the model and thinking level recorded when a
//! session starts (or resumes).

use std::path::PathBuf;

use super::{Error, Result, SessionStore};

/// Whether the reference accepts `id` as a session id: ASCII letters and digits, with `.`, `_`
/// and `-` inside.
pub fn is_valid_session_id(id: &str) -> bool {
    let bytes = id.as_bytes();
    let inner = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-');
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric() && last.is_ascii_alphanumeric() && bytes.iter().all(inner)
        }
        _ => false,
    }
}

impl SessionStore {
    /// Like [`SessionStore::new_session`] with a session id chosen by the user (`--session-id`),
    /// refused as the reference refuses it.
    pub fn new_session_with_id(
        &mut self,
        session_id: &str,
        parent_session: Option<&str>,
    ) -> Result<Option<PathBuf>> {
        if !is_valid_session_id(session_id) {
            return Err(Error::InvalidSessionId);
        }
        Ok(self.reset_to_new(session_id.to_owned(), parent_session))
    }

    /// Records the model and thinking level a session starts with, as the reference does when
    /// it creates the agent for a session: a session without messages gets a `model_change`
    /// (when there is a model) and a `thinking_level_change`; a resumed session with messages
    /// gets only a `thinking_level_change`, and only when its branch records none.
    pub fn record_start(
        &mut self,
        model: Option<(&str, &str)>,
        thinking_level: &str,
    ) -> Result<()> {
        let has_messages = !self.build_context().messages.is_empty();
        if has_messages {
            if !self.branch_has_thinking_level() {
                self.append_thinking_level_change(thinking_level)?;
            }
            return Ok(());
        }
        if let Some((provider, model_id)) = model {
            self.append_model_change(provider, model_id)?;
        }
        self.append_thinking_level_change(thinking_level)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_follow_the_reference_pattern() {
        for good in ["a", "a1", "A.b_c-d9", "0"] {
            assert!(is_valid_session_id(good), "{good}");
        }
        for bad in ["", "-a", "a-", ".", "a b", "é", "a/b"] {
            assert!(!is_valid_session_id(bad), "{bad}");
        }
    }
}
