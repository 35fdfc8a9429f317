//! Shared by the timeline corpus tests: the corpus, the expected outputs made by perf
//! (`tests/data/timeline`, see `generate.sh` there), and a timeline read from a file the way
//! perf delivers records (time order through the round-based queue, untimed records at once).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, dead_code)]

use std::path::{Path, PathBuf};

use perfscope_analysis::ordered::OrderedQueue;
use perfscope_analysis::timeline::{RecordFeeder, Timeline, TimelineBuilder};
use perfscope_format::bytes::Bytes;
use perfscope_format::metadata::Metadata;
use perfscope_format::records::{RawRecord, RecordHeader};
use perfscope_format::walk::{walk, Item};
use perfscope_format::{Record, RecordType};

/// `../shared` (or `$PERFSCOPE_SHARED`), when present.
pub fn shared() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PERFSCOPE_SHARED") {
        return Some(PathBuf::from(p));
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    p.is_dir().then_some(p)
}

/// A corpus file, or `None` (with a message) when the corpus is absent.
pub fn corpus_file(rel: &str) -> Option<PathBuf> {
    let Some(root) = shared() else {
        eprintln!("skipped: ../shared (or PERFSCOPE_SHARED) is absent");
        return None;
    };
    let p = root.join("corpus").join(rel);
    if !p.is_file() {
        eprintln!("skipped: {} is absent", p.display());
        return None;
    }
    Some(p)
}

/// An expected output in `tests/data/timeline`.
pub fn expected(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/timeline").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

struct Queued {
    header: RecordHeader,
    offset: u64,
    body: Vec<u8>,
}

fn deliver(meta: &Metadata, feeder: &RecordFeeder, b: &mut TimelineBuilder, raw: &RawRecord<'_>) {
    let Ok(rec) = meta.parse(raw) else { return };
    match &rec {
        Record::Sample(s) => feeder.sample(b, meta, s, None),
        r => feeder.record(b, r),
    }
}

/// The timeline of a perf.data file (no stacks).
pub fn timeline_of(path: &Path) -> Timeline {
    try_timeline_of(path).unwrap()
}

/// The timeline of a perf.data file, or the error that kept its records from being read.
pub fn try_timeline_of(path: &Path) -> Result<Timeline, perfscope_format::Error> {
    let data = std::fs::read(path).unwrap();
    let mut b = TimelineBuilder::new();
    let mut feeder: Option<RecordFeeder> = None;
    let mut queue: OrderedQueue<Queued> = OrderedQueue::new();
    let release = |meta: &Metadata, feeder: &RecordFeeder, b: &mut TimelineBuilder, q: Queued| {
        let raw = RawRecord { offset: q.offset, inner_offset: None, endian: meta.endian, header: q.header, body: &q.body, payload: &[] };
        deliver(meta, feeder, b, &raw);
    };
    let meta = walk(&data, &[], |meta, _, item| {
        let Item::Record(raw) = item else { return };
        let f = feeder.get_or_insert_with(|| RecordFeeder::new(meta));
        match raw.type_() {
            RecordType::FINISHED_ROUND => queue.finished_round(|_, q| release(meta, f, &mut b, q)),
            RecordType::HEADER_TRACING_DATA => {
                if let Ok(Record::TracingData(t)) = meta.parse(raw) {
                    f.tracing_data(Bytes::new(t.data, raw.offset, meta.endian));
                }
            }
            _ => match meta.events.record_time(raw) {
                Some(time) if time != 0 && time != u64::MAX => {
                    queue.push(time, Queued { header: raw.header, offset: raw.offset, body: raw.body.to_vec() })
                }
                _ => deliver(meta, f, &mut b, raw),
            },
        }
    })?;
    let f = feeder.unwrap_or_else(|| RecordFeeder::new(&meta));
    queue.finish(|_, q| release(&meta, &f, &mut b, q));
    Ok(b.build())
}

/// perf's `print_sched_time`: msec with 3 decimals, truncated.
pub fn msec(ns: u64) -> String {
    format!("{}.{:03}", ns / 1_000_000, ns % 1_000_000 / 1_000)
}

/// perf's `timestamp__scnprintf_usec`.
pub fn usec(ns: u64) -> String {
    format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1_000)
}
