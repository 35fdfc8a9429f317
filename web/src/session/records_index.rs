//! [`RecordIndex`]: one row per record of the file in file order (records inside COMPRESSED
//! records included), stored compactly ([`RecordRows`]: about 5 bytes a record), with counts
//! per type, lost/throttle totals and the errors met.
//! It is filled record by record during a streaming pass over the file (a [`RecordSink`]).
//! The records table filters and pages over it; the fields of a row are decoded again from the
//! file, read through its [`ReadAt`], when the row is shown.

use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};

use perfscope_analysis::load::{stream_records, RecordSink, RecordStream, StreamCheckpoint};
use perfscope_format::constants::HeaderFeature;
use perfscope_format::file::ReadAt;
use perfscope_format::metadata::Metadata;
use perfscope_format::records::{
    frame_record_with, trailing_payload_len, Record, RECORD_HEADER_SIZE,
};
use perfscope_format::stream::StreamDecoder;
use perfscope_format::{RawRecord, RecordType};

use super::record_fields::{describe, who, Who};
use super::record_rows::RecordRows;
pub use super::record_rows::Row;
use super::row_set::RowSet;
use super::source::DynSource;
use super::IgnoreRecords;
use crate::protocol::{LostInfo, RecordCount, RecordError, RecordFilter};
use serde::{Deserialize, Serialize};

/// At most this many errors are kept (all are counted).
pub const MAX_ERRORS: usize = 100;
/// `u32::MAX` / `u64::MAX` mean "none" in the columns.
pub const NONE32: u32 = u32::MAX;
/// Rows are re-read in windows of at least this many bytes.
const WINDOW: u64 = 64 << 10;

/// Record types counted by index in [`RecordIndex`] (perf's go up to ~100; a broken file's
/// larger ones go to a map).
const DIRECT_TYPES: u32 = 256;

/// What a [`RecordIndex::tally`] counted of some records (a slice's, on the worker that
/// orders them: `crate::session::OrderPass`), for the tally of the records before them to add
/// ([`RecordIndex::add_tally`]), with the records of those the summary reads.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// Records counted.
    pub records: u64,
    /// (type, records of it).
    pub counts: Vec<(u32, u64)>,
    /// Lost and throttled.
    pub lost: LostInfo,
    /// The first errors (each `records_before` counted from the first of these records).
    pub errors: Vec<RecordError>,
    /// All errors.
    pub error_count: u64,
    /// The file names that MMAP and MMAP2 records map.
    pub mapped: Vec<String>,
    /// The records the summary reads (`SummaryReader::reads`), in order.
    pub summary: Vec<WholeRecord>,
    /// The records ended there (a slice could not be read).
    pub ended: bool,
    /// A pipe stream's records that grow its metadata (ATTR, FEATURE, EVENT_UPDATE, and the
    /// features of the pre-upstream Google format), in order.
    #[serde(default)]
    pub meta_records: Vec<WholeRecord>,
    /// A pipe stream of the pre-upstream Google format.
    #[serde(default)]
    pub legacy_google: bool,
    /// A pipe stream's first error of the records' framing or metadata (not of decoding a
    /// record, which only the records index reports), which ends what its summary reads.
    #[serde(default)]
    pub stream_error: Option<String>,
}

/// A record sent whole to another worker (in a [`Tally`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WholeRecord {
    /// Its offset in the file.
    pub offset: u64,
    /// Its header's type, misc and size.
    pub header: (u32, u16, u16),
    /// Its body.
    pub body: Vec<u8>,
    /// What follows it uncounted in its size.
    pub payload: Vec<u8>,
}

impl WholeRecord {
    /// `rec`, owned.
    pub fn of(rec: &RawRecord<'_>) -> WholeRecord {
        let h = rec.header;
        WholeRecord {
            offset: rec.offset,
            header: (h.type_.0, h.misc, h.size),
            body: rec.body.to_vec(),
            payload: rec.payload.to_vec(),
        }
    }

    /// The record again, in a file of `meta`'s byte order.
    pub fn raw(&self, meta: &Metadata) -> RawRecord<'_> {
        self.raw_in(meta.endian)
    }

    /// [`WholeRecord::raw`] in byte order `endian`.
    pub fn raw_in(&self, endian: perfscope_format::Endianness) -> RawRecord<'_> {
        let (type_, misc, size) = self.header;
        RawRecord {
            offset: self.offset,
            inner_offset: None,
            endian,
            header: perfscope_format::records::RecordHeader {
                type_: RecordType(type_),
                misc,
                size,
            },
            body: &self.body,
            payload: &self.payload,
        }
    }
}

