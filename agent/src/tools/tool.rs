//! One trait for every tool a run offers, built-in or registered by an extension, and the set of
//! tools a run offers. A call is prepared first (unknown tools and invalid arguments fail there,
//! before execution, as in the reference), then run.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::Value;

use super::args::{ArgsError, BashArgs, EditArgs, FindArgs, GrepArgs, LsArgs, ReadArgs, WriteArgs};
use super::{ToolContext, ToolDefinition, ToolOutcome, ToolResult, ToolSelection, ToolUpdate};
use super::{ValidationWording, args, bash, edit, find, grep, ls, read, schema, write};

/// Where a running tool sends its partial results.
pub type OnUpdate<'a> = &'a mut (dyn FnMut(ToolUpdate) + Send);

/// A tool: what the model sees of it, how its arguments are checked, and how a call runs.
pub trait Tool: Send + Sync + std::fmt::Debug {
    /// The tool as the model sees it.
    fn definition(&self) -> &ToolDefinition;

    /// The name the model calls it by.
    fn name(&self) -> &str {
        self.definition().name
    }

    /// Checks the model's arguments against the tool's schema, coerced as the reference
    /// coerces them (an extension's tool takes them as they are).
    fn prepare(&self, args: &Value, wording: ValidationWording) -> Result<Prepared, ArgsError>;

    /// Runs the call `call_id` with prepared arguments; partial results go to `on_update`.
    fn run<'a>(
        &'a self,
        call_id: &'a str,
        call: Prepared,
        ctx: &'a ToolContext,
        on_update: OnUpdate<'a>,
    ) -> BoxFuture<'a, ToolOutcome>;
}

/// A call's arguments as [`Tool::prepare`] made them.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    args: Value,
}

impl Prepared {
    /// Arguments ready to run.
    pub fn new(args: Value) -> Self {
        Self { args }
    }

    /// The arguments.
    pub fn into_args(self) -> Value {
        self.args
    }
}

/// How a built-in tool runs checked arguments.
type BuiltinRun = for<'a> fn(Value, &'a ToolContext, OnUpdate<'a>) -> BoxFuture<'a, ToolResult>;

/// A built-in tool: its definition, its schema's checks, and its own run.
struct Builtin {
    definition: ToolDefinition,
    run: BuiltinRun,
}

impl std::fmt::Debug for Builtin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builtin")
            .field("name", &self.definition.name)
            .finish_non_exhaustive()
    }
}

impl Tool for Builtin {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn prepare(&self, args: &Value, wording: ValidationWording) -> Result<Prepared, ArgsError> {
        args::check(self.definition.name, args, wording).map(Prepared::new)
    }

    fn run<'a>(
        &'a self,
        _call_id: &'a str,
        call: Prepared,
        ctx: &'a ToolContext,
        on_update: OnUpdate<'a>,
    ) -> BoxFuture<'a, ToolOutcome> {
        let run = (self.run)(call.args, ctx, on_update);
        Box::pin(async move {
            run.await
                .unwrap_or_else(|error| ToolOutcome::error(error.message))
        })
    }
}

/// How each built-in tool runs checked arguments, by name.
const BUILTIN_RUNS: [(&str, BuiltinRun); 7] = [
    ("read", |args, ctx, _| {
        Box::pin(read::run(ReadArgs::from_checked(&args), ctx))
    }),
    ("bash", |args, ctx, on_update| {
        Box::pin(bash::run(BashArgs::from_checked(&args), ctx, on_update))
    }),
    ("edit", |args, ctx, _| {
        Box::pin(edit::run(EditArgs::from_checked(&args), ctx))
    }),
    ("write", |args, ctx, _| {
        Box::pin(write::run(WriteArgs::from_checked(&args), ctx))
    }),
    ("grep", |args, ctx, _| {
        Box::pin(grep::run(GrepArgs::from_checked(&args), ctx))
    }),
    ("find", |args, ctx, _| {
        Box::pin(find::run(FindArgs::from_checked(&args), ctx))
    }),
    ("ls", |args, ctx, _| {
        Box::pin(ls::run(LsArgs::from_checked(&args), ctx))
    }),
];

