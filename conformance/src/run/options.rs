//! How a run is done: judge or collect, time limits.

use std::time::Duration;

/// Default time limit of one step.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(10);
/// Default time limit of one scenario.
pub const SCENARIO_TIMEOUT: Duration = Duration::from_secs(60);

/// How a run treats expectations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Judge: a mismatch ends the run.
    #[default]
    Judge,
    /// Collect: read each expect step's records without judging (record and diff).
    Collect,
}

/// How a run is done.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunOptions {
    /// Judge or collect.
    pub mode: Mode,
    /// Every time limit is multiplied by this (for slow or loaded machines); default 1, or
    /// `$PI_CONFORMANCE_TIMEOUT_SCALE`.
    pub timeout_scale: f64,
    /// Extra time for the first record of a run, while the agent starts: default
    /// [`STARTUP_GRACE`], or `$PI_CONFORMANCE_STARTUP_MS`.
    pub startup_grace: Duration,
    /// Also run scenarios whose `releases` exclude the agent's release (they are expected to
    /// fail there); otherwise they are `n/a`.
    pub outside: bool,
    /// Check every record and command against the release's schema: default, off with
    /// `$PI_CONFORMANCE_NO_SCHEMA` (or `run --no-schema`) for an agent that is not pi's at all,
    /// such as the echoes of the runner's own tests.
    pub check_schema: bool,
}

impl RunOptions {
    /// Options for `mode`, with the time scale and startup grace from the environment.
    pub fn new(mode: Mode) -> Self {
        let timeout_scale = std::env::var("PI_CONFORMANCE_TIMEOUT_SCALE")
            .ok()
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v > 0.0)
            .unwrap_or(1.0);
        let startup_grace = std::env::var("PI_CONFORMANCE_STARTUP_MS")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .map_or(STARTUP_GRACE, Duration::from_millis);
        Self {
            mode,
            timeout_scale,
            startup_grace,
            outside: false,
            check_schema: std::env::var_os("PI_CONFORMANCE_NO_SCHEMA").is_none(),
        }
    }

    pub(super) fn scaled(&self, duration: Duration) -> Duration {
        duration.mul_f64(self.timeout_scale)
    }
}

/// Extra time for the first record of a run: the agent is starting (the reference needs about
/// a second, more on a loaded machine).
pub const STARTUP_GRACE: Duration = Duration::from_secs(20);