/// Every record as rows ([`RecordRows`]: about 15 bytes a record), with counts.
///
/// A [`RecordIndex::tally`] counts the records and checks all but the samples, without rows:
/// what the records pass of a file opened in the page makes. The samples are checked by the
/// profile loader, whose errors [`RecordIndex::add_sample_errors`] takes; the rows come from a
/// second read of the file ([`RecordIndex::fill_rows_step`], a slice at a time between the
/// worker's requests, or [`RecordIndex::fill_rows`] when a records query needs them first).
#[derive(Debug)]
pub struct RecordIndex {
    /// The rows, in file order (none in a tally, until filled).
    rows: RecordRows,
    /// Whether rows are made and samples checked as records come (not a tally).
    full: bool,
    /// Records pushed.
    records: usize,
    /// Records per type (see [`RecordIndex::counts`]): types below [`DIRECT_TYPES`] by
    /// index, one load per record, the rest in a map.
    by_type: Vec<u64>,
    other_counts: BTreeMap<u32, u64>,
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
    /// The COMPRESSED record the last compressed row came from, and the rows from it so far.
    last_compressed: Option<(u64, u32)>,
    /// The second pass making a tally's rows, while it goes on.
    rows_pass: Option<Box<RowsPass>>,
    /// The walk [`RecordIndex::describe_rows`] goes on with, and the rows it kept described
    /// (by row).
    walk: Option<Box<Walk>>,
    walk_kept: VecDeque<(u32, String)>,
    /// Walks begun from the start of the file, and from a checkpoint.
    walks_started: u32,
    walks_resumed: u32,
    /// Checkpoints of a `-z` file's rows pass, by the row of the record each delivers next
    /// (see [`Checkpoints`]).
    checkpoints: Checkpoints,
    /// Rows a walk keeps described ([`WALK_KEEP`]) and bytes it reads at a time
    /// ([`WALK_SLICE`]); fewer in tests.
    walk_keep: usize,
    walk_slice: usize,
}

/// A second pass over the file that makes a tally's rows ([`RecordIndex::fill_rows_step`]).
struct RowsPass {
    stream: RecordStream,
    /// A full index of the records read so far.
    full: RecordIndex,
}

impl std::fmt::Debug for RowsPass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RowsPass")
            .field("rows", &self.full.rows.len())
            .finish()
    }
}

impl Default for RecordIndex {
    fn default() -> RecordIndex {
        RecordIndex {
            rows: RecordRows::default(),
            full: true,
            records: 0,
            by_type: Vec::new(),
            other_counts: BTreeMap::new(),
            names: BTreeMap::new(),
            lost: LostInfo::default(),
            errors: Vec::new(),
            error_count: 0,
            mapped: BTreeSet::new(),
            last_compressed: None,
            rows_pass: None,
            walk: None,
            walk_kept: VecDeque::new(),
            walks_started: 0,
            walks_resumed: 0,
            checkpoints: Checkpoints::default(),
            walk_keep: WALK_KEEP,
            walk_slice: WALK_SLICE,
        }
    }
}

impl RecordSink for RecordIndex {
    fn record(&mut self, meta: &Metadata, raw: &RawRecord<'_>) {
        let _ = self.push(meta, raw);
    }
    fn error(&mut self, e: perfscope_format::Error) {
        self.push_error(e);
    }
}

