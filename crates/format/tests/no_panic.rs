//! Decoding damaged input never panics: every corpus file cut at 16 points and with random bytes
//! flipped, and random bodies under random attrs, all go through `parse_record`. On each SAMPLE,
//! `check_sample` (which checks without decoding) must give the event or the error
//! `parse_record` gives, and `check_sample_ids` the same error or the sample's pid, tid, time
//! and CPU as decoded, and `parse_sample_brief` the same error or the sample's fields it keeps.
//! `parse_record_into` gives what `parse_record` gives, record or error.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod oracle;

use perfscope_format::attr::AttrFlags;
use perfscope_format::constants::sample_type as st;
use perfscope_format::records::{
    check_sample, check_sample_ids, frame_record, parse_record_into, parse_sample_brief, Record,
    SampleBrief, SampleIds,
};
use perfscope_format::{
    parse_record, Endianness, EventAttr, EventTable, PerfFile, RawRecord, RawRecords, RecordType,
};

/// xorshift64*: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Decodes `raw`; for a SAMPLE, asserts that `check_sample` agrees. Returns whether it decoded.
fn decode(raw: &RawRecord<'_>, table: &EventTable) -> bool {
    let parsed = parse_record(raw, table);
    let mut into = Record::FinishedRound;
    let result = parse_record_into(raw, table, &mut into);
    match &parsed {
        Ok(r) => assert_eq!((result, &into), (Ok(()), r), "at offset {:#x}", raw.offset),
        Err(e) => assert_eq!(result, Err(*e), "at offset {:#x}", raw.offset),
    }
    if raw.header.type_ == RecordType::SAMPLE {
        let ids = parsed.as_ref().map(|r| match r {
            Record::Sample(s) => SampleIds {
                event: s.event,
                pid: s.pid,
                tid: s.tid,
                time: s.time,
                cpu: s.cpu,
            },
            other => panic!("a SAMPLE decoded as {other:?}"),
        });
        assert_eq!(
            check_sample(raw, table),
            ids.map(|i| i.event).map_err(|e| *e),
            "check_sample disagrees at offset {:#x}",
            raw.offset
        );
        assert_eq!(
            check_sample_ids(raw, table),
            ids.map_err(|e| *e),
            "check_sample_ids disagrees at offset {:#x}",
            raw.offset
        );
        let brief = parsed.as_ref().map(|r| match r {
            Record::Sample(s) => SampleBrief {
                event: s.event,
                misc: s.misc,
                ip: s.ip,
                pid: s.pid,
                tid: s.tid,
                time: s.time,
                cpu: s.cpu,
                period: s.period,
                read: s.read,
                callchain: s.callchain,
                user_regs_and_stack: s.regs_user.is_some() && s.stack_user.is_some(),
            },
            other => panic!("a SAMPLE decoded as {other:?}"),
        });
        assert_eq!(
            parse_sample_brief(raw, table),
            brief.map_err(|e| *e),
            "parse_sample_brief disagrees at offset {:#x}",
            raw.offset
        );
    }
    parsed.is_ok()
}

fn decode_all(bytes: &[u8]) -> usize {
    let Ok(file) = PerfFile::parse(bytes) else {
        return 0;
    };
    let table = EventTable::from_file(&file);
    let mut n = 0;
    for raw in file.raw_records().flatten() {
        if decode(&raw, &table) {
            n += 1;
        }
    }
    n
}

#[test]
fn damaged_corpus_files_decode_without_panicking() {
    let Some(shared) = oracle::shared_dir() else {
        println!("skipped: no shared corpus");
        return;
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut runs = 0;
    for f in oracle::corpus_files(&shared) {
        if f.path.is_dir() {
            continue;
        }
        let bytes = std::fs::read(&f.path).unwrap();
        for i in 1..=16 {
            decode_all(&bytes[..bytes.len() * i / 17]);
            runs += 1;
        }
        // Flip bytes inside the data section (where records are).
        let Ok(file) = PerfFile::parse(&bytes) else {
            continue;
        };
        let (data, start) = file.data_section();
        if data.is_empty() {
            continue;
        }
        for _ in 0..12 {
            let mut damaged = bytes.clone();
            for _ in 0..1 + rng.below(8) {
                let at = start as usize + rng.below(data.len());
                damaged[at] = rng.next() as u8;
            }
            decode_all(&damaged);
            runs += 1;
        }
    }
    println!("{runs} damaged inputs decoded");
}

#[test]
fn random_bodies_under_random_attrs() {
    let mut rng = Rng(42);
    let mut decoded = 0;
    for round in 0..20_000 {
        let endian = if round % 2 == 0 {
            Endianness::Little
        } else {
            Endianness::Big
        };
        let mut attr = EventAttr {
            sample_type: rng.next() & (st::KNOWN | if round % 50 == 0 { 1 << 40 } else { 0 }),
            read_format: rng.next() & 0x1f,
            branch_sample_type: rng.next() & ((1 << 17) | (1 << 19)),
            sample_regs_user: rng.next() & 0xffff,
            sample_regs_intr: rng.next() & 0xff,
            ..EventAttr::default()
        };
        if rng.next().is_multiple_of(2) {
            attr.flags = AttrFlags(AttrFlags::SAMPLE_ID_ALL);
        }
        let table = EventTable::new([(attr, &[1u64, 2][..]), (attr, &[3u64][..])]);
        // A record of a random kernel or tool type with a body of small random words.
        let type_ = [
            9u32, 9, 9, 1, 3, 8, 10, 16, 20, 22, 64, 69, 73, 74, 78, 79, 83, 84,
        ][rng.below(18)];
        let len = rng.below(40) * 8;
        let mut rec = Vec::new();
        rec.extend_from_slice(&endian.u32_bytes(type_));
        rec.extend_from_slice(&endian.u16_bytes(rng.next() as u16));
        rec.extend_from_slice(&endian.u16_bytes((8 + len) as u16));
        for _ in 0..len / 8 {
            let v = match rng.below(4) {
                0 => rng.next(),
                1 => rng.next() % 4,
                2 => 1 + rng.next() % 3,
                _ => rng.next() % 64,
            };
            rec.extend_from_slice(&endian.u64_bytes(v));
        }
        if let Ok(raw) = frame_record(&rec, 0, endian) {
            if decode(&raw, &table) {
                decoded += 1;
            }
        }
        for r in RawRecords::new(&rec, 0, endian).flatten() {
            decode(&r, &table);
        }
    }
    println!("{decoded} of 20000 random records decoded");
}
