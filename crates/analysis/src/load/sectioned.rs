//! [`load_sectioned`]: a recording read through random access, chunk by chunk, so that it is
//! never held in memory as a whole (a browser `File` read with `FileReaderSync` and
//! `Blob.slice` in a worker; a multi-GB file read with `pread`).

use perfscope_format::file::{FileLayout, ReadAt};
use perfscope_format::header::Magic;
use perfscope_format::metadata::Metadata;
use perfscope_format::stream::{is_legacy_google_record, Inflated, StreamDecoder};
use perfscope_format::RawRecord;

use super::{LoadDiagnostics, LoadError, LoadOptions, ProfileLoader};
use crate::profile::Profile;

/// Reads a perf.data (file mode or a pipe-mode stream saved to a file) through `r`, at most
/// `chunk_size` bytes at a time, into a [`Profile`] — the same profile [`super::load_profile`]
/// makes from the whole file in memory.
///
/// File mode: the header, attrs and feature table are read first ([`FileLayout::read_from`]:
/// a few KB), then each feature section ([`Metadata::from_layout`]), then the data section in
/// chunks through a [`StreamDecoder`] (zstd-compressed records are decompressed on the way).
/// Pipe mode: the whole stream in chunks. Memory is the chunk, the profile, and the records
/// waiting for their turn in time order (about two FINISHED_ROUND rounds) — not the file.
///
/// `progress(bytes_done, records)` is called after each chunk, with the bytes read so far
/// and the records decoded so far (for a progress bar: `bytes_done` grows to `r.len()` at
/// most).
///
/// Errors: the header could not be read ([`LoadError::Format`]), or a table outgrew its index
/// type. Problems in single records, and a failed read in the data section (which ends the
/// data), are in the diagnostics.
///
/// In a browser worker, `r` is a [`ReadAt`] over the `File` (`FileReaderSync::read_as_array_buffer`
/// of `file.slice(offset, offset + size)`); here, a file on disk:
///
/// ```no_run
/// use std::io::{Read, Seek, SeekFrom};
/// use perfscope_analysis::load::{load_sectioned, LoadOptions};
/// use perfscope_format::file::ReadAt;
/// use perfscope_format::{Error, ErrorKind};
///
/// struct DiskFile(std::fs::File, u64);
///
/// impl ReadAt for DiskFile {
///     fn len(&self) -> u64 {
///         self.1
///     }
///     fn read_at(&mut self, offset: u64, size: u64) -> Result<Vec<u8>, Error> {
///         let eof = |_| Error::new(offset, ErrorKind::UnexpectedEof { what: "file", needed: size, available: 0 });
///         let mut buf = vec![0; size as usize];
///         self.0.seek(SeekFrom::Start(offset)).map_err(eof)?;
///         self.0.read_exact(&mut buf).map_err(eof)?;
///         Ok(buf)
///     }
/// }
///
/// let file = std::fs::File::open("perf.data")?;
/// let len = file.metadata()?.len();
/// let mut r = DiskFile(file, len);
/// let (profile, diagnostics) = load_sectioned(&mut r, 4 << 20, LoadOptions::default(), |done, records| {
///     eprint!("\r{} MB, {records} records", done >> 20);
/// })?;
/// println!("{} samples, {} errors", profile.samples.len(), diagnostics.errors.len());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn load_sectioned<R: ReadAt>(
    r: &mut R,
    chunk_size: usize,
    options: LoadOptions,
    progress: impl FnMut(u64, u64),
) -> Result<(Profile, LoadDiagnostics), LoadError> {
    load_sectioned_parts(r, &mut [], chunk_size, options, progress)
}

/// [`load_sectioned`] for a `perf record --threads` directory: `r` is its `data` file, `extra`
/// its `data.N` files in order (their records follow those of `data`). `bytes_done` counts the
/// bytes of all parts.
pub fn load_sectioned_parts<R: ReadAt>(
    r: &mut R,
    extra: &mut [R],
    chunk_size: usize,
    options: LoadOptions,
    progress: impl FnMut(u64, u64),
) -> Result<(Profile, LoadDiagnostics), LoadError> {
    let mut loader = ProfileLoader::new(options);
    let meta =
        stream_records(r, extra, chunk_size, &mut loader, progress).map_err(LoadError::Format)?;
    loader.finish(&meta)
}

