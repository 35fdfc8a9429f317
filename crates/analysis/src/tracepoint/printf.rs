//! The print format string: cut into literal text and conversions the way libtraceevent's
//! `parse_args` / `parse_arg_format` / `parse_arg_string` do, and C `printf` for one
//! conversion (the flags, width, precision and length modifiers the kernel formats use).

use std::fmt::Write;

/// A piece of the format string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Literal text (escapes already resolved, `%%` already `%`).
    Text(String),
    /// A conversion and the argument it prints.
    Conv(Conv),
}

/// What a conversion prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConvKind {
    /// `d i u x X o c`: a number, cast by `ls` (-2 char, -1 short, 0 int, 1 long, 2 long long).
    Number {
        /// The length modifier count.
        ls: i8,
    },
    /// `%p…`: a pointer, function, MAC, IP address, UUID or hex buffer.
    Pointer,
    /// `%s`.
    String,
}

/// One conversion: its text as written and the arguments it uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conv {
    /// From `%` through the conversion character (and a `%p` suffix such as `S` or `MR`).
    pub spec: String,
    /// The kind.
    pub kind: ConvKind,
    /// Index of the printed argument.
    pub arg: usize,
    /// Index of the argument a `*` takes the width or precision from.
    pub len_arg: Option<usize>,
}

/// Cuts `format` into segments, binding conversions to the `nargs` arguments in order.
/// A conversion with no argument left is an error (perf prints `[FAILED TO PARSE]`).
pub fn parse_segments(format: &str, nargs: usize) -> Result<Vec<Segment>, String> {
    let b = format.as_bytes();
    let mut out = Vec::new();
    let mut text = Vec::<u8>::new();
    let mut next_arg = 0usize;
    let mut take_arg = || -> Result<usize, String> {
        if next_arg < nargs {
            next_arg += 1;
            Ok(next_arg - 1)
        } else {
            Err("no argument match".to_string())
        }
    };
    let mut i = 0usize;
    let flush = |text: &mut Vec<u8>, out: &mut Vec<Segment>| {
        if !text.is_empty() {
            out.push(Segment::Text(String::from_utf8_lossy(text).into_owned()));
            text.clear();
        }
    };
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' => {
                i += 1;
                let Some(&e) = b.get(i) else { break };
                text.push(match e {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'r' => b'\r',
                    e => e,
                });
                i += 1;
            }
            b'%' if b.get(i + 1) == Some(&b'%') => {
                text.push(b'%');
                i += 2;
            }
            b'%' => {
                flush(&mut text, &mut out);
                let start = i;
                let mut ls: i8 = 0;
                let mut len_arg = None;
                i += 1;
                while let Some(&c) = b.get(i) {
                    match c {
                        b'#' | b'.' | b'0'..=b'9' | b'-' | b'+' => {}
                        b'h' => ls = ls.saturating_sub(1),
                        b'l' => ls = ls.saturating_add(1),
                        b'L' => ls = 2,
                        b'z' | b'Z' => ls = 1,
                        b'*' => {
                            if len_arg.is_some() {
                                return Err("argument already matched".into());
                            }
                            len_arg = Some(take_arg()?);
                        }
                        b'p' => {
                            let end =
                                i + 1 + pointer_suffix_len(b.get(i + 1..).unwrap_or_default());
                            let spec =
                                String::from_utf8_lossy(b.get(start..end).unwrap_or_default())
                                    .into_owned();
                            out.push(Segment::Conv(Conv {
                                spec,
                                kind: ConvKind::Pointer,
                                arg: take_arg()?,
                                len_arg,
                            }));
                            i = end;
                            break;
                        }
                        b'c' | b'd' | b'u' | b'i' | b'x' | b'X' | b'o' | b's' => {
                            let spec =
                                String::from_utf8_lossy(b.get(start..=i).unwrap_or_default())
                                    .into_owned();
                            let kind = if c == b's' {
                                ConvKind::String
                            } else if (-2..=2).contains(&ls) {
                                ConvKind::Number { ls }
                            } else {
                                return Err(format!("bad count ({ls})"));
                            };
                            out.push(Segment::Conv(Conv {
                                spec,
                                kind,
                                arg: take_arg()?,
                                len_arg,
                            }));
                            i += 1;
                            break;
                        }
                        other => {
                            out.push(Segment::Text(format!(">{}<", char::from(other))));
                            i += 1;
                            break;
                        }
                    }
                    i += 1;
                }
            }
            c => {
                text.push(c);
                i += 1;
            }
        }
    }
    flush(&mut text, &mut out);
    Ok(out)
}

