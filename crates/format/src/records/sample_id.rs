//! `struct sample_id`: the trailer of non-SAMPLE kernel records when `sample_id_all` is set.

use crate::bytes::Bytes;
use crate::error::{Error, ErrorKind, Result};
use crate::layout::{read_u64_at, EventIndex, SampleIdLayout};

/// `struct sample_id`: who and when, appended to kernel records other than SAMPLE when the
/// event has `sample_id_all`. Fields the event's `sample_type` does not select are `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SampleId {
    /// The event the record was routed to (`None` when the file declares no event).
    pub event: Option<EventIndex>,
    /// `pid` (PERF_SAMPLE_TID).
    pub pid: Option<u32>,
    /// `tid` (PERF_SAMPLE_TID).
    pub tid: Option<u32>,
    /// `time` in ns (PERF_SAMPLE_TIME).
    pub time: Option<u64>,
    /// `id` (PERF_SAMPLE_ID or PERF_SAMPLE_IDENTIFIER).
    pub id: Option<u64>,
    /// `stream_id` (PERF_SAMPLE_STREAM_ID).
    pub stream_id: Option<u64>,
    /// `cpu` (PERF_SAMPLE_CPU).
    pub cpu: Option<u32>,
}

impl SampleId {
    /// A sample id with only the event set (no trailer).
    pub const fn of_event(event: Option<EventIndex>) -> SampleId {
        SampleId {
            event,
            pid: None,
            tid: None,
            time: None,
            id: None,
            stream_id: None,
            cpu: None,
        }
    }
}

/// Splits the trailer described by `layout` off the end of `fields` and decodes it.
///
/// Returns the record's own fields (without the trailer) and the trailer. A body shorter than
/// the trailer is an error at the body's offset.
pub(crate) fn split_trailer<'a>(
    fields: Bytes<'a>,
    layout: &SampleIdLayout,
    event: Option<EventIndex>,
) -> Result<(Bytes<'a>, SampleId)> {
    let mut sid = SampleId::of_event(event);
    if layout.size == 0 {
        return Ok((fields, sid));
    }
    let data = fields.remaining();
    let Some(own_len) = data.len().checked_sub(layout.size) else {
        return Err(Error::new(
            fields.offset(),
            ErrorKind::UnexpectedEof {
                what: "sample_id trailer",
                needed: layout.size as u64,
                available: data.len() as u64,
            },
        ));
    };
    let (own, trailer) = data.split_at(own_len);
    let e = fields.endian();
    let u64_at = |at: Option<usize>| at.and_then(|at| read_u64_at(trailer, at, e));
    let pair_at = |at: Option<usize>| {
        let (a, b) = trailer.get(at?..at? + 8)?.split_at(4);
        Some((e.u32(a.try_into().ok()?), e.u32(b.try_into().ok()?)))
    };
    if let Some((pid, tid)) = pair_at(layout.tid) {
        sid.pid = Some(pid);
        sid.tid = Some(tid);
    }
    sid.time = u64_at(layout.time);
    sid.id = u64_at(layout.identifier).or(u64_at(layout.id));
    sid.stream_id = u64_at(layout.stream_id);
    sid.cpu = pair_at(layout.cpu).map(|(cpu, _res)| cpu);
    Ok((Bytes::new(own, fields.offset(), e), sid))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constants::sample_type as st;
    use crate::endian::Endianness;
    use crate::testutil::Builder;

    #[test]
    fn trailer_fields_in_both_byte_orders() {
        for e in [Endianness::Little, Endianness::Big] {
            let layout =
                SampleIdLayout::new(st::TID | st::TIME | st::CPU | st::IDENTIFIER | st::IP, true);
            let body = Builder::new(e)
                .u64(0xaaaa)
                .u32(10)
                .u32(11)
                .u64(999)
                .u32(3)
                .u32(0)
                .u64(42)
                .into_vec();
            let (own, sid) =
                split_trailer(Bytes::new(&body, 0x80, e), &layout, Some(EventIndex(2))).unwrap();
            assert_eq!(own.remaining().len(), 8);
            assert_eq!(own.offset(), 0x80);
            assert_eq!(
                sid,
                SampleId {
                    event: Some(EventIndex(2)),
                    pid: Some(10),
                    tid: Some(11),
                    time: Some(999),
                    id: Some(42),
                    stream_id: None,
                    cpu: Some(3)
                }
            );
            let err = split_trailer(Bytes::new(&body[..16], 0x80, e), &layout, None).unwrap_err();
            assert_eq!(
                err,
                Error::new(
                    0x80,
                    ErrorKind::UnexpectedEof {
                        what: "sample_id trailer",
                        needed: 32,
                        available: 16
                    }
                )
            );
        }
    }
}