/// What [`stream_records`] hands every record and error to, in file order.
pub trait RecordSink {
    /// The next record; `meta` is the input's metadata as known at this record (in pipe mode it
    /// grows with the stream's HEADER_ATTR, HEADER_FEATURE, ID_INDEX and EVENT_UPDATE records).
    fn record(&mut self, meta: &Metadata, rec: &RawRecord<'_>);
    /// A problem: a bad header section, a framing error, a failed read.
    fn error(&mut self, e: perfscope_format::Error);
}

impl RecordSink for ProfileLoader {
    fn record(&mut self, meta: &Metadata, rec: &RawRecord<'_>) {
        self.push(meta, rec);
    }
    fn error(&mut self, e: perfscope_format::Error) {
        self.push_error(e);
    }
}

/// Reads a perf.data (file mode, or a pipe-mode stream saved to a file) through `r`, at most
/// `chunk_size` bytes at a time, and hands every record (zstd-compressed ones decompressed) and
/// every error to `sink`, in file order; then the records of `extra` (a directory's `data.N`
/// files). Returns the final metadata.
///
/// File mode: the header, attrs and feature table are read first ([`FileLayout::read_from`]),
/// then each feature section ([`Metadata::from_layout`]), then the data section in chunks
/// through a [`StreamDecoder`]. Pipe mode: the whole stream in chunks. `progress(bytes_done,
/// records)` is called after each chunk.
///
/// Errors: only a header that cannot be read; everything later goes to `sink`.
pub fn stream_records<R: ReadAt, S: RecordSink + ?Sized>(
    r: &mut R,
    extra: &mut [R],
    chunk_size: usize,
    sink: &mut S,
    mut progress: impl FnMut(u64, u64),
) -> Result<Metadata, perfscope_format::Error> {
    let mut stream = RecordStream::open(r, chunk_size, sink)?;
    let mut done = read_through(&mut stream, r, sink, (0, 0), &mut progress);
    let meta = stream.finish(sink);
    // A directory's data.N files: records in the data section's format, from their start.
    for part in extra.iter_mut() {
        let mut stream = RecordStream::records(meta.clone(), 0, part.len(), chunk_size);
        done = read_through(&mut stream, part, sink, done, &mut progress);
        stream.finish(sink);
    }
    Ok(meta)
}

/// Reads every slice of `stream` through `r` and pushes it; `progress` gets the totals counted
/// from `before` (bytes, records). Returns the new totals.
fn read_through<R: ReadAt, S: RecordSink + ?Sized>(
    stream: &mut RecordStream,
    r: &mut R,
    sink: &mut S,
    before: (u64, u64),
    progress: &mut impl FnMut(u64, u64),
) -> (u64, u64) {
    let total = |s: &RecordStream| {
        let (bytes, records) = s.progress();
        (before.0 + bytes, before.1 + records)
    };
    while let Some((at, size)) = stream.next_slice() {
        stream.push(size, |out| r.read_into(at, out), sink);
        let (bytes, records) = total(stream);
        progress(bytes, records);
    }
    total(stream)
}

/// [`stream_records`] of one input, driven by its caller: [`RecordStream::open`] reads the
/// header (and a file's attrs and feature sections) through a [`ReadAt`], then the caller reads
/// each slice [`RecordStream::next_slice`] names, in order, and hands it to
/// [`RecordStream::push`], which decodes the records it completes into the sink. The caller may
/// read ahead ([`RecordStream::slices`] lists them all): a browser worker has another thread
/// read the next slices while this one is decoded.
#[derive(Debug)]
pub struct RecordStream {
    meta: Metadata,
    decoder: StreamDecoder,
    /// A pipe-mode stream: the metadata grows with its records.
    pipe: bool,
    /// No record decoded yet (a pipe stream's first one tells a legacy Google stream).
    first: bool,
    /// Where the records start.
    origin: u64,
    at: u64,
    end: u64,
    chunk: u64,
    bytes_done: u64,
    /// Of `bytes_done`, the bytes [`RecordStream::skip`]ped.
    skipped: u64,
    records: u64,
}

/// A file's [`RecordStream`] between two slices, without its metadata (see
/// [`RecordStream::checkpoint`]): the stream, its metadata left empty.
#[derive(Debug)]
pub struct StreamCheckpoint(RecordStream);

impl StreamCheckpoint {
    /// Where the stream's next slice starts.
    pub fn at(&self) -> u64 {
        self.0.at
    }
}

impl RecordStream {
    /// Reads the header through `r` (file mode: also the attrs, the feature table and each
    /// feature section; problems there go to `sink`), and makes the stream of the data section
    /// (pipe mode: of the whole input) in slices of `chunk_size` bytes.
    ///
    /// Errors: only a header that cannot be read.
    pub fn open<R: ReadAt, S: RecordSink + ?Sized>(
        r: &mut R,
        chunk_size: usize,
        sink: &mut S,
    ) -> Result<RecordStream, perfscope_format::Error> {
        let chunk = chunk_size.max(1) as u64;
        // The magic, the header size and (for a version 1 file) the attr size that tells its
        // byte order.
        let head = r.read_at(0, r.len().min(24))?;
        let magic = Magic::parse(&head)?;
        if magic.pipe {
            return Ok(RecordStream {
                meta: Metadata::pipe(magic.endian),
                decoder: StreamDecoder::pipe(),
                pipe: true,
                first: true,
                origin: 0,
                at: 0,
                end: r.len(),
                chunk,
                bytes_done: 0,
                skipped: 0,
                records: 0,
            });
        }
        let layout = FileLayout::read_from(r)?;
        let (meta, errors) = Metadata::from_layout(&layout, r);
        for e in layout.warnings.iter().chain(&errors) {
            sink.error(*e);
        }
        let data = layout.data;
        let end = data.offset.saturating_add(data.size);
        Ok(RecordStream::records(meta, data.offset, end, chunk_size))
    }

