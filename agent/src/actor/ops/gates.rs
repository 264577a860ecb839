//! What the actor's loop may take now, as the active operations allow: each operation closes
//! the gates its state needs closed, and the loop reads their conjunction
//! (`Operations::gates`).

/// Which inputs the loop takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::actor) struct Gates {
    /// Client lines (commands).
    pub(in crate::actor) lines: bool,
    /// The agent loop's events.
    pub(in crate::actor) loop_events: bool,
}

impl Gates {
    /// Everything may be taken.
    pub(in crate::actor) const OPEN: Self = Self {
        lines: true,
        loop_events: true,
    };

    /// Lines wait; loop events go on.
    pub(in crate::actor) const NO_LINES: Self = Self {
        lines: false,
        loop_events: true,
    };

    /// What both allow.
    pub(in crate::actor) fn and(self, other: Self) -> Self {
        Self {
            lines: self.lines && other.lines,
            loop_events: self.loop_events && other.loop_events,
        }
    }
}
