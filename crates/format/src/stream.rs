//! A push decoder: feed byte chunks of any size, pull records.
//!
//! Used for pipe-mode streams (`perf record -o -`, starting with the 16-byte pipe header) and for
//! data sections read in slices (a browser reading a `File` piece by piece). Records may be cut
//! anywhere between chunks; they are carried over until complete. Nothing assumes alignment.

use alloc::collections::VecDeque;
use alloc::vec::Vec;

use crate::compression::ZstdStream;
use crate::constants::RecordType;
use crate::endian::Endianness;
use crate::error::{Error, ErrorKind, Result};
use crate::header::{Magic, PIPE_HEADER_SIZE};
use crate::records::{frame_record_with, RawRecord, RECORD_HEADER_SIZE};

/// Keep at most this many consumed bytes before moving the rest to the front.
const COMPACT_THRESHOLD: usize = 1 << 16;

/// A push decoder of records.
///
/// ```
/// use perfscope_format::stream::StreamDecoder;
/// let mut d = StreamDecoder::pipe();
/// let mut bytes = b"PERFILE2".to_vec();
/// bytes.extend(16u64.to_le_bytes());
/// bytes.extend([68, 0, 0, 0, 0, 0, 8, 0]); // FINISHED_ROUND
/// for chunk in bytes.chunks(3) {
///     d.push(chunk);
/// }
/// d.finish();
/// let rec = d.next_record().unwrap().unwrap();
/// assert_eq!((rec.offset, rec.header.type_.0), (16, 68));
/// assert!(d.next_record().is_none());
/// ```
#[derive(Debug)]
pub struct StreamDecoder {
    /// `buf[..end]` holds input; the bytes after it are room kept from earlier pushes (already
    /// initialized, so a push fills them without zeroing them first).
    buf: Vec<u8>,
    /// `buf[start..end]` is not consumed yet.
    start: usize,
    end: usize,
    /// Absolute offset of `buf[0]`.
    buf_offset: u64,
    endian: Option<Endianness>,
    expect_pipe_header: bool,
    zstd: Option<ZstdStream>,
    finished: bool,
    failed: bool,
    end_reported: bool,
    /// Decided at the first record of a pipe stream, see [`StreamDecoder::legacy_google`].
    legacy_google: Option<bool>,
    /// Set by [`StreamDecoder::inflate_only`]: the compressed records' bytes, decompressed here
    /// and not framed, for [`StreamDecoder::take_inflated`].
    inflate: Option<Inflated>,
    /// Set by [`StreamDecoder::supply_inflated`]: the compressed records' bytes, decompressed
    /// elsewhere.
    supply: Option<Supply>,
}

/// The bytes supplied by [`StreamDecoder::supply_inflated`] and not taken yet.
#[derive(Debug, Default)]
struct Supply {
    bytes: Vec<u8>,
    /// `bytes[..used]` are taken.
    used: usize,
    records: VecDeque<InflatedRecord>,
}

impl Supply {
    /// Appends `inflated` (dropping the bytes taken so far once they are all taken).
    fn add(&mut self, inflated: Inflated) {
        if self.used >= self.bytes.len() {
            self.used = 0;
            self.bytes = inflated.bytes;
        } else {
            self.bytes.extend_from_slice(&inflated.bytes);
        }
        self.records.extend(inflated.records);
    }

    /// The decompressed bytes of the compressed record at `offset` (the next one supplied), or
    /// why there are none: its own failure, or [`NOT_SUPPLIED`] when the next one supplied is
    /// another record's (the decompressor's state is lost then: it and every later one fail).
    fn take(&mut self, offset: u64) -> core::result::Result<&[u8], &'static str> {
        let r = self
            .records
            .pop_front()
            .filter(|r| r.offset == offset)
            .ok_or(NOT_SUPPLIED)?;
        let from = self.used;
        let to = usize::try_from(r.len)
            .ok()
            .and_then(|n| from.checked_add(n));
        self.used = to.unwrap_or(usize::MAX);
        if let Some(what) = r.failure {
            return Err(what);
        }
        to.and_then(|to| self.bytes.get(from..to))
            .ok_or(NOT_SUPPLIED)
    }
}

