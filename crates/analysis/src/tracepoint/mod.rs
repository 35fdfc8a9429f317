//! Tracepoint payloads decoded by field name, and printed as `perf script` prints them.
//!
//! The HEADER_TRACING_DATA feature (or pipe-mode record) holds what
//! `tools/perf/util/trace-event-read.c` reads: the ring-buffer page and event headers, the
//! ftrace and event format files, a kallsyms copy, the printk formats and the saved cmdlines
//! (the container is walked by [`perfscope_format::features::tracing_data`]). [`TraceData`]
//! parses all of it: each format's fields (`field:TYPE NAME[N]; offset:N; size:N; signed:N;`)
//! and its `print fmt:` line, which is evaluated the way libtraceevent does
//! (`event-parse.c`), so the text equals perf's `trace` field, including `__print_flags`
//! (sched_switch's `prev_state`), `__print_symbolic`, `__get_str`, `%pS` and friends.
//!
//! A sample's RAW data belongs to the event whose `ID:` equals the attr's `config` when the
//! attr's `type` is `PERF_TYPE_TRACEPOINT` (2).
//!
//! ```
//! use perfscope_analysis::tracepoint::{EventFormat, FieldValue, NoSymbols, PrintkFormats};
//! use perfscope_format::Endianness;
//! let text = "name: sched_waking\nID: 375\nformat:\n\
//!     \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n\
//!     \tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n\
//!     \tfield:int target_cpu;\toffset:24;\tsize:4;\tsigned:1;\n\n\
//!     print fmt: \"comm=%s target_cpu=%03d\", REC->comm, REC->target_cpu\n";
//! let event = EventFormat::parse("sched", text, Endianness::Little, 8);
//! let mut raw = vec![0u8; 28];
//! raw[8..11].copy_from_slice(b"cat");
//! raw[24] = 1;
//! assert_eq!(event.value("comm", &raw), Some(FieldValue::Str(b"cat")));
//! assert_eq!(event.render(&raw, &NoSymbols, &PrintkFormats::default()), "comm=cat target_cpu=001");
//! ```

mod eval;
mod field;
mod flag_values;
mod format;
mod ksyms;
mod lexer;
mod print_fmt;
mod printf;
mod render;

use std::collections::BTreeMap;

use perfscope_format::bytes::Bytes;
use perfscope_format::constants::attr_type;
use perfscope_format::features::tracing_data::{parse_tracing_data, TracingData};
use perfscope_format::{Endianness, Error, EventAttr};

use crate::symbols::kallsyms::Kallsyms;

pub use field::{Field, FieldFlags, FieldValue};
pub use format::EventFormat;
pub use ksyms::{parse_cmdlines, KernelSymbols, NoSymbols, PrintkFormats};
pub use print_fmt::{Arg, FlagSym, PrintFmt};
pub use printf::{Conv, ConvKind, Segment};

impl EventFormat {
    /// The text perf script prints for payload `raw` (see [`render`](self)).
    pub fn render(
        &self,
        raw: &[u8],
        symbols: &dyn KernelSymbols,
        printk: &PrintkFormats,
    ) -> String {
        render::render(self, raw, symbols, printk)
    }
}

/// Everything in a HEADER_TRACING_DATA, parsed.
#[derive(Debug, Clone)]
pub struct TraceData {
    /// The format version (`0.6`; `0.5` has no saved cmdlines).
    pub version: String,
    /// The byte order of the tracepoint payloads (`file_bigendian`).
    pub endian: Endianness,
    /// `long_size` of the recording kernel.
    pub long_size: u8,
    /// The kernel's page size.
    pub page_size: u32,
    /// The fields of `header_page` (the ring-buffer page header).
    pub header_page: Vec<Field>,
    /// `header_event`, as text (the ring-buffer event header description).
    pub header_event: String,
    /// The ftrace event formats (`events/ftrace/*/format`).
    pub ftrace_events: Vec<EventFormat>,
    /// The recorded events' formats.
    pub events: Vec<EventFormat>,
    /// The kallsyms copy (empty in files from perf 5.19 on).
    pub kallsyms: Kallsyms,
    /// The printk format strings by address.
    pub printk: PrintkFormats,
    /// `saved_cmdlines`: comm by pid (empty for version 0.5).
    pub cmdlines: BTreeMap<i32, String>,
    /// The problem that stopped the walk of the container, if any; what came before is kept.
    pub error: Option<Error>,
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

impl TraceData {
    /// Parses the container walked by `perfscope-format`.
    pub fn from_tracing_data(t: &TracingData<'_>) -> TraceData {
        let endian = if t.big_endian {
            Endianness::Big
        } else {
            Endianness::Little
        };
        let long_size = t.long_size;
        let parse =
            |system: &str, f: &[u8]| EventFormat::parse(system, &text(f), endian, long_size);
        let header_page = text(t.header_page)
            .lines()
            .filter_map(|l| field::parse_field_line(l.trim().strip_prefix("field:")?, long_size))
            .collect();
        TraceData {
            version: text(t.version.0),
            endian,
            long_size,
            page_size: t.page_size,
            header_page,
            header_event: text(t.header_event),
            ftrace_events: t
                .ftrace_formats
                .iter()
                .map(|f| parse("ftrace", f))
                .collect(),
            events: t
                .events
                .iter()
                .map(|e| parse(&text(e.system.0), e.format))
                .collect(),
            kallsyms: Kallsyms::parse(t.kallsyms).unwrap_or_default(),
            printk: PrintkFormats::parse(&text(t.printk)),
            cmdlines: t
                .saved_cmdlines
                .map(|c| parse_cmdlines(&text(c)))
                .unwrap_or_default(),
            error: t.error,
        }
    }