/// How many characters after `%p` belong to the conversion (`parse_arg_format_pointer`).
fn pointer_suffix_len(s: &[u8]) -> usize {
    let at = |i: usize| s.get(i).copied().unwrap_or(0);
    match at(0) {
        b'F' | b'S' | b'f' | b's' => 1,
        b'M' | b'm' => 1 + usize::from(matches!(at(1), b'R' | b'F')),
        b'I' | b'i' => {
            let mut n = 1;
            let mut index = 2;
            match at(1) {
                b'S' => {
                    while matches!(at(index), b'p' | b'f' | b's') {
                        n += 1;
                        index += 1;
                    }
                    if matches!(at(index), b'h' | b'n' | b'l' | b'b') {
                        n += 1;
                        index += 1;
                    }
                    n += usize::from(at(index) == b'c') + 1;
                }
                b'4' => {
                    if matches!(at(index), b'h' | b'n' | b'l' | b'b') {
                        n += 1;
                    }
                    n += 1;
                }
                b'6' => n += usize::from(at(index) == b'c') + 1,
                _ => {}
            }
            n
        }
        b'U' => 1 + usize::from(matches!(at(1), b'L' | b'l' | b'B' | b'b')),
        b'h' => 1 + usize::from(matches!(at(1), b'C' | b'D' | b'N')),
        _ => 0,
    }
}

/// The largest width or precision honoured (what the file asks for beyond is cut).
const MAX_WIDTH: usize = 4096;

/// The parts of a `%…` conversion that shape its output.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: Option<usize>,
    precision: Option<usize>,
    conv: u8,
}

/// Parses a conversion; a `*` width or precision takes `star`.
fn parse_spec(spec: &str, star: Option<i64>) -> Spec {
    let mut s = Spec::default();
    let b = spec.as_bytes();
    let mut i = 1;
    while let Some(&c) = b.get(i) {
        match c {
            b'-' => s.left = true,
            b'+' => s.plus = true,
            b' ' => s.space = true,
            b'#' => s.alt = true,
            b'0' => s.zero = true,
            _ => break,
        }
        i += 1;
    }
    let number = |i: &mut usize| -> Option<usize> {
        if b.get(*i) == Some(&b'*') {
            *i += 1;
            return star.map(|v| usize::try_from(v.unsigned_abs()).unwrap_or(usize::MAX));
        }
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        std::str::from_utf8(b.get(start..*i)?).ok()?.parse().ok()
    };
    if b.get(i) == Some(&b'*') && star.is_some_and(|v| v < 0) {
        s.left = true;
    }
    // Widths and precisions come from the file: keep them to a sane size.
    s.width = number(&mut i).map(|w| w.min(MAX_WIDTH));
    if b.get(i) == Some(&b'.') {
        i += 1;
        let negative = b.get(i) == Some(&b'*') && star.is_some_and(|v| v < 0);
        s.precision = Some(number(&mut i).unwrap_or(0).min(MAX_WIDTH)).filter(|_| !negative);
    }
    s.conv = b
        .iter()
        .rev()
        .find(|c| c.is_ascii_alphabetic() && !matches!(c, b'h' | b'l' | b'L' | b'z' | b'Z'))
        .copied()
        .unwrap_or(b'd');
    s
}

fn pad(out: &mut String, body: &str, spec: &Spec, zero_ok: bool) {
    let len = body.chars().count();
    let width = spec.width.unwrap_or(0);
    if len >= width {
        out.push_str(body);
    } else if spec.left {
        out.push_str(body);
        out.extend(std::iter::repeat_n(' ', width - len));
    } else if spec.zero && zero_ok {
        // Zeros go after the sign and the 0x prefix.
        let mut split = usize::from(body.starts_with(['-', '+', ' ']));
        if body
            .get(split..)
            .is_some_and(|r| r.starts_with("0x") || r.starts_with("0X"))
        {
            split += 2;
        }
        let (head, tail) = body.split_at(split.min(body.len()));
        out.push_str(head);
        out.extend(std::iter::repeat_n('0', width - len));
        out.push_str(tail);
    } else {
        out.extend(std::iter::repeat_n(' ', width - len));
        out.push_str(body);
    }
}

/// `printf(spec, value)` for a numeric conversion, the value already cast to the C type
/// selected by `ls` (-2 `char` … 2 `long long`; `long` is 64-bit as on the x86-64 hosts perf
/// runs on).
pub fn format_number(out: &mut String, spec: &str, star: Option<i64>, ls: i8, value: u64) {
    let s = parse_spec(spec, star);
    let bits: u32 = match ls {
        -2 => 8,
        -1 => 16,
        0 => 32,
        _ => 64,
    };
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let unsigned = value & mask;
    let signed = ((unsigned << (64 - bits)) as i64) >> (64 - bits);
    let mut digits = match s.conv {
        b'd' | b'i' => signed.unsigned_abs().to_string(),
        b'x' => format!("{unsigned:x}"),
        b'X' => format!("{unsigned:X}"),
        b'o' => format!("{unsigned:o}"),
        b'c' => {
            let mut body = String::new();
            body.push(char::from((value & 0xff) as u8));
            pad(out, &body, &s, false);
            return;
        }
        _ => unsigned.to_string(),
    };
    if let Some(p) = s.precision {
        if p == 0 && unsigned == 0 && s.conv != b'o' {
            digits.clear();
        } else if digits.len() < p {
            digits.insert_str(0, &"0".repeat(p - digits.len()));
        }
    }
    let mut body = String::new();
    match s.conv {
        b'd' | b'i' => {
            if signed < 0 {
                body.push('-');
            } else if s.plus {
                body.push('+');
            } else if s.space {
                body.push(' ');
            }
        }
        b'x' if s.alt && unsigned != 0 => body.push_str("0x"),
        b'X' if s.alt && unsigned != 0 => body.push_str("0X"),
        b'o' if s.alt && !digits.starts_with('0') => body.push('0'),
        _ => {}
    }
    body.push_str(&digits);
    pad(out, &body, &s, s.precision.is_none() && !s.left);
}

