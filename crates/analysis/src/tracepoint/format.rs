//! An event format file (`events/<system>/<name>/format`, `struct tep_event`): name, id, the
//! common and the event's own fields, and the `print fmt:` line, parsed into a [`PrintFmt`].

use perfscope_format::Endianness;

use super::field::{parse_field_line, Field, FieldValue};
use super::lexer::strtoull;
use super::print_fmt::{parse_print_fmt, PrintFmt};

/// One event format.
#[derive(Debug, Clone, PartialEq)]
pub struct EventFormat {
    /// The system (`sched`, `kmem`, `probe_mt`, `ftrace`).
    pub system: String,
    /// The `name:` line.
    pub name: String,
    /// The `ID:` line: the tracepoint id (`attr.config` of the events using it).
    pub id: Option<u64>,
    /// The common fields (`common_type`, `common_flags`, `common_preempt_count`, `common_pid`).
    pub common_fields: Vec<Field>,
    /// The event's own fields, in format order.
    pub fields: Vec<Field>,
    /// The text after `print fmt: `, as written.
    pub print_fmt_text: String,
    /// The parsed print format, or why it could not be parsed (perf then prints
    /// `[FAILED TO PARSE]` and the raw fields).
    pub print_fmt: Result<PrintFmt, String>,
    /// The byte order of the payloads (the tracing data's `file_bigendian`).
    pub endian: Endianness,
    /// `long_size` of the recording kernel.
    pub long_size: u8,
}

impl EventFormat {
    /// `system:name`, as perf names the event.
    pub fn full_name(&self) -> String {
        format!("{}:{}", self.system, self.name)
    }

