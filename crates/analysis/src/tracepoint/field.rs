//! One `field:` line of an event format (`struct tep_format_field`) and reading its value out
//! of a tracepoint payload (a sample's RAW data).

use std::fmt;

use perfscope_format::Endianness;

use super::lexer::{strtoull, Lexer, Token};

/// `TEP_FIELD_IS_*`: what libtraceevent derives from a field's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FieldFlags(pub u32);

impl FieldFlags {
    /// `TEP_FIELD_IS_ARRAY`: `[N]` or `[]` in the declaration.
    pub const ARRAY: FieldFlags = FieldFlags(1);
    /// `TEP_FIELD_IS_POINTER`: a `*` in the type.
    pub const POINTER: FieldFlags = FieldFlags(2);
    /// `TEP_FIELD_IS_SIGNED`: `signed:1`.
    pub const SIGNED: FieldFlags = FieldFlags(4);
    /// `TEP_FIELD_IS_STRING`: an array of `char`, `u8` or `s8`.
    pub const STRING: FieldFlags = FieldFlags(8);
    /// `TEP_FIELD_IS_DYNAMIC`: `__data_loc` or `__rel_loc`: the field holds where the data is.
    pub const DYNAMIC: FieldFlags = FieldFlags(16);
    /// `TEP_FIELD_IS_LONG`: `long` in the type.
    pub const LONG: FieldFlags = FieldFlags(32);
    /// `TEP_FIELD_IS_RELATIVE`: `__rel_loc`: the offset counts from the end of the field.
    pub const RELATIVE: FieldFlags = FieldFlags(256);

    /// Whether all bits of `f` are set.
    pub const fn contains(self, f: FieldFlags) -> bool {
        self.0 & f.0 == f.0
    }

    fn set(&mut self, f: FieldFlags) {
        self.0 |= f.0;
    }
}

/// A field of an event format: `field:TYPE NAME[ARRAY]; offset:N; size:N; signed:N;`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The C type as libtraceevent rebuilds it (`char[16]`, `__data_loc char[]`, `const void *`).
    pub type_name: String,
    /// The field name.
    pub name: String,
    /// Byte offset in the payload.
    pub offset: u32,
    /// Size in bytes (for `__data_loc`: the 4-byte (or old 2-byte) locator).
    pub size: u32,
    /// What the type says (array, pointer, signed, string, dynamic, long).
    pub flags: FieldFlags,
    /// `N` of `[N]` (0 when absent or not a number).
    pub array_len: u32,
    /// The size of one element: `size / N` for arrays, the element type size for dynamic
    /// arrays, `size` otherwise.
    pub element_size: u32,
}

/// Parses the text after `field:` of one line (`"char prev_comm[16];\toffset:8;\tsize:16;…"`).
/// `long_size` is the recording kernel's, used for the element size of `long[]` arrays.
pub fn parse_field_line(line: &str, long_size: u8) -> Option<Field> {
    let (decl, rest) = line.split_once(';')?;
    let mut field = parse_declaration(decl)?;
    let mut signed = None;
    for part in rest.split(';') {
        let Some((key, value)) = part.split_once(':') else {
            continue;
        };
        let value = u32::try_from(strtoull(value.trim())).ok();
        match key.trim() {
            "offset" => field.offset = value?,
            "size" => field.size = value?,
            "signed" => signed = value,
            _ => {}
        }
    }
    if signed.is_some_and(|s| s != 0) {
        field.flags.set(FieldFlags::SIGNED);
    }
    let t = &field.type_name;
    if field.flags.contains(FieldFlags::ARRAY)
        && (t.contains("char") || t.contains("u8") || t.contains("s8"))
    {
        field.flags.set(FieldFlags::STRING);
    }
    if t.starts_with("__data_loc") {
        field.flags.set(FieldFlags::DYNAMIC);
    }
    if t.starts_with("__rel_loc") {
        field.flags.set(FieldFlags::DYNAMIC);
        field.flags.set(FieldFlags::RELATIVE);
    }
    if t.contains("long") {
        field.flags.set(FieldFlags::LONG);
    }
    // Old kernels wrote dynamic strings as a 2-byte offset, the length being strlen().
    if field.flags.contains(FieldFlags::DYNAMIC) && field.size == 2 {
        field.flags.set(FieldFlags::STRING);
        field.flags.set(FieldFlags::ARRAY);
    }
    let dynamic_element = field.element_size;
    field.element_size =
        if field.flags.contains(FieldFlags::ARRAY) || field.flags.contains(FieldFlags::DYNAMIC) {
            if let Some(e) = field.size.checked_div(field.array_len) {
                e
            } else if field.flags.contains(FieldFlags::DYNAMIC) {
                dynamic_element
            } else if field.flags.contains(FieldFlags::STRING) {
                1
            } else if field.flags.contains(FieldFlags::LONG) {
                u32::from(long_size)
            } else {
                0
            }
        } else {
            field.size
        };
    Some(field)
}

