//! PERF_RECORD_SWITCH and PERF_RECORD_SWITCH_CPU_WIDE: context switches.

use super::sample_id::SampleId;
use crate::bytes::Bytes;
use crate::constants::misc;
use crate::error::Result;

/// `struct perf_record_switch`: PERF_RECORD_SWITCH (no fields: the switching task is in the
/// `sample_id`) or PERF_RECORD_SWITCH_CPU_WIDE (with the other task).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwitchRecord {
    /// `header.misc`: `PERF_RECORD_MISC_SWITCH_OUT` (and `_PREEMPT`) for a switch out.
    pub misc: u16,
    /// For SWITCH_CPU_WIDE: `next_prev_pid` (the next task on a switch out, the previous one on
    /// a switch in).
    pub next_prev_pid: Option<u32>,
    /// For SWITCH_CPU_WIDE: `next_prev_tid`.
    pub next_prev_tid: Option<u32>,
    /// The `sample_id` trailer.
    pub sample_id: SampleId,
}

impl SwitchRecord {
    pub(crate) fn parse(
        mut b: Bytes<'_>,
        misc: u16,
        cpu_wide: bool,
        sample_id: SampleId,
    ) -> Result<Self> {
        let (next_prev_pid, next_prev_tid) = if cpu_wide {
            (
                Some(b.read_u32("switch next_prev_pid")?),
                Some(b.read_u32("switch next_prev_tid")?),
            )
        } else {
            (None, None)
        };
        Ok(SwitchRecord {
            misc,
            next_prev_pid,
            next_prev_tid,
            sample_id,
        })
    }

    /// A switch out of the task (rather than into it).
    pub const fn is_out(&self) -> bool {
        self.misc & misc::SWITCH_OUT != 0
    }

    /// A switch out while the task was still runnable (preempted).
    pub const fn is_preempt(&self) -> bool {
        self.misc & misc::SWITCH_OUT_PREEMPT != 0
    }
}