impl RecordIndex {
    /// Reads a whole perf.data (file or pipe mode) through `r` in slices of `slice` bytes.
    /// `progress(bytes, records)` is called after each slice. Returns the index and the file's
    /// metadata, or the error that prevented reading any record.
    pub fn build(
        r: &mut dyn ReadAt,
        slice: usize,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(RecordIndex, Metadata), perfscope_format::Error> {
        let mut ix = RecordIndex::default();
        let meta = stream_records(&mut DynSource(r), &mut [], slice, &mut ix, progress)?;
        Ok((ix, meta))
    }

    /// An index that only counts and checks records as they come: no rows, and samples are
    /// neither checked nor decoded (see the type's docs).
    pub fn tally() -> RecordIndex {
        RecordIndex {
            full: false,
            ..RecordIndex::default()
        }
    }

    /// What this tally counted since it was made or last taken, leaving it as made (see
    /// [`Tally`]; its `summary`, `ended` and pipe-stream fields are the caller's).
    pub fn take_tally(&mut self) -> Tally {
        let counts = self.counts().into_iter().collect();
        let taken = std::mem::replace(self, RecordIndex::tally());
        Tally {
            records: taken.records as u64,
            counts,
            lost: taken.lost,
            errors: taken.errors,
            error_count: taken.error_count,
            mapped: taken.mapped.into_iter().collect(),
            summary: Vec::new(),
            ended: false,
            meta_records: Vec::new(),
            legacy_google: false,
            stream_error: None,
        }
    }

    /// Adds what another tally counted of the records after these (their types named as
    /// `meta` names them).
    pub fn add_tally(&mut self, meta: &Metadata, t: &Tally) {
        for &(type_, n) in &t.counts {
            self.count_type(meta, type_, n);
        }
        let (l, m) = (&mut self.lost, &t.lost);
        l.lost_records = l.lost_records.saturating_add(m.lost_records);
        l.lost_events = l.lost_events.saturating_add(m.lost_events);
        l.lost_samples_records = l
            .lost_samples_records
            .saturating_add(m.lost_samples_records);
        l.lost_samples = l.lost_samples.saturating_add(m.lost_samples);
        l.throttle = l.throttle.saturating_add(m.throttle);
        l.unthrottle = l.unthrottle.saturating_add(m.unthrottle);
        let before = self.records as u64;
        let room = MAX_ERRORS.saturating_sub(self.errors.len());
        self.errors
            .extend(t.errors.iter().take(room).map(|e| RecordError {
                records_before: e.records_before.saturating_add(before),
                ..e.clone()
            }));
        self.error_count = self.error_count.saturating_add(t.error_count);
        self.mapped.extend(t.mapped.iter().cloned());
        self.records = self
            .records
            .saturating_add(usize::try_from(t.records).unwrap_or(usize::MAX));
    }

    /// Whether the rows are made (not a tally, or one filled since).
    pub fn has_rows(&self) -> bool {
        self.full
    }

    /// Adds the next record of the file. Returns its time as decoding it gave it (`None`
    /// inside when it has none), or `None` when it was not decoded (a sample in a tally) or
    /// could not be: what `EventTable::record_time` reads, so that the profile loader need not
    /// read it again.
    pub fn push(&mut self, meta: &Metadata, raw: &RawRecord<'_>) -> Option<Option<u64>> {
        self.count_type(meta, raw.type_().0, 1);
        let (mut time, mut w, mut decoded) = (None, Who::default(), false);
        if raw.type_() == RecordType::SAMPLE && !self.full {
            // Checked, and its row made, later.
            self.records += 1;
            return None;
        }
        if raw.type_() == RecordType::SAMPLE {
            // Most records: checked as a decoding would check them, without building one.
            match meta.sample_ids(raw) {
                Ok(ids) => {
                    time = ids.time;
                    w = Who {
                        pid: ids.pid,
                        tid: ids.tid,
                        cpu: ids.cpu,
                    };
                    decoded = true;
                }
                Err(e) => self.push_error(e),
            }
        } else {
            match &meta.parse(raw) {
                Ok(rec) => {
                    time = rec.time();
                    w = who(rec);
                    self.count_lost(rec);
                    decoded = true;
                }
                Err(e) => self.push_error(*e),
            }
        }
        if self.full {
            self.push_row(raw, time, w);
        }
        self.records += 1;
        decoded.then_some(time)
    }

    /// Counts `n` more records of type `t` (named as `meta` names it, the first time).
    #[inline]
    fn count_type(&mut self, meta: &Metadata, t: u32, n: u64) {
        if t < DIRECT_TYPES && t as usize >= self.by_type.len() {
            self.by_type.resize(t as usize + 1, 0);
        }
        let count = match self.by_type.get_mut(t as usize) {
            Some(c) => c,
            None => self.other_counts.entry(t).or_insert(0),
        };
        if *count == 0 && n > 0 {
            self.names.insert(t, meta.record_type_name(RecordType(t)));
        }
        *count = count.saturating_add(n);
    }

    /// The row of `raw`, decoded as `time` and `w` (`None`s where it could not be).
    fn push_row(&mut self, raw: &RawRecord<'_>, time: Option<u64>, w: Who) {
        let inner = match raw.inner_offset {
            None => NONE32,
            Some(_) => {
                let n = match self.last_compressed {
                    Some((at, n)) if at == raw.offset => n.saturating_add(1),
                    _ => 0,
                };
                self.last_compressed = Some((raw.offset, n));
                n
            }
        };
        self.rows.push(Row {
            offset: raw.offset,
            inner,
            type_: raw.type_().0,
            time: time.unwrap_or(u64::MAX),
            cpu: w.cpu.unwrap_or(NONE32),
            pid: w.pid.unwrap_or(NONE32),
            tid: w.tid.unwrap_or(NONE32),
        });
    }

    /// Takes the errors of the samples that the profile loader could not decode, each with its
    /// number among the records (as [`perfscope_analysis::load::LoadDiagnostics::sample_errors`]
    /// gives them): a tally did not check the samples. They join the errors in file order, as a
    /// full index would have met them.
    pub fn add_sample_errors(&mut self, sample_errors: &[(u64, perfscope_format::Error)]) {
        self.error_count += sample_errors.len() as u64;
        // Delivered in time order: into file order (a stable sort: errors of one record keep
        // theirs), and only as many as can be kept.
        let mut fresh = sample_errors.to_vec();
        fresh.sort_by_key(|&(seq, _)| seq);
        fresh.truncate(MAX_ERRORS);
        self.errors
            .extend(fresh.into_iter().map(|(seq, e)| RecordError {
                offset: e.offset,
                message: e.to_string(),
                records_before: seq,
            }));
        // Stable: the index's own error comes first when both are at one record (a framing
        // error is met before the record it stops).
        self.errors.sort_by_key(|e| e.records_before);
        self.errors.truncate(MAX_ERRORS);
    }

    /// Makes the rows of a tally by reading the file again through `r` (in slices of `slice`
    /// bytes), until there are `rows` of them, or all (`usize::MAX`): they are what a full
    /// index's pass makes. The counts and errors stay the tally's. (The first page of the
    /// Records tab need not wait for the rows of the whole file: a 4 GB recording's take
    /// seconds.)
    pub fn fill_rows(&mut self, r: &mut dyn ReadAt, slice: usize, rows: usize) {
        while self.rows_made() < rows && !self.fill_rows_step(r, slice) {}
    }

    /// [`RecordIndex::fill_rows`] one slice at a time (the worker makes the rows between its
    /// queries): reads the next slice and returns whether the rows are made.
    pub fn fill_rows_step(&mut self, r: &mut dyn ReadAt, slice: usize) -> bool {
        if self.full {
            return true;
        }
        let pass = match &mut self.rows_pass {
            Some(p) => p,
            None => {
                let mut full = RecordIndex::default();
                full.rows.reserve_rows(self.records);
                match RecordStream::open(&mut DynSource(&mut *r), slice, &mut full) {
                    Ok(mut stream) => {
                        let compressed = stream.file_records().is_some_and(|(meta, _, _)| {
                            meta.feature(HeaderFeature::COMPRESSED).is_some()
                        });
                        if compressed {
                            // Slices of fewer records, for checkpoints as close together as
                            // they are asked for.
                            stream.set_chunk_size(slice.min(self.checkpoints.slice));
                        }
                        self.rows_pass.insert(Box::new(RowsPass { stream, full }))
                    }
                    // (The pass read the header: only a file changed since fails here.)
                    Err(_) => {
                        self.full = true;
                        return true;
                    }
                }
            }
        };
        if let Some((at, size)) = pass.stream.next_slice() {
            pass.stream
                .push(size, |out| r.read_into(at, out), &mut pass.full);
        }
        if pass.stream.next_slice().is_some() {
            let row = u32::try_from(pass.full.records).unwrap_or(u32::MAX);
            self.checkpoints.offer(&pass.stream, row);
            return false;
        }
        if let Some(p) = self.rows_pass.take() {
            let RowsPass { stream, mut full } = *p;
            stream.finish(&mut full);
            self.rows = full.rows;
        }
        self.full = true;
        true
    }

    /// The rows made so far: all of them, or those of the pass making them.
    fn made(&self) -> Option<&RecordRows> {
        match &self.rows_pass {
            _ if self.full => Some(&self.rows),
            Some(pass) => Some(&pass.full.rows),
            None => None,
        }
    }

    /// Rows made so far (see [`RecordIndex::row`]).
    pub fn rows_made(&self) -> usize {
        self.made().map_or(0, RecordRows::len)
    }

    /// Row `i`, once made: by the rows pass, or the full index's.
    pub fn row(&self, i: usize) -> Option<Row> {
        self.made()?.get(i)
    }

    /// Every row, in file order.
    pub fn rows(&self) -> impl Iterator<Item = Row> + '_ {
        self.rows.iter()
    }

