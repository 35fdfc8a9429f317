//! The records pass in two halves on two workers (see
//! [`perfscope_analysis::load::DeliveryWriter`]): another worker reads the file's slices, puts
//! the records in time order, decodes the samples (and makes their stacks' entries: since
//! session 37 this worker, the less busy one, does that) and tallies the records for the records
//! index ([`OrderPass`]), and sends what that wrote for each slice; this one gives its loader,
//! its records index and its summary what the other made, and does not read the slice
//! ([`Opening::take_ordered`]). Natively the two halves on two threads took 0.63–0.72× the
//! time of one loader on a 300 MB recording; in the page on the 2-core benchmark machine about
//! 0.73× to the flame graph (BENCHMARKS.md, session 35; session 34's version, which framed
//! every slice here too, was not faster on that session's machine).
//!
//! If the other worker fails, this one orders the rest itself ([`Opening::order_here`]).

use perfscope_analysis::builder::UnknownNames;
use perfscope_analysis::load::{slices, DeliveryWriter, ProfileLoader, RecordSink, RecordStream};
use perfscope_format::constants::HeaderFeature;
use perfscope_format::file::ReadAt;
use perfscope_format::metadata::Metadata;
use perfscope_format::stream::Inflated;
use perfscope_format::RawRecord;

use super::records_index::{RecordIndex, Tally, WholeRecord};
use super::source::DynSource;
use super::{loader, IgnoreRecords, OpenPass, Opening, PartPass};
use perfscope_analysis::summary::SummaryReader;

/// Who puts the records of a file being opened in time order for its loader.
pub(super) enum Ordering {
    /// The loader itself, pushed every record.
    Here,
    /// Another worker: its [`DeliveryWriter`]'s operations come with the slices.
    Elsewhere,
    /// A writer here (the other worker failed): its operations go to the loader after each
    /// record.
    Writer(Box<LocalWriter>),
}

/// A [`DeliveryWriter`] and its buffer.
pub(super) struct LocalWriter {
    writer: DeliveryWriter,
    ops: Vec<u8>,
}

impl LocalWriter {
    /// The next record, and what it released taken by `loader`.
    pub(super) fn push_timed(
        &mut self,
        meta: &Metadata,
        rec: &RawRecord<'_>,
        time: Option<Option<u64>>,
        loader: &mut ProfileLoader,
    ) {
        self.writer.push_timed(meta, rec, time, &mut self.ops);
        if !self.ops.is_empty() {
            // Written by the writer: cannot be garbled.
            let _ = loader.take_deliveries(meta, &self.ops);
            self.ops.clear();
        }
    }
}

impl OpenPass {
    /// The end of the records: with a writer here, what it still holds.
    pub(super) fn finish_ordering(&mut self, meta: &Metadata) {
        if let Ordering::Writer(w) = &mut self.ordering {
            w.writer.finish(meta, &mut w.ops);
            let _ = self.loader.take_deliveries(meta, &w.ops);
            w.ops.clear();
        }
    }
}

/// Collects what a writer writes for the records of a stream.
struct WriterSink {
    writer: DeliveryWriter,
    ops: Vec<u8>,
}

impl RecordSink for WriterSink {
    fn record(&mut self, meta: &Metadata, rec: &RawRecord<'_>) {
        self.writer.push(meta, rec, &mut self.ops);
    }
    fn error(&mut self, _: perfscope_format::Error) {
        // The tally of the slice has it (`OrderSink`).
    }
}

/// The ordering worker's sink: its writer's, and what the analysis worker's records index,
/// summary and (for a pipe stream) metadata would have read of the records ([`Tally`]).
struct OrderSink {
    sink: WriterSink,
    tally: RecordIndex,
    summary: Vec<WholeRecord>,
    /// A pipe stream's records that its metadata grew by ([`Metadata::grows_from`]).
    meta_records: Vec<WholeRecord>,
    /// For a pipe stream: where it stands as the analysis worker's summary reads it.
    pipe: Option<PipeSummary>,
}

/// Where a pipe stream stands for the analysis worker's summary, which reads the records after
/// its first kernel record (it read those before itself), until an error.
#[derive(Default)]
struct PipeSummary {
    /// The first kernel record (type below 64) went by.
    after_prefix: bool,
    /// An error went by: the summary reads no more records.
    failed: bool,
    /// The first error, not sent yet.
    error: Option<String>,
}

