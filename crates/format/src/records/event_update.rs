//! PERF_RECORD_EVENT_UPDATE: an event's unit, scale, name or CPUs.

use super::cpu_map::CpuMapData;
use crate::bytes::{until_nul, Bytes};
use crate::error::Result;
use crate::features::RawStr;

/// `struct perf_record_event_update` (PERF_RECORD_EVENT_UPDATE).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EventUpdateRecord<'a> {
    /// `type` (`PERF_EVENT_UPDATE__UNIT` 0, `__SCALE` 1, `__NAME` 2, `__CPUS` 3).
    pub type_: u64,
    /// `id`: a sample id of the event.
    pub id: u64,
    /// The update.
    pub update: EventUpdate<'a>,
}

/// What an EVENT_UPDATE record sets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EventUpdate<'a> {
    /// `PERF_EVENT_UPDATE__UNIT`: the unit string.
    Unit(RawStr<'a>),
    /// `PERF_EVENT_UPDATE__SCALE`: a `double`.
    Scale(f64),
    /// `PERF_EVENT_UPDATE__NAME`: the event name.
    Name(RawStr<'a>),
    /// `PERF_EVENT_UPDATE__CPUS`: the event's CPUs.
    Cpus(CpuMapData<'a>),
    /// A type this crate does not know, with its data.
    Unknown(&'a [u8]),
}

impl<'a> EventUpdateRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>) -> Result<Self> {
        let type_ = b.read_u64("event_update type")?;
        let id = b.read_u64("event_update id")?;
        let update = match type_ {
            0 => EventUpdate::Unit(RawStr(until_nul(b.remaining()))),
            1 => EventUpdate::Scale(f64::from_bits(b.read_u64("event_update scale")?)),
            2 => EventUpdate::Name(RawStr(until_nul(b.remaining()))),
            3 => EventUpdate::Cpus(CpuMapData::parse(&mut b)?),
            _ => EventUpdate::Unknown(b.remaining()),
        };
        Ok(EventUpdateRecord { type_, id, update })
    }
}