    /// The field called `name`, common fields first (`tep_find_any_field`).
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.common_fields
            .iter()
            .chain(&self.fields)
            .find(|f| f.name == name)
    }

    /// The value of field `name` in payload `raw` (see [`Field::value`]).
    ///
    /// ```
    /// use perfscope_analysis::tracepoint::{EventFormat, FieldValue};
    /// use perfscope_format::Endianness;
    /// let text = "name: x\nID: 5\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n\
    ///             \tfield:int v;\toffset:2;\tsize:4;\tsigned:1;\n\nprint fmt: \"v=%d\", REC->v\n";
    /// let e = EventFormat::parse("sys", text, Endianness::Little, 8);
    /// assert_eq!(e.value("v", &[5, 0, 0xfe, 0xff, 0xff, 0xff]), Some(FieldValue::Signed(-2)));
    /// ```
    pub fn value<'a>(&self, name: &str, raw: &'a [u8]) -> Option<FieldValue<'a>> {
        self.field(name)?.value(raw, self.endian)
    }

    /// Every field of the event (common fields excluded) with its value in `raw`.
    pub fn values<'a, 's>(
        &'s self,
        raw: &'a [u8],
    ) -> impl Iterator<Item = (&'s str, Option<FieldValue<'a>>)> + 's
    where
        'a: 's,
    {
        self.fields
            .iter()
            .map(move |f| (f.name.as_str(), f.value(raw, self.endian)))
    }

    /// Parses a format file of `system`. Never fails: a missing name or id stays empty, lines
    /// that are not fields are skipped, and a print format that cannot be parsed is kept as an
    /// error in [`EventFormat::print_fmt`].
    pub fn parse(system: &str, text: &str, endian: Endianness, long_size: u8) -> EventFormat {
        let mut e = EventFormat {
            system: system.to_string(),
            name: String::new(),
            id: None,
            common_fields: Vec::new(),
            fields: Vec::new(),
            print_fmt_text: String::new(),
            print_fmt: Err("no print fmt line".into()),
            endian,
            long_size,
        };
        // Fields before the first blank line after `format:` are the common ones.
        let mut section = 0u8;
        for line in text.lines() {
            let t = line.trim();
            if let Some(v) = t.strip_prefix("name:") {
                if e.name.is_empty() {
                    e.name = v.trim().to_string();
                }
            } else if let Some(v) = t.strip_prefix("ID:") {
                e.id = e.id.or(Some(strtoull(v.trim())));
            } else if t.starts_with("format:") {
                section = 1;
            } else if let Some(decl) = t
                .strip_prefix("field:")
                .or_else(|| t.strip_prefix("field special:"))
            {
                if let Some(f) = parse_field_line(decl, long_size) {
                    if section <= 1 {
                        e.common_fields.push(f);
                    } else {
                        e.fields.push(f);
                    }
                }
            } else if t.is_empty() {
                if section == 1 && !e.common_fields.is_empty() {
                    section = 2;
                }
            } else if let Some(p) = line.trim_start().strip_prefix("print fmt:") {
                let p = p.strip_prefix(' ').unwrap_or(p);
                e.print_fmt_text = p.to_string();
            }
        }
        if !e.print_fmt_text.is_empty() {
            e.print_fmt = parse_print_fmt(&e.print_fmt_text, &e);
        }
        e
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const SWITCH: &str = "name: sched_switch\nID: 372\nformat:\n\
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\
\n\
\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n\
\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n\
\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n\
\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n\
\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n\
\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n\
\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\
\n\
print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? __print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, REC->next_pid, REC->next_prio\n";

    /// A sched_switch payload as the kernel writes it, in `endian`.
    pub(crate) fn switch_payload(endian: Endianness, prev_state: i64) -> Vec<u8> {
        let mut v = Vec::new();
        let put = |bytes: &[u8], v: &mut Vec<u8>| {
            if endian == Endianness::Big {
                v.extend(bytes.iter().rev());
            } else {
                v.extend_from_slice(bytes);
            }
        };
        put(&372u16.to_le_bytes(), &mut v);
        v.extend([0, 1]);
        put(&4321i32.to_le_bytes(), &mut v);
        v.extend(*b"perf\0\0\0\0\0\0\0\0\0\0\0\0");
        put(&4321i32.to_le_bytes(), &mut v);
        put(&120i32.to_le_bytes(), &mut v);
        put(&prev_state.to_le_bytes(), &mut v);
        v.extend(*b"migration/0\0\0\0\0\0");
        put(&18i32.to_le_bytes(), &mut v);
        put(&0i32.to_le_bytes(), &mut v);
        v
    }

    #[test]
    fn sched_switch_format_and_fields_by_name() {
        for endian in [Endianness::Little, Endianness::Big] {
            let e = EventFormat::parse("sched", SWITCH, endian, 8);
            assert_eq!(
                (e.full_name().as_str(), e.id),
                ("sched:sched_switch", Some(372))
            );
            assert_eq!((e.common_fields.len(), e.fields.len()), (4, 7));
            assert!(e.print_fmt.is_ok(), "{:?}", e.print_fmt);
            let raw = switch_payload(endian, 2);
            assert_eq!(
                e.value("common_type", &raw),
                Some(FieldValue::Unsigned(372))
            );
            assert_eq!(e.value("common_pid", &raw), Some(FieldValue::Signed(4321)));
            assert_eq!(e.value("prev_comm", &raw), Some(FieldValue::Str(b"perf")));
            assert_eq!(e.value("prev_state", &raw), Some(FieldValue::Signed(2)));
            assert_eq!(
                e.value("next_comm", &raw),
                Some(FieldValue::Str(b"migration/0"))
            );
            assert_eq!(e.value("next_pid", &raw), Some(FieldValue::Signed(18)));
            assert_eq!(e.value("nope", &raw), None);
            assert_eq!(e.value("next_prio", &raw[..62]), None);
            let all: Vec<String> = e
                .values(&raw)
                .map(|(n, v)| format!("{n}={}", v.unwrap()))
                .collect();
            assert_eq!(
                all.join(" "),
                "prev_comm=perf prev_pid=4321 prev_prio=120 prev_state=2 next_comm=migration/0 next_pid=18 next_prio=0"
            );
        }
    }

    #[test]
    fn damaged_formats_keep_what_parses() {
        let e = EventFormat::parse(
            "s",
            "name: x\nID: zz\nformat:\n\tfield:int;\n",
            Endianness::Little,
            8,
        );
        assert_eq!((e.name.as_str(), e.id, e.fields.len()), ("x", Some(0), 0));
        assert!(e.print_fmt.is_err());
        let e = EventFormat::parse("s", "", Endianness::Little, 8);
        assert_eq!((e.name.as_str(), e.id), ("", None));
    }
}
