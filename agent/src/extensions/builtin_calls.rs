//! `host.callTool`: a runtime module's call of one of the agent's built-in tools (what
//! `createReadTool(cwd)` and the other tool factories of pi-coding-agent make run), run by the
//! agent on its own task and answered to the host by id.

use serde_json::json;

use super::protocol::ToHost;
use super::{Host, HostClient, ReplyValue, SendError, client};
use crate::tools::ToolOutcome;

/// Where the result of one built-in tool call goes: the host's call `id`.
#[derive(Debug)]
pub struct ToolCallReply {
    client: HostClient,
    id: String,
}

impl Host {
    /// The reply to the host's built-in tool call `id`, to send once the tool is done.
    pub fn tool_call_reply(&self, id: String) -> ToolCallReply {
        ToolCallReply {
            client: self.client(),
            id,
        }
    }
}

impl ToolCallReply {
    /// Answers the call: the result's `content` and `details`, or `{error}` with the text of a
    /// failed call (the module's promise rejects with it, as the reference's tool throws).
    pub async fn send(self, outcome: &ToolOutcome) -> Result<(), SendError> {
        let value = if outcome.is_error {
            ReplyValue::Error {
                error: outcome.text(),
            }
        } else {
            ReplyValue::Data(json!({
                "content": outcome.content,
                "details": outcome.details,
            }))
        };
        let line = client::encode(&ToHost::Reply {
            id: &self.id,
            value: &value,
        })?;
        self.client.send_line(line).await
    }
}
