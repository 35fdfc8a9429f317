//! `/proc/kallsyms` text (plain or gzipped) and the kernel relocation.
//!
//! Lines are `ADDRESS TYPE NAME` optionally followed by a tab and `[module]`. Like perf
//! (`symbol_type__filter`), only text (`T`), weak (`W`), data (`D`) and bss (`B`) symbols are kept,
//! in either case; the case gives the binding.
//!
//! perf names the kernel map `[kernel.kallsyms]_text` (or `..._stext`): the *reference symbol*
//! follows the `]`, and the map's pgoff holds the address that symbol had at run time. When the
//! kallsyms file comes from another boot (KASLR), `relocation = pgoff - kallsyms(reference)` is
//! added to every kallsyms address; a pgoff of 0 means no relocation.

use std::io::Read;

use super::error::SymbolError;
use super::table::{Binding, EndFixup, SymbolTable, SymbolTableBuilder};

/// A kernel symbol found for an address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelSymbol<'a> {
    /// The symbol name.
    pub name: &'a str,
    /// `address - symbol start` (in the symbol's own, unrelocated space).
    pub offset: u64,
    /// The module (`[name]` in kallsyms), `None` for the kernel image.
    pub module: Option<&'a str>,
}

/// Parsed kallsyms: a [`SymbolTable`] plus the relocation to apply to run-time addresses.
#[derive(Clone, Debug, Default)]
pub struct Kallsyms {
    table: SymbolTable,
    relocation: u64,
    /// Addresses of perf's possible reference symbols (`ref_reloc_sym_names`: `_text`,
    /// `_stext`), kept apart because an alias may win their address in the table.
    references: Vec<(String, u64)>,
}

/// The names perf may put after `]` in the kernel map name (`ref_reloc_sym_names`).
const REFERENCE_NAMES: [&str; 2] = ["_text", "_stext"];

/// Decompresses `bytes` when they start with the gzip magic, else returns them as they are.
pub fn maybe_gunzip(bytes: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>, SymbolError> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(bytes)
            .read_to_end(&mut out)
            .map_err(|e| SymbolError::Gzip(e.to_string()))?;
        Ok(std::borrow::Cow::Owned(out))
    } else {
        Ok(std::borrow::Cow::Borrowed(bytes))
    }
}

/// perf's `symbol_type__filter` plus the binding implied by the type letter.
fn binding_of(kind: u8) -> Option<Binding> {
    match kind {
        b'T' | b'D' | b'B' => Some(Binding::Global),
        b't' | b'd' | b'b' => Some(Binding::Local),
        b'W' | b'w' => Some(Binding::Weak),
        _ => None,
    }
}

/// The reference symbol named by a kernel map's file name: `[kernel.kallsyms]_text` → `_text`.
/// `None` when nothing follows the `]` (or there is no `]`).
pub fn reference_symbol(map_filename: &str) -> Option<&str> {
    let (_, after) = map_filename.split_once(']')?;
    (!after.is_empty()).then_some(after)
}

impl Kallsyms {
    /// Parses kallsyms text, gzipped or not. Malformed lines are skipped (as perf does).
    pub fn parse(bytes: &[u8]) -> Result<Self, SymbolError> {
        let text = maybe_gunzip(bytes)?;
        let mut builder = SymbolTableBuilder::new();
        let mut references = Vec::new();
        let mut add = |line: Option<Line<'_>>| {
            if let Some(Line {
                start,
                name,
                binding,
                module,
            }) = line
            {
                if module.is_none() && REFERENCE_NAMES.contains(&name) {
                    references.push((name.to_owned(), start));
                }
                builder.push_parts(start, 0, name, binding, module);
            }
        };
        // Checked as text once when it all is (lines are then found with a fast search);
        // else line by line, a line that is not UTF-8 skipped.
        match core::str::from_utf8(&text) {
            Ok(text) => text.split('\n').for_each(|line| add(parse_line(line))),
            Err(_) => text.split(|&b| b == b'\n').for_each(|line| {
                add(core::str::from_utf8(line).ok().and_then(parse_line));
            }),
        }
        Ok(Kallsyms {
            table: builder.build(EndFixup::Kallsyms),
            relocation: 0,
            references,
        })
    }

    /// The symbols, in kallsyms address space.
    pub fn table(&self) -> &SymbolTable {
        &self.table
    }

    /// The relocation currently applied by [`Kallsyms::lookup`] (run-time minus kallsyms address,
    /// wrapping).
    pub fn relocation(&self) -> u64 {
        self.relocation
    }

    /// Sets the relocation from the kernel map: its file name (`[kernel.kallsyms]_text`) and its
    /// pgoff (the run-time address of the reference symbol). With pgoff 0, no reference symbol in
    /// the name, or a reference symbol missing from this kallsyms, the relocation is 0.
    /// Returns the relocation now in force.
    pub fn relocate_for_map(&mut self, map_filename: &str, pgoff: u64) -> u64 {
        self.relocation = match reference_symbol(map_filename) {
            Some(name) if pgoff != 0 => self
                .reference_address(name)
                .map_or(0, |start| pgoff.wrapping_sub(start)),
            _ => 0,
        };
        self.relocation
    }

    /// The kallsyms address of a symbol, including aliases that lost their address to another
    /// name in the table.
    pub fn reference_address(&self, name: &str) -> Option<u64> {
        self.references
            .iter()
            .find(|(n, _)| n == name)
            .map(|&(_, a)| a)
            .or_else(|| self.table.find_by_name(name).map(|s| s.start))
    }

    /// The symbol containing the run-time kernel `address`.
    pub fn lookup(&self, address: u64) -> Option<KernelSymbol<'_>> {
        let addr = address.wrapping_sub(self.relocation);
        let sym = self.table.lookup(addr)?;
        Some(KernelSymbol {
            name: sym.name,
            offset: addr - sym.start,
            module: sym.module,
        })
    }
}

