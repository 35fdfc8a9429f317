//! The text `perf script` prints for a tracepoint sample (its `trace` field): the event's print
//! format evaluated against the payload (libtraceevent's `pretty_print`), or, when the print
//! format could not be parsed, `[FAILED TO PARSE]` and every field raw (`print_field_raw`).

use std::fmt::Write;

use super::eval::{c_str, Ctx};
use super::field::{dynamic_location, read_number, FieldFlags};
use super::format::EventFormat;
use super::ksyms::{KernelSymbols, PrintkFormats};
use super::print_fmt::Arg;
use super::printf::{format_number, format_pointer, ConvKind, Segment};

/// Renders `raw` (a sample's RAW data) for `event` as perf script does.
pub fn render(
    event: &EventFormat,
    raw: &[u8],
    symbols: &dyn KernelSymbols,
    printk: &PrintkFormats,
) -> String {
    let mut out = String::new();
    let ctx = Ctx {
        event,
        raw,
        symbols,
        printk,
    };
    let fmt = match &event.print_fmt {
        Ok(f) => f,
        Err(_) => {
            out.push_str("[FAILED TO PARSE]");
            raw_fields(&mut out, event, raw);
            return out;
        }
    };
    for seg in &fmt.segments {
        match seg {
            Segment::Text(t) => out.push_str(t),
            Segment::Conv(c) => {
                let Some(arg) = fmt.args.get(c.arg) else {
                    continue;
                };
                let star = c
                    .len_arg
                    .and_then(|i| fmt.args.get(i))
                    .map(|a| ctx.num(a) as i32 as i64);
                match c.kind {
                    ConvKind::Number { ls } => {
                        format_number(&mut out, &c.spec, star, ls, ctx.num(arg))
                    }
                    ConvKind::String => ctx.string(&mut out, &c.spec, star, arg),
                    ConvKind::Pointer => pointer(&mut out, &ctx, &c.spec, star, arg),
                }
            }
        }
    }
    out
}

/// ` name=value` for every field, as `tep_print_fields` prints them raw.
pub fn raw_fields(out: &mut String, event: &EventFormat, raw: &[u8]) {
    for f in &event.fields {
        let _ = write!(out, " {}=", f.name);
        if f.flags.contains(FieldFlags::ARRAY) {
            let (offset, len) = if f.flags.contains(FieldFlags::DYNAMIC) {
                dynamic_location(f, raw, event.endian)
            } else {
                (f.offset as usize, f.size as usize)
            };
            let data = raw
                .get(offset..offset.saturating_add(len).min(raw.len()))
                .unwrap_or_default();
            let text_end = data.iter().position(|&c| c == 0).unwrap_or(data.len());
            let printable = data
                .get(..text_end)
                .unwrap_or_default()
                .iter()
                .all(|c| c.is_ascii_graphic() || c.is_ascii_whitespace());
            if f.flags.contains(FieldFlags::STRING) && printable {
                out.push_str(&c_str(data));
            } else {
                out.push_str("ARRAY[");
                for (i, b) in data.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let _ = write!(out, "{b:02x}");
                }
                out.push(']');
            }
            continue;
        }
        let val = read_number(raw, f.offset as usize, f.size as usize, event.endian).unwrap_or(0);
        let _ = if f.flags.contains(FieldFlags::POINTER) {
            write!(out, "0x{val:x}")
        } else if f.flags.contains(FieldFlags::SIGNED) {
            match f.size {
                4 if f.flags.contains(FieldFlags::LONG) => write!(out, "0x{:x}", val as u32),
                4 => write!(out, "{}", val as i32),
                2 => write!(out, "{:2}", val as i16),
                1 => write!(out, "{}", val as i8),
                _ => write!(out, "{}", val as i64),
            }
        } else if f.flags.contains(FieldFlags::LONG) {
            write!(out, "0x{val:x}")
        } else {
            write!(out, "{val}")
        };
    }
}