/// `u8`, `char`, … : libtraceevent's `type_size` for the element of `type [] name`.
fn type_size(name: &str) -> u32 {
    match name {
        "u8" | "s8" | "char" => 1,
        "u16" | "s16" => 2,
        "u32" | "s32" => 4,
        "u64" | "s64" => 8,
        _ => 0,
    }
}

/// The type and name of a declaration, following `event_read_fields`: items and `*` make up the
/// type, the last item is the name, `[…]` makes an array and may be followed by the real name
/// (`__data_loc char[] name`).
fn parse_declaration(decl: &str) -> Option<Field> {
    let mut lex = Lexer::new(decl);
    let mut flags = FieldFlags::default();
    let mut words: Vec<String> = Vec::new();
    let mut array = false;
    while let Some(t) = lex.next_item_token() {
        match t {
            Token::Item(s) => words.push(s),
            Token::Op(o) if o == "*" => {
                flags.set(FieldFlags::POINTER);
                words.push(o);
            }
            Token::Op(o) if o == "[" => {
                array = true;
                break;
            }
            // `__attribute__((user))` and the like stay part of the type.
            Token::Delim('(') if words.last().is_some_and(|w| w == "__attribute__") => {
                let mut depth = 1u32;
                let mut attr = String::from("(");
                while depth > 0 {
                    let t = lex.next_item_token()?;
                    match &t {
                        Token::Delim('(') => depth += 1,
                        Token::Delim(')') => depth -= 1,
                        _ => {}
                    }
                    attr.push_str(&token_text(&t));
                }
                words.last_mut()?.push_str(&attr);
            }
            _ => return None,
        }
    }
    let mut name = words.pop()?;
    if name == "*" || words.is_empty() {
        return None;
    }
    let mut type_name = words.join(" ");
    let mut array_len = 0u32;
    let mut element_size = 0u32;
    if array {
        flags.set(FieldFlags::ARRAY);
        let mut brackets = String::from("[");
        loop {
            let t = lex.next_item_token()?;
            if t.is_op("]") {
                break;
            }
            let text = token_text(&t);
            array_len = u32::try_from(strtoull(&text)).unwrap_or(0);
            brackets.push_str(&text);
        }
        brackets.push(']');
        match lex.next_item_token() {
            Some(Token::Item(real)) => {
                push_word(&mut type_name, &name);
                type_name.push_str(&brackets);
                element_size = type_size(&name);
                name = real;
            }
            _ => type_name.push_str(&brackets),
        }
    }
    Some(Field {
        type_name,
        name,
        offset: 0,
        size: 0,
        flags,
        array_len,
        element_size,
    })
}

fn push_word(s: &mut String, w: &str) {
    if !s.is_empty() {
        s.push(' ');
    }
    s.push_str(w);
}

fn token_text(t: &Token) -> String {
    match t {
        Token::Item(s) | Token::Op(s) => s.clone(),
        Token::DQuote(s) => format!("\"{s}\""),
        Token::SQuote(s) => format!("'{s}'"),
        Token::Delim(c) => c.to_string(),
        Token::Newline => "\n".into(),
    }
}

/// A decoded field value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldValue<'a> {
    /// A signed integer (`signed:1`), sign-extended from its size.
    Signed(i64),
    /// An unsigned integer.
    Unsigned(u64),
    /// A pointer (a `*` in the type), printed as hex.
    Pointer(u64),
    /// A string: a `char` array or `__data_loc char[]`, up to its first NUL.
    Str(&'a [u8]),
    /// Any other array (fixed or dynamic): the element bytes, in the file's byte order.
    Array {
        /// The bytes of all elements.
        data: &'a [u8],
        /// Bytes per element (0 when unknown).
        element_size: u32,
    },
}

impl fmt::Display for FieldValue<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldValue::Signed(v) => write!(f, "{v}"),
            FieldValue::Unsigned(v) => write!(f, "{v}"),
            FieldValue::Pointer(v) => write!(f, "{v:#x}"),
            FieldValue::Str(s) => f.write_str(&String::from_utf8_lossy(s)),
            FieldValue::Array { data, .. } => {
                f.write_str("ARRAY[")?;
                for (i, b) in data.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{b:02x}")?;
                }
                f.write_str("]")
            }
        }
    }
}