/// The decompressed bytes of compressed records, made by a [`StreamDecoder`] that only
/// decompresses ([`StreamDecoder::inflate_only`]), on another thread, for one that frames
/// their records ([`StreamDecoder::supply_inflated`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inflated {
    /// The bytes, record after record.
    pub bytes: Vec<u8>,
    /// The compressed records, in order.
    pub records: Vec<InflatedRecord>,
}

/// One compressed record of [`Inflated`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InflatedRecord {
    /// The record's file offset.
    pub offset: u64,
    /// How many of the bytes it added (what [`crate::compression::ZstdStream::push_into`]
    /// appended).
    pub len: u64,
    /// Why it could not be decompressed: the `what` of its
    /// [`ErrorKind::Decompression`] error (any other error is the record's framing, which the
    /// framing stream finds itself).
    pub failure: Option<&'static str>,
}

impl StreamDecoder {
    /// A decoder for a pipe-mode stream: the input starts with the pipe header.
    pub fn pipe() -> StreamDecoder {
        StreamDecoder::new_inner(None, 0, true)
    }

    /// A decoder for records only (a file's data section, or a `data.N` file of a directory),
    /// whose first byte is at absolute `offset`.
    pub fn records(endian: Endianness, offset: u64) -> StreamDecoder {
        StreamDecoder::new_inner(Some(endian), offset, false)
    }

    fn new_inner(
        endian: Option<Endianness>,
        offset: u64,
        expect_pipe_header: bool,
    ) -> StreamDecoder {
        StreamDecoder {
            buf: Vec::new(),
            start: 0,
            end: 0,
            buf_offset: offset,
            endian,
            expect_pipe_header,
            zstd: None,
            finished: false,
            failed: false,
            end_reported: false,
            legacy_google: if expect_pipe_header {
                None
            } else {
                Some(false)
            },
            inflate: None,
            supply: None,
        }
    }

    /// A copy of this decoder's state between two pushes: pushed the same bytes, the copy
    /// returns the same records. It holds the input not consumed yet (a record cut by the
    /// last push) and, for a `-z` input, the zstd stream's state
    /// ([`ZstdStream::checkpoint`]), not the room kept for later pushes. `None` for a decoder
    /// that hands its decompressed bytes over or is supplied them (another thread holds that
    /// state).
    pub fn checkpoint(&self) -> Option<StreamDecoder> {
        if self.inflate.is_some() || self.supply.is_some() {
            return None;
        }
        Some(StreamDecoder {
            buf: self.buf.get(self.start..self.end).unwrap_or(&[]).to_vec(),
            start: 0,
            end: self.end.saturating_sub(self.start),
            buf_offset: self.buf_offset + self.start as u64,
            endian: self.endian,
            expect_pipe_header: self.expect_pipe_header,
            zstd: self.zstd.as_ref().map(ZstdStream::checkpoint),
            finished: self.finished,
            failed: self.failed,
            end_reported: self.end_reported,
            legacy_google: self.legacy_google,
            inflate: None,
            supply: None,
        })
    }

    /// Decompressed bytes so far (0 for an input without compressed records), and about how
    /// many bytes a [`StreamDecoder::checkpoint`] now would hold.
    pub fn decompressed(&self) -> (u64, usize) {
        let pending = self.end.saturating_sub(self.start);
        match &self.zstd {
            Some(z) => (z.decompressed_len(), z.checkpoint_bytes() + pending),
            None => (0, pending),
        }
    }

    /// Makes this a decoder that decompresses the compressed records and keeps their bytes
    /// for [`StreamDecoder::take_inflated`] instead of framing their records:
    /// [`StreamDecoder::next_record`] returns only the records of the input itself. For a
    /// thread that decompresses for another ([`StreamDecoder::supply_inflated`]).
    pub fn inflate_only(&mut self) {
        self.inflate.get_or_insert_with(Inflated::default);
    }

    /// The bytes decompressed since the last call (see [`StreamDecoder::inflate_only`]).
    pub fn take_inflated(&mut self) -> Inflated {
        self.inflate
            .as_mut()
            .map(core::mem::take)
            .unwrap_or_default()
    }