/// `printf(spec, str)` for `%s` (width, precision, `-`).
pub fn format_str(out: &mut String, spec: &str, star: Option<i64>, text: &str) {
    let s = parse_spec(spec, star);
    let body: String = match s.precision {
        Some(p) => text.chars().take(p).collect(),
        None => text.to_string(),
    };
    pad(out, &body, &s, false);
}

/// glibc's `%p`: `(nil)` for 0, else `0x` and lower-case hex.
pub fn format_pointer(out: &mut String, value: u64) {
    if value == 0 {
        out.push_str("(nil)");
    } else {
        let _ = write!(out, "{value:#x}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(spec: &str, ls: i8, v: u64) -> String {
        let mut s = String::new();
        format_number(&mut s, spec, None, ls, v);
        s
    }

    #[test]
    fn numbers_like_glibc() {
        assert_eq!(num("%d", 0, u64::MAX), "-1");
        assert_eq!(num("%u", 0, u64::MAX), "4294967295");
        assert_eq!(num("%03d", 0, 1), "001");
        assert_eq!(num("%03d", 0, (-1i64) as u64), "-01");
        assert_eq!(num("%ld", 1, (-5i64) as u64), "-5");
        assert_eq!(num("%Lu", 2, 70443), "70443");
        assert_eq!(num("%lx", 1, 0x7fff_a5f4_d6dc), "7fffa5f4d6dc");
        assert_eq!(num("%x", 0, 0x1_0000_0010), "10");
        assert_eq!(num("%#x", 0, 255), "0xff");
        assert_eq!(num("%#010x", 0, 255), "0x000000ff");
        assert_eq!(num("%-5d", 0, 42), "42   ");
        assert_eq!(num("%5.3d", 0, 7), "  007");
        assert_eq!(num("%+d", 0, 7), "+7");
        assert_eq!(num("%hhd", -2, 0xff), "-1");
        assert_eq!(num("%hu", -1, 0x1_ffff), "65535");
        assert_eq!(num("%o", 0, 8), "10");
        assert_eq!(num("%c", 0, 0x41), "A");
        let mut s = String::new();
        format_number(&mut s, "%*d", Some(-4), 0, 1);
        assert_eq!(s, "1   ");
    }

    #[test]
    fn strings_and_pointers() {
        let mut s = String::new();
        format_str(&mut s, "%-6s", None, "abc");
        format_str(&mut s, "%.*s", Some(2), "abc");
        format_str(&mut s, "%5s", None, "ab");
        assert_eq!(s, "abc   ab   ab");
        let mut s = String::new();
        format_pointer(&mut s, 0);
        s.push(' ');
        format_pointer(&mut s, 0xffff_8881_7d17_9f00);
        assert_eq!(s, "(nil) 0xffff88817d179f00");
    }

    #[test]
    fn segments_like_parse_args() {
        let segs = parse_segments(r"a=%03d b=%pS c=%s%% \t%*s %pMR %px %y", 7).unwrap();
        let conv = |spec: &str, kind, arg, len_arg| {
            Segment::Conv(Conv {
                spec: spec.into(),
                kind,
                arg,
                len_arg,
            })
        };
        assert_eq!(
            segs,
            [
                Segment::Text("a=".into()),
                conv("%03d", ConvKind::Number { ls: 0 }, 0, None),
                Segment::Text(" b=".into()),
                conv("%pS", ConvKind::Pointer, 1, None),
                Segment::Text(" c=".into()),
                conv("%s", ConvKind::String, 2, None),
                Segment::Text("% \t".into()),
                conv("%*s", ConvKind::String, 4, Some(3)),
                Segment::Text(" ".into()),
                conv("%pMR", ConvKind::Pointer, 5, None),
                Segment::Text(" ".into()),
                conv("%p", ConvKind::Pointer, 6, None),
                Segment::Text("x ".into()),
                Segment::Text(">y<".into()),
            ]
        );
        assert_eq!(parse_segments("%d %d", 1).unwrap_err(), "no argument match");
        assert_eq!(parse_segments("%lllld", 1).unwrap_err(), "bad count (4)");
        assert_eq!(pointer_suffix_len(b"I4"), 2);
        assert_eq!(pointer_suffix_len(b"I6c"), 3);
        assert_eq!(pointer_suffix_len(b"ISpc"), 4);
        assert_eq!(pointer_suffix_len(b"hC"), 2);
    }
}
