//! Entry point: one record — a SAMPLE, or another kernel record with its `sample_id` trailer —
//! decoded under an arbitrary attr with `records::parse_record`.
//!
//! Input layout (see ../seed.sh, which writes the corpus samples this way):
//! - byte 0: bit 7 big-endian; bit 0 a group of two events: the record's event is the second,
//!   its leader the first (branch counters depend on the leader); bit 1 two events that are
//!   not grouped;
//! - byte 1: the record type (9 = SAMPLE); bytes 2-3: `header.misc` (little-endian);
//! - a `perf_event_attr` in the input's byte order, as long as its `size` field says (0 means
//!   64 bytes, the first version); with bit 0 or 1, a second attr follows. The events get
//!   sample ids 1 (first) and 2 (second);
//! - the rest is the record body.
//!
//! A decoded record's time must equal the one read without decoding
//! (`EventTable::record_time`), and a SAMPLE must decode the same through
//! `SampleRecord::parse` with the event's layout; `check_sample` must give the event or the
//! error `parse_record` gives.
#![no_main]

use core::fmt::Write;

use libfuzzer_sys::fuzz_target;
use perfscope_format::layout::{EventIndex, EventTable};
use perfscope_format::records::{check_sample, parse_record, SampleRecord};
use perfscope_format::{Bytes, Endianness, EventAttr, RawRecord, Record, RecordHeader, RecordType};

#[path = "common.rs"]
mod common;
use common::{exercise_record, Sink};

/// Where the body starts in the imaginary file.
const BODY_OFFSET: u64 = 0x2008;

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_at_checked(4) else {
        return;
    };
    let endian = if head[0] & 0x80 != 0 { Endianness::Big } else { Endianness::Little };
    let grouped = head[0] & 1 != 0;
    let two = grouped || head[0] & 2 != 0;
    let type_ = RecordType(u32::from(head[1]));
    let misc = u16::from_le_bytes([head[2], head[3]]);

    let mut b = Bytes::new(rest, 4, endian);
    let mut attrs = Vec::new();
    for _ in 0..if two { 2 } else { 1 } {
        let Ok((attr, len)) = EventAttr::parse(&b) else {
            return;
        };
        if b.skip(len as usize, "attr").is_err() {
            return;
        }
        attrs.push(attr);
    }
    let ids: [&[u64]; 2] = [&[1], &[2]];
    let mut events = EventTable::new(attrs.iter().copied().zip(ids));
    if grouped {
        events.set_group_leaders(&[EventIndex(0), EventIndex(0)]);
    }

    let body = b.remaining();
    let body = body.get(..usize::from(u16::MAX) - 8).unwrap_or(body);
    let raw = RawRecord {
        offset: BODY_OFFSET - 8,
        inner_offset: None,
        endian,
        header: RecordHeader { type_, misc, size: (body.len() + 8) as u16 },
        body,
        payload: &[],
    };

    let mut sink = Sink::default();
    let parsed = parse_record(&raw, &events);
    if type_ == RecordType::SAMPLE {
        let event = parsed.as_ref().map_err(|e| *e).and_then(|r| match r {
            Record::Sample(s) => Ok(s.event),
            _ => panic!("a SAMPLE decoded as another record"),
        });
        assert_eq!(check_sample(&raw, &events), event, "check_sample disagrees with parse_record");
    }
    match parsed {
        Ok(rec) => {
            assert_eq!(events.record_time(&raw), rec.time(), "record_time and the decoded time differ");
            if let Record::Sample(s) = &rec {
                let layout = events.layout(s.event).expect("a decoded sample has an event");
                let again = SampleRecord::parse(body, BODY_OFFSET, endian, misc, s.event, layout);
                assert_eq!(again.as_ref(), Ok(s), "SampleRecord::parse disagrees with parse_record");
            }
            exercise_record(&rec, &mut sink);
        }
        Err(e) => {
            let _ = write!(sink, "{e}");
        }
    }
    std::hint::black_box(sink.0);
});