    /// Adds an error met while reading the file.
    pub fn push_error(&mut self, e: perfscope_format::Error) {
        self.error_count += 1;
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(RecordError {
                offset: e.offset,
                message: e.to_string(),
                records_before: self.records as u64,
            });
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
                self.mapped
                    .insert(String::from_utf8_lossy(r.filename.as_bytes()).into_owned());
            }
            Record::Mmap2(r) => {
                self.mapped
                    .insert(String::from_utf8_lossy(r.filename.as_bytes()).into_owned());
            }
            _ => {}
        }
    }

    /// Bytes held by the rows.
    pub fn heap_bytes(&self) -> usize {
        self.rows.heap_bytes()
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.records
    }

    /// Whether there is no record.
    pub fn is_empty(&self) -> bool {
        self.records == 0
    }

    /// Records per type (those met only).
    pub fn counts(&self) -> BTreeMap<u32, u64> {
        let direct = (0u32..).zip(self.by_type.iter().copied());
        let mut counts: BTreeMap<u32, u64> = direct.filter(|&(_, n)| n > 0).collect();
        counts.extend(&self.other_counts);
        counts
    }

    /// Counts per type, in type order.
    pub fn record_counts(&self) -> Vec<RecordCount> {
        self.counts()
            .iter()
            .map(|(&t, &count)| RecordCount {
                type_: t,
                name: self.names.get(&t).cloned().unwrap_or_default(),
                count,
            })
            .collect()
    }

    /// The rows that pass `f`.
    pub fn matching(&self, f: &RecordFilter) -> RowSet {
        let types: HashSet<u32> = f.types.iter().copied().collect();
        let kind_ok = |type_: u32, (cpu, pid, tid): (u32, u32, u32)| {
            (types.is_empty() || types.contains(&type_))
                && f.pid.is_none_or(|p| pid == p)
                && f.tid.is_none_or(|t| tid == t)
                && f.cpu.is_none_or(|c| cpu == c)
        };
        // (A row without a time has u64::MAX: it is in no range.)
        let range = f.range.map(|(lo, hi)| (lo, hi.min(u64::MAX - 1)));
        self.rows.matching(kind_ok, range)
    }

    /// Whether `rec` is what row `row` says (type, time, tid).
    fn is_row(&self, row: usize, rec: &Record<'_>, raw: &RawRecord<'_>) -> bool {
        self.row(row).is_some_and(|r| {
            r.type_ == raw.type_().0
                && r.time == rec.time().unwrap_or(u64::MAX)
                && r.tid == who(rec).tid.unwrap_or(NONE32)
        })
    }

    /// The decoded fields of `rows` (record indices), in the order given, read through `r`.
    /// A record is read at its offset; one inside a COMPRESSED record is decoded from that
    /// record alone, or — when it began in an earlier one — by streaming the file up to it.
    pub fn describe_rows(
        &mut self,
        r: &mut dyn ReadAt,
        meta: &Metadata,
        rows: &[u32],
        event_name: &dyn Fn(u32) -> String,
    ) -> Vec<String> {
        let mut out = vec![String::new(); rows.len()];
        let mut window = Window::default();
        let mut from_walk: Vec<(u32, usize)> = Vec::new();
        for (slot, &row) in rows.iter().enumerate() {
            let i = row as usize;
            let Some(Row { offset, inner, .. }) = self.row(i) else {
                continue;
            };
            let bytes = match window.record(r, offset, meta) {
                Ok(b) => b,
                Err(e) => {
                    if let Some(o) = out.get_mut(slot) {
                        *o = format!("error: {e}");
                    }
                    continue;
                }
            };
            let text = if inner == NONE32 {
                frame_record_with(bytes, offset, meta.endian, !meta.legacy_google)
                    .and_then(|raw| meta.parse(&raw).map(|rec| describe(&rec, event_name)))
                    .map_err(|e| e.to_string())
            } else {
                let mut d = StreamDecoder::records(meta.endian, offset);
                d.push(bytes);
                d.finish();
                let mut n = 0u32;
                let mut found = None;
                while let Some(item) = d.next_record() {
                    let Ok(raw) = item else { break };
                    if raw.inner_offset.is_none() || raw.offset != offset {
                        continue;
                    }
                    if n == inner {
                        found = meta
                            .parse(&raw)
                            .ok()
                            .filter(|rec| self.is_row(i, rec, &raw))
                            .map(|rec| describe(&rec, event_name));
                        break;
                    }
                    n += 1;
                }
                match found {
                    Some(text) => Ok(text),
                    None => {
                        from_walk.push((row, slot));
                        continue;
                    }
                }
            };
            if let Some(o) = out.get_mut(slot) {
                *o = text.unwrap_or_else(|e| format!("error: {e}"));
            }
        }
        if !from_walk.is_empty() {
            self.walk_to(r, &mut from_walk, &mut out, event_name);
        }
        out
    }

    /// Describes the rows of `wanted` ((row, slot in `out`)) that only a walk over the file
    /// reaches (records that began in an earlier COMPRESSED record, of one zstd stream): from
    /// the rows the last walk kept, else by going on with that walk when they lie ahead of it,
    /// else by a new walk from the start. The walk keeps its place for the next query and the
    /// descriptions of the last rows it read from a little before the first one wanted (the
    /// page before, and the rows its last read passed after the last one wanted: the next
    /// page's): paging through such a file reads it once, not once a page.
    fn walk_to(
        &mut self,
        r: &mut dyn ReadAt,
        wanted: &mut Vec<(u32, usize)>,
        out: &mut [String],
        event_name: &dyn Fn(u32) -> String,
    ) {
        wanted.sort_unstable();
        let kept = &self.walk_kept;
        wanted.retain(
            |&(row, slot)| match kept.binary_search_by_key(&row, |(r, _)| *r) {
                Ok(k) => {
                    if let (Some(o), Some((_, text))) = (out.get_mut(slot), kept.get(k)) {
                        o.clone_from(text);
                    }
                    false
                }
                Err(_) => true,
            },
        );
        let Some(&(first, _)) = wanted.first() else {
            return;
        };
        // Go on with the last walk when no checkpoint lies between it and the first row
        // wanted; else begin at that checkpoint; else at the start.
        let checkpoint = self.checkpoints.row_before(first);
        let mut walk = match self.walk.take() {
            Some(w) if w.next <= first && checkpoint.is_none_or(|row| row <= w.next) => w,
            _ => match self.checkpoints.resume_before(first) {
                Some((next, mut stream)) => {
                    self.walks_resumed += 1;
                    stream.set_chunk_size(self.walk_slice);
                    Box::new(Walk { stream, next })
                }
                None => {
                    self.walks_started += 1;
                    match RecordStream::open(
                        &mut DynSource(&mut *r),
                        self.walk_slice,
                        &mut IgnoreRecords,
                    ) {
                        Ok(stream) => Box::new(Walk { stream, next: 0 }),
                        Err(_) => return,
                    }
                }
            },
        };
        self.walk_kept.clear();
        let mut sink = Pick {
            rows: wanted,
            next: 0,
            index: walk.next,
            out,
            event_name,
            keep_from: first.saturating_sub(WALK_KEEP_BEFORE.min(self.walk_keep as u32 / 4)),
            keep: self.walk_keep,
            kept: &mut self.walk_kept,
        };
        while let Some(&(wanted, _)) = sink.rows.get(sink.next) {
            // A checkpoint between here and the next row wanted: the rows between are
            // skipped (a filter's page may spread over much of the file).
            if self.checkpoints.row_before(wanted) > Some(sink.index) {
                if let Some((next, mut stream)) = self.checkpoints.resume_before(wanted) {
                    self.walks_resumed += 1;
                    stream.set_chunk_size(self.walk_slice);
                    walk.stream = stream;
                    sink.index = next;
                }
            }
            let Some((at, size)) = walk.stream.next_slice() else {
                break;
            };
            walk.stream.push(size, |b| r.read_into(at, b), &mut sink);
        }
        if walk.stream.next_slice().is_some() {
            walk.next = sink.index;
            self.walk = Some(walk);
        } else {
            // The end: what the decoder still holds.
            walk.stream.finish(&mut sink);
        }
    }

    /// Walks over the file [`RecordIndex::describe_rows`] began from its start (the rows
    /// inside COMPRESSED records it could not decode alone).
    pub fn walks_started(&self) -> u32 {
        self.walks_started
    }

    /// Walks [`RecordIndex::describe_rows`] began at a checkpoint of the rows pass.
    pub fn walks_resumed(&self) -> u32 {
        self.walks_resumed
    }

    /// The checkpoints of a `-z` file's rows pass: (row, file offset of the next slice, bytes
    /// held), in order.
    pub fn checkpoints(&self) -> Vec<(u32, u64, usize)> {
        self.checkpoints
            .list
            .iter()
            .map(|c| (c.row, c.stream.at(), c.bytes))
            .collect()
    }

    /// The rows pass of a `-z` file takes a checkpoint every `every` decompressed bytes (at
    /// first: they grow apart as they are thinned out), reads `slice` bytes at a time and
    /// keeps checkpoints of at most `budget` bytes in all, instead of [`CHECKPOINT_EVERY`],
    /// [`CHECKPOINT_SLICE`] and [`CHECKPOINT_BUDGET`] (tests: a small file). Before the rows
    /// pass.
    pub fn set_checkpoints(&mut self, every: u64, slice: usize, budget: usize) {
        self.checkpoints = Checkpoints {
            every: every.max(1),
            slice: slice.max(1),
            budget,
            ..Checkpoints::default()
        };
    }

    /// Walks read `slice` bytes at a time and keep `keep` rows described after them, instead
    /// of [`WALK_SLICE`] and [`WALK_KEEP`] (tests: to page past them in a small file).
    pub fn set_walk(&mut self, slice: usize, keep: usize) {
        self.walk_slice = slice.max(1);
        self.walk_keep = keep;
    }

    /// Whether row `i` is a SAMPLE.
    pub fn is_sample(&self, i: usize) -> bool {
        self.row(i).is_some_and(|r| r.type_ == RecordType::SAMPLE.0)
    }
}

