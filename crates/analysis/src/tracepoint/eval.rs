//! Evaluating print-format arguments against one payload, with libtraceevent's semantics
//! (`eval_num_arg`, `eval_type_str`, `print_str_arg`): numbers are unsigned 64-bit, fields are
//! read zero-extended in the tracing data's byte order, casts mask, and `%s` of a `long`-sized
//! field is a pointer looked up in the printk formats.

use std::fmt::Write;

use super::field::{dynamic_location, read_number, Field, FieldFlags};
use super::format::EventFormat;
use super::ksyms::{KernelSymbols, PrintkFormats};
use super::lexer::strtoull;
use super::print_fmt::Arg;
use super::printf::format_str;

/// Everything an argument may refer to.
pub struct Ctx<'a> {
    /// The event.
    pub event: &'a EventFormat,
    /// The payload.
    pub raw: &'a [u8],
    /// Functions for `%pS`.
    pub symbols: &'a dyn KernelSymbols,
    /// Strings by kernel address, for `%s` of a `const char *` field.
    pub printk: &'a PrintkFormats,
}

/// libtraceevent's `eval_type_str`: what a cast to `ty` does to `val` (masking for the small
/// integer types; `pointer` strips one `*` first, for the element type of `(type *)x[i]`).
pub fn eval_type(val: u64, ty: &str, pointer: bool) -> u64 {
    if ty.len() < 2 {
        return val;
    }
    if pointer {
        return match ty.strip_suffix('*') {
            Some(r) => eval_type(val, r.strip_suffix(' ').unwrap_or(r), false),
            None => val,
        };
    }
    if ty.ends_with('*') || ty.starts_with("struct") {
        return val;
    }
    match ty {
        "u8" | "s8" => return val & 0xff,
        "u16" | "s16" => return val & 0xffff,
        "u32" | "s32" => return val & 0xffff_ffff,
        _ => {}
    }
    match ty.strip_prefix("unsigned ").unwrap_or(ty) {
        "char" => val & 0xff,
        "short" => val & 0xffff,
        "int" => val & 0xffff_ffff,
        _ => val,
    }
}