/// A call whose tool was found and whose arguments passed its checks, ready to run.
#[derive(Debug, Clone)]
pub struct PreparedCall {
    tool: Arc<dyn Tool>,
    args: Prepared,
}

impl PreparedCall {
    /// The tool's name.
    pub fn name(&self) -> &str {
        self.tool.name()
    }

    /// The tool, and the prepared arguments.
    pub fn into_parts(self) -> (Arc<dyn Tool>, Prepared) {
        (self.tool, self.args)
    }

    /// Runs the call `call_id`; partial results go to `on_update`.
    pub async fn run(
        self,
        call_id: &str,
        ctx: &ToolContext,
        on_update: &mut (dyn FnMut(ToolUpdate) + Send),
    ) -> ToolOutcome {
        self.tool.run(call_id, self.args, ctx, on_update).await
    }
}

/// Tools in the order the model sees them; cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct ToolSet {
    tools: Vec<Arc<dyn Tool>>,
}

impl ToolSet {
    /// The built-in tools, in the reference's order: the four default ones, then `grep`,
    /// `find` and `ls`, which are offered only when `--tools` names them.
    pub fn builtin() -> Self {
        let tools = schema::definitions()
            .into_iter()
            .filter_map(|definition| {
                let (_, run) = BUILTIN_RUNS
                    .iter()
                    .find(|(name, _)| *name == definition.name)?;
                let tool: Arc<dyn Tool> = Arc::new(Builtin {
                    definition,
                    run: *run,
                });
                Some(tool)
            })
            .collect();
        Self { tools }
    }

    /// Every tool there is: the built-in ones (one an extension registered with a built-in
    /// tool's name in its place), then the other tools extensions registered.
    pub fn available(extension_tools: &[Arc<dyn Tool>]) -> Self {
        let mut tools = Self::builtin().tools;
        for tool in extension_tools {
            match tools
                .iter_mut()
                .find(|builtin| builtin.name() == tool.name())
            {
                Some(builtin) => *builtin = Arc::clone(tool),
                None => tools.push(Arc::clone(tool)),
            }
        }
        Self { tools }
    }

    /// The tools a run offers: of those [`ToolSet::available`], the ones `selection` (the tool
    /// flags) makes active, in its order.
    pub fn for_run(selection: &ToolSelection, extension_tools: &[Arc<dyn Tool>]) -> Self {
        let extension_names: Vec<&str> = extension_tools.iter().map(|tool| tool.name()).collect();
        let available = Self::available(extension_tools).tools;
        Self {
            tools: selection.select(available, |tool| tool.name(), &extension_names),
        }
    }

    /// This set without the tools the tool flags never allow.
    pub fn allowed_by(mut self, selection: &ToolSelection) -> Self {
        self.tools.retain(|tool| selection.allows(tool.name()));
        self
    }

    /// The tools as the model sees them.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.tools
            .iter()
            .map(|tool| tool.definition().clone())
            .collect()
    }

    /// The tools' names.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|tool| tool.name()).collect()
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.iter().find(|tool| tool.name() == name)
    }

    /// Looks the tool up and checks `args`. On failure, the result the call ends with:
    /// `Tool NAME not found`, or `Validation failed for tool "NAME": ...` worded as `wording`
    /// says.
    pub fn prepare(
        &self,
        name: &str,
        args: &Value,
        wording: ValidationWording,
    ) -> Result<PreparedCall, ToolOutcome> {
        let Some(tool) = self.get(name) else {
            return Err(ToolOutcome::error(format!("Tool {name} not found")));
        };
        tool.prepare(args, wording)
            .map(|args| PreparedCall {
                tool: Arc::clone(tool),
                args,
            })
            .map_err(|error| ToolOutcome::error(error.to_string()))
    }
}
