//! Reading a share file back into a [`Profile`]. Any bytes give an error or a profile whose
//! every reference is valid; nothing panics and no allocation is larger than the input allows.

use core::fmt;
use std::io::Read as _;

use crate::ids::{
    CapacityError, EventIndex, FrameIndex, FuncIndex, ModuleIndex, StackIndex, StringIndex,
    ThreadIndex,
};
use crate::profile::Profile;
use crate::samples::Sample;
use crate::summary::Summary;

use super::{PrivacyOptions, SharedProfile, COMPRESSION_GZIP, HEADER_SIZE, MAGIC, VERSION};

/// The largest body accepted (4 GiB, the wasm32 address space).
const MAX_BODY: u64 = 1 << 32;

/// Why a share file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShareErrorKind {
    /// The magic is missing.
    NotShareFile,
    /// The file is shorter than its 32-byte header.
    TruncatedHeader,
    /// Written by a newer format version.
    UnsupportedVersion(u32),
    /// An unknown compression byte.
    UnsupportedCompression(u8),
    /// The declared body is larger than [`MAX_BODY`].
    BodyTooLarge(u64),
    /// The declared body size is more than DEFLATE can expand the compressed bytes to.
    ImplausibleBodySize {
        /// Declared in the header.
        declared: u64,
        /// Compressed bytes in the file.
        compressed: u64,
    },
    /// The compressed body is damaged.
    Decompress(String),
    /// The body decompressed to another size than the header declares.
    BodySize {
        /// Declared in the header.
        declared: u64,
        /// Found (at most `declared + 1`).
        found: u64,
    },
    /// The body ends inside a value.
    UnexpectedEof,
    /// A varint longer than 64 bits.
    BadVarint,
    /// A string that is not UTF-8.
    BadUtf8,
    /// The summary JSON does not parse.
    BadSummary(String),
    /// A reference to an entry that does not exist (or, for a stack prefix, is not earlier).
    BadIndex {
        /// The referring table.
        table: &'static str,
        /// The index found.
        index: u64,
        /// How many entries the referred table has.
        len: usize,
    },
    /// A value out of its range (pid, tid, cpu, inline depth).
    OutOfRange(&'static str),
    /// Bytes after the last table.
    TrailingBytes(u64),
    /// A table outgrew `u32` indices.
    Capacity(CapacityError),
}

/// An error with the offset where it was found: in the file for header errors, in the
/// decompressed body otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareError {
    /// Where.
    pub offset: u64,
    /// Whether `offset` is in the decompressed body (`true`) or in the file.
    pub in_body: bool,
    /// What.
    pub kind: ShareErrorKind,
}

