//! HEADER_TRACING_DATA (and the payload of the pipe-mode HEADER_TRACING_DATA record): the
//! ftrace "tracing" data that describes tracepoint formats, as `tools/perf/util/trace-event-read.c`
//! reads it.
//!
//! The raw bytes are always kept. The container is walked far enough to list every event
//! format's system, name and id (what perf needs to name `sys:name` tracepoint events); the
//! format text itself is left to a tracepoint-format parser.

use alloc::vec::Vec;

use super::RawStr;
use crate::bytes::{until_nul, Bytes};
use crate::endian::Endianness;
use crate::error::{Error, ErrorKind, Result};

/// The 10-byte magic: `\x17\x08\x44` then `tracing`.
pub const MAGIC: [u8; 10] = *b"\x17\x08\x44tracing";

/// The decoded tracing data.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TracingData<'a> {
    /// All the bytes of the feature (or record payload).
    pub raw: &'a [u8],
    /// The format version (`0.6` in current perf).
    pub version: RawStr<'a>,
    /// `file_bigendian`: the byte order of the numbers inside the tracing data.
    pub big_endian: bool,
    /// `long_size` of the recording kernel (4 or 8).
    pub long_size: u8,
    /// The kernel's page size.
    pub page_size: u32,
    /// `header_page`: the ring-buffer page header format.
    pub header_page: &'a [u8],
    /// `header_event`: the ring-buffer event header description.
    pub header_event: &'a [u8],
    /// The ftrace event format files (`events/ftrace/*/format`).
    pub ftrace_formats: Vec<&'a [u8]>,
    /// The event format files of the recorded tracepoints.
    pub events: Vec<TraceEventFormat<'a>>,
    /// The `/proc/kallsyms` copy (empty in files from perf ≥ 5.19).
    pub kallsyms: &'a [u8],
    /// The `printk_formats` file.
    pub printk: &'a [u8],
    /// `saved_cmdlines` (version 0.6 and later).
    pub saved_cmdlines: Option<&'a [u8]>,
    /// How many bytes the tracing data occupies (the rest of `raw` is padding).
    pub size: usize,
    /// The first problem met while walking the container; what was decoded before it is kept.
    pub error: Option<Error>,
}

/// One event format file: `events/<system>/<name>/format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceEventFormat<'a> {
    /// The system (`sched`, `syscalls`, `probe_mt`, …).
    pub system: RawStr<'a>,
    /// The `name:` line of the format.
    pub name: Option<RawStr<'a>>,
    /// The `ID:` line: the tracepoint id, which is `attr.config` of events using it.
    pub id: Option<u64>,
    /// The whole format text.
    pub format: &'a [u8],
}

impl<'a> TracingData<'a> {
    /// The event format whose `ID:` is `config`, as perf's `tep_find_event` finds it.
    pub fn event_by_id(&self, config: u64) -> Option<&TraceEventFormat<'a>> {
        self.events.iter().find(|e| e.id == Some(config))
    }
}

/// Parses the tracing data. Never fails: a malformed container keeps `raw` and what was read
/// before the problem, with the problem in [`TracingData::error`].
pub fn parse_tracing_data(b: Bytes<'_>) -> Result<TracingData<'_>> {
    let mut t = TracingData {
        raw: b.remaining(),
        ..TracingData::default()
    };
    let start = b.len();
    let mut cur = b;
    if let Err(e) = walk(&mut cur, &mut t) {
        t.error = Some(e);
    }
    t.size = start - cur.len();
    Ok(t)
}

fn read_cstr<'a>(b: &mut Bytes<'a>, what: &'static str) -> Result<&'a [u8]> {
    let s = until_nul(b.remaining());
    if s.len() == b.len() {
        return Err(b.error(ErrorKind::BadString { what }));
    }
    let s = b.read_bytes(s.len(), what)?;
    b.skip(1, what)?;
    Ok(s)
}

fn expect(b: &mut Bytes<'_>, tag: &'static [u8], what: &'static str) -> Result<()> {
    let at = b.offset();
    if b.read_bytes(tag.len(), what)? != tag {
        return Err(Error::new(at, ErrorKind::BadString { what }));
    }
    Ok(())
}

/// A `u64` size followed by that many bytes.
fn sized<'a>(b: &mut Bytes<'a>, what: &'static str) -> Result<&'a [u8]> {
    let n = b.read_u64(what)?;
    b.read_bytes_u64(n, what)
}

fn walk<'a>(b: &mut Bytes<'a>, t: &mut TracingData<'a>) -> Result<()> {
    expect(b, &MAGIC, "tracing data magic")?;
    t.version = RawStr(read_cstr(b, "tracing data version")?);
    t.big_endian = b.read_u8("tracing data file_bigendian")? != 0;
    // Numbers inside follow `file_bigendian`, whatever the perf.data's own byte order.
    let endian = if t.big_endian {
        Endianness::Big
    } else {
        Endianness::Little
    };
    *b = Bytes::new(b.remaining(), b.offset(), endian);
    t.long_size = b.read_u8("tracing data long_size")?;
    t.page_size = b.read_u32("tracing data page_size")?;
    expect(b, b"header_page\0", "tracing data header_page tag")?;
    t.header_page = sized(b, "tracing data header_page")?;
    expect(b, b"header_event\0", "tracing data header_event tag")?;
    t.header_event = sized(b, "tracing data header_event")?;
    let n = super::read_count(b, "ftrace format count", 8)?;
    for _ in 0..n {
        t.ftrace_formats.push(sized(b, "ftrace format")?);
    }
    let systems = super::read_count(b, "event system count", 5)?;
    for _ in 0..systems {
        let system = RawStr(read_cstr(b, "event system name")?);
        let n = super::read_count(b, "event format count", 8)?;
        for _ in 0..n {
            let format = sized(b, "event format")?;
            let (name, id) = name_and_id(format);
            t.events.push(TraceEventFormat {
                system,
                name,
                id,
                format,
            });
        }
    }
    let n = b.read_u32("kallsyms size")?;
    t.kallsyms = b.read_bytes_u64(n.into(), "kallsyms")?;
    let n = b.read_u32("printk size")?;
    t.printk = b.read_bytes_u64(n.into(), "printk formats")?;
    if version_at_least_0_6(t.version.0) {
        t.saved_cmdlines = Some(sized(b, "saved_cmdlines")?);
    }
    Ok(())
}

