//! HEADER_EVENT_DESC: each event's attr, name and ids.

use alloc::vec::Vec;

use super::{read_count, read_string, RawStr};
use crate::attr::EventAttr;
use crate::bytes::Bytes;
use crate::error::{Error, ErrorKind, Result};

/// One event of HEADER_EVENT_DESC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventDesc<'a> {
    /// The event's attr.
    pub attr: EventAttr,
    /// The event name as perf printed it at record time (e.g. `cycles:u`).
    pub name: RawStr<'a>,
    /// The sample ids of the event (one per CPU/thread it was opened on).
    pub ids: Vec<u64>,
}

/// Parses HEADER_EVENT_DESC: `u32 nr`, `u32 attr_size`, then per event the attr, `u32 nr_ids`,
/// the name string and `nr_ids` u64 ids.
pub fn parse_event_desc<'a>(mut b: Bytes<'a>) -> Result<Vec<EventDesc<'a>>> {
    let nr = read_count(&mut b, "event_desc event count", 8)?;
    let size_at = b.offset();
    let attr_size = b.read_u32("event_desc attr size")?;
    if attr_size < crate::attr::ATTR_SIZE_VER0 {
        return Err(Error::new(size_at, ErrorKind::BadValue { what: "event_desc attr size", value: attr_size.into() }));
    }
    let mut events = Vec::with_capacity(nr as usize);
    for _ in 0..nr {
        let attr_bytes = b.split(attr_size as usize, "event_desc attr")?;
        let (attr, _) = EventAttr::parse(&attr_bytes)?;
        let nr_ids = read_count(&mut b, "event_desc id count", 8)?;
        let name = read_string(&mut b)?;
        let mut ids = Vec::with_capacity(nr_ids as usize);
        for _ in 0..nr_ids {
            ids.push(b.read_u64("event_desc id")?);
        }
        events.push(EventDesc { attr, name, ids });
    }
    Ok(events)
}