/// The last bytes read for [`RecordIndex::describe_rows`]: rows shown together are mostly
/// near each other.
#[derive(Default)]
struct Window {
    start: u64,
    bytes: Vec<u8>,
}

impl Window {
    /// The bytes of the record at `offset` (its header says how many).
    fn record(
        &mut self,
        r: &mut dyn ReadAt,
        offset: u64,
        meta: &Metadata,
    ) -> Result<&[u8], perfscope_format::Error> {
        let header = RECORD_HEADER_SIZE as u64;
        let size = match self.get(offset, header) {
            Some(h) => record_size(h, meta),
            None => {
                self.fill(r, offset, header)?;
                self.get(offset, header).map_or(0, |h| record_size(h, meta))
            }
        };
        let mut size = size.max(header);
        if self.get(offset, size).is_none() {
            self.fill(r, offset, size)?;
        }
        // The bytes after the record that belong to it (AUX data, trace data).
        let payload = self.get(offset, size).and_then(|b| {
            let type_ = RecordType(meta.endian.u32(b.get(..4)?.try_into().ok()?));
            trailing_payload_len(type_, b.get(RECORD_HEADER_SIZE..)?, meta.endian)
        });
        if let Some(len) = payload.filter(|_| !meta.legacy_google) {
            size = size.saturating_add(len);
            if self.get(offset, size).is_none() {
                self.fill(r, offset, size)?;
            }
        }
        Ok(self.get(offset, size).unwrap_or(&[]))
    }