/// perf's `atof(version) >= 0.6`.
fn version_at_least_0_6(v: &[u8]) -> bool {
    let end = v
        .iter()
        .position(|c| !(c.is_ascii_digit() || *c == b'.'))
        .unwrap_or(v.len());
    let num = v
        .get(..end)
        .and_then(|n| core::str::from_utf8(n).ok())
        .and_then(|n| n.parse::<f64>().ok());
    num.is_some_and(|n| n >= 0.6)
}

/// The `name:` and `ID:` lines of a format file.
fn name_and_id(format: &[u8]) -> (Option<RawStr<'_>>, Option<u64>) {
    let mut name = None;
    let mut id = None;
    for line in format.split(|&c| c == b'\n') {
        let line = line.trim_ascii();
        if let Some(v) = line.strip_prefix(b"name:") {
            name.get_or_insert(RawStr(v.trim_ascii()));
        } else if let Some(v) = line.strip_prefix(b"ID:") {
            id = id.or_else(|| core::str::from_utf8(v.trim_ascii()).ok()?.parse().ok());
        }
        if name.is_some() && id.is_some() {
            break;
        }
    }
    (name, id)
}

#[cfg(test)]
mod tests {
    use super::super::builder::Builder;
    use super::*;

    const SWITCH: &str =
        "name: sched_switch\nID: 316\nformat:\n\tfield:unsigned short common_type;\n";

    fn tracing(endian: Endianness, version: &str) -> Builder {
        let mut b = Builder::new(endian);
        b.raw(&MAGIC)
            .cstr(version)
            .u8(matches!(endian, Endianness::Big) as u8)
            .u8(8)
            .u32(4096);
        b.raw(b"header_page\0").u64(3).raw(b"abc");
        b.raw(b"header_event\0").u64(2).raw(b"de");
        b.u32(1).u64(4).raw(b"ftr\n");
        b.u32(2);
        b.cstr("sched")
            .u32(1)
            .u64(SWITCH.len() as u64)
            .raw(SWITCH.as_bytes());
        let probe = "name: leaf\nID: 1521\n";
        b.cstr("probe_mt")
            .u32(1)
            .u64(probe.len() as u64)
            .raw(probe.as_bytes());
        b.u32(0).u32(0);
        if version == "0.6" {
            b.u64(5).raw(b"1 a\n\0");
        }
        b
    }

    #[test]
    fn lists_event_formats_in_both_byte_orders() {
        for endian in [Endianness::Little, Endianness::Big] {
            let mut b = tracing(endian, "0.6");
            let size = b.len();
            b.raw(&[0, 0, 0, 0]); // padding of the pipe-mode record
            let t = parse_tracing_data(b.bytes(0)).unwrap();
            assert_eq!(t.error, None);
            assert_eq!((t.size, t.raw.len()), (size, size + 4));
            assert_eq!(
                (t.version, t.long_size, t.page_size),
                (RawStr(b"0.6"), 8, 4096)
            );
            assert_eq!((t.header_page, t.header_event), (&b"abc"[..], &b"de"[..]));
            assert_eq!(t.ftrace_formats, [&b"ftr\n"[..]]);
            assert_eq!(t.events.len(), 2);
            let e = t.event_by_id(316).unwrap();
            assert_eq!(
                (e.system, e.name),
                (RawStr(b"sched"), Some(RawStr(b"sched_switch")))
            );
            assert_eq!(t.event_by_id(1521).unwrap().system, RawStr(b"probe_mt"));
            assert_eq!(t.saved_cmdlines, Some(&b"1 a\n\0"[..]));
        }
    }

    #[test]
    fn version_0_5_has_no_saved_cmdlines_and_damage_keeps_what_was_read() {
        let b = tracing(Endianness::Little, "0.5");
        let t = parse_tracing_data(b.bytes(0)).unwrap();
        assert_eq!((t.error, t.saved_cmdlines, t.size), (None, None, b.len()));
        let cut = &b.buf[..b.len() - 8];
        let t = parse_tracing_data(Bytes::new(cut, 0x40, Endianness::Little)).unwrap();
        assert_eq!(t.events.len(), 2);
        let err = t.error.unwrap();
        assert!(
            matches!(
                err.kind,
                ErrorKind::UnexpectedEof {
                    what: "kallsyms size",
                    ..
                }
            ),
            "{err:?}"
        );
        let t = parse_tracing_data(Bytes::new(b"not tracing", 0x40, Endianness::Little)).unwrap();
        assert_eq!(
            t.error,
            Some(Error::new(
                0x40,
                ErrorKind::BadString {
                    what: "tracing data magic"
                }
            ))
        );
        assert_eq!(t.raw, b"not tracing");
    }
}
