//! PERF_RECORD_HEADER_ATTR and the deprecated PERF_RECORD_HEADER_EVENT_TYPE (pipe mode).

use super::array::U64Array;
use crate::attr::EventAttr;
use crate::bytes::Bytes;
use crate::error::{Error, ErrorKind, Result};
use crate::features::RawStr;

/// `struct perf_record_header_attr` (PERF_RECORD_HEADER_ATTR): an event's attr and its ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderAttrRecord<'a> {
    /// The attr (its `size` says where the ids start).
    pub attr: EventAttr,
    /// The sample ids.
    pub ids: U64Array<'a>,
}

impl<'a> HeaderAttrRecord<'a> {
    pub(crate) fn parse(b: Bytes<'a>) -> Result<Self> {
        let (attr, claimed) = EventAttr::parse(&b)?;
        let claimed = claimed as usize;
        let Some(ids) = b.remaining().get(claimed..) else {
            return Err(Error::new(
                b.offset(),
                ErrorKind::UnexpectedEof {
                    what: "header_attr perf_event_attr",
                    needed: claimed as u64,
                    available: b.len() as u64,
                },
            ));
        };
        Ok(HeaderAttrRecord {
            attr,
            ids: U64Array::new(ids, b.endian()),
        })
    }
}

/// `struct perf_record_header_event_type` (PERF_RECORD_HEADER_EVENT_TYPE, unused since 2012).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeaderEventTypeRecord<'a> {
    /// `event_id`.
    pub event_id: u64,
    /// `name` (`MAX_EVENT_NAME` 64 bytes).
    pub name: RawStr<'a>,
}

impl<'a> HeaderEventTypeRecord<'a> {
    pub(crate) fn parse(mut b: Bytes<'a>) -> Result<Self> {
        let event_id = b.read_u64("event_type event_id")?;
        let n = b.len().min(64);
        Ok(HeaderEventTypeRecord {
            event_id,
            name: RawStr(b.read_fixed_str(n, "event_type name")?),
        })
    }
}