impl fmt::Display for ShareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = if self.in_body {
            "decompressed body offset"
        } else {
            "offset"
        };
        write!(f, "share file: at {place} {:#x}: ", self.offset)?;
        match &self.kind {
            ShareErrorKind::NotShareFile => {
                write!(f, "not a perfscope share file (no PERFSCOPE-SHARE magic)")
            }
            ShareErrorKind::TruncatedHeader => {
                write!(f, "the file is shorter than the {HEADER_SIZE}-byte header")
            }
            ShareErrorKind::UnsupportedVersion(v) => {
                write!(f, "format version {v} is newer than this perfscope reads ({VERSION}); update perfscope")
            }
            ShareErrorKind::UnsupportedCompression(c) => write!(
                f,
                "unknown compression {c} (expected {COMPRESSION_GZIP} = gzip)"
            ),
            ShareErrorKind::BodyTooLarge(n) => write!(
                f,
                "the body declares {n} bytes, more than the {MAX_BODY} accepted"
            ),
            ShareErrorKind::ImplausibleBodySize {
                declared,
                compressed,
            } => {
                write!(f, "the header declares a {declared}-byte body, more than {compressed} compressed bytes can hold")
            }
            ShareErrorKind::Decompress(e) => write!(f, "the compressed body is damaged: {e}"),
            ShareErrorKind::BodySize { declared, found } => {
                write!(
                    f,
                    "the body decompresses to {found} bytes but the header declares {declared}"
                )
            }
            ShareErrorKind::UnexpectedEof => write!(f, "the body ends inside a value"),
            ShareErrorKind::BadVarint => write!(f, "a varint is longer than 64 bits"),
            ShareErrorKind::BadUtf8 => write!(f, "a string is not UTF-8"),
            ShareErrorKind::BadSummary(e) => write!(f, "the header summary does not parse: {e}"),
            ShareErrorKind::BadIndex { table, index, len } => {
                write!(
                    f,
                    "{table} refers to entry {index}, but only {len} may be referred to"
                )
            }
            ShareErrorKind::OutOfRange(what) => write!(f, "{what} is out of range"),
            ShareErrorKind::TrailingBytes(n) => write!(f, "{n} bytes follow the last table"),
            ShareErrorKind::Capacity(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ShareError {}

fn header_error(offset: u64, kind: ShareErrorKind) -> ShareError {
    ShareError {
        offset,
        in_body: false,
        kind,
    }
}

/// A cursor over the decompressed body.
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn err(&self, kind: ShareErrorKind) -> ShareError {
        ShareError {
            offset: self.pos as u64,
            in_body: true,
            kind,
        }
    }

    fn v(&mut self) -> Result<u64, ShareError> {
        let mut x = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&b) = self.data.get(self.pos) else {
                return Err(self.err(ShareErrorKind::UnexpectedEof));
            };
            if shift == 63 && b > 1 {
                return Err(self.err(ShareErrorKind::BadVarint));
            }
            self.pos += 1;
            x |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(x);
            }
        }
        Err(self.err(ShareErrorKind::BadVarint))
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, ShareError> {
        let at = self.pos;
        let v = self.v()?;
        u32::try_from(v).map_err(|_| ShareError {
            offset: at as u64,
            in_body: true,
            kind: ShareErrorKind::OutOfRange(what),
        })
    }

    fn bytes(&mut self, len: u64) -> Result<&'a [u8], ShareError> {
        let end = usize::try_from(len)
            .ok()
            .and_then(|l| self.pos.checked_add(l))
            .filter(|&e| e <= self.data.len());
        let Some(end) = end else {
            return Err(self.err(ShareErrorKind::UnexpectedEof));
        };
        let out = self.data.get(self.pos..end).unwrap_or_default();
        self.pos = end;
        Ok(out)
    }

    fn s(&mut self) -> Result<&'a [u8], ShareError> {
        let len = self.v()?;
        self.bytes(len)
    }

    fn str(&mut self) -> Result<&'a str, ShareError> {
        let at = self.pos;
        let b = self.s()?;
        core::str::from_utf8(b).map_err(|_| ShareError {
            offset: at as u64,
            in_body: true,
            kind: ShareErrorKind::BadUtf8,
        })
    }

    /// A count of entries that take at least one byte each: no more than the bytes left.
    fn count(&mut self) -> Result<usize, ShareError> {
        let n = self.v()?;
        let left = self.data.len().saturating_sub(self.pos);
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= left)
            .ok_or_else(|| self.err(ShareErrorKind::UnexpectedEof))
    }

    /// An index into a table of `len` entries mapped through `map`.
    fn index<T: Copy>(&mut self, table: &'static str, map: &[T]) -> Result<T, ShareError> {
        let at = self.pos;
        let i = self.v()?;
        usize::try_from(i)
            .ok()
            .and_then(|i| map.get(i))
            .copied()
            .ok_or(ShareError {
                offset: at as u64,
                in_body: true,
                kind: ShareErrorKind::BadIndex {
                    table,
                    index: i,
                    len: map.len(),
                },
            })
    }

    /// An optional index stored as `index + 1` (0: none).
    fn opt_index<T: Copy>(
        &mut self,
        table: &'static str,
        map: &[T],
    ) -> Result<Option<T>, ShareError> {
        let at = self.pos;
        match self.v()? {
            0 => Ok(None),
            i => usize::try_from(i - 1)
                .ok()
                .and_then(|i| map.get(i))
                .copied()
                .map(Some)
                .ok_or(ShareError {
                    offset: at as u64,
                    in_body: true,
                    kind: ShareErrorKind::BadIndex {
                        table,
                        index: i - 1,
                        len: map.len(),
                    },
                }),
        }
    }
}