impl Ctx<'_> {
    fn field(&self, name: &str) -> Option<&Field> {
        self.event.field(name)
    }

    fn read(&self, offset: usize, size: usize) -> u64 {
        read_number(self.raw, offset, size, self.event.endian).unwrap_or(0)
    }

    /// `eval_num_arg`: the numeric value of an argument (0 for what has none).
    pub fn num(&self, arg: &Arg) -> u64 {
        match arg {
            Arg::Atom(s) => {
                let v = strtoull(s);
                if v == 0 && !s.starts_with(|c: char| c.is_ascii_digit()) {
                    // libtraceevent's `test_for_symbol`: a function name stands for its address.
                    return self.symbols.address_of(s).unwrap_or(0);
                }
                v
            }
            Arg::Field(name) => match self.field(name) {
                Some(f) => self.read(f.offset as usize, f.size as usize),
                None => 0,
            },
            Arg::Typecast { ty, item } => eval_type(self.num(item), ty, false),
            Arg::Index(base, index) => self.index(base, index),
            Arg::Cond(c, t, e) => {
                if self.num(c) != 0 {
                    self.num(t)
                } else {
                    self.num(e)
                }
            }
            Arg::Unary(op, r) => {
                let r = self.num(r);
                match op.as_str() {
                    "!" => u64::from(r == 0),
                    "~" => !r,
                    "-" => r.wrapping_neg(),
                    _ => r,
                }
            }
            Arg::Binary(op, l, r) => binary(op, self.num(l), self.num(r)),
            Arg::DynArrayLen(name) => self.field(name).map_or(0, |f| {
                dynamic_location(f, self.raw, self.event.endian).1 as u64
            }),
            // The address of the data: only meaningful with `[]` (handled by `index`).
            Arg::DynArray(name) => self.field(name).map_or(0, |f| {
                dynamic_location(f, self.raw, self.event.endian).0 as u64
            }),
            Arg::Flags { .. } | Arg::Symbolic { .. } | Arg::Hex { .. } | Arg::IntArray { .. } => 0,
            Arg::Str(_) | Arg::Bitmask(_) | Arg::Cpumask(_) => 0,
        }
    }

    /// `x[i]`: an element of a field array or of a dynamic array.
    fn index(&self, base: &Arg, index: &Arg) -> u64 {
        let right = self.num(index);
        let mut typearg = None;
        let mut larg = base;
        while let Arg::Typecast { ty, item } = larg {
            typearg.get_or_insert(ty.as_str());
            larg = item;
        }
        let mut size = u64::from(self.event.long_size);
        let offset = match larg {
            Arg::DynArray(name) => {
                let Some(f) = self.field(name) else { return 0 };
                if f.element_size != 0 {
                    size = u64::from(f.element_size);
                }
                // libtraceevent adds the index unscaled here.
                (dynamic_location(f, self.raw, self.event.endian).0 as u64).wrapping_add(right)
            }
            Arg::Field(name) => {
                let Some(f) = self.field(name) else { return 0 };
                size = u64::from(f.element_size);
                u64::from(f.offset).wrapping_add(right.wrapping_mul(size))
            }
            _ => return 0,
        };
        let (Ok(offset), Ok(size)) = (usize::try_from(offset), usize::try_from(size)) else {
            return 0;
        };
        let val = self.read(offset, size);
        match typearg {
            Some(ty) => eval_type(val, ty, true),
            None => val,
        }
    }

    /// `print_str_arg`: what `%s` (with `spec`, e.g. `%-16s`) prints for an argument.
    pub fn string(&self, out: &mut String, spec: &str, star: Option<i64>, arg: &Arg) {
        match arg {
            Arg::Atom(s) => format_str(out, spec, star, s),
            Arg::Field(name) => {
                let Some(f) = self.field(name) else { return };
                if !f.flags.contains(FieldFlags::ARRAY) && f.size == u32::from(self.event.long_size)
                {
                    let addr = self.read(f.offset as usize, f.size as usize);
                    match self.printk.get(addr) {
                        Some(s) => out.push_str(s),
                        None => {
                            let _ = write!(out, "{addr:x}");
                        }
                    }
                    return;
                }
                let start = (f.offset as usize).min(self.raw.len());
                let end = if f.size == 0 {
                    self.raw.len()
                } else {
                    start.saturating_add(f.size as usize).min(self.raw.len())
                };
                format_str(
                    out,
                    spec,
                    star,
                    &c_str(self.raw.get(start..end).unwrap_or_default()),
                );
            }
            Arg::Flags {
                value,
                delim,
                flags,
            } => {
                let mut val = self.num(value) as i64;
                let mut printed = false;
                for flag in flags {
                    if val == 0 && flag.value < 0 {
                        format_str(out, spec, star, &flag.text);
                        break;
                    }
                    if flag.value > 0 && val & flag.value == flag.value {
                        if printed {
                            out.push_str(delim);
                        }
                        format_str(out, spec, star, &flag.text);
                        printed = true;
                        val &= !flag.value;
                    }
                }
                if val != 0 {
                    if printed {
                        out.push_str(delim);
                    }
                    let _ = write!(out, "0x{val:x}");
                }
            }
            Arg::Symbolic { value, symbols } => {
                let val = self.num(value) as i64;
                match symbols.iter().find(|s| s.value == val) {
                    Some(s) => format_str(out, spec, star, &s.text),
                    None => {
                        let _ = write!(out, "0x{val:x}");
                    }
                }
            }
            Arg::Hex {
                data,
                len,
                no_spaces,
            } => {
                let len = self.num(len);
                let bytes = self.array_bytes(data).unwrap_or_default();
                for (i, b) in bytes
                    .iter()
                    .take(usize::try_from(len).unwrap_or(usize::MAX))
                    .enumerate()
                {
                    if i > 0 && !no_spaces {
                        out.push(' ');
                    }
                    let _ = write!(out, "{b:02x}");
                }
            }
            Arg::IntArray {
                data,
                count,
                el_size,
            } => {
                let count = self.num(count);
                let el = self.num(el_size);
                let bytes = self.array_bytes(data).unwrap_or_default();
                out.push('{');
                let size = if matches!(el, 1 | 2 | 4 | 8) {
                    el as usize
                } else {
                    1
                };
                for i in 0..usize::try_from(count).unwrap_or(0).min(bytes.len()) {
                    if i > 0 {
                        out.push(',');
                    }
                    let Some(v) = read_number(bytes, i * size, size, self.event.endian) else {
                        break;
                    };
                    if size as u64 != el {
                        let _ = write!(out, "BAD SIZE:{} ", el as i32);
                    }
                    let _ = write!(out, "0x{v:x}");
                }
                out.push('}');
            }
            Arg::Str(name) => {
                let Some(f) = self.field(name) else { return };
                let (o, len) = dynamic_location(f, self.raw, self.event.endian);
                if len == 0 {
                    return;
                }
                format_str(
                    out,
                    spec,
                    star,
                    &c_str(self.raw.get(o..).unwrap_or_default()),
                );
            }
            Arg::Bitmask(name) | Arg::Cpumask(name) => {
                let Some(f) = self.field(name) else { return };
                let (o, len) = dynamic_location(f, self.raw, self.event.endian);
                let data = self.raw.get(o..o + len).unwrap_or_default();
                let text = if matches!(arg, Arg::Bitmask(_)) {
                    self.bitmask(data)
                } else {
                    self.cpumask(data)
                };
                format_str(out, spec, star, &text);
            }
            Arg::Cond(c, t, e) => {
                let branch = if self.num(c) != 0 { t } else { e };
                self.string(out, spec, star, branch);
            }
            // libtraceevent prints nothing for the other kinds under %s.
            _ => {}
        }
    }

    /// The bytes an array argument (`REC->f` or `__get_dynamic_array(f)`) starts at.
    pub fn array_bytes(&self, arg: &Arg) -> Option<&[u8]> {
        match arg {
            Arg::DynArray(name) => {
                let (o, _) = dynamic_location(self.field(name)?, self.raw, self.event.endian);
                self.raw.get(o..)
            }
            Arg::Field(name) => self.raw.get(self.field(name)?.offset as usize..),
            Arg::Typecast { item, .. } => self.array_bytes(item),
            _ => None,
        }
    }

    /// `print_bitmask_to_seq`: hex, most significant byte first, a comma every 32 bits.
    fn bitmask(&self, data: &[u8]) -> String {
        let mut out = String::new();
        let n = data.len();
        for i in 0..n {
            // The mask is an array of longs: the byte order decides which byte is highest.
            let index = if self.event.endian == perfscope_format::Endianness::Big {
                i
            } else {
                n - 1 - i
            };
            if i > 0 && (n - i).is_multiple_of(4) {
                out.push(',');
            }
            let _ = write!(out, "{:02x}", data.get(index).copied().unwrap_or(0));
        }
        out
    }

    /// `print_cpumask_to_seq`: the set bits as ranges (`0-3,8`).
    fn cpumask(&self, data: &[u8]) -> String {
        let n = data.len();
        let bit = |b: usize| {
            let byte = b / 8;
            let index = if self.event.endian == perfscope_format::Endianness::Big {
                n - 1 - byte
            } else {
                byte
            };
            data.get(index).is_some_and(|v| v & (1 << (b % 8)) != 0)
        };
        let mut parts = Vec::new();
        let mut b = 0;
        while b < n * 8 {
            if !bit(b) {
                b += 1;
                continue;
            }
            let start = b;
            while b < n * 8 && bit(b) {
                b += 1;
            }
            parts.push(if b - 1 > start {
                format!("{start}-{}", b - 1)
            } else {
                start.to_string()
            });
        }
        parts.join(",")
    }
}