/// Reads an unsigned number of `size` bytes (1, 2, 4 or 8) at `offset`, like `tep_read_number`.
pub fn read_number(raw: &[u8], offset: usize, size: usize, endian: Endianness) -> Option<u64> {
    let b = raw.get(offset..offset.checked_add(size)?)?;
    let mut buf = [0u8; 8];
    let v = match (size, endian) {
        (1, _) => u64::from(*b.first()?),
        (2 | 4 | 8, Endianness::Little) => {
            buf.get_mut(..size)?.copy_from_slice(b);
            u64::from_le_bytes(buf)
        }
        (2 | 4 | 8, Endianness::Big) => {
            buf.get_mut(8 - size..)?.copy_from_slice(b);
            u64::from_be_bytes(buf)
        }
        _ => return None,
    };
    Some(v)
}

/// Where a `__data_loc` / `__rel_loc` field's data is: `(offset, len)` in the payload, from the
/// locator `offset | len << 16` (`dynamic_offset_field`). A locator pointing outside the
/// payload gives `(0, 0)`, as libtraceevent does.
pub fn dynamic_location(field: &Field, raw: &[u8], endian: Endianness) -> (usize, usize) {
    let Ok(at) = usize::try_from(field.offset) else {
        return (0, 0);
    };
    let Ok(size) = usize::try_from(field.size) else {
        return (0, 0);
    };
    if at.saturating_add(size) > raw.len() {
        return (0, 0);
    }
    let Some(v) = read_number(raw, at, size, endian) else {
        return (0, 0);
    };
    let mut o = (v & 0xffff) as usize;
    let l = if size == 2 {
        raw.len().saturating_sub(o)
    } else {
        ((v >> 16) & 0xffff) as usize
    };
    let len = if o + l > raw.len() { 0 } else { l };
    if o > raw.len() {
        o = 0;
    }
    if field.flags.contains(FieldFlags::RELATIVE) {
        o = o.saturating_add(at).saturating_add(size);
    }
    (o, len)
}