/// Decompresses the body after checking the header.
fn body(bytes: &[u8]) -> Result<Vec<u8>, ShareError> {
    if !bytes.starts_with(MAGIC) {
        return Err(header_error(0, ShareErrorKind::NotShareFile));
    }
    let header = bytes.get(..HEADER_SIZE).ok_or(header_error(
        bytes.len() as u64,
        ShareErrorKind::TruncatedHeader,
    ))?;
    let le32 = |at: usize| {
        header
            .get(at..at + 4)
            .and_then(|b| b.try_into().ok())
            .map_or(0, u32::from_le_bytes)
    };
    let version = le32(16);
    if version == 0 || version > VERSION {
        return Err(header_error(
            16,
            ShareErrorKind::UnsupportedVersion(version),
        ));
    }
    let compression = header.get(20).copied().unwrap_or(0);
    if compression != COMPRESSION_GZIP {
        return Err(header_error(
            20,
            ShareErrorKind::UnsupportedCompression(compression),
        ));
    }
    let declared = header
        .get(24..32)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u64::from_le_bytes);
    if declared > MAX_BODY {
        return Err(header_error(24, ShareErrorKind::BodyTooLarge(declared)));
    }
    let compressed = bytes.get(HEADER_SIZE..).unwrap_or_default();
    // DEFLATE expands at most 1032:1; a larger declared size is a lie, caught before inflating.
    if declared
        > (compressed.len() as u64)
            .saturating_mul(1032)
            .saturating_add(64)
    {
        return Err(header_error(
            24,
            ShareErrorKind::ImplausibleBodySize {
                declared,
                compressed: compressed.len() as u64,
            },
        ));
    }
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(compressed)
        .take(declared + 1)
        .read_to_end(&mut out)
        .map_err(|e| {
            header_error(
                HEADER_SIZE as u64,
                ShareErrorKind::Decompress(e.to_string()),
            )
        })?;
    if out.len() as u64 != declared {
        return Err(header_error(
            24,
            ShareErrorKind::BodySize {
                declared,
                found: out.len() as u64,
            },
        ));
    }
    Ok(out)
}