    /// Parses HEADER_TRACING_DATA bytes (the feature section, or the payload of a pipe-mode
    /// HEADER_TRACING_DATA record).
    pub fn parse(bytes: Bytes<'_>) -> TraceData {
        match parse_tracing_data(bytes) {
            Ok(t) => TraceData::from_tracing_data(&t),
            Err(e) => TraceData::from_tracing_data(&TracingData {
                error: Some(e),
                ..TracingData::default()
            }),
        }
    }

    /// The event format with tracepoint id `id` (libtraceevent's `tep_find_event`), ftrace
    /// events included.
    pub fn event(&self, id: u64) -> Option<&EventFormat> {
        self.events
            .iter()
            .chain(&self.ftrace_events)
            .find(|e| e.id == Some(id))
    }

    /// The format of a tracepoint event: `attr.config` when `attr.type` is
    /// `PERF_TYPE_TRACEPOINT`, else `None`.
    pub fn event_for_attr(&self, attr: &EventAttr) -> Option<&EventFormat> {
        (attr.type_ == attr_type::TRACEPOINT)
            .then(|| self.event(attr.config))
            .flatten()
    }

    /// The text perf script prints for a payload of `event`, with `%pS` resolved by `symbols`
    /// (or this data's kallsyms copy when `None`).
    pub fn render(
        &self,
        event: &EventFormat,
        raw: &[u8],
        symbols: Option<&dyn KernelSymbols>,
    ) -> String {
        event.render(raw, symbols.unwrap_or(&self.kallsyms), &self.printk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use perfscope_format::features::tracing_data::MAGIC;

    /// The tracing data container with one sched_switch format, in `endian`.
    fn container(endian: Endianness, version: &str) -> Vec<u8> {
        let big = endian == Endianness::Big;
        let u32b = |v: u32| {
            if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        let u64b = |v: u64| {
            if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        let mut b = Vec::new();
        b.extend(MAGIC);
        b.extend(version.as_bytes());
        b.push(0);
        b.push(u8::from(big));
        b.push(8);
        b.extend(u32b(4096));
        let page = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n";
        b.extend(b"header_page\0");
        b.extend(u64b(page.len() as u64));
        b.extend(page.as_bytes());
        b.extend(b"header_event\0");
        b.extend(u64b(4));
        b.extend(b"# x\n");
        b.extend(u32b(0));
        b.extend(u32b(1));
        b.extend(b"sched\0");
        b.extend(u32b(1));
        let f = format::tests::SWITCH;
        b.extend(u64b(f.len() as u64));
        b.extend(f.as_bytes());
        let kallsyms = "ffffffff81000000 T _text\n";
        b.extend(u32b(kallsyms.len() as u32));
        b.extend(kallsyms.as_bytes());
        let printk = "0xffffffff82000000 : \"hello\\n\"\n";
        b.extend(u32b(printk.len() as u32));
        b.extend(printk.as_bytes());
        if version == "0.6" {
            let c = "18 migration/0\n";
            b.extend(u64b(c.len() as u64));
            b.extend(c.as_bytes());
        }
        b
    }

    #[test]
    fn whole_container_in_both_byte_orders() {
        for endian in [Endianness::Little, Endianness::Big] {
            // The perf.data byte order does not matter: the container says its own.
            let bytes = container(endian, "0.6");
            let t = TraceData::parse(Bytes::new(&bytes, 0, Endianness::Little));
            assert_eq!(t.error, None);
            assert_eq!(
                (t.version.as_str(), t.endian, t.long_size, t.page_size),
                ("0.6", endian, 8, 4096)
            );
            let page: Vec<_> = t
                .header_page
                .iter()
                .map(|f| (f.name.as_str(), f.offset, f.size))
                .collect();
            assert_eq!(page, [("timestamp", 0, 8), ("commit", 8, 8)]);
            assert_eq!(t.header_event, "# x\n");
            assert_eq!(t.kallsyms.table().len(), 1);
            assert_eq!(t.printk.get(0xffffffff82000000), Some("hello"));
            assert_eq!(t.cmdlines.get(&18).map(String::as_str), Some("migration/0"));
            let e = t.event(372).unwrap();
            assert_eq!(e.full_name(), "sched:sched_switch");
            let raw = format::tests::switch_payload(endian, 1);
            assert_eq!(
                t.render(e, &raw, None),
                "prev_comm=perf prev_pid=4321 prev_prio=120 prev_state=S ==> next_comm=migration/0 next_pid=18 next_prio=0"
            );
            let attr = EventAttr {
                type_: attr_type::TRACEPOINT,
                config: 372,
                ..EventAttr::default()
            };
            assert!(t.event_for_attr(&attr).is_some());
            let attr = EventAttr {
                type_: attr_type::SOFTWARE,
                ..attr
            };
            assert!(t.event_for_attr(&attr).is_none());
        }
    }

    #[test]
    fn version_0_5_and_damage() {
        let bytes = container(Endianness::Little, "0.5");
        let t = TraceData::parse(Bytes::new(&bytes, 0, Endianness::Little));
        assert_eq!((t.error, t.cmdlines.len(), t.events.len()), (None, 0, 1));
        let cut = bytes.get(..bytes.len() - 20).unwrap();
        let t = TraceData::parse(Bytes::new(cut, 0x100, Endianness::Little));
        assert_eq!(t.events.len(), 1);
        assert!(t.error.is_some());
        let t = TraceData::parse(Bytes::new(b"junk", 0x100, Endianness::Little));
        assert_eq!(
            (t.events.len(), t.error.map(|e| e.offset)),
            (0, Some(0x100))
        );
    }
}
