//! Tools that extensions register (`pi.registerTool`): offered to the model beside the built-in
//! ones and executed in the extension host. A run calls them through its [`HostClient`], which
//! writes to the host directly (not through the session, which may be holding an event for the
//! host's handlers meanwhile) and receives the call's partial results and result by the call's
//! id.

use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::client::HostClient;
use super::protocol::{HostReply, ToHost};
use crate::tools::{Tool, ToolContent, ToolOutcome, ToolUpdate};

impl HostClient {
    /// The tools extensions registered, each run in the host through this client.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.definitions()
            .into_iter()
            .map(|definition| {
                let tool: Arc<dyn Tool> =
                    Arc::new(super::tool::ExtensionTool::new(definition, self.clone()));
                tool
            })
            .collect()
    }

    /// Runs the tool `name` in the host: partial results go to `on_update`, `cancel` aborts the
    /// tool's signal (the tool decides how to end). A throw is a failed call with its message.
    pub(super) async fn execute(
        &self,
        call_id: &str,
        name: &str,
        args: &Value,
        cancel: &CancellationToken,
        on_update: &mut (dyn FnMut(ToolUpdate) + Send),
    ) -> ToolOutcome {
        let call = |id| ToHost::Tool {
            id,
            tool_call_id: call_id,
            name,
            args,
        };
        let Ok((id, mut replies)) = self.open_stream(call).await else {
            return ToolOutcome::error(HOST_GONE);
        };
        let mut abort_sent = false;
        loop {
            tokio::select! {
                reply = replies.recv() => match reply {
                    Some(HostReply::ToolUpdate { partial_result }) => {
                        let (content, details) = split_result(&partial_result);
                        on_update(ToolUpdate { content, details });
                    }
                    Some(HostReply::ToolResult { result, is_error }) => {
                        let (content, details) = split_result(&result);
                        return ToolOutcome {
                            content,
                            details,
                            is_error,
                            structured: None,
                        };
                    }
                    Some(_) | None => return ToolOutcome::error(HOST_GONE),
                },
                () = cancel.cancelled(), if !abort_sent => {
                    abort_sent = true;
                    // A host that is gone ends the call through its replies.
                    let _ = self.send(&ToHost::ToolAbort { id }).await;
                }
            }
        }
    }
}

/// The result of a call the host could not finish.
pub(super) const HOST_GONE: &str = "The extension host ended before the tool finished";

/// `{content, details}` of a (partial) result: its text and image blocks (other blocks cannot
/// reach the model) and its details, if any.
pub(super) fn split_result(result: &Value) -> (Vec<ToolContent>, Option<Value>) {
    let content = result
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| blocks.iter().filter_map(content_block).collect())
        .unwrap_or_default();
    (content, result.get("details").cloned())
}

fn content_block(block: &Value) -> Option<ToolContent> {
    let text = |key: &str| block.get(key).and_then(Value::as_str).map(str::to_owned);
    match block.get("type").and_then(Value::as_str)? {
        "text" => Some(ToolContent::Text {
            text: text("text").unwrap_or_default(),
        }),
        "image" => Some(ToolContent::Image {
            data: text("data")?,
            mime_type: text("mimeType")?,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn results_keep_text_and_image_blocks_and_their_details() {
        let result = json!({
            "content": [
                {"type": "text", "text": "hi"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource", "uri": "x"}
            ],
            "details": {"n": 1}
        });
        let (content, details) = split_result(&result);
        assert_eq!(
            content,
            vec![
                ToolContent::text("hi"),
                ToolContent::Image {
                    data: "AAAA".into(),
                    mime_type: "image/png".into()
                }
            ]
        );
        assert_eq!(details, Some(json!({"n": 1})));
        assert_eq!(split_result(&json!({})), (Vec::new(), None));
    }
}