impl RecordSink for OrderSink {
    fn record(&mut self, meta: &Metadata, rec: &RawRecord<'_>) {
        let _ = self.tally.push(meta, rec);
        match &mut self.pipe {
            None => {
                if SummaryReader::reads_in_file(rec) {
                    self.summary.push(WholeRecord::of(rec));
                }
            }
            Some(p) => {
                if meta.grows_from(rec.type_()) {
                    self.meta_records.push(WholeRecord::of(rec));
                }
                if rec.type_().0 < 64 {
                    p.after_prefix = true;
                } else if p.after_prefix
                    && !p.failed
                    && SummaryReader::reads_in_pipe(rec, meta.legacy_google)
                {
                    self.summary.push(WholeRecord::of(rec));
                }
            }
        }
        self.sink.record(meta, rec);
    }
    fn error(&mut self, e: perfscope_format::Error) {
        // The loader never hears of it: the page reports the records index's errors.
        self.tally.push_error(e);
        if let Some(p) = self.pipe.as_mut().filter(|p| !p.failed) {
            p.failed = true;
            p.error = Some(e.to_string());
        }
    }
}

/// The first half of a records pass, on the worker that orders the records for the analysis
/// worker: the file's header read through a source, then its slices pushed in order, each
/// giving what the analysis worker is to take ([`Opening::take_ordered`]).
pub struct OrderPass {
    stream: Result<RecordStream, String>,
    sink: OrderSink,
    /// The analysis worker's slice size (the stream's slices are an eighth of it, nested in
    /// those: [`PartPass::slice_for`]).
    slice: usize,
    /// A pipe-mode stream whose header records say its records are compressed (the analysis
    /// worker read them): an inflater may decompress them ([`OrderPass::compressed_records`]).
    compressed_pipe: bool,
}

impl OrderPass {
    /// Reads the header through `source` and starts the pass, in slices of `slice` bytes (the
    /// analysis worker's [`Opening::slice`]), for the analysis worker's loader (frames without
    /// a symbol named as `unknown_names` says; the writer does not name them, but takes the
    /// loader's settings). `compressed_pipe`: the input is a pipe-mode stream whose records
    /// are compressed ([`Opening::compressed_pipe`]).
    pub fn open(
        source: &mut dyn ReadAt,
        slice: usize,
        unknown_names: UnknownNames,
        compressed_pipe: bool,
    ) -> OrderPass {
        // Read in smaller slices, each inside one of the analysis worker's: the stream's buffer
        // holds one (8 MiB less memory here).
        let mut pass = Self::in_parts(source, slice, PartPass::slice_for(slice), unknown_names);
        pass.compressed_pipe = compressed_pipe;
        if pass.compressed_records().is_some() {
            // Its compressed records may be decompressed by another worker a whole slice at a
            // time ([`OrderPass::supply_inflated`]): one part per slice.
            if let Ok(stream) = &mut pass.stream {
                stream.set_chunk_size(slice);
            }
        }
        pass
    }

    /// The records of a `perf record -z` file (its header says its records are compressed),
    /// as (start, end, byte order), for an inflater to decompress a slice at a time
    /// ([`OrderPass::supply_inflated`]); of a compressed pipe stream (opened so), the whole
    /// stream from its pipe header; `None` for another input.
    pub fn compressed_records(&self) -> Option<(u64, u64, perfscope_format::Endianness)> {
        let stream = self.stream.as_ref().ok()?;
        if stream.is_pipe() {
            let (_, at, end) = stream.records_range();
            return self
                .compressed_pipe
                .then_some((at, end, stream.metadata().endian));
        }
        let (meta, start, end) = stream.file_records()?;
        meta.feature(HeaderFeature::COMPRESSED)?;
        Some((start, end, meta.endian))
    }

    /// Hands over the decompressed bytes of the compressed records that the next
    /// [`OrderPass::push`] completes (a stream opened by [`OrderPass::open`] pushes a compressed
    /// file's slice whole), made by an inflater from the same slice (see
    /// [`RecordStream::supply_inflated`]): the pass does not decompress them. Once a slice's
    /// were supplied, every later slice's must be.
    pub fn supply_inflated(&mut self, inflated: Inflated) {
        if let Ok(stream) = &mut self.stream {
            stream.supply_inflated(inflated);
        }
    }

    /// [`OrderPass::open`], the stream read in parts of `part` bytes (a divisor of `slice`).
    pub(crate) fn in_parts(
        source: &mut dyn ReadAt,
        slice: usize,
        part: usize,
        unknown_names: UnknownNames,
    ) -> OrderPass {
        let writer = loader(None, unknown_names).delivery_writer();
        let stream = RecordStream::open(&mut DynSource(source), part, &mut IgnoreRecords)
            .map_err(|e| e.to_string());
        // What a slice's records write is about as big as the slice (a sample's fields and
        // callchain, a few bytes less; another record whole, 41 bytes more): reserved once,
        // reused for every slice (a buffer grown by doubling for each held twice the bytes).
        let room = if stream.is_ok() {
            slice.saturating_add(slice / 8)
        } else {
            0
        };
        let pipe = stream
            .as_ref()
            .is_ok_and(RecordStream::is_pipe)
            .then(PipeSummary::default);
        OrderPass {
            stream,
            sink: OrderSink {
                sink: WriterSink {
                    writer,
                    ops: Vec::with_capacity(room),
                },
                tally: RecordIndex::tally(),
                summary: Vec::new(),
                meta_records: Vec::new(),
                pipe,
            },
            slice: slice.max(1),
            compressed_pipe: false,
        }
    }

