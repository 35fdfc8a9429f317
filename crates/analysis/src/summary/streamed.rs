//! [`SummaryReader`]: the summary of a file read through random access ([`ReadAt`]), first from
//! the header, attrs and feature sections alone (a few KB to MB whatever the file size), then
//! completed by the records a later pass over the data hands it.

use perfscope_format::bytes::Bytes;
use perfscope_format::file::{FileLayout, ReadAt};
use perfscope_format::header::{Magic, FILE_HEADER_SIZE, PIPE_HEADER_SIZE};
use perfscope_format::stream::StreamDecoder;
use perfscope_format::{Error, FileHeader, RawRecord};

use super::{Reader, Summary};

/// The first read of a pipe stream's header records ([`SummaryReader::read_from`]).
const PIPE_PREFIX_FIRST_READ: u64 = 64 << 10;

/// A summary being read. [`SummaryReader::read_from`] reads what the file declares up front;
/// [`SummaryReader::record`] takes the records of a pass over the file, in file order (file
/// mode: build ids added by `perf inject -b`, EVENT_UPDATE names, tracing data records; pipe
/// mode: the stream's header records); [`SummaryReader::summary`] is the summary so far. After
/// all records, it equals [`Summary::from_bytes`] of the whole file.
#[derive(Clone)]
pub struct SummaryReader {
    r: Reader,
    pipe: bool,
    /// Pipe mode: whether the stream uses the legacy Google format (decided at its first record).
    legacy: Option<bool>,
    /// Pipe mode: records read by [`SummaryReader::read_from`]; the pass hands them again.
    skip: u64,
    /// Records handed to [`SummaryReader::record`].
    seen: u64,
    /// Pipe mode: an error ended the stream (as in [`Summary::from_bytes`]).
    failed: bool,
}

impl SummaryReader {
    /// Reads the file header, the attrs and the feature sections of a file-mode perf.data, or the
    /// header records at the start of a pipe-mode stream (in reads of `chunk_size` bytes, up to
    /// its first kernel record), through `r`.
    pub fn read_from(r: &mut impl ReadAt, chunk_size: usize) -> SummaryReader {
        let mut out = SummaryReader {
            r: Reader::default(),
            pipe: false,
            legacy: None,
            skip: 0,
            seen: 0,
            failed: false,
        };
        let s = &mut out.r.s;
        s.file_size = r.len();
        let head = match r.read_at(0, r.len().min(24)) {
            Ok(head) => head,
            Err(e) => {
                s.error = Some(e.to_string());
                return out;
            }
        };
        let magic = match Magic::parse(&head) {
            Ok(m) => m,
            Err(e) => {
                s.error = Some(e.to_string());
                return out;
            }
        };
        s.byte_order = magic.endian.name().to_string();
        s.pipe_mode = magic.pipe;
        s.header_size = magic.header_size;
        out.pipe = magic.pipe;
        if magic.pipe {
            out.read_pipe_prefix(r, chunk_size);
        } else {
            out.read_file(r);
        }
        out
    }

    fn read_file(&mut self, r: &mut impl ReadAt) {
        let layout = match FileLayout::read_from(r) {
            Ok(l) => l,
            Err(e) => {
                // Still say what the file header declares (perf prints it for such files too).
                let head = r
                    .read_at(0, r.len().min(FILE_HEADER_SIZE))
                    .unwrap_or_default();
                if let Ok(h) = FileHeader::parse(&head) {
                    self.r.s.attr_size = Some(h.attr_size);
                    self.r.s.data_offset = h.data.offset;
                    self.r.s.data_size = h.data.size;
                    self.r.s.features = h.feature_list().map(|f| f.to_string()).collect();
                }
                self.r.s.error = Some(e.to_string());
                return;
            }
        };
        let s = &mut self.r.s;
        s.attr_size = Some(layout.header.attr_size);
        s.data_offset = layout.header.data.offset;
        s.data_size = layout.header.data.size;
        s.warnings
            .extend(layout.warnings.iter().map(ToString::to_string));
        s.features = layout
            .header
            .feature_list()
            .map(|f| f.to_string())
            .collect();
        self.r.attrs = layout
            .attrs
            .iter()
            .map(|fa| (fa.attr, fa.ids.clone()))
            .collect();
        let endian = layout.header.endian;
        for (feature, section) in &layout.features {
            match r.read_at(section.offset, section.size) {
                Ok(bytes) => self
                    .r
                    .feature(*feature, Bytes::new(&bytes, section.offset, endian)),
                Err(e) => self.r.s.warnings.push(format!("{feature} feature: {e}")),
            }
        }
    }