    fn get(&self, offset: u64, size: u64) -> Option<&[u8]> {
        let from = usize::try_from(offset.checked_sub(self.start)?).ok()?;
        self.bytes
            .get(from..from.checked_add(usize::try_from(size).ok()?)?)
    }

    fn fill(
        &mut self,
        r: &mut dyn ReadAt,
        offset: u64,
        at_least: u64,
    ) -> Result<(), perfscope_format::Error> {
        let len = r.len();
        if offset.saturating_add(at_least) > len {
            return Err(perfscope_format::Error::new(
                offset,
                perfscope_format::ErrorKind::RecordPastEnd {
                    size: at_least,
                    available: len.saturating_sub(offset),
                },
            ));
        }
        let size = at_least.max(WINDOW).min(len - offset);
        self.bytes = r.read_at(offset, size)?;
        self.start = offset;
        Ok(())
    }
}

/// `perf_event_header.size` of the record header `h`.
fn record_size(h: &[u8], meta: &Metadata) -> u64 {
    h.get(6..8)
        .and_then(|b| b.try_into().ok())
        .map_or(0, |b| u64::from(meta.endian.u16(b)))
}

/// A walk over the file that [`RecordIndex::describe_rows`] keeps between queries.
struct Walk {
    stream: RecordStream,
    /// The row of the next record it delivers.
    next: u32,
}