impl Field {
    /// The field's bytes in `raw` (for dynamic fields: the data it locates), or `None` when the
    /// payload is too short.
    pub fn bytes<'a>(&self, raw: &'a [u8], endian: Endianness) -> Option<&'a [u8]> {
        if self.flags.contains(FieldFlags::DYNAMIC) {
            let (o, len) = dynamic_location(self, raw, endian);
            return raw.get(o..o.checked_add(len)?);
        }
        let start = usize::try_from(self.offset).ok()?;
        let end = start.checked_add(usize::try_from(self.size).ok()?)?;
        raw.get(start..end)
    }

    /// Decodes the field from a payload: integers by size and sign in `endian` (the tracing
    /// data's byte order), strings up to their NUL, `__data_loc`/`__rel_loc` followed, pointers
    /// as [`FieldValue::Pointer`]. `None` when the payload is too short or the size is odd.
    pub fn value<'a>(&self, raw: &'a [u8], endian: Endianness) -> Option<FieldValue<'a>> {
        if self.flags.contains(FieldFlags::ARRAY) || self.flags.contains(FieldFlags::DYNAMIC) {
            let data = self.bytes(raw, endian)?;
            if self.flags.contains(FieldFlags::STRING) {
                let end = data.iter().position(|&c| c == 0).unwrap_or(data.len());
                return Some(FieldValue::Str(data.get(..end)?));
            }
            return Some(FieldValue::Array {
                data,
                element_size: self.element_size,
            });
        }
        let size = usize::try_from(self.size).ok()?;
        let v = read_number(raw, usize::try_from(self.offset).ok()?, size, endian)?;
        Some(if self.flags.contains(FieldFlags::POINTER) {
            FieldValue::Pointer(v)
        } else if self.flags.contains(FieldFlags::SIGNED) {
            let shift = 64 - 8 * size as u32;
            FieldValue::Signed(((v << shift) as i64) >> shift)
        } else {
            FieldValue::Unsigned(v)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(line: &str) -> Field {
        parse_field_line(line, 8).unwrap()
    }

    #[test]
    fn declarations_as_libtraceevent_reads_them() {
        let f = field("char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;");
        assert_eq!(
            (f.type_name.as_str(), f.name.as_str()),
            ("char[16]", "prev_comm")
        );
        assert_eq!(
            (f.offset, f.size, f.array_len, f.element_size),
            (8, 16, 16, 1)
        );
        assert_eq!(
            f.flags,
            FieldFlags(FieldFlags::ARRAY.0 | FieldFlags::STRING.0)
        );

        let f = field("__data_loc char[] comm;\toffset:8;\tsize:4;\tsigned:0;");
        assert_eq!(
            (f.type_name.as_str(), f.name.as_str()),
            ("__data_loc char[]", "comm")
        );
        assert_eq!(f.element_size, 1);
        assert!(f.flags.contains(FieldFlags::DYNAMIC) && f.flags.contains(FieldFlags::STRING));

        let f = field("unsigned long args[6];\toffset:16;\tsize:48;\tsigned:0;");
        assert_eq!(
            (f.type_name.as_str(), f.name.as_str()),
            ("unsigned long[6]", "args")
        );
        assert_eq!((f.array_len, f.element_size), (6, 8));
        assert!(f.flags.contains(FieldFlags::LONG) && !f.flags.contains(FieldFlags::STRING));

        let f = field("const void * ptr;\toffset:16;\tsize:8;\tsigned:0;");
        assert_eq!(
            (f.type_name.as_str(), f.name.as_str()),
            ("const void *", "ptr")
        );
        assert!(f.flags.contains(FieldFlags::POINTER));

        let f = field("long prev_state;\toffset:32;\tsize:8;\tsigned:1;");
        assert_eq!(
            f.flags,
            FieldFlags(FieldFlags::SIGNED.0 | FieldFlags::LONG.0)
        );

        let f = field(" u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;");
        assert_eq!(
            (f.type_name.as_str(), f.name.as_str(), f.size),
            ("u64", "timestamp", 8)
        );

        let f = field("__rel_loc u8[] buf;\toffset:12;\tsize:4;\tsigned:0;");
        assert!(f.flags.contains(FieldFlags::RELATIVE));

        let f =
            field("const char __attribute__((user)) * filename;\toffset:16;\tsize:8;\tsigned:0;");
        assert_eq!(f.name, "filename");
        assert_eq!(f.type_name, "const char __attribute__((user)) *");

        assert_eq!(parse_field_line("int;", 8), None);
        assert_eq!(
            parse_field_line("int x; offset:z;", 8).map(|f| f.offset),
            Some(0)
        );
        assert_eq!(parse_field_line("int x", 8), None);
    }

    #[test]
    fn values_in_both_byte_orders() {
        let int = field("int next_prio;\toffset:0;\tsize:4;\tsigned:1;");
        assert_eq!(
            int.value(&[0xff, 0xff, 0xff, 0xfe], Endianness::Little),
            Some(FieldValue::Signed(-16_777_217))
        );
        assert_eq!(
            int.value(&[0xff, 0xff, 0xff, 0xfe], Endianness::Big),
            Some(FieldValue::Signed(-2))
        );
        assert_eq!(int.value(&[0, 0, 0], Endianness::Big), None);
        let u16f = field("unsigned short common_type;\toffset:1;\tsize:2;\tsigned:0;");
        assert_eq!(
            u16f.value(&[9, 1, 2], Endianness::Big),
            Some(FieldValue::Unsigned(0x102))
        );
        let ptr = field("void * lock_addr;\toffset:0;\tsize:8;\tsigned:0;");
        assert_eq!(
            ptr.value(&[1, 0, 0, 0, 0, 0, 0, 0x80], Endianness::Little)
                .unwrap()
                .to_string(),
            "0x8000000000000001"
        );
    }

    #[test]
    fn data_loc_and_rel_loc() {
        let dl = field("__data_loc char[] name;\toffset:0;\tsize:4;\tsigned:0;");
        // offset 8, len 4 (`abc\0`); the string stops at the NUL.
        let le = [8, 0, 4, 0, 0, 0, 0, 0, b'a', b'b', b'c', 0];
        assert_eq!(
            dl.value(&le, Endianness::Little),
            Some(FieldValue::Str(b"abc"))
        );
        let be = [0, 4, 0, 8, 0, 0, 0, 0, b'a', b'b', b'c', 0];
        assert_eq!(
            dl.value(&be, Endianness::Big),
            Some(FieldValue::Str(b"abc"))
        );
        // Past the end: libtraceevent's (0, 0).
        let bad = [8, 0, 40, 0, 0, 0, 0, 0];
        assert_eq!(dynamic_location(&dl, &bad, Endianness::Little), (8, 0));
        let rl = field("__rel_loc int[] vals;\toffset:0;\tsize:4;\tsigned:0;");
        // Relative: data at 4 (end of the field) + 0, 8 bytes.
        let raw = [0, 0, 8, 0, 1, 0, 0, 0, 2, 0, 0, 0];
        assert_eq!(
            rl.value(&raw, Endianness::Little),
            Some(FieldValue::Array {
                data: &raw[4..12],
                element_size: 0
            })
        );
    }
}