/// A kallsyms line's symbol (unsized: it reaches the next one).
struct Line<'a> {
    start: u64,
    name: &'a str,
    binding: Binding,
    module: Option<&'a str>,
}

fn parse_line(line: &str) -> Option<Line<'_>> {
    let (main, module) = match line.split_once('\t') {
        Some((main, rest)) => {
            let m = rest.trim();
            let m = m
                .strip_prefix('[')
                .and_then(|m| m.strip_suffix(']'))
                .unwrap_or(m);
            (main, (!m.is_empty()).then_some(m))
        }
        None => (line, None),
    };
    let mut fields = main.split_ascii_whitespace();
    let addr = u64::from_str_radix(fields.next()?, 16).ok()?;
    let kind = fields.next()?;
    let name = fields.next()?;
    let binding = match kind.as_bytes() {
        [k] => binding_of(*k)?,
        _ => return None,
    };
    Some(Line {
        start: addr,
        name,
        binding,
        module,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "ffffffff81000000 T _stext\n\
ffffffff81000000 T _text\n\
ffffffff81000100 t helper\n\
ffffffff81000200 A absolute_skipped\n\
ffffffff81000300 W weak_fn\n\
garbage line\n\
ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n";

    #[test]
    fn parses_types_modules_and_skips_garbage() {
        let k = Kallsyms::parse(SAMPLE.as_bytes()).unwrap();
        let names: Vec<_> = k.table().iter().map(|s| (s.name, s.module)).collect();
        // _stext/_text alias: fixup_end leaves the first unsized; the sized alias (_text) wins.
        assert_eq!(
            names,
            vec![
                ("_text", None),
                ("helper", None),
                ("weak_fn", None),
                ("ftrace_trampoline", Some("__builtin__ftrace"))
            ]
        );
        assert_eq!(
            k.lookup(0xffff_ffff_8100_0105),
            Some(KernelSymbol {
                name: "helper",
                offset: 5,
                module: None
            })
        );
        // weak_fn is the last kernel symbol before a module symbol: only up to its page end.
        assert_eq!(
            k.lookup(0xffff_ffff_8100_1fff).map(|s| s.name),
            Some("weak_fn")
        );
        assert_eq!(k.lookup(0xffff_ffff_8100_2000), None);
    }

    #[test]
    fn relocation_uses_the_reference_symbol_after_the_bracket() {
        let mut k = Kallsyms::parse(SAMPLE.as_bytes()).unwrap();
        assert_eq!(reference_symbol("[kernel.kallsyms]_text"), Some("_text"));
        assert_eq!(reference_symbol("[kernel.kallsyms]"), None);
        // Booted 0x1e00000 higher than the kallsyms file says.
        assert_eq!(
            k.relocate_for_map("[kernel.kallsyms]_stext", 0xffff_ffff_82e0_0000),
            0x1e0_0000
        );
        assert_eq!(
            k.lookup(0xffff_ffff_82e0_0101).map(|s| (s.name, s.offset)),
            Some(("helper", 1))
        );
        assert_eq!(k.relocate_for_map("[kernel.kallsyms]_text", 0), 0);
        assert_eq!(
            k.relocate_for_map("[kernel.kallsyms]_nosuch", 0xffff_ffff_82e0_0000),
            0
        );
    }

    #[test]
    fn gzip_is_detected_by_magic() {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(SAMPLE.as_bytes()).unwrap();
        let gz = enc.finish().unwrap();
        let k = Kallsyms::parse(&gz).unwrap();
        assert_eq!(k.table().len(), 4);
        assert!(matches!(
            Kallsyms::parse(&[0x1f, 0x8b, 0, 0]),
            Err(SymbolError::Gzip(_))
        ));
    }

    #[test]
    fn a_line_that_is_not_utf8_is_skipped_and_the_others_kept() {
        // The same lines, one more in the middle with a byte that is not UTF-8 (the text is
        // then read line by line instead of checked once).
        let mut bytes = SAMPLE.as_bytes().to_vec();
        let at = SAMPLE.find("ffffffff81000200").unwrap();
        bytes.splice(at..at, b"ffffffff81000180 t bad\xff_name\n".iter().copied());
        let k = Kallsyms::parse(&bytes).unwrap();
        let plain = Kallsyms::parse(SAMPLE.as_bytes()).unwrap();
        let all = |k: &Kallsyms| -> Vec<(String, u64, u64, Option<String>)> {
            k.table()
                .iter()
                .map(|s| (s.name.into(), s.start, s.end, s.module.map(Into::into)))
                .collect()
        };
        assert_eq!(all(&k), all(&plain));
        assert_eq!(k.table().len(), 4);
        assert_eq!(
            k.lookup(0xffff_ffff_8100_0185).map(|s| (s.name, s.offset)),
            Some(("helper", 0x85))
        );
    }
}