    /// The bytes decompressed since the last [`StreamDecoder::clear_inflated`] (see
    /// [`StreamDecoder::inflate_only`]), left where they are: a caller that copies them
    /// elsewhere and clears them keeps the memory for the next ones.
    pub fn inflated(&self) -> Option<&Inflated> {
        self.inflate.as_ref()
    }

    /// Makes room for `bytes` more decompressed bytes (see [`StreamDecoder::inflate_only`]):
    /// room reserved as much as a slice's compressed records hold keeps their buffer from
    /// growing by doubling, to twice what it needs.
    pub fn reserve_inflated(&mut self, bytes: usize) {
        if let Some(i) = &mut self.inflate {
            i.bytes.reserve(bytes);
        }
    }

    /// Drops the bytes decompressed so far, keeping their memory for the next ones.
    pub fn clear_inflated(&mut self) {
        if let Some(i) = &mut self.inflate {
            i.bytes.clear();
            i.records.clear();
        }
    }

    /// Hands over the decompressed bytes of compressed records that an
    /// [`StreamDecoder::inflate_only`] decoder made from the same input: from then on, each
    /// compressed record takes its bytes from what was supplied instead of decompressing them
    /// (what another decoder supplied of the records that come after the ones pushed so far,
    /// in order). A compressed record with none supplied is an error.
    pub fn supply_inflated(&mut self, inflated: Inflated) {
        self.supply
            .get_or_insert_with(Supply::default)
            .add(inflated);
    }

    /// The byte order, once known.
    pub fn endian(&self) -> Option<Endianness> {
        self.endian
    }

    /// Whether the stream uses the pre-upstream pipe format of Google's perf of 2012–2013, in
    /// which the header features were sent as records of type `66 + feature id` (69 = HOSTNAME …
    /// 80 = NUMA_TOPOLOGY) holding just the feature's bytes, before the ATTR records. Those
    /// types mean other things today (69 ID_INDEX, 71 AUXTRACE, …), so they are framed without
    /// trailing payloads. Recognized by a first record of type 69 whose body is exactly one
    /// perf string (`u32 len` + `len` bytes), which an ID_INDEX body never is.
    pub fn legacy_google(&self) -> bool {
        self.legacy_google == Some(true)
    }

    /// Absolute offset of the next unconsumed byte.
    pub fn offset(&self) -> u64 {
        self.buf_offset + self.start as u64
    }

    /// Bytes received but not yet returned as records.
    pub fn buffered(&self) -> usize {
        self.end - self.start
    }

    /// Appends input.
    pub fn push(&mut self, chunk: &[u8]) {
        if let Some(room) = self.room(chunk.len()) {
            room.copy_from_slice(chunk);
            self.end += chunk.len();
        }
    }

    /// Appends `size` bytes of input that `fill` writes in place (a reader filling the
    /// decoder's own buffer: no block per chunk). When `fill` fails, nothing is appended.
    pub fn push_with<E>(
        &mut self,
        size: usize,
        fill: impl FnOnce(&mut [u8]) -> core::result::Result<(), E>,
    ) -> core::result::Result<(), E> {
        let mut empty = [];
        let room = self.room(size);
        let filled = room.is_some();
        let result = fill(room.unwrap_or(&mut empty));
        if result.is_ok() && filled {
            self.end += size;
        }
        result
    }

    /// The `size` bytes after the input, for the next push: the consumed bytes are dropped
    /// first once they are most of the input, and the buffer grows (zeroed) only past the
    /// room earlier pushes left. `None` only for a size past the address space.
    fn room(&mut self, size: usize) -> Option<&mut [u8]> {
        if self.start >= COMPACT_THRESHOLD
            && self.start * 2 >= self.end
            && self.end <= self.buf.len()
        {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.buf_offset += self.start as u64;
            self.start = 0;
        }
        let need = self.end.checked_add(size)?;
        if self.buf.len() < need {
            self.buf.resize(need, 0);
        }
        self.buf.get_mut(self.end..need)
    }

    /// Says that no more input will come: an incomplete record at the end becomes an error.
    pub fn finish(&mut self) {
        self.finished = true;
    }

    /// Whether all input was consumed after [`StreamDecoder::finish`] or a fatal error.
    pub fn is_done(&self) -> bool {
        self.failed
            || (self.finished
                && self.buffered() == 0
                && !self.zstd.as_ref().is_some_and(ZstdStream::has_record))
    }