    /// The stream of the records in `start..end` of an input described by `meta` (a data
    /// section, or a directory's `data.N` file), in slices of `chunk_size` bytes.
    fn records(meta: Metadata, start: u64, end: u64, chunk_size: usize) -> RecordStream {
        RecordStream {
            decoder: StreamDecoder::records(meta.endian, start),
            meta,
            pipe: false,
            first: true,
            origin: start,
            at: start,
            end,
            chunk: chunk_size.max(1) as u64,
            bytes_done: 0,
            skipped: 0,
            records: 0,
        }
    }

    /// This stream's state between two slices ([`RecordStream::push`]es), without its
    /// metadata: [`RecordStream::resume`] makes a stream that reads on from here as this one
    /// does. For a `-z` file it holds the zstd decoder's state (its window: a few hundred KiB
    /// for perf's default level), so that a walk to a record deep in the file can begin at
    /// the checkpoint before it instead of decompressing everything before it. `None` for a
    /// pipe stream (its metadata grows with its records).
    pub fn checkpoint(&self) -> Option<StreamCheckpoint> {
        if self.pipe {
            return None;
        }
        // (The empty metadata of a pipe stream: never read, `resume` gives the file's.)
        let empty = Metadata::pipe(self.meta.endian);
        self.copy(empty).map(StreamCheckpoint)
    }

    /// The stream a [`RecordStream::checkpoint`] was taken of, given its metadata (what
    /// [`RecordStream::file_records`] gave).
    pub fn resume(c: &StreamCheckpoint, meta: Metadata) -> Option<RecordStream> {
        c.0.copy(meta)
    }

