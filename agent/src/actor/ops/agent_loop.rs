//! The agent loop's events on their way out: an event some extension handles is held until its
//! handlers are done, so that what they cause is written first (as in the reference), and the
//! loop's later events wait behind it.
//!
//! | state | input | next | what happens |
//! |---|---|---|---|
//! | `Flowing` | a loop event no live extension handles | `Flowing` | written |
//! | `Flowing` | `agent_start` of a turn a running command triggered, no `agent_start` handler | `Flowing` | written, then the command's answer (`extension_command.rs`) |
//! | `Flowing` | a loop event some extension handles | `Held(event)` | it goes to the host; loop events wait |
//! | `Held(event)` | the handlers are done (or the host ended) | `Flowing` | the event is written (an `agent_start`: then a triggered turn's command answer) |
//!
//! (The loop itself is a task of `tasks.rs`; `State.streaming` says whether one runs.)

use pi_rpc_protocol::event::Event;

use super::gates::Gates;
use super::ids::OpRoute;
use crate::actor::State;
use crate::actor::extensions::handles_event;
use crate::extensions::HostEvent;

/// Where the loop's events are.
#[derive(Debug, Default)]
pub(in crate::actor) enum AgentLoop {
    /// They are written as they come.
    #[default]
    Flowing,
    /// This one waits for its handlers; later ones wait behind it.
    Held(Box<Event>),
}

impl AgentLoop {
    /// No loop events while one is held.
    pub(in crate::actor) fn gates(&self) -> Gates {
        match self {
            Self::Flowing => Gates::OPEN,
            Self::Held(_) => Gates {
                lines: true,
                loop_events: false,
            },
        }
    }

    /// The held event, now that its handlers are done.
    fn release(&mut self) -> Option<Event> {
        match std::mem::take(self) {
            Self::Held(event) => Some(*event),
            Self::Flowing => None,
        }
    }
}

impl State {
    /// A loop event: returned to be written now, or held while extension handlers run (then
    /// written when they are done).
    pub(in crate::actor) fn hold_for_extensions(&mut self, event: Event) -> Option<Event> {
        if matches!(event, Event::AgentStart(_))
            && self.ops.commands.awaits_agent_start()
            && !handles_event(&self.extensions, "agent_start")
        {
            self.on_run_event(event);
            self.after_triggered_start();
            return None;
        }
        // Only an event some handler takes is serialised (not every streamed delta).
        if !self.send_op_event(OpRoute::LoopEvent, &HostEvent::Loop(&event)) {
            return Some(event);
        }
        self.ops.agent_loop = AgentLoop::Held(Box::new(event));
        None
    }

    /// The held event's handlers are done: it is written.
    pub(in crate::actor) fn loop_event_handlers_done(&mut self) {
        let Some(event) = self.ops.agent_loop.release() else {
            return;
        };
        let started = matches!(event, Event::AgentStart(_));
        self.on_run_event(event);
        if started {
            self.after_triggered_start();
        }
    }
}

#[cfg(test)]
mod tests {
    use pi_rpc_protocol::event::NoFields;

    use super::*;

    #[test]
    fn a_held_event_closes_loop_events_until_released() {
        let mut agent_loop = AgentLoop::default();
        assert_eq!(agent_loop.gates(), Gates::OPEN);
        assert!(agent_loop.release().is_none());
        agent_loop = AgentLoop::Held(Box::new(Event::AgentStart(NoFields::default())));
        assert!(!agent_loop.gates().loop_events);
        assert!(agent_loop.gates().lines, "lines go on");
        assert!(matches!(agent_loop.release(), Some(Event::AgentStart(_))));
        assert_eq!(agent_loop.gates(), Gates::OPEN);
    }
}
