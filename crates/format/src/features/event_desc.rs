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
    let nr_at = b.offset();
    let nr = b.read_u32("event_desc event count")?;
    let size_at = b.offset();
    let attr_size = b.read_u32("event_desc attr size")?;
    if attr_size < crate::attr::ATTR_SIZE_VER0 {
        return Err(Error::new(
            size_at,
            ErrorKind::BadValue {
                what: "event_desc attr size",
                value: attr_size.into(),
            },
        ));
    }
    // Each event takes at least its attr, the id count and a string length.
    let min_event = attr_size as usize + 8;
    if nr as usize > b.len() / min_event {
        return Err(Error::new(
            nr_at,
            ErrorKind::BadValue {
                what: "event_desc event count",
                value: nr.into(),
            },
        ));
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

#[cfg(test)]
mod tests {
    use super::super::builder::Builder;
    use super::*;
    use crate::endian::Endianness;

    fn attr(b: &mut Builder, type_: u32, config: u64) {
        let start = b.len();
        b.u32(type_)
            .u32(128)
            .u64(config)
            .u64(4000)
            .u64(0x107)
            .u64(0x14);
        b.buf.resize(start + 128, 0);
    }

    #[test]
    fn events_with_names_and_ids_in_both_byte_orders() {
        for endian in [Endianness::Little, Endianness::Big] {
            let mut b = Builder::new(endian);
            b.u32(2).u32(128);
            attr(&mut b, 1, 0);
            b.u32(2).string("cpu-clock").u64(10).u64(11);
            attr(&mut b, 1, 9);
            b.u32(0).string("dummy:HG");
            let v = parse_event_desc(b.bytes(0)).unwrap();
            assert_eq!(v.len(), 2);
            assert_eq!(
                (v[0].name, &v[0].ids[..]),
                (RawStr(b"cpu-clock"), &[10u64, 11][..])
            );
            assert_eq!(
                (
                    v[0].attr.type_,
                    v[0].attr.sample_type,
                    v[0].attr.read_format
                ),
                (1, 0x107, 0x14)
            );
            assert_eq!(
                (v[1].name, v[1].attr.config, v[1].ids.len()),
                (RawStr(b"dummy:HG"), 9, 0)
            );
        }
    }

    #[test]
    fn a_small_attr_size_is_refused_at_its_offset() {
        let mut b = Builder::new(Endianness::Little);
        b.u32(1).u32(32);
        let err = parse_event_desc(b.bytes(0x80)).unwrap_err();
        assert_eq!(
            err,
            Error::new(
                0x84,
                ErrorKind::BadValue {
                    what: "event_desc attr size",
                    value: 32
                }
            )
        );
    }
}