    fn fail(&mut self, e: Error) -> Option<Result<RawRecord<'_>>> {
        self.failed = true;
        Some(Err(e))
    }

    /// The next record, or `None` when more input is needed (or, after `finish`, at the end).
    #[allow(clippy::should_implement_trait)]
    pub fn next_record(&mut self) -> Option<Result<RawRecord<'_>>> {
        if self.zstd.as_ref().is_some_and(ZstdStream::has_record) {
            return self.zstd.as_mut().and_then(ZstdStream::next_record);
        }
        if self.failed {
            return None;
        }
        if self.expect_pipe_header {
            let pending = self.buf.get(self.start..self.end).unwrap_or(&[]);
            if pending.len() < PIPE_HEADER_SIZE as usize {
                if self.finished && !self.end_reported {
                    self.end_reported = true;
                    let at = self.offset();
                    let found = {
                        let mut f = [0u8; 8];
                        for (d, s) in f.iter_mut().zip(pending) {
                            *d = *s;
                        }
                        f
                    };
                    let kind = if pending.len() < 8 {
                        ErrorKind::BadMagic { found }
                    } else {
                        ErrorKind::UnexpectedEof {
                            what: "pipe header",
                            needed: PIPE_HEADER_SIZE,
                            available: pending.len() as u64,
                        }
                    };
                    return self.fail(Error::new(at, kind));
                }
                return None;
            }
            match Magic::parse(pending) {
                Ok(m) if m.pipe => {
                    self.endian = Some(m.endian);
                    self.start += PIPE_HEADER_SIZE as usize;
                    self.expect_pipe_header = false;
                }
                Ok(m) => {
                    let at = self.offset();
                    return self.fail(m.not_a_pipe(at));
                }
                // A version 1 magic needs `attr_size` too (bytes 16..24) to tell its byte order.
                Err(Error {
                    kind: ErrorKind::UnexpectedEof { .. },
                    ..
                }) if !self.finished => return None,
                Err(e) => return self.fail(e),
            }
        }
        let endian = self.endian.unwrap_or(Endianness::Little);
        let offset = self.offset();
        let pending = self.buf.get(self.start..self.end).unwrap_or(&[]);
        if pending.is_empty() {
            return self.end_of_input();
        }
        if self.legacy_google.is_none() {
            match is_legacy_google_first_record(pending, endian) {
                Some(legacy) => self.legacy_google = Some(legacy),
                None if !self.finished => return None,
                None => self.legacy_google = Some(false),
            }
        }
        let payloads = !self.legacy_google();
        // Framed once; the record is then taken from the buffer by the sizes found (one
        // borrowed from `pending` could not be returned: the calls above and the error branch
        // below need the whole decoder).
        let framed = frame_record_with(pending, offset, endian, payloads)
            .map(|rec| (rec.header, rec.body.len(), rec.payload.len()));
        match framed {
            Ok((header, body_len, payload_len)) => {
                let at = self.start;
                self.start += RECORD_HEADER_SIZE + body_len + payload_len;
                let rec = record_at(&self.buf, at, offset, endian, header, body_len, payload_len);
                if matches!(
                    header.type_,
                    RecordType::COMPRESSED | RecordType::COMPRESSED2
                ) {
                    let z = self.zstd.get_or_insert_with(|| ZstdStream::new(endian));
                    let pushed = if let Some(into) = &mut self.inflate {
                        inflate_into(z, &rec, into)
                    } else if let Some(supply) = &mut self.supply {
                        z.push_inflated(&rec, supply.take(rec.offset))
                    } else {
                        z.push(&rec)
                    };
                    if let Err(e) = pushed {
                        return Some(Err(e));
                    }
                }
                Some(Ok(rec))
            }
            Err(e) => match e.kind {
                ErrorKind::RecordPastEnd { .. } | ErrorKind::UnexpectedEof { .. }
                    if !self.finished =>
                {
                    None
                }
                _ => self.fail(e),
            },
        }
    }

    fn end_of_input(&mut self) -> Option<Result<RawRecord<'_>>> {
        if !self.finished || self.end_reported {
            return None;
        }
        self.end_reported = true;
        let leftover = self.zstd.as_ref().map_or(0, ZstdStream::leftover);
        if leftover > 0 {
            let at = self.offset();
            return self.fail(Error::new(
                at,
                ErrorKind::RecordPastEnd {
                    size: leftover as u64,
                    available: 0,
                },
            ));
        }
        None
    }
}

