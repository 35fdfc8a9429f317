//! [`SymbolTable`]: symbols sorted by start address, looked up by binary search. Every symbol
//! source (kallsyms, ELF, perf-PID.map, jitdump) builds one.
//!
//! Sizes and aliases are settled the way perf settles them (`tools/perf/util/symbol.c`):
//! `symbols__fixup_end` gives a symbol without a size the range up to the next symbol, and
//! `symbols__fixup_duplicate` keeps one symbol per start address, chosen by `choose_best_symbol`
//! (a sized symbol over an unsized one, not weak over weak, global over local, fewer leading
//! underscores, then the longer name).

use core::cmp::Ordering;

/// How a symbol is bound: its ELF `STB_*` binding, or the case of its kallsyms type letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Binding {
    /// `STB_LOCAL`, or a lowercase kallsyms type.
    Local,
    /// `STB_GLOBAL`, or an uppercase kallsyms type.
    Global,
    /// `STB_WEAK`, or kallsyms `W`/`w`/`V`/`v`.
    Weak,
}

/// A symbol handed to [`SymbolTableBuilder::push`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolDef {
    /// First address covered by the symbol.
    pub start: u64,
    /// Size in bytes; 0 when unknown (the symbol then reaches the next symbol's start).
    pub size: u64,
    /// The symbol name as the source spells it (mangled).
    pub name: String,
    /// Its binding.
    pub binding: Binding,
    /// For kallsyms, the kernel module in brackets after the name (without brackets).
    pub module: Option<String>,
}

/// One symbol of a [`SymbolTable`], with its final address range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symbol<'a> {
    /// First address covered.
    pub start: u64,
    /// One past the last address covered (after perf's end fix-up).
    pub end: u64,
    /// The name as the source spells it (mangled).
    pub name: &'a str,
    /// Its binding.
    pub binding: Binding,
    /// The kernel module the symbol belongs to (kallsyms only).
    pub module: Option<&'a str>,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    start: u64,
    end: u64,
    name_start: usize,
    name_len: usize,
    binding: Binding,
    module: Option<u32>,
}

/// Symbols sorted by start address, one per address, each with an end.
#[derive(Clone, Debug, Default)]
pub struct SymbolTable {
    entries: Vec<Entry>,
    names: String,
    modules: Vec<String>,
}

/// How [`SymbolTableBuilder::build`] closes symbols that have no size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndFixup {
    /// ELF and friends: an unsized symbol reaches the next symbol; the last one gets a page.
    Elf,
    /// kallsyms: as `Elf`, except that an unsized symbol followed by a symbol on the other side
    /// of the kernel/module boundary only gets the rest of its page (perf's `is_kallsyms`).
    Kallsyms,
}

/// Collects symbols in any order, then sorts and fixes them up into a [`SymbolTable`]. Names
/// and modules go into one arena as they come (no allocation per symbol), which the table
/// keeps.
#[derive(Clone, Debug, Default)]
pub struct SymbolTableBuilder {
    defs: Vec<Def>,
    names: String,
    modules: Vec<String>,
}

/// A pushed symbol, its name and module in the builder's arena.
#[derive(Clone, Copy, Debug)]
struct Def {
    start: u64,
    size: u64,
    name_start: usize,
    name_len: usize,
    binding: Binding,
    module: Option<u32>,
}

const PAGE: u64 = 4096;

fn round_up_page(x: u64) -> u64 {
    x.checked_add(PAGE - 1)
        .map_or(!(PAGE - 1), |v| v & !(PAGE - 1))
}

fn leading_underscores(name: &str) -> usize {
    name.bytes().take_while(|&b| b == b'_').count()
}

/// A symbol's name in `names`.
fn name_in(names: &str, start: usize, len: usize) -> &str {
    names.get(start..start.saturating_add(len)).unwrap_or("")
}

/// perf's `choose_best_symbol`: `Ordering::Greater` when `a` is the better symbol.
fn compare_quality(
    (a, a_name, a_end): (&Def, &str, u64),
    (b, b_name, b_end): (&Def, &str, u64),
) -> Ordering {
    let a_sized = a_end > a.start;
    let b_sized = b_end > b.start;
    a_sized
        .cmp(&b_sized)
        .then_with(|| {
            let a_weak = a.binding == Binding::Weak;
            let b_weak = b.binding == Binding::Weak;
            b_weak.cmp(&a_weak)
        })
        .then_with(|| (a.binding == Binding::Global).cmp(&(b.binding == Binding::Global)))
        // perf stores names demangled (`dso__load_sym`), so it counts and measures those.
        .then_with(|| {
            let (a_name, b_name) = (
                super::demangle::demangle(a_name),
                super::demangle::demangle(b_name),
            );
            leading_underscores(&b_name)
                .cmp(&leading_underscores(&a_name))
                .then_with(|| a_name.len().cmp(&b_name.len()))
        })
        // arch__choose_best_symbol (x86): avoid the "SyS" syscall aliases, else keep the first.
        .then_with(|| b_name.starts_with("SyS").cmp(&a_name.starts_with("SyS")))
}