    /// The records of a pipe stream up to its first kernel record (types below 64: MMAP, COMM,
    /// SAMPLE, …), which perf writes after the attrs, features and tracing data: read 64 KiB
    /// first, then reads twice as big up to `chunk_size` (those records are a few KB, or a few
    /// MB with tracing data: a first read of 8 MiB took ~70 ms of the page's summary).
    fn read_pipe_prefix(&mut self, r: &mut impl ReadAt, chunk_size: usize) {
        self.r.s.data_offset = PIPE_HEADER_SIZE;
        self.r.s.data_size = r.len().saturating_sub(PIPE_HEADER_SIZE);
        let most = chunk_size.max(1) as u64;
        let mut chunk = most.min(PIPE_PREFIX_FIRST_READ);
        let mut d = StreamDecoder::pipe();
        let mut at = 0;
        let len = r.len();
        loop {
            let mut more = at < len;
            if more {
                let size = chunk.min(len - at);
                chunk = chunk.saturating_mul(2).min(most);
                match r.read_at(at, size) {
                    Ok(bytes) => d.push(&bytes),
                    Err(e) => {
                        self.error(&e);
                        return;
                    }
                }
                at += size;
                more = at < len;
            }
            if !more {
                d.finish();
            }
            while let Some(item) = d.next_record() {
                match item {
                    Ok(rec) if rec.type_().0 < 64 => return,
                    Ok(rec) => {
                        self.r.pipe_record(&rec, &mut self.legacy);
                        self.skip += 1;
                    }
                    Err(e) => {
                        self.error(&e);
                        return;
                    }
                }
            }
            if !more {
                return;
            }
        }
    }

    /// The next record of a pass over the whole file (file order, compressed records
    /// decompressed: in file mode only records outside COMPRESSED ones are used, as
    /// [`Summary::from_bytes`] does).
    pub fn record(&mut self, rec: &RawRecord<'_>) {
        self.seen += 1;
        if self.pipe {
            if self.seen > self.skip && !self.failed {
                self.r.pipe_record(rec, &mut self.legacy);
            }
        } else if rec.inner_offset.is_none() {
            self.r.record(rec);
        }
    }

    /// Whether [`SummaryReader::record`] reads anything from `rec` when the input is a
    /// file-mode one (the records that carry what a pipe stream's header would: attrs,
    /// features, build ids, event updates; it reads every record of a pipe stream).
    pub fn reads_in_file(rec: &RawRecord<'_>) -> bool {
        rec.inner_offset.is_none() && Reader::reads(rec.type_())
    }

    /// Whether [`SummaryReader::record_read_elsewhere`] is to be handed `rec`, a record of a
    /// pipe stream after its first kernel record (`legacy_google`: the stream is of the
    /// pre-upstream Google format): what [`SummaryReader::record`] reads of such records.
    pub fn reads_in_pipe(rec: &RawRecord<'_>, legacy_google: bool) -> bool {
        Reader::reads(rec.type_()) || (legacy_google && (69..=80).contains(&rec.type_().0))
    }

    /// `n` records of the pass that another reader of the same stream read, instead of handing
    /// them to [`SummaryReader::record`]: it hands those the summary reads to
    /// [`SummaryReader::record_read_elsewhere`] (pipe mode: those after the stream's first
    /// kernel record that [`SummaryReader::reads_in_pipe`] names; file mode: those
    /// [`SummaryReader::reads_in_file`] names, to [`SummaryReader::record`]).
    pub fn records_read_elsewhere(&mut self, n: u64) {
        self.seen = self.seen.saturating_add(n);
    }

    /// A record of a pipe stream after its first kernel record, read by another reader (see
    /// [`SummaryReader::records_read_elsewhere`]), which found the stream to be of the
    /// pre-upstream Google format or not (`legacy_google`).
    pub fn record_read_elsewhere(&mut self, rec: &RawRecord<'_>, legacy_google: bool) {
        if self.pipe && !self.failed {
            self.legacy.get_or_insert(legacy_google);
            self.r.pipe_record(rec, &mut self.legacy);
        }
    }

    /// [`SummaryReader::error`] of an error met by another reader of the stream, by its
    /// message.
    pub fn error_read_elsewhere(&mut self, message: &str) {
        if self.pipe && !self.failed {
            self.failed = true;
            self.r.s.error = Some(message.to_owned());
        }
    }

    /// An error of the pass. In pipe mode the first one ends the summary's records, as in
    /// [`Summary::from_bytes`]; in file mode errors are left to the record readers.
    pub fn error(&mut self, e: &Error) {
        if self.pipe && !self.failed {
            self.failed = true;
            self.r.s.error = Some(e.to_string());
        }
    }

    /// The HEADER_COMPRESSED feature, once read (without making the whole summary).
    pub fn compressed(&self) -> Option<&crate::feature_summary::CompressedSummary> {
        self.r.s.compressed.as_ref()
    }

    /// The summary so far.
    pub fn summary(&self) -> Summary {
        self.r.clone().finish()
    }
}