/// The record framed at `at` in `buf` (its header, body and payload sizes as framing found
/// them).
fn record_at(
    buf: &[u8],
    at: usize,
    offset: u64,
    endian: Endianness,
    header: crate::records::RecordHeader,
    body_len: usize,
    payload_len: usize,
) -> RawRecord<'_> {
    let body_at = at + RECORD_HEADER_SIZE;
    let payload_at = body_at + body_len;
    RawRecord {
        offset,
        inner_offset: None,
        endian,
        header,
        body: buf.get(body_at..payload_at).unwrap_or(&[]),
        payload: buf.get(payload_at..payload_at + payload_len).unwrap_or(&[]),
    }
}

/// Decompresses `rec` into `into` (a decoder that only decompresses), with the record's
/// entry; returns what [`ZstdStream::push`] would.
fn inflate_into(z: &mut ZstdStream, rec: &RawRecord<'_>, into: &mut Inflated) -> Result<()> {
    let (pushed, len) = z.push_into(rec, &mut into.bytes);
    let failure = match &pushed {
        Err(Error {
            kind: ErrorKind::Decompression { what },
            ..
        }) => Some(*what),
        _ => None,
    };
    into.records.push(InflatedRecord {
        offset: rec.offset,
        len: len as u64,
        failure,
    });
    pushed
}

/// Why a compressed record whose decompressed bytes were to be supplied
/// ([`StreamDecoder::supply_inflated`]) failed when they were not.
const NOT_SUPPLIED: &str = "its decompressed bytes were not handed over";

/// Decides from the first record of a pipe stream whether it is the legacy Google format;
/// `None` when more bytes are needed.
pub(crate) fn is_legacy_google_first_record(pending: &[u8], endian: Endianness) -> Option<bool> {
    let header = pending.get(..RECORD_HEADER_SIZE)?;
    let type_ = endian.u32(header.get(..4)?.try_into().ok()?);
    if type_ != 69 {
        return Some(false);
    }
    let size = usize::from(endian.u16(header.get(6..8)?.try_into().ok()?));
    let body = pending.get(RECORD_HEADER_SIZE..size)?;
    Some(is_legacy_google_body(type_, body, endian))
}

fn is_legacy_google_body(type_: u32, body: &[u8], endian: Endianness) -> bool {
    let len = body
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .map(|b| endian.u32(b) as usize);
    type_ == 69 && len.is_some_and(|len| len + 4 == body.len() && len > 0)
}