/// Reads a share file written by [`super::to_share`].
///
/// ```
/// use perfscope_analysis::export::share::{from_share, to_share, ShareOptions};
/// use perfscope_analysis::text_samples::profile_from_text_samples;
///
/// let p = profile_from_text_samples("main main\na    b\n").unwrap();
/// let bytes = to_share(&p, None, &ShareOptions::default());
/// let back = from_share(&bytes).unwrap();
/// assert_eq!(back.profile.samples.len(), 2);
/// assert_eq!(from_share(b"PERF").unwrap_err().to_string(),
///            "share file: at offset 0x0: not a perfscope share file (no PERFSCOPE-SHARE magic)");
/// ```
pub fn from_share(bytes: &[u8]) -> Result<SharedProfile, ShareError> {
    let data = body(bytes)?;
    let mut c = Cursor {
        data: &data,
        pos: 0,
    };
    let cap = |c: &Cursor<'_>, e: CapacityError| c.err(ShareErrorKind::Capacity(e));

    let exporter = c.str()?.to_owned();
    let privacy = PrivacyOptions::from_bits(c.v()?);
    let at = c.pos;
    let summary_json = c.s()?;
    let summary = if summary_json.is_empty() {
        None
    } else {
        Some(
            serde_json::from_slice::<Summary>(summary_json).map_err(|e| ShareError {
                offset: at as u64,
                in_body: true,
                kind: ShareErrorKind::BadSummary(e.to_string()),
            })?,
        )
    };

    let mut p = Profile::new();
    let n = c.count()?;
    let mut strings: Vec<StringIndex> = Vec::with_capacity(n);
    for _ in 0..n {
        let s = c.str()?;
        strings.push(p.strings.intern(s).map_err(|e| cap(&c, e))?);
    }

    let n = c.count()?;
    let mut modules: Vec<ModuleIndex> = Vec::with_capacity(n);
    for _ in 0..n {
        let path = c.index("module path", &strings)?;
        let build_id = match c.v()? {
            0 => None,
            len => Some(c.bytes(len - 1)?),
        };
        modules.push(p.modules.intern(path, build_id).map_err(|e| cap(&c, e))?);
    }

    let n = c.count()?;
    let mut funcs: Vec<FuncIndex> = Vec::with_capacity(n);
    for _ in 0..n {
        let name = c.index("function name", &strings)?;
        let module = c.opt_index("function module", &modules)?;
        funcs.push(
            p.funcs
                .intern(crate::stack_table::Func { name, module })
                .map_err(|e| cap(&c, e))?,
        );
    }

    let n = c.count()?;
    let mut frames: Vec<FrameIndex> = Vec::with_capacity(n);
    for _ in 0..n {
        let func = c.index("frame function", &funcs)?;
        let module = c.opt_index("frame module", &modules)?;
        let address = c.v()?;
        let at = c.pos;
        let depth = u16::try_from(c.v()?).map_err(|_| ShareError {
            offset: at as u64,
            in_body: true,
            kind: ShareErrorKind::OutOfRange("inline depth"),
        })?;
        frames.push(
            p.intern_frame(func, module, address, depth)
                .map_err(|e| cap(&c, e))?,
        );
    }

    let n = c.count()?;
    let mut stacks: Vec<StackIndex> = Vec::with_capacity(n);
    for _ in 0..n {
        // Only earlier stacks can be prefixes.
        let prefix = c.opt_index("stack prefix", &stacks)?;
        let frame = c.index("stack frame", &frames)?;
        stacks.push(p.stacks.intern(prefix, frame).map_err(|e| cap(&c, e))?);
    }

    let n = c.count()?;
    let mut threads: Vec<ThreadIndex> = Vec::with_capacity(n);
    for _ in 0..n {
        let pid = c.u32("pid")?;
        let tid = c.u32("tid")?;
        let name = c.index("thread name", &strings)?;
        threads.push(
            p.threads
                .push(crate::samples::Thread { pid, tid, name })
                .map_err(|e| cap(&c, e))?,
        );
    }

    let n = c.count()?;
    let mut events: Vec<EventIndex> = Vec::with_capacity(n);
    for _ in 0..n {
        let name = c.index("event name", &strings)?;
        events.push(EventIndex::from_len(p.events.len()).map_err(|e| cap(&c, e))?);
        p.events.push(name);
    }

    // Six columns of at least one byte per sample.
    let n = c.count()?;
    if n.saturating_mul(6) > data.len().saturating_sub(c.pos) {
        return Err(c.err(ShareErrorKind::UnexpectedEof));
    }
    let mut time = Vec::with_capacity(n);
    let mut prev = 0u64;
    for _ in 0..n {
        let z = c.v()?;
        let d = ((z >> 1) as i64) ^ -((z & 1) as i64);
        prev = prev.wrapping_add(d as u64);
        time.push(prev);
    }
    let mut thread = Vec::with_capacity(n);
    for _ in 0..n {
        thread.push(c.index("sample thread", &threads)?);
    }
    let mut cpu = Vec::with_capacity(n);
    for _ in 0..n {
        cpu.push(c.u32("cpu")?.wrapping_sub(1));
    }
    let mut event = Vec::with_capacity(n);
    for _ in 0..n {
        event.push(c.index("sample event", &events)?);
    }
    let mut stack = Vec::with_capacity(n);
    for _ in 0..n {
        stack.push(c.opt_index("sample stack", &stacks)?);
    }
    for i in 0..n {
        let period = c.v()?;
        let (Some(&time), Some(&thread), Some(&cpu), Some(&event), Some(&stack)) = (
            time.get(i),
            thread.get(i),
            cpu.get(i),
            event.get(i),
            stack.get(i),
        ) else {
            break;
        };
        p.push_sample(Sample {
            time,
            thread,
            cpu,
            event,
            stack,
            period,
        })
        .map_err(|e| cap(&c, e))?;
    }
    if c.pos != data.len() {
        return Err(c.err(ShareErrorKind::TrailingBytes((data.len() - c.pos) as u64)));
    }
    Ok(SharedProfile {
        profile: p,
        summary,
        privacy,
        exporter,
    })
}
