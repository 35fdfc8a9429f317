//! zstd-compressed records (PERF_RECORD_COMPRESSED, type 81, and COMPRESSED2, type 83).
//!
//! `perf record -z` compresses the records of each data file (or each `data.N` of a directory)
//! into one zstd stream that spans all its COMPRESSED records: the stream is flushed after each
//! record but never finished. Decoder state is therefore kept from one compressed record to the
//! next, a record whose bytes are split between two compressed records is carried over, and every
//! byte decoded so far is handed out after each compressed record (including the bytes the zstd
//! decoder keeps as its window), so no record is delayed or lost at the end.

use alloc::collections::VecDeque;
use alloc::vec::Vec;

use crate::constants::RecordType;
use crate::endian::Endianness;
use crate::error::{Error, ErrorKind, Result};
use crate::records::{frame_record, RawRecord};

/// The largest zstd window accepted (perf's level 1..22 use at most 128 MiB; this bounds the
/// allocation an untrusted frame header can cause).
#[cfg(feature = "zstd")]
const MAX_WINDOW: u64 = 1 << 27;

/// The compressed payload of a COMPRESSED or COMPRESSED2 record.
///
/// * COMPRESSED (`struct perf_record_compressed`): the whole body is zstd data.
/// * COMPRESSED2 (`struct perf_record_compressed2`): a `u64 data_size`, then that many bytes of
///   zstd data, then padding to 8 bytes.
pub fn compressed_payload<'a>(rec: &RawRecord<'a>) -> Result<&'a [u8]> {
    match rec.type_() {
        RecordType::COMPRESSED => Ok(rec.body),
        RecordType::COMPRESSED2 => {
            let mut b = rec.body_bytes();
            let size = b.read_u64("compressed2 data_size")?;
            b.read_bytes_u64(size, "compressed2 data")
        }
        _ => Err(Error::new(
            rec.offset,
            ErrorKind::BadRecordBody { what: "COMPRESSED" },
        )),
    }
}

/// Where a run of decompressed bytes came from.
#[derive(Debug, Clone, Copy)]
struct Origin {
    /// Position in the decompressed stream where this compressed record's output starts.
    stream_pos: u64,
    /// File offset of the compressed record.
    file_offset: u64,
}

/// The decompressor for one zstd stream of compressed records, with the records it produced.
pub struct ZstdStream {
    endian: Endianness,
    #[cfg(feature = "zstd")]
    decoder: ruzstd::decoding::FrameDecoder,
    #[cfg(feature = "zstd")]
    started: bool,
    /// Compressed bytes received but not consumed by the decoder (a block cut between records).
    #[cfg(feature = "zstd")]
    input: Vec<u8>,
    /// Bytes the decoder drained (handed out through `Read`) in total.
    #[cfg(feature = "zstd")]
    drained_total: u64,
    /// Bytes appended to `out` in total.
    emitted_total: u64,
    /// Decompressed bytes not yet returned as records; `out[out_start..]` is pending.
    out: Vec<u8>,
    out_start: usize,
    /// Stream position of `out[0]`.
    out_pos: u64,
    origins: VecDeque<Origin>,
    failed: bool,
}

impl core::fmt::Debug for ZstdStream {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ZstdStream")
            .field("emitted_total", &self.emitted_total)
            .field("pending", &(self.out.len() - self.out_start))
            .finish()
    }
}

impl ZstdStream {
    /// A decompressor for records of byte order `endian`.
    pub fn new(endian: Endianness) -> ZstdStream {
        ZstdStream {
            endian,
            #[cfg(feature = "zstd")]
            decoder: {
                let mut d = ruzstd::decoding::FrameDecoder::new();
                d.set_max_window_size(MAX_WINDOW);
                d
            },
            #[cfg(feature = "zstd")]
            started: false,
            #[cfg(feature = "zstd")]
            input: Vec::new(),
            #[cfg(feature = "zstd")]
            drained_total: 0,
            emitted_total: 0,
            out: Vec::new(),
            out_start: 0,
            out_pos: 0,
            origins: VecDeque::new(),
            failed: false,
        }
    }

    /// Total decompressed bytes produced so far.
    pub fn decompressed_len(&self) -> u64 {
        self.emitted_total
    }

    /// A copy of this stream's whole state (the zstd decoder's window and tables, the bytes
    /// not yet returned as records): pushed the same compressed records, the copy returns the
    /// same records. Holds the window (perf's default level: 512 KiB or so) and the pending
    /// bytes, not the bytes already returned.
    pub fn checkpoint(&self) -> ZstdStream {
        let pending = self.out.get(self.out_start..).unwrap_or(&[]);
        ZstdStream {
            endian: self.endian,
            #[cfg(feature = "zstd")]
            decoder: self.decoder.clone(),
            #[cfg(feature = "zstd")]
            started: self.started,
            #[cfg(feature = "zstd")]
            input: self.input.clone(),
            #[cfg(feature = "zstd")]
            drained_total: self.drained_total,
            emitted_total: self.emitted_total,
            out: pending.to_vec(),
            out_start: 0,
            out_pos: self.out_pos + self.out_start as u64,
            origins: self.origins.clone(),
            failed: self.failed,
        }
    }