    /// This stream with `meta` (its decoder's [`StreamDecoder::checkpoint`]); `None` for a
    /// decoder that hands its decompressed bytes over or is supplied them.
    fn copy(&self, meta: Metadata) -> Option<RecordStream> {
        Some(RecordStream {
            meta,
            decoder: self.decoder.checkpoint()?,
            pipe: self.pipe,
            first: self.first,
            origin: self.origin,
            at: self.at,
            end: self.end,
            chunk: self.chunk,
            bytes_done: self.bytes_done,
            skipped: self.skipped,
            records: self.records,
        })
    }

    /// Bytes decompressed so far (0 for records that are not compressed), and about how many
    /// bytes a [`RecordStream::checkpoint`] now would hold.
    pub fn decompressed(&self) -> (u64, usize) {
        self.decoder.decompressed()
    }

    /// A file-mode input's metadata and the range of its records still to read (all of them
    /// before the first [`RecordStream::push`]); `None` for a pipe stream, whose events are
    /// known only as its records go by.
    pub fn file_records(&self) -> Option<(&Metadata, u64, u64)> {
        (!self.pipe).then_some((&self.meta, self.at, self.end))
    }

    /// Where the records start, where the next slice starts and where the records end
    /// (`origin`, `at`, `end`), in either mode (a pipe stream's from its first byte).
    pub fn records_range(&self) -> (u64, u64, u64) {
        (self.origin, self.at, self.end)
    }

    /// Whether this is a pipe-mode stream (its metadata grows with its records).
    pub fn is_pipe(&self) -> bool {
        self.pipe
    }

    /// The metadata so far (in pipe mode, as the records read so far built it).
    pub fn metadata(&self) -> &Metadata {
        &self.meta
    }

    /// A record of a pipe stream that another stream of it read in a slice this one
    /// [`RecordStream::skip`]ped (an ATTR, FEATURE or EVENT_UPDATE record, or a feature of the
    /// pre-upstream Google format, as `legacy_google` says the stream is): its metadata is
    /// added here too. The other stream met any error in it. Nothing for a file's records.
    pub fn observe_elsewhere(&mut self, rec: &RawRecord<'_>, legacy_google: bool) {
        if self.pipe {
            self.meta.legacy_google = legacy_google;
            let _ = self.meta.observe(rec);
        }
    }

    /// The next slice to read, as (offset, size); `None` when the stream is read.
    pub fn next_slice(&self) -> Option<(u64, usize)> {
        self.slices().next()
    }

    /// Reads the slices from here on in `chunk_size` bytes (as [`RecordStream::open`]'s
    /// `chunk_size`): for a caller that chooses after reading the header, before the first
    /// [`RecordStream::push`].
    pub fn set_chunk_size(&mut self, chunk_size: usize) {
        self.chunk = chunk_size.max(1) as u64;
    }

    /// Every slice still to read, in order.
    pub fn slices(&self) -> impl Iterator<Item = (u64, usize)> + '_ {
        slices(self.origin, self.at, self.end, self.chunk)
    }

    /// Where the records start (pipe mode: 0), from which the slices are cut ([`slices`]).
    pub fn origin(&self) -> u64 {
        self.origin
    }

    /// The slice [`RecordStream::next_slice`] named, of `size` bytes: `fill` writes its bytes
    /// into the stream's buffer. Its complete records go to `sink`. A failed `fill` goes to
    /// `sink` and ends the stream.
    pub fn push<S: RecordSink + ?Sized>(
        &mut self,
        size: usize,
        fill: impl FnOnce(&mut [u8]) -> Result<(), perfscope_format::Error>,
        sink: &mut S,
    ) {
        if let Err(e) = self.decoder.push_with(size, fill) {
            sink.error(e);
            self.at = self.end;
            return;
        }
        self.at = self.at.saturating_add(size as u64);
        self.bytes_done = self.bytes_done.saturating_add(size as u64);
        self.drain(sink);
    }