    /// Why the pass cannot run (the header could not be read), if so.
    pub fn failure(&self) -> Option<&str> {
        self.stream.as_ref().err().map(String::as_str)
    }

    /// The next of the analysis worker's slices to read, as (offset, size); `None` when
    /// every slice was pushed (or the records ended at a broken one).
    pub fn next_slice(&self) -> Option<(u64, usize)> {
        self.remaining().next()
    }

    /// Every slice of the analysis worker still to read, in order.
    pub fn slices(&self) -> Vec<(u64, usize)> {
        self.remaining().collect()
    }

    fn remaining(&self) -> impl Iterator<Item = (u64, usize)> + '_ {
        let (origin, at, end) = self
            .stream
            .as_ref()
            .map_or((0, 0, 0), RecordStream::records_range);
        slices(origin, at, end, self.slice as u64)
    }

    /// The slice [`OrderPass::next_slice`] named, `size` bytes at `at`: `fill(offset, out)`
    /// writes the bytes of the file at `offset` into `out` (a part of the slice). Returns
    /// what the loader is to take for it, with the end's once it was the last (valid until
    /// the next push), and what the analysis worker's records index and summary are to: what
    /// [`Opening::take_ordered`] takes.
    pub fn push(
        &mut self,
        at: u64,
        size: usize,
        mut fill: impl FnMut(u64, &mut [u8]) -> Result<(), perfscope_format::Error>,
    ) -> (&[u8], Tally) {
        self.sink.sink.ops.clear();
        let end = at.saturating_add(size as u64);
        while let Ok(stream) = &mut self.stream {
            let Some((part, n)) = stream.next_slice().filter(|(part, _)| *part < end) else {
                break;
            };
            stream.push(n, |out| fill(part, out), &mut self.sink);
        }
        // A failed fill ends the stream before the records' end.
        let ended = self.stream.as_ref().is_ok_and(|stream| {
            let records_end = stream.records_range().2;
            stream.next_slice().is_none() && end < records_end
        });
        // A pipe stream's dialect, known from its first record (a file's records: false).
        let mut legacy_google = self
            .stream
            .as_ref()
            .is_ok_and(|s| s.metadata().legacy_google);
        if self.stream.as_ref().is_ok_and(|s| s.next_slice().is_none()) {
            let done = std::mem::replace(&mut self.stream, Err("finished".into()));
            if let Ok(stream) = done {
                let meta = stream.finish(&mut self.sink);
                legacy_google = meta.legacy_google;
                let sink = &mut self.sink.sink;
                sink.writer.finish(&meta, &mut sink.ops);
            }
        }
        let tally = Tally {
            summary: std::mem::take(&mut self.sink.summary),
            meta_records: std::mem::take(&mut self.sink.meta_records),
            legacy_google,
            stream_error: self.sink.pipe.as_mut().and_then(|p| p.error.take()),
            ended,
            ..self.sink.tally.take_tally()
        };
        (&self.sink.sink.ops, tally)
    }
}

impl Opening {
    /// Whether another worker can order this file's records ([`OrderPass`]): a file or a pipe
    /// stream (whose metadata that worker sends with the records that grow it) whose stacks
    /// are not shared with another worker (compressed records too: that worker decompresses them, or has a third
    /// do it, [`OrderPass::supply_inflated`]). Then call [`Opening::order_elsewhere`] before
    /// the first slice is pushed.
    pub fn can_order_elsewhere(&self) -> bool {
        self.stream.is_ok() && self.share.is_none() && matches!(self.pass.ordering, Ordering::Here)
    }

    /// Another worker orders the records ([`OrderPass`]): what it wrote for each slice goes to
    /// [`Opening::take_ordered`] in place of the slice's [`Opening::push`].
    pub fn order_elsewhere(&mut self) {
        if self.can_order_elsewhere() {
            self.pass.ordering = Ordering::Elsewhere;
        }
    }

    /// Whether the records are ordered by another worker.
    pub fn ordered_elsewhere(&self) -> bool {
        matches!(self.pass.ordering, Ordering::Elsewhere)
    }