/// Whether `rec`, the first record of a pipe stream, marks the legacy Google format (the test
/// [`StreamDecoder::legacy_google`] makes).
pub fn is_legacy_google_record(rec: &RawRecord<'_>) -> bool {
    is_legacy_google_body(rec.type_().0, rec.body, rec.endian)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(endian: Endianness, type_: u32, body: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&endian.u32_bytes(type_));
        v.extend_from_slice(&endian.u16_bytes(0));
        v.extend_from_slice(&endian.u16_bytes((8 + body.len()) as u16));
        v.extend_from_slice(body);
        v
    }

    fn pipe_stream(endian: Endianness) -> Vec<u8> {
        let mut v = match endian {
            Endianness::Little => b"PERFILE2".to_vec(),
            Endianness::Big => b"2ELIFREP".to_vec(),
        };
        v.extend(endian.u64_bytes(16));
        // TRACING_DATA with a 16-byte payload leaves the next record at 4 mod 8.
        v.extend(rec(endian, 66, &endian.u32_bytes(16)));
        v.extend([0x55; 16]);
        v.extend(rec(endian, 3, &[1, 2, 3, 4, 5, 6, 7, 8]));
        v.extend(rec(endian, 68, &[]));
        v
    }

    #[test]
    fn any_chunking_gives_the_same_records() {
        for endian in [Endianness::Little, Endianness::Big] {
            let bytes = pipe_stream(endian);
            for chunk in [1, 3, 7, 64] {
                let mut d = StreamDecoder::pipe();
                let mut got = Vec::new();
                for c in bytes.chunks(chunk) {
                    d.push(c);
                    while let Some(r) = d.next_record() {
                        let r = r.unwrap();
                        got.push((r.offset, r.type_().0, r.body.len(), r.payload.len()));
                    }
                }
                d.finish();
                assert!(d.next_record().is_none());
                assert!(d.is_done());
                assert_eq!(
                    got,
                    [(16, 66, 4, 16), (44, 3, 8, 0), (60, 68, 0, 0)],
                    "chunk {chunk}"
                );
            }
        }
    }

    #[test]
    fn filling_in_place_gives_the_same_records_and_a_failed_fill_adds_nothing() {
        for endian in [Endianness::Little, Endianness::Big] {
            let bytes = pipe_stream(endian);
            for chunk in [1, 5, 64] {
                let mut d = StreamDecoder::pipe();
                let mut got = Vec::new();
                for (k, c) in bytes.chunks(chunk).enumerate() {
                    // A reader that fails once before each chunk: nothing of it may stay.
                    let failed: core::result::Result<(), &str> = d.push_with(c.len(), |out| {
                        out.fill(0xAA);
                        Err("the read failed")
                    });
                    assert_eq!(failed, Err("the read failed"));
                    assert_eq!(
                        d.push_with(c.len(), |out| {
                            out.copy_from_slice(c);
                            Ok::<(), ()>(())
                        }),
                        Ok(()),
                        "chunk {k}"
                    );
                    while let Some(r) = d.next_record() {
                        let r = r.unwrap();
                        got.push((r.offset, r.type_().0, r.body.len(), r.payload.len()));
                    }
                }
                d.finish();
                assert!(d.next_record().is_none() && d.is_done());
                assert_eq!(
                    got,
                    [(16, 66, 4, 16), (44, 3, 8, 0), (60, 68, 0, 0)],
                    "chunk {chunk}"
                );
            }
        }
    }

    #[test]
    fn a_cut_record_is_an_error_only_at_the_end() {
        let bytes = pipe_stream(Endianness::Little);
        let mut d = StreamDecoder::pipe();
        d.push(&bytes[..50]);
        assert!(d.next_record().unwrap().is_ok());
        assert!(d.next_record().is_none());
        d.push(&bytes[50..56]);
        assert!(d.next_record().is_none());
        d.finish();
        let err = d.next_record().unwrap().unwrap_err();
        assert_eq!(
            err,
            Error::new(
                44,
                ErrorKind::RecordPastEnd {
                    size: 16,
                    available: 12
                }
            )
        );
        assert!(d.next_record().is_none());
    }

    #[test]
    fn legacy_google_feature_records_have_no_trailing_payload() {
        for endian in [Endianness::Little, Endianness::Big] {
            let mut v = match endian {
                Endianness::Little => b"PERFILE2".to_vec(),
                Endianness::Big => b"2ELIFREP".to_vec(),
            };
            v.extend(endian.u64_bytes(16));
            let mut hostname = endian.u32_bytes(8).to_vec();
            hostname.extend(b"host\0\0\0\0");
            v.extend(rec(endian, 69, &hostname));
            // 71 was VERSION; read as AUXTRACE its first u64 would be a payload size.
            let mut version = endian.u32_bytes(8).to_vec();
            version.extend(b"3.3.0\0\0\0");
            v.extend(rec(endian, 71, &version));
            v.extend(rec(endian, 68, &[]));
            let mut d = StreamDecoder::pipe();
            d.push(&v);
            d.finish();
            let mut types = Vec::new();
            while let Some(r) = d.next_record() {
                types.push(r.unwrap().type_().0);
            }
            assert!(d.legacy_google());
            assert_eq!(types, [69, 71, 68]);
        }
    }

    /// Each record (offset, type, body and payload sizes) or error of `bytes` as a decoder
    /// given them in one push reads them, and as [`crate::reader::RecordReader::pipe`] does
    /// in place, with the legacy-format verdict of each.
    #[allow(clippy::type_complexity)]
    fn both_ways(bytes: &[u8]) -> [(Vec<Result<(u64, u32, usize, usize)>>, bool); 2] {
        let fields = |r: RawRecord<'_>| (r.offset, r.type_().0, r.body.len(), r.payload.len());
        let mut d = StreamDecoder::pipe();
        d.push(bytes);
        d.finish();
        let mut decoded = Vec::new();
        while let Some(r) = d.next_record() {
            decoded.push(r.map(fields));
        }
        let (in_place, legacy) = match crate::reader::RecordReader::pipe(bytes) {
            Ok(mut r) => {
                let mut got = Vec::new();
                while let Some(item) = r.next_record() {
                    got.push(item.map(fields));
                }
                (got, r.legacy_google())
            }
            Err(e) => (Vec::from([Err(e)]), false),
        };
        [(decoded, d.legacy_google()), (in_place, legacy)]
    }

    #[test]
    fn a_whole_stream_read_in_place_gives_the_decoders_records_and_errors() {
        for endian in [Endianness::Little, Endianness::Big] {
            let bytes = pipe_stream(endian);
            let [decoded, in_place] = both_ways(&bytes);
            assert_eq!(
                decoded.0,
                [Ok((16, 66, 4, 16)), Ok((44, 3, 8, 0)), Ok((60, 68, 0, 0))]
            );
            assert_eq!(in_place, decoded);
            // Cut inside the second record: the same error at its offset.
            let [decoded, in_place] = both_ways(&bytes[..56]);
            assert_eq!(decoded.0.len(), 2);
            assert_eq!(in_place, decoded);
        }
        // The legacy Google format: feature records framed without trailing payloads.
        let mut v = b"PERFILE2".to_vec();
        v.extend(16u64.to_le_bytes());
        let mut hostname = 8u32.to_le_bytes().to_vec();
        hostname.extend(b"host\0\0\0\0");
        v.extend(rec(Endianness::Little, 69, &hostname));
        let mut version = 8u32.to_le_bytes().to_vec();
        version.extend(b"3.3.0\0\0\0");
        v.extend(rec(Endianness::Little, 71, &version));
        let [decoded, in_place] = both_ways(&v);
        assert!(decoded.1);
        assert_eq!(decoded.0, [Ok((16, 69, 12, 0)), Ok((36, 71, 12, 0))]);
        assert_eq!(in_place, decoded);
        // A file-mode header: refused at the header size.
        let mut v = b"PERFILE2".to_vec();
        v.extend(104u64.to_le_bytes());
        let [decoded, in_place] = both_ways(&v);
        assert_eq!(decoded.0.len(), 1);
        assert_eq!(in_place, decoded);
    }

    #[test]
    fn file_mode_header_in_a_pipe_is_refused() {
        let mut v = b"PERFILE2".to_vec();
        v.extend(104u64.to_le_bytes());
        let mut d = StreamDecoder::pipe();
        d.push(&v);
        let err = d.next_record().unwrap().unwrap_err();
        assert_eq!(err.offset, 8);
    }

    /// Found by the `stream` fuzz target: a version 1 magic (`PERFFILE`) is told apart by its
    /// `attr_size` at bytes 16..24, so a decoder holding 16 to 23 bytes failed with "needed 8
    /// bytes of attr_size" instead of waiting for more, unlike the same bytes in one push.
    #[test]
    fn version_1_magic_cut_before_attr_size_waits_for_more() {
        // attr_size 80 + 16 is a version 1 attr entry size; 0x99 is none.
        for (attr_size, offset, want) in [
            (
                96u64,
                8,
                ErrorKind::BadValue {
                    what: "pipe header size (this is a file-mode perf.data; open it as a file)",
                    value: 104,
                },
            ),
            (0x99, 16, ErrorKind::UnsupportedVersion1),
        ] {
            let mut v = b"PERFFILE".to_vec();
            v.extend(104u64.to_le_bytes());
            v.extend(attr_size.to_le_bytes());
            for cut in [v.len(), 16, 21] {
                let mut d = StreamDecoder::pipe();
                d.push(&v[..cut]);
                let mut got = Vec::new();
                while let Some(r) = d.next_record() {
                    got.push(r.map(|r| r.offset));
                }
                d.push(&v[cut..]);
                d.finish();
                while let Some(r) = d.next_record() {
                    got.push(r.map(|r| r.offset));
                }
                assert_eq!(got, [Err(Error::new(offset, want))], "cut at {cut}");
            }
        }
    }
}