    /// Passes over the slice [`RecordStream::next_slice`] named, of `size` bytes, without
    /// reading it: another stream of the same input, pushed the same slices, framed its
    /// `records` (for [`RecordStream::progress`]); `ended`: that stream ended there (its
    /// `fill` failed), and so does this one. Only before any [`RecordStream::push`]: the
    /// record a pushed slice left unfinished would be lost.
    pub fn skip(&mut self, size: usize, records: u64, ended: bool) {
        self.skipped = self.skipped.saturating_add(size as u64);
        self.at = if ended {
            self.end
        } else {
            self.at.saturating_add(size as u64)
        };
        self.bytes_done = self.bytes_done.saturating_add(size as u64);
        self.records = self.records.saturating_add(records);
    }

    /// Makes this a stream that only decompresses the compressed records, for another thread
    /// that decodes them ([`RecordStream::supply_inflated`]): the sink gets only the input's
    /// own records; their decompressed bytes wait for [`RecordStream::take_inflated`] (see
    /// [`StreamDecoder::inflate_only`]).
    pub fn inflate_only(&mut self) {
        self.decoder.inflate_only();
    }

    /// The bytes decompressed since the last call (by an [`RecordStream::inflate_only`]
    /// stream).
    pub fn take_inflated(&mut self) -> Inflated {
        self.decoder.take_inflated()
    }

    /// Hands over the decompressed bytes of the compressed records that the next
    /// [`RecordStream::push`] completes, as an [`RecordStream::inflate_only`] stream of the
    /// same input, pushed the same slice, made them: they are not decompressed here (see
    /// [`StreamDecoder::supply_inflated`]).
    pub fn supply_inflated(&mut self, inflated: Inflated) {
        self.decoder.supply_inflated(inflated);
    }

    /// (bytes read so far, records decoded so far).
    pub fn progress(&self) -> (u64, u64) {
        (self.bytes_done, self.records)
    }

    /// Ends the stream (the records the last slice left) and returns the metadata (in pipe
    /// mode, as the stream's records built it).
    pub fn finish<S: RecordSink + ?Sized>(mut self, sink: &mut S) -> Metadata {
        // A stream whose slices were all skipped has nothing to end (a pipe stream's decoder
        // would miss the header it was never given).
        if self.bytes_done > self.skipped {
            self.decoder.finish();
            self.drain(sink);
        }
        self.meta
    }

    fn drain<S: RecordSink + ?Sized>(&mut self, sink: &mut S) {
        while let Some(item) = self.decoder.next_record() {
            match item {
                Ok(rec) => {
                    self.records += 1;
                    if self.pipe {
                        if self.first {
                            self.meta.legacy_google = is_legacy_google_record(&rec);
                        }
                        if let Err(e) = self.meta.observe(&rec) {
                            sink.error(e);
                        }
                    }
                    self.first = false;
                    sink.record(&self.meta, &rec);
                }
                Err(e) => sink.error(e),
            }
        }
    }
}

/// The slices, as (offset, size), of `at..end` — the part from `at` (a slice's start) on of
/// records that start at `origin` — read `chunk` bytes at a time, the first ones smaller:
/// those of a [`RecordStream`] over those bytes (another worker that reads the same ones in
/// step with it takes them from here).
///
/// When `chunk` is a multiple of 8, the slices from `origin` on are an eighth of it, an eighth,
/// a quarter, a half, then whole (`chunk` 8 MiB: 1, 1, 2, 4, 8, 8, … MiB), so that the first
/// records are read and parsed sooner (the page's first preview, and the analysis worker's
/// wait for a slice another worker orders first). A stream of the same records read in slices
/// of an eighth of `chunk` (or of a quarter, itself a multiple of 8) has a slice boundary at
/// each of these slices' ends: its slices lie inside them.
pub fn slices(origin: u64, at: u64, end: u64, chunk: u64) -> impl Iterator<Item = (u64, usize)> {
    let chunk = chunk.max(1);
    let least = if chunk.is_multiple_of(8) {
        chunk / 8
    } else {
        chunk
    };
    let mut at = at;
    std::iter::from_fn(move || {
        if at >= end {
            return None;
        }
        let size = chunk
            .min(least.max(at.saturating_sub(origin)))
            .min(end - at);
        let slice = (at, usize::try_from(size).ok()?);
        at += size;
        Some(slice)
    })
}