impl SymbolTableBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a symbol. Order does not matter, except that among equally good aliases of one
    /// address the first pushed wins.
    pub fn push(&mut self, def: SymbolDef) {
        self.push_parts(
            def.start,
            def.size,
            &def.name,
            def.binding,
            def.module.as_deref(),
        );
    }

    /// [`SymbolTableBuilder::push`] from borrowed parts: the name and module are copied into
    /// the builder's arena.
    pub fn push_parts(
        &mut self,
        start: u64,
        size: u64,
        name: &str,
        binding: Binding,
        module: Option<&str>,
    ) {
        let name_start = self.names.len();
        self.names.push_str(name);
        let module = module.map(|m| self.intern_module(m));
        self.defs.push(Def {
            start,
            size,
            name_start,
            name_len: name.len(),
            binding,
            module,
        });
    }

    fn intern_module(&mut self, module: &str) -> u32 {
        // Modules' symbols come together: the last one is the likely match.
        if let Some(pos) = self.modules.iter().rposition(|m| m == module) {
            return u32::try_from(pos).unwrap_or(u32::MAX);
        }
        self.modules.push(module.to_owned());
        u32::try_from(self.modules.len() - 1).unwrap_or(u32::MAX)
    }

    /// Number of symbols pushed so far.
    pub fn len(&self) -> usize {
        self.defs.len()
    }

    /// Whether no symbol was pushed.
    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }

    /// Sorts, closes unsized symbols and keeps the best symbol per address.
    pub fn build(self, fixup: EndFixup) -> SymbolTable {
        let SymbolTableBuilder {
            mut defs,
            names,
            modules,
        } = self;
        // Stable: aliases keep their insertion order, as in perf's rb-tree (equal keys go right).
        defs.sort_by_key(|d| d.start);
        let mut ends: Vec<u64> = defs
            .iter()
            .map(|d| d.start.saturating_add(d.size))
            .collect();

        // symbols__fixup_end
        let n = defs.len();
        for i in 0..n {
            let (Some(cur), Some(end)) = (defs.get(i), ends.get(i).copied()) else {
                continue;
            };
            if end != cur.start {
                continue;
            }
            let new_end = match defs.get(i + 1) {
                Some(next) => {
                    let crosses = fixup == EndFixup::Kallsyms
                        && cur.module.is_some() != next.module.is_some();
                    if crosses {
                        round_up_page(cur.start.saturating_add(PAGE))
                    } else {
                        next.start
                    }
                }
                None => round_up_page(cur.start).saturating_add(PAGE),
            };
            if let Some(e) = ends.get_mut(i) {
                *e = new_end;
            }
        }

        // symbols__fixup_duplicate
        let name = |d: &Def| name_in(&names, d.name_start, d.name_len);
        let mut entries = Vec::with_capacity(n);
        let mut i = 0;
        while i < n {
            let mut best = i;
            let mut j = i + 1;
            while let (Some(d), Some(first)) = (defs.get(j), defs.get(i)) {
                if d.start != first.start {
                    break;
                }
                if let (Some(b), Some(&b_end), Some(&d_end)) =
                    (defs.get(best), ends.get(best), ends.get(j))
                {
                    if compare_quality((d, name(d), d_end), (b, name(b), b_end))
                        == Ordering::Greater
                    {
                        best = j;
                    }
                }
                j += 1;
            }
            if let (Some(d), Some(&end)) = (defs.get(best), ends.get(best)) {
                entries.push(Entry {
                    start: d.start,
                    end,
                    name_start: d.name_start,
                    name_len: d.name_len,
                    binding: d.binding,
                    module: d.module,
                });
            }
            i = j;
        }
        // The names of the aliases left out stay in the arena (a few bytes each).
        SymbolTable {
            entries,
            names,
            modules,
        }
    }
}

