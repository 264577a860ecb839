//! The extensions' part in a run ([`RunHooks`]): their tools, the tools they chose to offer,
//! and their `tool_call`, `tool_result` and `context` handlers through the [`HostClient`], and
//! the run's system prompt built anew from the resources once they register or choose tools
//! during the run.

use std::path::PathBuf;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use pi_rpc_protocol::message::AgentMessage;
use serde_json::Value;

use super::HostClient;
use crate::agent_loop::{BeforeCall, RunHooks};
use crate::resources::Resources;
use crate::tools::{Tool, ToolOutcome, ToolSelection};

/// The hooks of one run; see the module's documentation.
#[derive(Debug)]
pub struct ExtensionRunHooks {
    client: HostClient,
    prompt: Option<PromptSource>,
}

/// What a run's system prompt is built from when the registered tools change.
#[derive(Debug)]
struct PromptSource {
    resources: Resources,
    cwd: PathBuf,
    /// The registry's version the run's system prompt was built from.
    version: u64,
}

impl ExtensionRunHooks {
    /// Hooks whose run keeps the system prompt it was given (`before_agent_start` handlers
    /// gave it).
    pub fn new(client: HostClient) -> Self {
        Self {
            client,
            prompt: None,
        }
    }

    /// Hooks whose run's system prompt `resources` build for `cwd` from the tools registered
    /// and chosen now, and build anew once they change, as the reference does after each turn.
    pub fn rebuilding_prompt(client: HostClient, resources: Resources, cwd: PathBuf) -> Self {
        let version = client.registry_version();
        Self {
            client,
            prompt: Some(PromptSource {
                resources,
                cwd,
                version,
            }),
        }
    }
}

impl RunHooks for ExtensionRunHooks {
    fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.client.tools()
    }

    fn selection(&self) -> Option<ToolSelection> {
        self.client.tool_selection()
    }

    fn before_call<'a>(
        &'a self,
        call_id: &'a str,
        name: &'a str,
        args: &'a Value,
    ) -> BoxFuture<'a, BeforeCall> {
        Box::pin(self.client.before_call(call_id, name, args))
    }

    fn after_call<'a>(
        &'a self,
        call_id: &'a str,
        name: &'a str,
        args: &'a Value,
        outcome: ToolOutcome,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(self.client.after_call(call_id, name, args, outcome))
    }

    fn transform_context<'a>(
        &'a self,
        messages: &'a [&'a AgentMessage],
    ) -> BoxFuture<'a, Option<Vec<AgentMessage>>> {
        Box::pin(self.client.transform_context(messages))
    }

    fn system_prompt(&self) -> Option<String> {
        let source = self.prompt.as_ref()?;
        (self.client.registry_version() != source.version).then(|| {
            let selection = self.client.tool_selection();
            source.resources.system_prompt_for(
                selection.as_ref().unwrap_or(&source.resources.tools),
                &source.cwd,
                &self.client.tools(),
                &self.client.prompts(),
            )
        })
    }
}