    /// What the other worker made of the next slice, of `size` bytes: what its
    /// [`OrderPass::push`] returned (`ops` for the loader, `tally` for the records index and
    /// the summary). The slice itself is not read here.
    pub fn take_ordered(&mut self, size: usize, ops: &[u8], tally: &Tally) -> Result<(), String> {
        let stream = self.stream.as_mut().map_err(|e| e.to_string())?;
        stream.skip(size, tally.records, tally.ended);
        // A pipe stream's metadata grows with its records: by those the other worker read.
        let endian = stream.metadata().endian;
        for rec in &tally.meta_records {
            stream.observe_elsewhere(&rec.raw_in(endian), tally.legacy_google);
        }
        let (pipe, meta) = (stream.is_pipe(), stream.metadata());
        let pass = &mut self.pass;
        pass.index.add_tally(meta, tally);
        pass.summary.records_read_elsewhere(tally.records);
        for rec in &tally.summary {
            if pipe {
                pass.summary
                    .record_read_elsewhere(&rec.raw(meta), tally.legacy_google);
            } else {
                pass.summary.record(&rec.raw(meta));
            }
        }
        if let Some(e) = tally.stream_error.as_deref().filter(|_| pipe) {
            pass.summary.error_read_elsewhere(e);
        }
        pass.loader
            .take_deliveries(meta, ops)
            .map_err(|e| e.to_string())
    }

    /// Orders the next slices' records here (the worker that did it failed): the slices pushed
    /// so far are read again through a writer, whose operations the loader took already, to
    /// put it where the other worker's was.
    pub fn order_here(&mut self) {
        if !matches!(self.pass.ordering, Ordering::Elsewhere) {
            return;
        }
        let writer = self.pass.loader.delivery_writer();
        let mut sink = WriterSink {
            writer,
            ops: Vec::new(),
        };
        let upto = self.next_slice().map_or(u64::MAX, |(at, _)| at);
        let mut source = DynSource(self.source.as_mut());
        if let Ok(mut local) = RecordStream::open(&mut source, self.slice, &mut IgnoreRecords) {
            while let Some((at, size)) = local.next_slice().filter(|(at, _)| *at < upto) {
                local.push(size, |out| source.read_into(at, out), &mut sink);
                sink.ops.clear();
            }
            // Where the slices so far left it (this one's were only skipped): the next ones
            // are pushed to it.
            self.stream = Ok(local);
        }
        self.pass.ordering = Ordering::Writer(Box::new(LocalWriter {
            writer: sink.writer,
            ops: Vec::new(),
        }));
    }
}

/// The reads that fetch `slices` (as (offset, size), in order): consecutive slices of the
/// `full` size that follow each other in the file are read together, up to `most` in one read
/// (the browser's cost of reading a file is much per read: 315 MB in 8 MiB reads took
/// ~1.3× the CPU of 16 MiB reads, BENCHMARKS.md session 43); the smaller first slices are read
/// alone, to come sooner. Each read is (offset, size, slices in it).
pub fn read_groups(slices: &[(u64, usize)], full: usize, most: usize) -> Vec<(u64, usize, usize)> {
    let mut reads: Vec<(u64, usize, usize)> = Vec::new();
    for &(at, size) in slices {
        match reads.last_mut() {
            Some((start, len, n))
                if size == full
                    && *len == *n * full
                    && *n < most
                    && start.saturating_add(*len as u64) == at =>
            {
                *len += size;
                *n += 1;
            }
            _ => reads.push((at, size, 1)),
        }
    }
    reads
}

#[cfg(test)]
mod tests {
    use super::read_groups;

    #[test]
    fn full_slices_that_follow_each_other_are_read_together_up_to_the_most() {
        let m = 1 << 20;
        // An eighth, an eighth, a quarter, a half, then full slices (8 MiB), the last short.
        let slices = [
            (100, m),
            (100 + m as u64, m),
            (100 + 2 * m as u64, 2 * m),
            (100 + 4 * m as u64, 4 * m),
            (100 + 8 * m as u64, 8 * m),
            (100 + 16 * m as u64, 8 * m),
            (100 + 24 * m as u64, 8 * m),
            (100 + 32 * m as u64, 3),
        ];
        assert_eq!(
            read_groups(&slices, 8 * m, 2),
            [
                (100, m, 1),
                (100 + m as u64, m, 1),
                (100 + 2 * m as u64, 2 * m, 1),
                (100 + 4 * m as u64, 4 * m, 1),
                (100 + 8 * m as u64, 16 * m, 2),
                (100 + 24 * m as u64, 8 * m, 1),
                (100 + 32 * m as u64, 3, 1),
            ]
        );
        // One slice a read, as before.
        assert_eq!(read_groups(&slices, 8 * m, 1).len(), slices.len());
        // A gap between two full slices (not cut from one range): two reads.
        let apart = [(0, 8), (8, 8), (20, 8)];
        assert_eq!(read_groups(&apart, 8, 4), [(0, 16, 2), (20, 8, 1)]);
    }
}