    /// Bytes a [`ZstdStream::checkpoint`] of this stream holds, about (the decoder's window
    /// and tables, the pending bytes).
    pub fn checkpoint_bytes(&self) -> usize {
        #[cfg(feature = "zstd")]
        let decoder = {
            // The window, and room for the decoder's tables and block buffers.
            let (a, b) = self.decoder.peek_undrained();
            a.len() + b.len() + 256 * 1024 + self.input.len()
        };
        #[cfg(not(feature = "zstd"))]
        let decoder = 0;
        decoder + self.out.len().saturating_sub(self.out_start)
    }

    /// Feeds one COMPRESSED or COMPRESSED2 record. Its records (and any record completed by it)
    /// are then returned by [`ZstdStream::next_record`].
    pub fn push(&mut self, rec: &RawRecord<'_>) -> Result<()> {
        let data = self.begin(rec)?;
        let result = self.decompress(data, rec.offset);
        if result.is_err() {
            self.failed = true;
        }
        result
    }

    /// What every compressed record starts with: an error after an earlier failure or for a
    /// record whose payload cannot be framed (the decoder's state unchanged), else its payload,
    /// its output's start kept as an origin.
    fn begin<'a>(&mut self, rec: &RawRecord<'a>) -> Result<&'a [u8]> {
        if self.failed {
            return Err(Error::new(
                rec.offset,
                ErrorKind::Decompression {
                    what: EARLIER_FAILED,
                },
            ));
        }
        let data = compressed_payload(rec)?;
        self.compact();
        self.origins.push_back(Origin {
            stream_pos: self.emitted_total,
            file_offset: rec.offset,
        });
        Ok(data)
    }

    #[cfg(not(feature = "zstd"))]
    fn decompress(&mut self, _data: &[u8], at: u64) -> Result<()> {
        Err(Error::new(at, ErrorKind::Decompression { what: NO_ZSTD }))
    }

    #[cfg(feature = "zstd")]
    fn decompress(&mut self, data: &[u8], at: u64) -> Result<()> {
        let err = |what| Error::new(at, ErrorKind::Decompression { what });
        self.input.extend_from_slice(data);
        let mut consumed = 0usize;
        if !self.started {
            // The frame header (at most 18 bytes) must be complete before init.
            let mut src: &[u8] = &self.input;
            match self.decoder.init(&mut src) {
                Ok(()) => {
                    consumed = self.input.len() - src.len();
                    self.started = true;
                }
                Err(_) if self.input.len() < 18 => return Ok(()),
                Err(_) => return Err(err(BAD_FRAME_HEADER)),
            }
        }
        let mut scratch = [0u8; 16 * 1024];
        // Stream positions: what the decoder hands over next starts at `pos`. Bytes before
        // `emitted_total` were emitted already (peeked while the decoder still held them).
        let mut pos = self.drained_total;
        loop {
            let src = self.input.get(consumed..).unwrap_or(&[]);
            let (read, written) = match self.decoder.decode_from_to(src, &mut scratch) {
                Ok(rw) => rw,
                Err(_) => return Err(err(CORRUPT_BLOCK)),
            };
            if read > src.len() {
                // A finished frame that wants a content checksum answers "4 bytes read" even when
                // fewer are there, every time: wait for them instead of looping forever.
                break;
            }
            consumed += read;
            let part = scratch.get(..written).unwrap_or(&[]);
            Self::emit(&mut self.out, &mut self.emitted_total, pos, part);
            pos += written as u64;
            if read == 0 && written == 0 {
                break;
            }
            if self.decoder.is_finished() && written == 0 {
                break;
            }
        }
        self.input.drain(..consumed.min(self.input.len()));
        self.drained_total = pos;
        // Then what the decoder still holds (its window), emitted now and handed over later.
        let (held_a, held_b) = self.decoder.peek_undrained();
        let total = self.drained_total + (held_a.len() + held_b.len()) as u64;
        for part in [held_a, held_b] {
            Self::emit(&mut self.out, &mut self.emitted_total, pos, part);
            pos += part.len() as u64;
        }
        debug_assert_eq!(self.emitted_total, total);
        Ok(())
    }

    /// Appends to `out` the bytes of `part` (stream positions from `pos` on) past
    /// `emitted_total`, which it moves to the part's end.
    #[cfg(feature = "zstd")]
    fn emit(out: &mut Vec<u8>, emitted_total: &mut u64, pos: u64, part: &[u8]) {
        let end = pos + part.len() as u64;
        if end > *emitted_total {
            let skip = usize::try_from(emitted_total.saturating_sub(pos)).unwrap_or(usize::MAX);
            out.extend_from_slice(part.get(skip..).unwrap_or(&[]));
            *emitted_total = end;
        }
    }

    fn compact(&mut self) {
        if self.out_start > 0 && self.out_start >= self.out.len() / 2 {
            self.out.drain(..self.out_start);
            self.out_pos += self.out_start as u64;
            self.out_start = 0;
        }
    }

    /// The next complete decompressed record, or `None` when the rest (if any) is a partial
    /// record waiting for the next compressed record.
    ///
    /// The record's `offset` is the file offset of the compressed record where it starts and
    /// `inner_offset` its offset in that record's decompressed bytes.
    pub fn next_record(&mut self) -> Option<Result<RawRecord<'_>>> {
        let pending = self.out.get(self.out_start..)?;
        let stream_pos = self.out_pos + self.out_start as u64;
        while self.origins.len() > 1
            && self
                .origins
                .get(1)
                .is_some_and(|o| o.stream_pos <= stream_pos)
        {
            self.origins.pop_front();
        }
        let origin = self.origins.front().copied().unwrap_or(Origin {
            stream_pos: 0,
            file_offset: 0,
        });
        match frame_record(pending, origin.file_offset, self.endian) {
            Ok(mut rec) => {
                let len = rec.total_len();
                rec.inner_offset = Some(stream_pos - origin.stream_pos);
                self.out_start += len;
                Some(Ok(rec))
            }
            Err(e) if matches!(e.kind, ErrorKind::RecordTooSmall { .. }) => {
                // A framing error inside the compressed stream: nothing after it can be walked.
                self.out_start = self.out.len();
                self.failed = true;
                Some(Err(e))
            }
            // An incomplete record: it continues in the next compressed record.
            Err(_) => None,
        }
    }

    /// Whether [`ZstdStream::next_record`] would return a record or an error now.
    pub fn has_record(&self) -> bool {
        let pending = self.out.get(self.out_start..).unwrap_or(&[]);
        match frame_record(pending, 0, self.endian) {
            Ok(_) => true,
            Err(e) => matches!(e.kind, ErrorKind::RecordTooSmall { .. }),
        }
    }

    /// Bytes left over that do not form a complete record (to report at the end of the data).
    pub fn leftover(&self) -> usize {
        self.out.len().saturating_sub(self.out_start)
    }

    /// [`ZstdStream::push`], with the decompressed bytes appended to `into` rather than kept
    /// for [`ZstdStream::next_record`]: for a stream that only decompresses, on another thread
    /// than the one that frames the records ([`ZstdStream::push_inflated`] there). Returns the
    /// error `push` returns, and how many bytes were appended.
    pub fn push_into(&mut self, rec: &RawRecord<'_>, into: &mut Vec<u8>) -> (Result<()>, usize) {
        self.take_output(into);
        let before = into.len();
        core::mem::swap(&mut self.out, into);
        let pushed = self.push(rec);
        core::mem::swap(&mut self.out, into);
        // (Stream positions are not kept: `next_record` is never called on such a stream.)
        (pushed, into.len() - before)
    }

    /// Moves the decompressed bytes not yet returned as records to the end of `into`.
    fn take_output(&mut self, into: &mut Vec<u8>) {
        let pending = self.out.get(self.out_start..).unwrap_or(&[]);
        into.extend_from_slice(pending);
        self.out_pos += self.out.len() as u64;
        self.out.clear();
        self.out_start = 0;
        // Only `next_record` looks at them, which a stream that hands its bytes over never calls.
        self.origins.clear();
    }

    /// What [`ZstdStream::push`] does with `rec`, with its decompressed bytes made elsewhere:
    /// `inflated` is what another stream's [`ZstdStream::push_into`] appended for the same
    /// record, or the `what` of its [`ErrorKind::Decompression`] error. Every other error
    /// comes out as `push` makes it (the record's framing is checked here again).
    pub fn push_inflated(
        &mut self,
        rec: &RawRecord<'_>,
        inflated: core::result::Result<&[u8], &'static str>,
    ) -> Result<()> {
        self.begin(rec)?;
        match inflated {
            Ok(bytes) => {
                self.out.extend_from_slice(bytes);
                self.emitted_total += bytes.len() as u64;
                Ok(())
            }
            Err(what) => {
                self.failed = true;
                Err(Error::new(rec.offset, ErrorKind::Decompression { what }))
            }
        }
    }
}

/// What an earlier failure makes of every later compressed record.
const EARLIER_FAILED: &str = "an earlier compressed record failed";

/// Every `what` of the [`ErrorKind::Decompression`] errors a [`ZstdStream`] makes: to send one
/// to another thread as its index here ([`decompression_failure`]).
pub const DECOMPRESSION_FAILURES: [&str; 4] =
    [EARLIER_FAILED, NO_ZSTD, BAD_FRAME_HEADER, CORRUPT_BLOCK];

const NO_ZSTD: &str = "this build has no zstd support (feature `zstd`)";
const BAD_FRAME_HEADER: &str = "bad zstd frame header";
const CORRUPT_BLOCK: &str = "corrupt zstd block";

/// The index in [`DECOMPRESSION_FAILURES`] of a decompression error's `what`.
pub fn decompression_failure(what: &str) -> Option<usize> {
    DECOMPRESSION_FAILURES.iter().position(|w| *w == what)
}
