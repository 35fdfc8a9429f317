//! `perf-PID.map` files written by JITs (`/tmp/perf-PID.map`): one `START SIZE name` line per
//! function, START and SIZE in hex (with or without `0x`), the name running to the end of the
//! line and possibly holding spaces. Addresses are process addresses: perf maps the JIT regions
//! with an identity `map_ip`, so the file-relative address of a sample in them is its `ip`.
//!
//! Later lines win over earlier ones for the same start (a JIT may reuse memory).

use super::table::{Binding, EndFixup, SymbolDef, SymbolTable, SymbolTableBuilder};

/// Parsed perf map: the table and how many lines could not be read.
#[derive(Clone, Debug, Default)]
pub struct PerfMap {
    table: SymbolTable,
    skipped_lines: usize,
}

fn hex(s: &str) -> Option<u64> {
    let s = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    u64::from_str_radix(s, 16).ok()
}

fn parse_line(line: &str) -> Option<SymbolDef> {
    let line = line.trim_end_matches('\r');
    let (start, rest) = line.split_once(' ')?;
    let (size, name) = rest.trim_start().split_once(' ')?;
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    Some(SymbolDef {
        start: hex(start)?,
        size: hex(size)?,
        name: name.to_owned(),
        binding: Binding::Global,
        module: None,
    })
}

impl PerfMap {
    /// Parses the text of a perf map. Blank lines are ignored; other unreadable lines are counted
    /// in [`PerfMap::skipped_lines`].
    pub fn parse(bytes: &[u8]) -> Self {
        let text = String::from_utf8_lossy(bytes);
        let mut defs = Vec::new();
        let mut skipped_lines = 0;
        for line in text.lines() {
            if line.trim().is_empty() {
                continue;
            }
            match parse_line(line) {
                Some(def) => defs.push(def),
                None => skipped_lines += 1,
            }
        }
        // Later definitions win: keep only the last line for each start address.
        defs.sort_by_key(|d| d.start); // stable: file order among equal starts
        let mut builder = SymbolTableBuilder::new();
        let mut iter = defs.into_iter().peekable();
        while let Some(def) = iter.next() {
            if iter.peek().is_some_and(|next| next.start == def.start) {
                continue;
            }
            builder.push(def);
        }
        PerfMap {
            table: builder.build(EndFixup::Elf),
            skipped_lines,
        }
    }

    /// The functions, by process address.
    pub fn table(&self) -> &SymbolTable {
        &self.table
    }

    /// Lines that were neither blank nor `START SIZE name`.
    pub fn skipped_lines(&self) -> usize {
        self.skipped_lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_hex_fields_and_names_with_spaces() {
        let m = PerfMap::parse(b"7fe15dcb9000 b py::f:<frozen a b>\n0x10 0x8 JIT code\n\nbad\n");
        let all: Vec<_> = m.table().iter().map(|s| (s.start, s.end, s.name)).collect();
        assert_eq!(
            all,
            vec![
                (0x10, 0x18, "JIT code"),
                (0x7fe1_5dcb_9000, 0x7fe1_5dcb_900b, "py::f:<frozen a b>")
            ]
        );
        assert_eq!(m.skipped_lines(), 1);
    }

    #[test]
    fn later_lines_win_for_the_same_start() {
        let m = PerfMap::parse(b"100 10 older\n100 10 new\n");
        assert_eq!(m.table().lookup(0x105).map(|s| s.name), Some("new"));
    }
}
