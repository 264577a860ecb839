//! The actor's operations in flight, each an explicit state machine in its own file with its
//! transitions written at its top; the loop's input gates are their conjunction.

pub(super) mod gates;
pub(super) mod settle;

use gates::Gates;

/// Every operation in flight, owned by the actor.
#[derive(Debug, Default)]
pub(super) struct Operations {
    /// What waits for the agent to settle, and the `agent_settled` handlers.
    pub(super) settle: settle::Settle,
}

impl Operations {
    /// What the loop may take now: what every active operation allows.
    pub(super) fn gates(&self) -> Gates {
        [self.settle.gates()]
            .into_iter()
            .fold(Gates::OPEN, Gates::and)
    }
}
