//! A tool an extension registered, as a [`Tool`] like the built-in ones: its arguments go to the
//! extension host as the model sent them, and the host runs it.

use futures_util::future::BoxFuture;
use serde_json::Value;

use super::HostClient;
use crate::tools::{
    ArgsError, OnUpdate, Prepared, Tool, ToolContext, ToolDefinition, ToolOutcome,
    ValidationWording,
};

/// A registered tool, run in the host through the host client of the run that offers it.
#[derive(Debug)]
pub(super) struct ExtensionTool {
    definition: ToolDefinition,
    client: HostClient,
}

impl ExtensionTool {
    pub(super) fn new(definition: ToolDefinition, client: HostClient) -> Self {
        Self { definition, client }
    }
}

impl Tool for ExtensionTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    /// The extension checks its own arguments: they go to it as they are.
    fn prepare(&self, args: &Value, _wording: ValidationWording) -> Result<Prepared, ArgsError> {
        Ok(Prepared::new(args.clone()))
    }

    /// A cancelled run aborts the tool's signal; a throw is a failed call with its message.
    fn run<'a>(
        &'a self,
        call_id: &'a str,
        call: Prepared,
        ctx: &'a ToolContext,
        on_update: OnUpdate<'a>,
    ) -> BoxFuture<'a, ToolOutcome> {
        Box::pin(async move {
            let args = call.into_args();
            self.client
                .execute(call_id, self.name(), &args, &ctx.cancel, on_update)
                .await
        })
    }
}