/// `print_arg_pointer`: `%p` and its kernel extensions.
fn pointer(out: &mut String, ctx: &Ctx<'_>, spec: &str, star: Option<i64>, arg: &Arg) {
    let suffix = spec.split_once('p').map_or("", |(_, s)| s);
    let mut chars = suffix.chars();
    match chars.next() {
        Some(k @ ('F' | 'f' | 'S' | 's')) => {
            let val = ctx.num(arg);
            match ctx.symbols.function(val) {
                Some((name, start)) => {
                    out.push_str(name);
                    if matches!(k, 'F' | 'S') {
                        let _ = write!(out, "+0x{:x}", val.wrapping_sub(start));
                    }
                }
                None => {
                    let _ = write!(out, "0x{val:x}");
                }
            }
        }
        Some('M' | 'm') => mac(out, ctx, suffix, arg),
        Some('I' | 'i') => ip(out, ctx, suffix, arg),
        Some('U') => uuid(out, ctx, suffix, arg),
        Some('h') => {
            let delim = match chars.next() {
                Some('C') => ":",
                Some('D') => "-",
                Some('N') => "",
                _ => " ",
            };
            let Arg::DynArray(name) = arg else {
                out.push_str("ARG TYPE NOT FIELD BUT 16");
                return;
            };
            let Some(f) = ctx.event.field(name) else {
                return;
            };
            let (o, len) = dynamic_location(f, ctx.raw, ctx.event.endian);
            let n = len.min(usize::try_from(star.unwrap_or(1)).unwrap_or(0));
            for (i, b) in ctx.raw.iter().skip(o).take(n).enumerate() {
                if i > 0 {
                    out.push_str(delim);
                }
                let _ = write!(out, "{b:02x}");
            }
        }
        _ => format_pointer(out, ctx.num(arg)),
    }
}

/// The bytes of the field an address-printing conversion names (casts stripped), if it has
/// `size` bytes; otherwise the text libtraceevent prints instead.
fn field_bytes<'a>(ctx: &Ctx<'a>, arg: &Arg, size: u32, invalid: &str) -> Result<&'a [u8], String> {
    let mut arg = arg;
    while let Arg::Typecast { item, .. } = arg {
        arg = item;
    }
    let Arg::Field(name) = arg else {
        return Err("ARG TYPE NOT FIELD BUT 0".into());
    };
    let Some(f) = ctx.event.field(name) else {
        return Err(String::new());
    };
    if f.size != size {
        return Err(invalid.into());
    }
    let start = f.offset as usize;
    ctx.raw
        .get(start..start.saturating_add(size as usize))
        .ok_or_else(String::new)
}

fn mac(out: &mut String, ctx: &Ctx<'_>, suffix: &str, arg: &Arg) {
    let b = match field_bytes(ctx, arg, 6, "INVALIDMAC") {
        Ok(b) => b,
        Err(e) => return out.push_str(&e),
    };
    let sep = match suffix {
        s if s.starts_with('m') => "",
        s if s.starts_with("MF") => "-",
        _ => ":",
    };
    let bytes: Vec<u8> = if suffix.get(1..2) == Some("R") {
        b.iter().rev().copied().collect()
    } else {
        b.to_vec()
    };
    let parts: Vec<String> = bytes.iter().map(|x| format!("{x:02x}")).collect();
    out.push_str(&parts.join(sep));
}

fn ip(out: &mut String, ctx: &Ctx<'_>, suffix: &str, arg: &Arg) {
    let leading_zeros = suffix.starts_with('i');
    match suffix.get(1..2) {
        Some("4") => {
            let b = match field_bytes(ctx, arg, 4, "INVALIDIPv4") {
                Ok(b) => b,
                Err(e) => return out.push_str(&e),
            };
            let reverse = match suffix.get(2..3) {
                Some("h") => ctx.event.endian == perfscope_format::Endianness::Little,
                Some("l") => true,
                _ => false,
            };
            let mut b: Vec<u8> = b.to_vec();
            if reverse {
                b.reverse();
            }
            let parts: Vec<String> = b
                .iter()
                .map(|x| {
                    if leading_zeros {
                        format!("{x:03}")
                    } else {
                        x.to_string()
                    }
                })
                .collect();
            out.push_str(&parts.join("."));
        }
        Some("6") => {
            let b = match field_bytes(ctx, arg, 16, "INVALIDIPv6") {
                Ok(b) => b,
                Err(e) => return out.push_str(&e),
            };
            if !leading_zeros && suffix.get(2..3) == Some("c") {
                out.push_str(
                    &std::net::Ipv6Addr::from(<[u8; 16]>::try_from(b).unwrap_or_default())
                        .to_string(),
                );
                return;
            }
            for (i, pair) in b.chunks(2).enumerate() {
                for x in pair {
                    let _ = write!(out, "{x:02x}");
                }
                if !leading_zeros && i < 7 {
                    out.push(':');
                }
            }
        }
        // Socket addresses are not decoded.
        _ => format_pointer(out, ctx.num(arg)),
    }
}

