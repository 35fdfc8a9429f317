//! Which event a sample counts for, and with what period, as perf delivers samples.
//!
//! A sample without PERF_SAMPLE_READ counts once for its own event with its period. A sample
//! with PERF_SAMPLE_READ (leader sampling, `-e '{a,b}:S'`, or `perf record -s`) is delivered by
//! perf's `deliver_sample_value` once per read value whose counter moved since the previous
//! sample of that id, to the event that owns the id, with the difference as its period
//! (`tools/perf/util/session.c`).

use std::collections::HashMap;

use perfscope_format::constants::sample_type;
use perfscope_format::layout::{EventIndex, EventTable};
use perfscope_format::records::{ReadData, ReadValue, ReadValues, SampleRecord};

/// Whether samples of `event` carry read values (PERF_SAMPLE_READ): perf delivers them once per
/// moved counter, the others once for their own event.
pub fn carries_reads(events: &EventTable, event: EventIndex) -> bool {
    events
        .attr(event)
        .is_some_and(|a| a.sample_type & sample_type::READ != 0)
}

/// Delivers samples the way perf does; keeps the last counter value of every read id.
#[derive(Debug, Default)]
pub struct SampleDelivery {
    last: HashMap<u64, u64>,
    /// Read values whose id belongs to no event (perf's `nr_unknown_id`).
    pub unknown_ids: u64,
}

impl SampleDelivery {
    /// A fresh state.
    pub fn new() -> Self {
        Self::default()
    }

    /// Calls `deliver(event, period)` for every delivery of `s` (zero, one or more).
    pub fn deliver(
        &mut self,
        events: &EventTable,
        s: &SampleRecord<'_>,
        deliver: impl FnMut(EventIndex, u64),
    ) {
        self.deliver_fields(events, s.event, s.period, s.read, deliver);
    }

    /// [`SampleDelivery::deliver`] of a sample of `event` with the given `period` and `read`
    /// fields (as a [`perfscope_format::records::SampleBrief`] has them).
    pub fn deliver_fields(
        &mut self,
        events: &EventTable,
        event: EventIndex,
        period: Option<u64>,
        read: Option<ReadData<'_>>,
        mut deliver: impl FnMut(EventIndex, u64),
    ) {
        let Some(read) = read.filter(|_| carries_reads(events, event)) else {
            let period = period
                .or_else(|| events.layout(event).and_then(|l| l.attr_period))
                .unwrap_or(1);
            deliver(event, period);
            return;
        };
        match read.values {
            ReadValues::Single(v) => self.value(events, v, &mut deliver),
            ReadValues::Group(g) => {
                for v in g.iter() {
                    self.value(events, v, &mut deliver);
                }
            }
        }
    }

    fn value(
        &mut self,
        events: &EventTable,
        v: ReadValue,
        deliver: &mut impl FnMut(EventIndex, u64),
    ) {
        let Some((id, event)) = v.id.and_then(|id| Some((id, events.event_of_id(id)?))) else {
            self.unknown_ids += 1;
            return;
        };
        let last = self.last.insert(id, v.value).unwrap_or(0);
        let period = v.value.wrapping_sub(last);
        if period != 0 {
            deliver(event, period);
        }
    }
}