impl SymbolTable {
    fn symbol(&self, e: &Entry) -> Symbol<'_> {
        let name = self
            .names
            .get(e.name_start..e.name_start.saturating_add(e.name_len))
            .unwrap_or("");
        let module = e
            .module
            .and_then(|m| self.modules.get(usize::try_from(m).ok()?))
            .map(String::as_str);
        Symbol {
            start: e.start,
            end: e.end,
            name,
            binding: e.binding,
            module,
        }
    }

    /// Number of symbols.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table has no symbol.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The symbol whose range `[start, end)` contains `address`, if any.
    pub fn lookup(&self, address: u64) -> Option<Symbol<'_>> {
        let idx = self
            .entries
            .partition_point(|e| e.start <= address)
            .checked_sub(1)?;
        let e = self.entries.get(idx)?;
        (address < e.end).then(|| self.symbol(e))
    }

    /// The first symbol with exactly this name (linear scan).
    pub fn find_by_name(&self, name: &str) -> Option<Symbol<'_>> {
        self.iter().find(|s| s.name == name)
    }

    /// All symbols in address order.
    pub fn iter(&self) -> impl Iterator<Item = Symbol<'_>> + '_ {
        self.entries.iter().map(|e| self.symbol(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(start: u64, size: u64, name: &str, binding: Binding) -> SymbolDef {
        SymbolDef {
            start,
            size,
            name: name.into(),
            binding,
            module: None,
        }
    }

    #[test]
    fn lookup_respects_sizes_and_gaps() {
        let mut b = SymbolTableBuilder::new();
        b.push(def(0x2000, 0x10, "b", Binding::Global));
        b.push(def(0x1000, 0x100, "a", Binding::Global));
        let t = b.build(EndFixup::Elf);
        assert_eq!(t.lookup(0x0fff), None);
        assert_eq!(t.lookup(0x1000).map(|s| s.name), Some("a"));
        assert_eq!(t.lookup(0x10ff).map(|s| s.name), Some("a"));
        assert_eq!(t.lookup(0x1100), None);
        assert_eq!(t.lookup(0x200f).map(|s| s.name), Some("b"));
        assert_eq!(t.lookup(0x2010), None);
    }

    #[test]
    fn unsized_symbols_reach_the_next_one_and_the_last_gets_a_page() {
        let mut b = SymbolTableBuilder::new();
        b.push(def(0x1000, 0, "a", Binding::Global));
        b.push(def(0x1234, 0, "b", Binding::Global));
        let t = b.build(EndFixup::Elf);
        let syms: Vec<_> = t.iter().map(|s| (s.name, s.start, s.end)).collect();
        // last: roundup(0x1234, 4096) + 4096 = 0x3000
        assert_eq!(syms, vec![("a", 0x1000, 0x1234), ("b", 0x1234, 0x3000)]);
    }

    #[test]
    fn kallsyms_boundary_between_kernel_and_module_is_not_filled() {
        let mut b = SymbolTableBuilder::new();
        b.push(def(
            0xffff_ffff_8100_0010,
            0,
            "last_kernel",
            Binding::Global,
        ));
        b.push(SymbolDef {
            module: Some("nf".into()),
            ..def(0xffff_ffff_c000_0000, 0, "modfn", Binding::Local)
        });
        let t = b.build(EndFixup::Kallsyms);
        let first = t.iter().next().unwrap();
        // roundup(start + 4096, 4096)
        assert_eq!(first.end, 0xffff_ffff_8100_2000);
        assert_eq!(t.lookup(0xffff_ffff_8100_2000), None);
        assert_eq!(
            t.lookup(0xffff_ffff_c000_0004).map(|s| (s.name, s.module)),
            Some(("modfn", Some("nf")))
        );
    }

    #[test]
    fn duplicates_choose_the_best_symbol_like_perf() {
        let mut b = SymbolTableBuilder::new();
        b.push(def(0x10, 8, "weak_one", Binding::Weak));
        b.push(def(0x10, 8, "local_one", Binding::Local));
        b.push(def(0x20, 8, "__g", Binding::Global));
        b.push(def(0x20, 8, "_g", Binding::Global));
        b.push(def(0x30, 8, "short", Binding::Global));
        b.push(def(0x30, 8, "longer", Binding::Global));
        b.push(def(0x40, 0, "unsized", Binding::Global));
        b.push(def(0x40, 4, "sized", Binding::Local));
        let t = b.build(EndFixup::Elf);
        let names: Vec<_> = t.iter().map(|s| s.name).collect();
        assert_eq!(names, vec!["local_one", "_g", "longer", "sized"]);
    }
}