fn uuid(out: &mut String, ctx: &Ctx<'_>, suffix: &str, arg: &Arg) {
    let b = match field_bytes(ctx, arg, 16, "INVALIDUUID") {
        Ok(b) => b,
        Err(e) => return out.push_str(&e),
    };
    let upper = matches!(suffix.get(1..2), Some("L" | "B"));
    let guid = matches!(suffix.get(1..2), Some("L" | "l"));
    const GUID: [usize; 16] = [3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15];
    for i in 0..16 {
        let index = if guid {
            GUID.get(i).copied().unwrap_or(i)
        } else {
            i
        };
        let x = b.get(index).copied().unwrap_or(0);
        let _ = if upper {
            write!(out, "{x:02X}")
        } else {
            write!(out, "{x:02x}")
        };
        if matches!(i, 3 | 5 | 7 | 9) {
            out.push('-');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::format::EventFormat;
    use super::super::ksyms::NoSymbols;
    use super::*;
    use crate::symbols::kallsyms::Kallsyms;
    use perfscope_format::Endianness;

    fn event(fields: &str, print: &str, endian: Endianness) -> EventFormat {
        let text = format!(
            "name: t\nID: 9\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
             \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n{fields}\nprint fmt: {print}\n"
        );
        EventFormat::parse("s", &text, endian, 8)
    }

    fn show(e: &EventFormat, raw: &[u8]) -> String {
        render(e, raw, &NoSymbols, &PrintkFormats::default())
    }

    #[test]
    fn sched_switch_states_from_the_print_fmt() {
        use super::super::format::tests::{switch_payload, SWITCH};
        for endian in [Endianness::Little, Endianness::Big] {
            let e = EventFormat::parse("sched", SWITCH, endian, 8);
            let line = |state| show(&e, &switch_payload(endian, state));
            let head = "prev_comm=perf prev_pid=4321 prev_prio=120 prev_state=";
            let tail = " ==> next_comm=migration/0 next_pid=18 next_prio=0";
            assert_eq!(line(0), format!("{head}R{tail}"));
            assert_eq!(line(1), format!("{head}S{tail}"));
            assert_eq!(line(2), format!("{head}D{tail}"));
            assert_eq!(line(0x81), format!("{head}S|I{tail}"));
            // TASK_REPORT_MAX (0x100) marks preemption: `R+`.
            assert_eq!(line(0x100), format!("{head}R+{tail}"));
            assert_eq!(line(0x102), format!("{head}D+{tail}"));
        }
    }

    #[test]
    fn kmem_style_pointers_symbols_and_flags() {
        let e = event(
            "\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n\
             \tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n\
             \tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:0;\n\
             \tfield:int node;\toffset:28;\tsize:4;\tsigned:1;\n\
             \tfield:unsigned long gfp_flags;\toffset:32;\tsize:8;\tsigned:0;\n",
            r#""call_site=%pS ptr=%p name=%s node=%d gfp_flags=%s", (void *)REC->call_site, REC->ptr, __get_str(name), REC->node, (REC->gfp_flags) ? __print_flags(REC->gfp_flags, "|", {( unsigned long)(((1UL) << (10))|((1UL) << (11))), "GFP_A"}, {( unsigned long)((1UL) << (3)), "B"}, { 0, ((void *)0) }) : "none""#,
            Endianness::Little,
        );
        let mut raw = vec![0u8; 40];
        raw[8..16].copy_from_slice(&0xffffffff821ce61fu64.to_le_bytes());
        raw[24..28].copy_from_slice(&(40u32 | 11 << 16).to_le_bytes());
        raw[28..32].copy_from_slice(&(-1i32).to_le_bytes());
        raw[32..40].copy_from_slice(&(0xc08u64 | 0x10000).to_le_bytes());
        raw.extend(b"maple_node\0");
        let syms =
            Kallsyms::parse(b"ffffffff821ce230 T mas_preallocate\nffffffff821ce700 T next\n")
                .unwrap();
        assert_eq!(
            render(&e, &raw, &syms, &PrintkFormats::default()),
            "call_site=mas_preallocate+0x3ef ptr=(nil) name=maple_node node=-1 gfp_flags=GFP_A|B|0x10000"
        );
        raw[32..40].copy_from_slice(&0u64.to_le_bytes());
        raw[16..24].copy_from_slice(&0xffff888121718600u64.to_le_bytes());
        assert_eq!(
            show(&e, &raw),
            "call_site=0xffffffff821ce61f ptr=0xffff888121718600 name=maple_node node=-1 gfp_flags=none"
        );
    }

    #[test]
    fn arrays_symbolic_and_failed_formats() {
        let e = event(
            "\tfield:long id;\toffset:8;\tsize:8;\tsigned:1;\n\
             \tfield:unsigned long args[2];\toffset:16;\tsize:16;\tsigned:0;\n",
            r#""NR %ld (%lx, %lx) %s", REC->id, REC->args[0], REC->args[1], __print_symbolic(REC->id, { 0, "read" }, { 1, "write" })"#,
            Endianness::Big,
        );
        let mut raw = vec![0u8; 32];
        raw[8..16].copy_from_slice(&1u64.to_be_bytes());
        raw[16..24].copy_from_slice(&0x7fffa5f4d6dcu64.to_be_bytes());
        raw[24..32].copy_from_slice(&0x37fu64.to_be_bytes());
        assert_eq!(show(&e, &raw), "NR 1 (7fffa5f4d6dc, 37f) write");
        raw[15] = 7;
        assert_eq!(show(&e, &raw), "NR 7 (7fffa5f4d6dc, 37f) 0x7");

        let bad = event(
            "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\tfield:char c[4];\toffset:12;\tsize:4;\tsigned:0;\n\
             \tfield:u8 b[2];\toffset:16;\tsize:2;\tsigned:0;\n",
            r#""x=%d", jiffies_to_msecs(REC->x)"#,
            Endianness::Little,
        );
        let raw = [
            0, 0, 0, 0, 0, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, b'a', b'b', 0, 0, 1, 0x80,
        ];
        assert_eq!(
            show(&bad, &raw),
            "[FAILED TO PARSE] x=-2 c=ab b=ARRAY[01, 80]"
        );
    }

    #[test]
    fn hex_arrays_bitmasks_and_addresses() {
        let e = event(
            "\tfield:__data_loc u8[] buf;\toffset:8;\tsize:4;\tsigned:0;\n\
             \tfield:__data_loc unsigned long[] mask;\toffset:12;\tsize:4;\tsigned:0;\n\
             \tfield:u8 mac[6];\toffset:16;\tsize:6;\tsigned:0;\n\
             \tfield:u8 addr[4];\toffset:22;\tsize:4;\tsigned:0;\n",
            r#""%s|%s|%s|%s|%pM|%pI4|%*phD", __print_hex(__get_dynamic_array(buf), __get_dynamic_array_len(buf)), __print_array(__get_dynamic_array(buf), 3, 1), __get_bitmask(mask), __get_cpumask(mask), REC->mac, REC->addr, 2, __get_dynamic_array(buf)"#,
            Endianness::Little,
        );
        let mut raw = vec![0u8; 26];
        raw[8..12].copy_from_slice(&(26u32 | 3 << 16).to_le_bytes());
        raw[12..16].copy_from_slice(&(29u32 | 8 << 16).to_le_bytes());
        raw[16..22].copy_from_slice(&[0, 0x1b, 0x21, 0xaa, 0xbb, 0x0c]);
        raw[22..26].copy_from_slice(&[192, 168, 0, 1]);
        raw.extend([0xde, 0xad, 0x01]);
        raw.extend(0x8000_000f_u64.to_le_bytes());
        assert!(e.print_fmt.is_ok(), "{:?}", e.print_fmt);
        assert_eq!(
            show(&e, &raw),
            "de ad 01|{0xde,0xad,0x1}|00000000,8000000f|0-3,31|00:1b:21:aa:bb:0c|192.168.0.1|de-ad"
        );
    }

    #[test]
    fn any_payload_renders_without_panicking() {
        use super::super::format::tests::SWITCH;
        let formats = [
            EventFormat::parse("sched", SWITCH, Endianness::Big, 8),
            event(
                "\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n\
                 \tfield:__rel_loc u8[] buf;\toffset:12;\tsize:4;\tsigned:0;\n\
                 \tfield:unsigned long args[2];\toffset:16;\tsize:16;\tsigned:0;\n\
                 \tfield:u8 mac[6];\toffset:32;\tsize:6;\tsigned:0;\n",
                r#""%s %.*s %.99999999d %99999999s %pM %pI6c %pUb %*phN %s %s %s", __get_str(name), REC->args[1], __get_str(name), REC->args[7], __get_str(name), REC->mac, REC->mac, REC->mac, REC->args[1], __get_dynamic_array(buf), __print_hex(__get_dynamic_array(buf), REC->args[0]), __print_array(REC->args, REC->args[1], 3), __get_cpumask(buf)"#,
                Endianness::Little,
            ),
        ];
        assert!(
            formats.iter().all(|f| f.print_fmt.is_ok()),
            "{:?}",
            formats[1].print_fmt
        );
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for f in &formats {
            for len in 0..80 {
                for _ in 0..50 {
                    let raw: Vec<u8> = (0..len)
                        .map(|_| {
                            seed ^= seed << 13;
                            seed ^= seed >> 7;
                            seed ^= seed << 17;
                            seed as u8
                        })
                        .collect();
                    let text = show(f, &raw);
                    assert!(text.len() < 100_000, "{} bytes", text.len());
                    let _ = f.values(&raw).count();
                }
            }
        }
    }
}
