//! What a run takes from outside the loop besides its history and model: the extensions' part,
//! as the loop sees it. The tools they registered (each a [`Tool`], offered beside the built-in
//! ones) and the tools they chose to offer (`pi.setActiveTools`), their handlers around each
//! tool call (`tool_call`, `tool_result`) and around the messages of each model request
//! (`context`), and the system prompt rebuilt once they register or choose tools. The loop
//! takes the tools and the system prompt at the run's start and after each turn's end (its
//! `turn_end` handlers done), as the reference does. The extensions implement it
//! (`extensions::ExtensionRunHooks`); the loop calls it without knowing them, and the tools
//! never see it.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use pi_rpc_protocol::message::AgentMessage;
use serde_json::Value;

use crate::tools::{Tool, ToolOutcome, ToolSelection};

/// What the `tool_call` handlers decided.
#[derive(Debug, Clone, PartialEq)]
pub enum BeforeCall {
    /// Run the call with these arguments (as given, or as a handler changed them).
    Run(Value),
    /// Do not run it: the call fails with this text (the block's reason, or the handler's error).
    Fail(String),
}

/// The hooks a run takes in its `RunSpec`; see the module's documentation.
pub trait RunHooks: Send + Sync + std::fmt::Debug {
    /// The tools extensions registered, in registration order (a run sees a tool registered
    /// during it from its next model request on).
    fn tools(&self) -> Vec<Arc<dyn Tool>>;

    /// The tools to offer as the session chose them now (the tool flags' choice, or the one
    /// `pi.setActiveTools` made during the run); `None` to keep the run's.
    fn selection(&self) -> Option<ToolSelection>;

    /// The `tool_call` handlers, before the call `call_id` runs: they may change its arguments
    /// or block it.
    fn before_call<'a>(
        &'a self,
        call_id: &'a str,
        name: &'a str,
        args: &'a Value,
    ) -> BoxFuture<'a, BeforeCall>;

    /// The `tool_result` handlers, on the outcome of the call `call_id`: each may replace its
    /// content, details or error flag.
    fn after_call<'a>(
        &'a self,
        call_id: &'a str,
        name: &'a str,
        args: &'a Value,
        outcome: ToolOutcome,
    ) -> BoxFuture<'a, ToolOutcome>;

    /// The `context` handlers, on the messages of the next model request: the messages to send
    /// instead (the conversation itself stays), or `None` to send them as they are.
    fn transform_context<'a>(
        &'a self,
        messages: &'a [&'a AgentMessage],
    ) -> BoxFuture<'a, Option<Vec<AgentMessage>>>;

    /// The run's system prompt built anew when extensions registered or chose tools since the
    /// run began; `None` to keep the one it has.
    fn system_prompt(&self) -> Option<String>;
}
