//! The text parts of the tracing data that printing needs: kernel functions (for `%pS`, from
//! the kallsyms copy or a kallsyms file), printk format strings by address (for `%s` of a
//! `const char *`), and the saved `pid comm` lines.

use std::collections::BTreeMap;

use super::lexer::strtoull;
use crate::symbols::kallsyms::Kallsyms;

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

/// perf's resolver: the kernel symbols of the machine (kallsyms with perf's end and duplicate
/// fix-ups, relocated to the run-time kernel map).
impl KernelSymbols for Kallsyms {
    fn function(&self, addr: u64) -> Option<(&str, u64)> {
        let s = self.lookup(addr)?;
        Some((s.name, addr.wrapping_sub(s.offset)))
    }

    fn address_of(&self, name: &str) -> Option<u64> {
        self.table()
            .find_by_name(name)
            .map(|s| s.start.wrapping_add(self.relocation()))
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
            let Some((addr, fmt)) = line.split_once(':') else {
                continue;
            };
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
        let Some((pid, comm)) = line.split_once(' ') else {
            continue;
        };
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
    fn kallsyms_functions_with_offsets() {
        let mut k = Kallsyms::parse(
            b"ffffffff81000000 T _text\nffffffff821ce230 T mas_preallocate\nffffffff821ce700 t mas_x\t[mod]\n",
        )
        .unwrap();
        // `mas_preallocate` + 0x3ef.
        assert_eq!(
            k.function(0xffffffff821ce61f),
            Some(("mas_preallocate", 0xffffffff821ce230))
        );
        assert_eq!(k.address_of("mas_preallocate"), Some(0xffffffff821ce230));
        // Relocated to a kernel map whose `_text` is 0x1000 higher.
        k.relocate_for_map("[kernel.kallsyms]_text", 0xffffffff81001000);
        assert_eq!(
            k.function(0xffffffff821cf61f),
            Some(("mas_preallocate", 0xffffffff821cf230))
        );
        assert_eq!(k.address_of("mas_preallocate"), Some(0xffffffff821cf230));
        assert_eq!(NoSymbols.function(1), None);
    }

    #[test]
    fn printk_and_cmdlines() {
        let p = PrintkFormats::parse(
            "0xffffffff82a0c1c8 : \"rcu_preempt\"\n0xffffffff82a0c1d0 : \"a\\n\"\n",
        );
        assert_eq!(p.get(0xffffffff82a0c1c8), Some("rcu_preempt"));
        assert_eq!(p.get(0xffffffff82a0c1d0), Some("a"));
        let c = parse_cmdlines("1 systemd\n42 kworker/0:1 x\nzz\n");
        assert_eq!(c.get(&42).map(String::as_str), Some("kworker/0:1 x"));
        assert_eq!(c.len(), 2);
    }
}
