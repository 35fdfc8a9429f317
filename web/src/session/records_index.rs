//! [`RecordIndex`]: one row per record of the file in file order (records inside COMPRESSED
//! records included), as columns, with counts per type, lost/throttle totals and the errors met.
//! The records table filters and pages over it; the fields of a row are decoded again from the
//! file bytes when the row is shown.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use perfscope_format::metadata::Metadata;
use perfscope_format::records::{frame_record_with, Record};
use perfscope_format::walk::{walk, Item};
use perfscope_format::RecordType;

use super::record_fields::{describe, who};
use crate::protocol::{LostInfo, RecordCount, RecordError, RecordFilter};

/// At most this many errors are kept (all are counted).
pub const MAX_ERRORS: usize = 100;
/// `u32::MAX` / `u64::MAX` mean "none" in the columns.
pub const NONE32: u32 = u32::MAX;

/// Every record as columns.
#[derive(Debug, Default)]
pub struct RecordIndex {
    /// File offset of the record (of its COMPRESSED record when it was compressed).
    pub offset: Vec<u64>,
    /// Whether the record came out of a COMPRESSED record.
    pub compressed: Vec<bool>,
    /// `PERF_RECORD_*`.
    pub type_: Vec<u32>,
    /// ns, `u64::MAX` when none.
    pub time: Vec<u64>,
    /// `NONE32` when none.
    pub cpu: Vec<u32>,
    /// `NONE32` when none.
    pub pid: Vec<u32>,
    /// `NONE32` when none.
    pub tid: Vec<u32>,
    /// Records per type.
    pub counts: BTreeMap<u32, u64>,
    /// Type names.
    pub names: BTreeMap<u32, String>,
    /// Lost and throttled.
    pub lost: LostInfo,
    /// The first errors.
    pub errors: Vec<RecordError>,
    /// All errors.
    pub error_count: u64,
    /// The file names that MMAP and MMAP2 records map.
    pub mapped: BTreeSet<String>,
}

impl RecordIndex {
    /// Walks `data` (a whole perf.data, file or pipe mode). `progress(bytes, records)` is called
    /// every 65536 records. Returns the index and the file's metadata, or the error that
    /// prevented reading any record.
    pub fn build(data: &[u8], progress: &mut dyn FnMut(u64, u64)) -> Result<(RecordIndex, Metadata), perfscope_format::Error> {
        let mut ix = RecordIndex::default();
        let meta = walk(data, &[], |meta, _part, item| match item {
            Item::Record(raw) => {
                let t = raw.type_().0;
                *ix.counts.entry(t).or_insert(0) += 1;
                ix.names.entry(t).or_insert_with(|| meta.record_type_name(raw.type_()));
                let (mut time, mut w) = (None, Default::default());
                match meta.parse(raw) {
                    Ok(rec) => {
                        time = rec.time();
                        w = who(&rec);
                        ix.count_lost(&rec);
                    }
                    Err(e) => ix.error(e),
                }
                ix.offset.push(raw.offset);
                ix.compressed.push(raw.inner_offset.is_some());
                ix.type_.push(t);
                ix.time.push(time.unwrap_or(u64::MAX));
                ix.cpu.push(w.cpu.unwrap_or(NONE32));
                ix.pid.push(w.pid.unwrap_or(NONE32));
                ix.tid.push(w.tid.unwrap_or(NONE32));
                if ix.type_.len() % 65536 == 0 {
                    progress(raw.offset, ix.type_.len() as u64);
                }
            }
            Item::Error(e) => ix.error(*e),
        })?;
        progress(data.len() as u64, ix.type_.len() as u64);
        Ok((ix, meta))
    }