#[cfg(test)]
mod tests {
    use super::slices;

    const MIB: u64 = 1 << 20;

    #[test]
    fn the_first_slices_are_smaller_and_the_rest_whole() {
        let sizes: Vec<usize> = slices(100, 100, 100 + 30 * MIB, 8 * MIB)
            .map(|(_, n)| n)
            .collect();
        let mib = |v: &[u64]| v.iter().map(|&m| (m * MIB) as usize).collect::<Vec<_>>();
        assert_eq!(sizes, mib(&[1, 1, 2, 4, 8, 8, 6]));
        // From a slice's start on: the same slices as from the origin.
        let all: Vec<_> = slices(100, 100, 100 + 30 * MIB, 8 * MIB).collect();
        let later: Vec<_> = slices(100, 100 + 4 * MIB, 100 + 30 * MIB, 8 * MIB).collect();
        assert_eq!(later[..], all[3..]);
        // Sizes not a multiple of 8: whole from the start.
        assert_eq!(
            slices(0, 0, 25, 10).map(|s| s.1).collect::<Vec<_>>(),
            [10, 10, 5]
        );
        let sizes: Vec<usize> = slices(0, 0, 70, 16).map(|s| s.1).collect();
        assert_eq!(sizes, [2, 2, 4, 8, 16, 16, 16, 6]);
        assert_eq!(slices(5, 5, 5, 8).count(), 0);
    }

    /// A stream opened with one chunk size and set to another before its first push reads
    /// the slices of the second (hand-computed: 26 175 bytes in 2 048-byte chunks, the first
    /// four an eighth, an eighth, a quarter and a half).
    #[test]
    fn a_chunk_size_set_after_the_header_cuts_the_slices() {
        use super::{RecordSink, RecordStream};
        use perfscope_format::file::ReadAt;
        struct Data(Vec<u8>);
        impl ReadAt for Data {
            fn len(&self) -> u64 {
                self.0.len() as u64
            }
            fn read_at(&mut self, at: u64, n: u64) -> perfscope_format::Result<Vec<u8>> {
                Ok(self.0[at as usize..(at + n) as usize].to_vec())
            }
        }
        struct Nothing;
        impl RecordSink for Nothing {
            fn record(
                &mut self,
                _: &perfscope_format::metadata::Metadata,
                _: &perfscope_format::RawRecord<'_>,
            ) {
            }
            fn error(&mut self, e: perfscope_format::Error) {
                panic!("{e}");
            }
        }
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/compressed.data"
        );
        let mut data = Data(std::fs::read(path).unwrap());
        let mut stream = RecordStream::open(&mut data, 512, &mut Nothing).unwrap();
        let (_, start, end) = stream.file_records().unwrap();
        assert!(end - start > 4 * 2048, "{} bytes of records", end - start);
        stream.set_chunk_size(2048);
        let got: Vec<_> = stream.slices().collect();
        assert_eq!(got, slices(start, start, end, 2048).collect::<Vec<_>>());
        let sizes: Vec<usize> = got.iter().take(5).map(|s| s.1).collect();
        assert_eq!(sizes, [256, 256, 512, 1024, 2048]);
    }

    #[test]
    fn slices_of_an_eighth_or_a_quarter_lie_inside_the_whole_ones() {
        for chunk in [8u64, 24, 64, 4096, 8 * MIB] {
            let end = 20 * chunk + 3;
            let whole: Vec<_> = slices(0, 0, end, chunk).collect();
            let quarter = Some(chunk / 4).filter(|q| q % 8 == 0);
            for part in [Some(chunk / 8), quarter, Some(chunk)]
                .into_iter()
                .flatten()
            {
                for (at, n) in slices(0, 0, end, part) {
                    let last = at + n as u64;
                    assert!(
                        whole.iter().any(|&(w, m)| w <= at && last <= w + m as u64),
                        "{chunk}: {at}+{n}"
                    );
                }
            }
        }
    }
}
