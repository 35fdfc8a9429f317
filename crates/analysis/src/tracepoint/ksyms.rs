//! The text parts of the tracing data that printing needs: kernel functions (for `%pS`, from
//! the kallsyms copy or a kallsyms file), printk format strings by address (for `%s` of a
//! `const char *`), and the saved `pid comm` lines.

use std::collections::BTreeMap;

use super::lexer::strtoull;

/// Where `%pS`-style conversions look kernel addresses up. perf sets its own resolver (the
/// kernel map of the machine); libtraceevent's default is the kallsyms in the tracing data.
pub trait KernelSymbols {
    /// The function containing `addr`: its name and start address.
    fn function(&self, addr: u64) -> Option<(&str, u64)>;

    /// The address of function `name` (for print formats that name a symbol).
    fn address_of(&self, _name: &str) -> Option<u64> {
        None
    }
}

/// No symbols: `%pS` prints the address.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSymbols;

impl KernelSymbols for NoSymbols {
    fn function(&self, _addr: u64) -> Option<(&str, u64)> {
        None
    }
}

/// One kallsyms function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// Start address.
    pub addr: u64,
    /// Name.
    pub name: String,
    /// `[module]`, when given.
    pub module: Option<String>,
    /// The kallsyms type letter.
    pub kind: char,
}

/// Functions sorted by address, from `/proc/kallsyms` text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Functions {
    functions: Vec<Function>,
}

/// perf's `choose_best_symbol` order for symbols at the same address: not weak, then global,
/// then fewer leading underscores, then the longer name.
fn better(a: &Function, b: &Function) -> bool {
    let weak = |f: &Function| f.kind.eq_ignore_ascii_case(&'w');
    let global = |f: &Function| f.kind.is_ascii_uppercase();
    let underscores = |f: &Function| f.name.bytes().take_while(|&c| c == b'_').count();
    if weak(a) != weak(b) {
        return !weak(a);
    }
    if global(a) != global(b) {
        return global(a);
    }
    if underscores(a) != underscores(b) {
        return underscores(a) < underscores(b);
    }
    a.name.len() > b.name.len()
}

impl Functions {
    /// Parses kallsyms text (`ADDR TYPE NAME [MODULE]` lines). Keeps text, data and bss
    /// symbols (`t T w W d D b B`) as perf's kernel map does; one symbol per address, chosen
    /// as perf chooses. Lines that do not parse are skipped.
    pub fn parse_kallsyms(text: &str) -> Functions {
        let mut functions = Vec::new();
        for line in text.lines() {
            let mut it = line.split_ascii_whitespace();
            let (Some(addr), Some(kind), Some(name)) = (it.next(), it.next(), it.next()) else { continue };
            let Ok(addr) = u64::from_str_radix(addr, 16) else { continue };
            let Some(kind) = kind.chars().next() else { continue };
            if !matches!(kind.to_ascii_uppercase(), 'T' | 'W' | 'D' | 'B') || name.starts_with('$') {
                continue;
            }
            let module = it.next().map(|m| m.trim_start_matches('[').trim_end_matches(']').to_string());
            functions.push(Function { addr, name: name.to_string(), module, kind });
        }
        functions.sort_by_key(|f| f.addr);
        let mut out: Vec<Function> = Vec::with_capacity(functions.len());
        for f in functions {
            match out.last_mut() {
                Some(last) if last.addr == f.addr => {
                    if better(&f, last) {
                        *last = f;
                    }
                }
                _ => out.push(f),
            }
        }
        Functions { functions: out }
    }

    /// How many functions.
    pub fn len(&self) -> usize {
        self.functions.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.functions.is_empty()
    }
}

impl KernelSymbols for Functions {
    /// The last function starting at or before `addr` (the one after it bounds it).
    fn function(&self, addr: u64) -> Option<(&str, u64)> {
        let i = self.functions.partition_point(|f| f.addr <= addr).checked_sub(1)?;
        let f = self.functions.get(i)?;
        Some((f.name.as_str(), f.addr))
    }

    fn address_of(&self, name: &str) -> Option<u64> {
        self.functions.iter().find(|f| f.name == name).map(|f| f.addr)
    }
}

/// `printk_formats`: `0xADDR : "string"` lines, as `tep_parse_printk_formats` reads them (the
/// quotes and a final `\n` are dropped).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrintkFormats(BTreeMap<u64, String>);

impl PrintkFormats {
    /// Parses the printk formats text.
    pub fn parse(text: &str) -> PrintkFormats {
        let mut map = BTreeMap::new();
        for line in text.lines() {
            let Some((addr, fmt)) = line.split_once(':') else { continue };
            let addr = addr.trim();
            let addr = strtoull(&format!("0x{}", addr.trim_start_matches("0x")));
            let mut fmt = fmt.strip_prefix(' ').unwrap_or(fmt);
            fmt = fmt.strip_prefix('"').unwrap_or(fmt);
            fmt = fmt.strip_suffix('"').unwrap_or(fmt);
            fmt = fmt.strip_suffix("\\n").unwrap_or(fmt);
            map.insert(addr, fmt.to_string());
        }
        PrintkFormats(map)
    }

    /// The string at kernel address `addr`.
    pub fn get(&self, addr: u64) -> Option<&str> {
        self.0.get(&addr).map(String::as_str)
    }

    /// How many strings.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// `saved_cmdlines`: `pid comm` lines, by pid.
pub fn parse_cmdlines(text: &str) -> BTreeMap<i32, String> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim_start();
        let Some((pid, comm)) = line.split_once(' ') else { continue };
        if let Ok(pid) = pid.parse::<i32>() {
            out.entry(pid).or_insert_with(|| comm.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kallsyms_lookup_between_symbols() {
        let f = Functions::parse_kallsyms(
            "ffffffff81000000 T _text\nffffffff81000000 T _stext\nffffffff81000000 t srso\n\
             ffffffff821ce230 T mas_preallocate\nffffffff821ce600 t mas_x\t[mod]\n\
             0000000000000000 A fixed_percpu_data\nffffffff821ce700 T $x\nbad line\n",
        );
        assert_eq!(f.len(), 3);
        assert_eq!(f.function(0xffffffff821ce61f), Some(("mas_x", 0xffffffff821ce600)));
        assert_eq!(f.function(0xffffffff821ce5ff), Some(("mas_preallocate", 0xffffffff821ce230)));
        // `_stext` and `_text` tie on everything but length: the longer name wins.
        assert_eq!(f.function(0xffffffff81000001), Some(("_stext", 0xffffffff81000000)));
        assert_eq!(f.function(0x10), None);
        assert_eq!(f.address_of("mas_x"), Some(0xffffffff821ce600));
    }

    #[test]
    fn printk_and_cmdlines() {
        let p = PrintkFormats::parse("0xffffffff82a0c1c8 : \"rcu_preempt\"\n0xffffffff82a0c1d0 : \"a\\n\"\n");
        assert_eq!(p.get(0xffffffff82a0c1c8), Some("rcu_preempt"));
        assert_eq!(p.get(0xffffffff82a0c1d0), Some("a"));
        let c = parse_cmdlines("1 systemd\n42 kworker/0:1 x\nzz\n");
        assert_eq!(c.get(&42).map(String::as_str), Some("kworker/0:1 x"));
        assert_eq!(c.len(), 2);
    }
}