/// The bytes up to the first NUL, as text.
pub fn c_str(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(b.get(..end).unwrap_or_default()).into_owned()
}

/// A binary operator on unsigned 64-bit values (division by zero gives 0).
fn binary(op: &str, l: u64, r: u64) -> u64 {
    match op {
        "!=" => u64::from(l != r),
        "|" => l | r,
        "||" => u64::from(l != 0 || r != 0),
        "&" => l & r,
        "&&" => u64::from(l != 0 && r != 0),
        "<" => u64::from(l < r),
        "<<" => l.wrapping_shl(r as u32),
        "<=" => u64::from(l <= r),
        ">" => u64::from(l > r),
        ">>" => l.wrapping_shr(r as u32),
        ">=" => u64::from(l >= r),
        "==" => u64::from(l == r),
        "-" => l.wrapping_sub(r),
        "+" => l.wrapping_add(r),
        "/" => l.checked_div(r).unwrap_or(0),
        "%" => l.checked_rem(r).unwrap_or(0),
        "*" => l.wrapping_mul(r),
        "^" => l ^ r,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_mask_like_eval_type_str() {
        assert_eq!(eval_type(u64::MAX, "int", false), 0xffff_ffff);
        assert_eq!(eval_type(u64::MAX, "unsigned char", false), 0xff);
        assert_eq!(eval_type(u64::MAX, "s16", false), 0xffff);
        assert_eq!(eval_type(u64::MAX, "unsigned long", false), u64::MAX);
        assert_eq!(eval_type(u64::MAX, "void *", false), u64::MAX);
        assert_eq!(eval_type(u64::MAX, "u8 *", true), 0xff);
        assert_eq!(eval_type(u64::MAX, "struct page *", false), u64::MAX);
        assert_eq!(binary("/", 1, 0), 0);
        assert_eq!(binary("<<", 1, 65), 2);
    }
}