    fn error(&mut self, e: perfscope_format::Error) {
        self.error_count += 1;
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(RecordError { offset: e.offset, message: e.to_string(), records_before: self.type_.len() as u64 });
        }
    }

    fn count_lost(&mut self, rec: &Record<'_>) {
        let l = &mut self.lost;
        match rec {
            Record::Lost(r) => {
                l.lost_records += 1;
                l.lost_events = l.lost_events.saturating_add(r.lost);
            }
            Record::LostSamples(r) => {
                l.lost_samples_records += 1;
                l.lost_samples = l.lost_samples.saturating_add(r.lost);
            }
            Record::Throttle(_) => l.throttle += 1,
            Record::Unthrottle(_) => l.unthrottle += 1,
            Record::Mmap(r) => {
                self.mapped.insert(String::from_utf8_lossy(r.filename.as_bytes()).into_owned());
            }
            Record::Mmap2(r) => {
                self.mapped.insert(String::from_utf8_lossy(r.filename.as_bytes()).into_owned());
            }
            _ => {}
        }
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.type_.len()
    }

    /// Whether there is no record.
    pub fn is_empty(&self) -> bool {
        self.type_.is_empty()
    }

    /// Counts per type, in type order.
    pub fn record_counts(&self) -> Vec<RecordCount> {
        self.counts
            .iter()
            .map(|(&t, &count)| RecordCount { type_: t, name: self.names.get(&t).cloned().unwrap_or_default(), count })
            .collect()
    }

    /// First and last timestamp of any record.
    pub fn time_range(&self) -> Option<(u64, u64)> {
        let mut it = self.time.iter().copied().filter(|&t| t != u64::MAX);
        let first = it.next()?;
        Some(it.fold((first, first), |(lo, hi), t| (lo.min(t), hi.max(t))))
    }

    /// The rows that pass `f`, in file order.
    pub fn matching(&self, f: &RecordFilter) -> Vec<u32> {
        let types: HashSet<u32> = f.types.iter().copied().collect();
        let n = u32::try_from(self.len()).unwrap_or(u32::MAX);
        (0..n)
            .filter(|&i| {
                let i = i as usize;
                let col32 = |c: &Vec<u32>| c.get(i).copied().unwrap_or(NONE32);
                (types.is_empty() || types.contains(&col32(&self.type_)))
                    && f.pid.is_none_or(|p| col32(&self.pid) == p)
                    && f.tid.is_none_or(|t| col32(&self.tid) == t)
                    && f.cpu.is_none_or(|c| col32(&self.cpu) == c)
                    && f.range.is_none_or(|(lo, hi)| {
                        let t = self.time.get(i).copied().unwrap_or(u64::MAX);
                        t != u64::MAX && lo <= t && t <= hi
                    })
            })
            .collect()
    }

    /// The decoded fields of `rows` (record indices), in the order given.
    pub fn describe_rows(&self, data: &[u8], meta: &Metadata, rows: &[u32], event_name: &dyn Fn(u32) -> String) -> Vec<String> {
        let mut out = vec![String::new(); rows.len()];
        let mut from_walk: Vec<(u32, usize)> = Vec::new();
        for (slot, &row) in rows.iter().enumerate() {
            let r = row as usize;
            let (Some(&offset), Some(&compressed)) = (self.offset.get(r), self.compressed.get(r)) else { continue };
            if compressed {
                from_walk.push((row, slot));
                continue;
            }
            let text = usize::try_from(offset)
                .ok()
                .and_then(|o| data.get(o..))
                .ok_or_else(|| format!("offset {offset:#x} is outside the file"))
                .and_then(|bytes| frame_record_with(bytes, offset, meta.endian, !meta.legacy_google).map_err(|e| e.to_string()))
                .and_then(|raw| meta.parse(&raw).map(|rec| describe(&rec, event_name)).map_err(|e| e.to_string()));
            if let Some(o) = out.get_mut(slot) {
                *o = text.unwrap_or_else(|e| format!("error: {e}"));
            }
        }
        if !from_walk.is_empty() {
            // Records inside COMPRESSED records are only reachable by decompressing in order.
            from_walk.sort_unstable();
            let mut next = 0usize;
            let mut index = 0u32;
            let _ = walk(data, &[], |meta, _, item| {
                if let Item::Record(raw) = item {
                    while let Some(&(row, slot)) = from_walk.get(next) {
                        if row != index {
                            break;
                        }
                        let text = match meta.parse(raw) {
                            Ok(rec) => describe(&rec, event_name),
                            Err(e) => format!("error: {e}"),
                        };
                        if let Some(o) = out.get_mut(slot) {
                            *o = text;
                        }
                        next += 1;
                    }
                    index = index.saturating_add(1);
                }
            });
        }
        out
    }

    /// Whether row `i` is a SAMPLE.
    pub fn is_sample(&self, i: usize) -> bool {
        self.type_.get(i) == Some(&RecordType::SAMPLE.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> Vec<u8> {
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/example.data")).unwrap()
    }

    /// Counts records by walking the `perf_event_header`s of the data section by hand (u32 type,
    /// u16 misc, u16 size), independently of the parser.
    fn hand_counts(data: &[u8]) -> BTreeMap<u32, u64> {
        let u64_at = |o: usize| u64::from_le_bytes(data[o..o + 8].try_into().unwrap());
        let (start, size) = (u64_at(40) as usize, u64_at(48) as usize);
        let mut counts = BTreeMap::new();
        let mut o = start;
        while o + 8 <= start + size {
            let t = u32::from_le_bytes(data[o..o + 4].try_into().unwrap());
            let s = u16::from_le_bytes(data[o + 6..o + 8].try_into().unwrap()) as usize;
            *counts.entry(t).or_insert(0) += 1;
            o += s;
        }
        counts
    }

    #[test]
    fn example_counts_match_a_hand_walk_of_the_headers() {
        let data = example();
        let mut calls = 0;
        let (ix, _) = RecordIndex::build(&data, &mut |_, _| calls += 1).unwrap();
        assert_eq!(ix.counts, hand_counts(&data));
        assert_eq!(ix.len() as u64, ix.counts.values().sum::<u64>());
        assert_eq!(ix.error_count, 0);
        assert!(calls >= 1);
        assert_eq!(ix.names.get(&9).map(String::as_str), Some("SAMPLE"));
    }

    #[test]
    fn filters_and_describes_rows() {
        let data = example();
        let (ix, meta) = RecordIndex::build(&data, &mut |_, _| {}).unwrap();
        let comms = ix.matching(&RecordFilter { types: vec![3], ..RecordFilter::default() });
        assert!(!comms.is_empty());
        let text = ix.describe_rows(&data, &meta, &comms, &|_| "cpu-clock".into());
        assert!(text.iter().any(|t| t.starts_with("sort")), "{text:?}");
        let samples = ix.matching(&RecordFilter { types: vec![9], ..RecordFilter::default() });
        let first = ix.describe_rows(&data, &meta, &samples[..1], &|_| "cpu-clock".into());
        assert!(first[0].starts_with("cpu-clock period="), "{first:?}");
        // A range keeps only timed records inside it, both ends included.
        let t = ix.time[samples[3] as usize];
        let one = ix.matching(&RecordFilter { types: vec![9], range: Some((t, t)), ..RecordFilter::default() });
        assert_eq!(one, vec![samples[3]]);
    }

    #[test]
    fn a_cut_file_keeps_the_records_before_the_cut_and_names_the_offset() {
        let data = example();
        let cut = &data[..30000];
        let (ix, _) = RecordIndex::build(cut, &mut |_, _| {}).unwrap();
        // Complete records before byte 30000, counted by hand.
        let u64_at = |o: usize| u64::from_le_bytes(data[o..o + 8].try_into().unwrap());
        let mut o = u64_at(40) as usize;
        let mut complete = 0;
        loop {
            let s = u16::from_le_bytes(data[o + 6..o + 8].try_into().unwrap()) as usize;
            if o + s > 30000 {
                break;
            }
            complete += 1;
            o += s;
        }
        assert_eq!(ix.len(), complete);
        assert!(ix.error_count >= 1);
        assert!(ix.errors.iter().any(|e| e.offset as usize == o || e.message.contains(&format!("{o:#x}"))), "{:?} (cut record at {o:#x})", ix.errors);
    }
}