impl std::fmt::Debug for Walk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Walk").field("next", &self.next).finish()
    }
}

/// Bytes a walk reads at a time (a slice's records past the last one wanted are read for
/// nothing but the kept rows).
const WALK_SLICE: usize = 32 << 10;
/// Rows a walk keeps described: the last it read, from [`WALK_KEEP_BEFORE`] rows before the
/// first one wanted (the page before; and the rows after the last one wanted that its last
/// read passed, for the next page).
const WALK_KEEP: usize = 8192;
/// See [`WALK_KEEP`].
const WALK_KEEP_BEFORE: u32 = 1024;

/// A `-z` file's rows pass takes a checkpoint of its stream every this many decompressed
/// bytes (at first; see [`Checkpoints`]): a walk to a record begins at the checkpoint before
/// it, so it decompresses at most about this much (~0.05 s natively) rather than the file up
/// to the record.
const CHECKPOINT_EVERY: u64 = 16 << 20;
/// The slices a `-z` file's rows pass reads (compressed bytes: ~8 MiB of records at perf's
/// usual ratio), so that its checkpoints can be about [`CHECKPOINT_EVERY`] apart.
const CHECKPOINT_SLICE: usize = 1 << 20;
/// The bytes all checkpoints may hold (each holds the zstd decoder's window: ~0.5-1 MiB at
/// perf's default level, several MiB at high levels).
const CHECKPOINT_BUDGET: usize = 32 << 20;

/// One checkpoint: the row of the record the stream delivers next, the stream's state, the
/// decompressed bytes before it and about how many bytes it holds.
#[derive(Debug)]
struct Checkpoint {
    row: u32,
    stream: StreamCheckpoint,
    decompressed: u64,
    bytes: usize,
}

/// The checkpoints of a `-z` file's rows pass, with the file's metadata (once for all): one
/// at least [`Checkpoints::every`] decompressed bytes after the one before. When they hold
/// more than the budget, every second one is dropped and the spacing doubles, so a file of
/// any size keeps them evenly spread within the budget.
#[derive(Debug)]
struct Checkpoints {
    list: Vec<Checkpoint>,
    meta: Option<Metadata>,
    every: u64,
    slice: usize,
    budget: usize,
}

impl Default for Checkpoints {
    fn default() -> Self {
        Checkpoints {
            list: Vec::new(),
            meta: None,
            every: CHECKPOINT_EVERY,
            slice: CHECKPOINT_SLICE,
            budget: CHECKPOINT_BUDGET,
        }
    }
}

impl Checkpoints {
    /// Takes a checkpoint of `stream` (between two slices, its next record row `row`) when it
    /// decompressed [`Checkpoints::every`] bytes since the last one.
    fn offer(&mut self, stream: &RecordStream, row: u32) {
        let (decompressed, bytes) = stream.decompressed();
        let last = self.list.last().map_or(0, |c| c.decompressed);
        if decompressed == 0 || decompressed < last.saturating_add(self.every) {
            return;
        }
        let Some(meta) = stream.file_records().map(|(meta, _, _)| meta) else {
            return;
        };
        let Some(checkpoint) = stream.checkpoint() else {
            return;
        };
        if self.meta.is_none() {
            self.meta = Some(meta.clone());
        }
        self.list.push(Checkpoint {
            row,
            stream: checkpoint,
            decompressed,
            bytes,
        });
        while self.list.len() > 1 && self.list.iter().map(|c| c.bytes).sum::<usize>() > self.budget
        {
            // Keep the second, fourth, …: those every `2 × every` bytes.
            let mut i = 0;
            self.list.retain(|_| {
                i += 1;
                i % 2 == 0
            });
            self.every = self.every.saturating_mul(2);
        }
    }

    /// The last checkpoint at or before `row`.
    fn last_before(&self, row: u32) -> Option<&Checkpoint> {
        let i = self.list.partition_point(|c| c.row <= row).checked_sub(1)?;
        self.list.get(i)
    }

    /// The row of the record the last checkpoint at or before `row` delivers next.
    fn row_before(&self, row: u32) -> Option<u32> {
        self.last_before(row).map(|c| c.row)
    }

    /// A stream at the last checkpoint at or before `row`, and the row it delivers next.
    fn resume_before(&self, row: u32) -> Option<(u32, RecordStream)> {
        let c = self.last_before(row)?;
        let stream = RecordStream::resume(&c.stream, self.meta.clone()?)?;
        Some((c.row, stream))
    }
}

/// Picks rows out of a walk over the file, and keeps the descriptions of those around them.
struct Pick<'a> {
    /// (row, slot in `out`), by row.
    rows: &'a [(u32, usize)],
    next: usize,
    /// The row of the record coming.
    index: u32,
    out: &'a mut [String],
    event_name: &'a dyn Fn(u32) -> String,
    /// Rows from this one on are kept in `kept` (the last `keep` of them).
    keep_from: u32,
    keep: usize,
    kept: &'a mut VecDeque<(u32, String)>,
}

