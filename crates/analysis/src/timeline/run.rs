//! The switch state machine of one thread (or of a CPU's idle task): what each switch-out and
//! switch-in closes.

use super::{Bound, OffCpuInterval, OffCpuState, OnCpuInterval};

/// Whether a thread (or a CPU's idle task) is on a CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Run {
    /// No switch seen yet.
    Unknown,
    On {
        since: u64,
        cpu: Option<u32>,
        bound: Bound,
    },
    Off {
        since: u64,
        cpu: Option<u32>,
        state: OffCpuState,
    },
}

/// What a switch produced.
#[derive(Default)]
pub(super) struct Closed {
    pub(super) on: Option<OnCpuInterval>,
    pub(super) off: Option<OffCpuInterval>,
    /// The event repeats the current state at the same time (two sources of one switch).
    pub(super) duplicate: bool,
    /// A duplicate switch-out that told the state of a thread whose leaving was only inferred.
    pub(super) upgraded: bool,
}

/// Where a thread that was never seen switching in could have started running.
pub(super) struct OutContext {
    pub(super) time: u64,
    pub(super) cpu: Option<u32>,
    /// The previous switch on the CPU.
    pub(super) tprev: Option<u64>,
    /// The thread's FORK time.
    pub(super) fork: Option<u64>,
    /// The recording's first timestamp.
    pub(super) start: u64,
}

impl Run {
    pub(super) fn switch_out(&mut self, c: &OutContext, state: OffCpuState) -> Closed {
        let mut closed = Closed::default();
        match *self {
            Run::On { since, cpu, bound } => {
                closed.on = Some(OnCpuInterval {
                    start: since,
                    end: c.time,
                    cpu: c.cpu.or(cpu),
                    start_bound: bound,
                    end_bound: Bound::Recorded,
                });
            }
            Run::Unknown => {
                // Running since the previous switch on this CPU (not before its FORK), or since
                // a time nothing shows.
                let (start, bound) = match c.tprev {
                    Some(tp) => (tp.max(c.fork.unwrap_or(0)), Bound::Inferred),
                    None => (c.fork.unwrap_or(c.start), Bound::Truncated),
                };
                let start = start.min(c.time);
                closed.on = Some(OnCpuInterval {
                    start,
                    end: c.time,
                    cpu: c.cpu,
                    start_bound: bound,
                    end_bound: Bound::Recorded,
                });
            }
            Run::Off {
                since,
                cpu,
                state: old,
            } if since == c.time => {
                closed.duplicate = true;
                if old == OffCpuState::Unknown && state != OffCpuState::Unknown {
                    *self = Run::Off { since, cpu, state };
                    closed.upgraded = true;
                }
                return closed;
            }
            Run::Off {
                since,
                cpu: cpu_out,
                state: old,
            } => match c.tprev {
                // The switch-in was missed: it was after the previous switch on this CPU.
                Some(tp) => {
                    let back = tp.clamp(since, c.time);
                    closed.off = Some(OffCpuInterval {
                        start: since,
                        end: back,
                        cpu_out,
                        cpu_in: c.cpu,
                        state: old,
                        end_bound: Bound::Inferred,
                    });
                    closed.on = Some(OnCpuInterval {
                        start: back,
                        end: c.time,
                        cpu: c.cpu,
                        start_bound: Bound::Inferred,
                        end_bound: Bound::Recorded,
                    });
                }
                // Nothing says when: the thread came back some time after `since`.
                None => {
                    closed.on = Some(OnCpuInterval {
                        start: since,
                        end: c.time,
                        cpu: c.cpu,
                        start_bound: Bound::Truncated,
                        end_bound: Bound::Recorded,
                    });
                }
            },
        }
        *self = Run::Off {
            since: c.time,
            cpu: c.cpu,
            state,
        };
        closed
    }

    pub(super) fn switch_in(&mut self, time: u64, cpu: Option<u32>) -> Closed {
        let mut closed = Closed::default();
        match *self {
            Run::Off {
                since,
                cpu: cpu_out,
                state,
            } => {
                closed.off = Some(OffCpuInterval {
                    start: since,
                    end: time,
                    cpu_out,
                    cpu_in: cpu,
                    state,
                    end_bound: Bound::Recorded,
                });
            }
            Run::On { .. } => {
                // Already running: the same switch from a second source, or a switch-out that
                // was lost. Keep the interval going.
                closed.duplicate = true;
                return closed;
            }
            Run::Unknown => {}
        }
        *self = Run::On {
            since: time,
            cpu,
            bound: Bound::Recorded,
        };
        closed
    }
}
