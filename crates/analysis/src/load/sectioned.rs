//! [`load_sectioned`]: a recording read through random access, chunk by chunk, so that it is
//! never held in memory as a whole (a browser `File` read with `FileReaderSync` and
//! `Blob.slice` in a worker; a multi-GB file read with `pread`).

use perfscope_format::file::{FileLayout, ReadAt};
use perfscope_format::header::Magic;
use perfscope_format::metadata::Metadata;
use perfscope_format::stream::{is_legacy_google_record, StreamDecoder};
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
    let chunk_size = chunk_size.max(1) as u64;
    // The magic, the header size and (for a version 1 file) the attr size that tells its byte order.
    let head = r.read_at(0, r.len().min(24))?;
    let magic = Magic::parse(&head)?;
    let mut feed = Feed {
        sink,
        bytes_done: 0,
        records: 0,
        progress: &mut progress,
    };
    if magic.pipe {
        let mut meta = Metadata::pipe(magic.endian);
        feed.pipe(r, chunk_size, &mut meta);
        return Ok(meta);
    }
    let layout = FileLayout::read_from(r)?;
    let (meta, errors) = Metadata::from_layout(&layout, r);
    for e in layout.warnings.iter().chain(&errors) {
        feed.sink.error(*e);
    }
    let data = layout.data;
    let mut decoder = StreamDecoder::records(meta.endian, data.offset);
    feed.records(
        r,
        data.offset,
        data.offset.saturating_add(data.size),
        chunk_size,
        &meta,
        &mut decoder,
    );
    for part in extra.iter_mut() {
        let mut decoder = StreamDecoder::records(meta.endian, 0);
        let len = part.len();
        feed.records(part, 0, len, chunk_size, &meta, &mut decoder);
    }
    Ok(meta)
}

/// Chunks read from a [`ReadAt`] into a [`StreamDecoder`], records into the sink.
struct Feed<'l, S: ?Sized, P> {
    sink: &'l mut S,
    bytes_done: u64,
    records: u64,
    progress: &'l mut P,
}

impl<S: RecordSink + ?Sized, P: FnMut(u64, u64)> Feed<'_, S, P> {
    /// The records of `r[start..end]`, a data section or a `data.N` file.
    fn records(
        &mut self,
        r: &mut impl ReadAt,
        start: u64,
        end: u64,
        chunk_size: u64,
        meta: &Metadata,
        d: &mut StreamDecoder,
    ) {
        self.feed(r, start, end, chunk_size, d, |sink, rec| {
            sink.record(meta, rec)
        });
    }

    /// A pipe-mode stream: the metadata grows with its HEADER_ATTR, HEADER_FEATURE, ID_INDEX
    /// and EVENT_UPDATE records, as [`perfscope_format::walk::walk`] builds it.
    fn pipe(&mut self, r: &mut impl ReadAt, chunk_size: u64, meta: &mut Metadata) {
        let mut d = StreamDecoder::pipe();
        let mut first = true;
        let end = r.len();
        self.feed(r, 0, end, chunk_size, &mut d, |sink, rec| {
            if first {
                meta.legacy_google = is_legacy_google_record(rec);
                first = false;
            }
            if let Err(e) = meta.observe(rec) {
                sink.error(e);
            }
            sink.record(meta, rec);
        });
    }

    /// Reads `r[start..end]` in chunks of `chunk_size` into `d`, handing each decoded record to
    /// `push` and reporting progress after each chunk; a failed read ends the range.
    fn feed(
        &mut self,
        r: &mut impl ReadAt,
        start: u64,
        end: u64,
        chunk_size: u64,
        d: &mut StreamDecoder,
        mut push: impl FnMut(&mut S, &RawRecord<'_>),
    ) {
        let mut at = start;
        while at < end {
            let size = chunk_size.min(end - at);
            // Into the decoder's buffer: no new block for each chunk.
            let Ok(n) = usize::try_from(size) else { break };
            match d.push_with(n, |out| r.read_into(at, out)) {
                Ok(()) => {}
                Err(e) => {
                    self.sink.error(e);
                    break;
                }
            }
            at += size;
            self.bytes_done += size;
            self.drain(d, &mut push);
            (self.progress)(self.bytes_done, self.records);
        }
        d.finish();
        self.drain(d, &mut push);
    }

    fn drain(&mut self, d: &mut StreamDecoder, mut push: impl FnMut(&mut S, &RawRecord<'_>)) {
        while let Some(item) = d.next_record() {
            match item {
                Ok(rec) => {
                    self.records += 1;
                    push(self.sink, &rec);
                }
                Err(e) => self.sink.error(e),
            }
        }
    }
}