impl RecordSink for Pick<'_> {
    fn record(&mut self, meta: &Metadata, raw: &RawRecord<'_>) {
        let wanted = self
            .rows
            .get(self.next)
            .is_some_and(|&(r, _)| r == self.index);
        let keep = self.index >= self.keep_from && self.keep > 0;
        if wanted || keep {
            let text = match meta.parse(raw) {
                Ok(rec) => describe(&rec, self.event_name),
                Err(e) => format!("error: {e}"),
            };
            while let Some(&(row, slot)) = self.rows.get(self.next) {
                if row != self.index {
                    break;
                }
                if let Some(o) = self.out.get_mut(slot) {
                    o.clone_from(&text);
                }
                self.next += 1;
            }
            if keep {
                if self.kept.len() == self.keep {
                    self.kept.pop_front();
                }
                self.kept.push_back((self.index, text));
            }
        }
        self.index = self.index.saturating_add(1);
    }
    fn error(&mut self, _e: perfscope_format::Error) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::source::VecSource;

    fn build(
        data: &[u8],
        slice: usize,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<(RecordIndex, Metadata), perfscope_format::Error> {
        RecordIndex::build(&mut VecSource(data.to_vec()), slice, progress)
    }

    fn example() -> Vec<u8> {
        std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/data/example.data"
        ))
        .unwrap()
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
        let (ix, _) = build(&data, 4096, &mut |_, _| calls += 1).unwrap();
        assert_eq!(ix.counts(), hand_counts(&data));
        assert_eq!(ix.len() as u64, ix.counts().values().sum::<u64>());
        assert_eq!(ix.error_count, 0);
        // Progress after each 4 KB slice.
        assert!(
            calls as usize >= data.len() / 4096 - 2,
            "{calls} progress calls for {} bytes",
            data.len()
        );
        assert_eq!(ix.names.get(&9).map(String::as_str), Some("SAMPLE"));
    }

    /// The rows of records of type `t`.
    fn of_type(ix: &RecordIndex, t: u32) -> Vec<u32> {
        let filter = RecordFilter {
            types: vec![t],
            ..RecordFilter::default()
        };
        ix.matching(&filter).iter().collect()
    }

    #[test]
    fn filters_and_describes_rows() {
        let data = example();
        let (mut ix, meta) = build(&data, 1 << 20, &mut |_, _| {}).unwrap();
        let mut src = VecSource(data.clone());
        let comms = of_type(&ix, 3);
        assert!(!comms.is_empty());
        let text = ix.describe_rows(&mut src, &meta, &comms, &|_| "cpu-clock".into());
        assert!(text.iter().any(|t| t.starts_with("sort")), "{text:?}");
        let samples = of_type(&ix, 9);
        let first = ix.describe_rows(&mut src, &meta, &samples[..1], &|_| "cpu-clock".into());
        assert!(first[0].starts_with("cpu-clock period="), "{first:?}");
        // A range keeps only timed records inside it, both ends included.
        let t = ix.row(samples[3] as usize).unwrap().time;
        let one = ix.matching(&RecordFilter {
            types: vec![9],
            range: Some((t, t)),
            ..RecordFilter::default()
        });
        assert_eq!(one.iter().collect::<Vec<_>>(), vec![samples[3]]);
    }

    #[test]
    fn a_cut_file_keeps_the_records_before_the_cut_and_names_the_offset() {
        let data = example();
        let cut = &data[..30000];
        let (ix, _) = build(cut, 1000, &mut |_, _| {}).unwrap();
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
        assert!(
            ix.errors
                .iter()
                .any(|e| e.offset as usize == o || e.message.contains(&format!("{o:#x}"))),
            "{:?} (cut record at {o:#x})",
            ix.errors
        );
    }

    /// The time `push` hands the loader (instead of the loader reading it again) is the one
    /// `EventTable::record_time` reads, for every record it decodes, on the committed test
    /// files and every recording of the corpus (when present).
    #[test]
    fn the_time_handed_to_the_loader_is_the_record_time() {
        struct Check(RecordIndex, u64);
        impl RecordSink for Check {
            fn record(&mut self, meta: &Metadata, raw: &RawRecord<'_>) {
                if let Some(time) = self.0.push(meta, raw) {
                    assert_eq!(
                        time,
                        meta.events.record_time(raw),
                        "record at {}",
                        raw.offset
                    );
                    self.1 += 1;
                }
            }
            fn error(&mut self, _e: perfscope_format::Error) {}
        }
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data");
        let mut files: Vec<std::path::PathBuf> = ["example.data", "pipe.data", "two-events.data"]
            .iter()
            .map(|f| std::path::Path::new(dir).join(f))
            .collect();
        files.extend(crate::session::streamed_tests::corpus_files_if_present());
        let mut checked = 0;
        for f in &files {
            let data = std::fs::read(f).unwrap();
            let mut check = Check(RecordIndex::default(), 0);
            let _ = stream_records(
                &mut DynSource(&mut VecSource(data)),
                &mut [],
                1 << 16,
                &mut check,
                &mut |_, _| {},
            );
            checked += check.1;
        }
        assert!(checked > 1000, "{checked} records checked");
    }
}
