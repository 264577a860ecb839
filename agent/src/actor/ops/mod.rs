//! The actor's operations in flight, each an explicit state machine in its own file with its
//! transitions written at its top (`settle`, `replacement`, `reload`, `extension_command`,
//! `prompt_start`, `agent_loop`, `retry_wait`, `bash`, `compaction`, `model_select`,
//! `tree_navigation`); the loop's
//! input gates are their conjunction. Every host request the actor waits for names the
//! operation it goes to (`ids::OpRoute`), and what waits for the agent to settle names its
//! key too.

pub(super) mod agent_loop;
pub(super) mod bash;
pub(super) mod compaction;
pub(super) mod extension_command;
pub(super) mod gates;
pub(super) mod ids;
pub(super) mod model_select;
pub(super) mod prompt_start;
pub(super) mod reload;
pub(super) mod replacement;
pub(super) mod retry_wait;
pub(super) mod settle;
pub(super) mod tree_navigation;

use std::collections::BTreeMap;

use gates::Gates;
use ids::{Answer, OpKey};

/// Every operation in flight, owned by the actor.
#[derive(Debug, Default)]
pub(super) struct Operations {
    /// The key of the next operation.
    next_key: u64,
    /// The `session_start` handlers at start-up.
    pub(super) startup: settle::Startup,
    /// What waits for the agent to settle, and the `agent_settled` handlers.
    pub(super) settle: settle::Settle,
    /// Session replacements before their swap.
    pub(super) replacements: BTreeMap<OpKey, replacement::Replacement>,
    /// `ctx.reload()` calls whose `session_shutdown` handlers run.
    pub(super) reloads: BTreeMap<OpKey, reload::Reload>,
    /// Session changes whose extensions are loaded afresh and started.
    pub(super) restarts: BTreeMap<OpKey, reload::Restart>,
    /// The agent loop's events: flowing, or one held for its handlers.
    pub(super) agent_loop: agent_loop::AgentLoop,
    /// Extension commands running and what waits for their answers.
    pub(super) commands: extension_command::ExtensionCommands,
    /// Client prompts waiting for their `input` or `before_agent_start` handlers.
    pub(super) prompts: prompt_start::PromptStarts,
    /// The automatic retry of the current failure.
    pub(super) retry: retry_wait::RetryWait,
    /// `bash` commands in flight.
    pub(super) bash: BTreeMap<OpKey, bash::ShellCommand>,
    /// Compactions in flight.
    pub(super) compaction: compaction::Compactions,
    /// A command's `ctx.navigateTree()` calls in flight.
    pub(super) tree: BTreeMap<OpKey, tree_navigation::TreeNavigation>,
    /// Model changes whose answers wait for their `model_select` handlers.
    pub(super) model_selects: BTreeMap<OpKey, model_select::AfterModelSelect>,
}

impl Operations {
    /// A key for a new operation.
    pub(super) fn key(&mut self) -> OpKey {
        self.next_key += 1;
        OpKey(self.next_key)
    }

    /// Whether some session change answers the host (a command's `ctx` call): one at a time.
    pub(super) fn answers_host(&self) -> bool {
        let host = |answer: &Answer| matches!(answer, Answer::Host(_));
        !self.reloads.is_empty()
            || self.replacements.values().any(|op| host(op.answer()))
            || self.restarts.values().any(|op| host(op.answer()))
    }

    /// What the loop may take now: what every active operation allows.
    pub(super) fn gates(&self) -> Gates {
        self.restarts
            .values()
            .map(reload::Restart::gates)
            .fold(self.settle.gates().and(self.startup.gates()), Gates::and)
            .and(self.commands.gates())
            .and(self.agent_loop.gates())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    #[test]
    fn gates_are_the_conjunction_of_the_operations() {
        let mut ops = Operations::default();
        assert_eq!(ops.gates(), Gates::OPEN);
        let key = ops.key();
        let restart =
            reload::Restart::reloading(Answer::Host("r".into()), Value::Null, "new", None);
        ops.restarts.insert(key, restart);
        assert_eq!(ops.gates(), Gates::NO_LINES);
        assert!(ops.answers_host(), "a ctx call's change is one at a time");
        ops.restarts.clear();
        ops.startup = settle::Startup::Handlers;
        assert_eq!(ops.gates(), Gates::NO_LINES);
        ops.startup = settle::Startup::Done;
        assert_eq!(ops.gates(), Gates::OPEN);
        assert!(!ops.answers_host());
        let held = pi_rpc_protocol::event::Event::AgentStart(Default::default());
        ops.agent_loop = agent_loop::AgentLoop::Held(Box::new(held));
        assert!(!ops.gates().loop_events, "a held loop event holds the rest");
        assert!(ops.gates().lines);
    }

    #[test]
    fn keys_are_unique() {
        let mut ops = Operations::default();
        let first = ops.key();
        assert_ne!(first, ops.key());
    }
}
