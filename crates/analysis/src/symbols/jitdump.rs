//! `jit-PID.dump` files (the jitdump format of `tools/perf/util/jitdump.h`) as written by
//! `python3 -X perf_jit`, V8, the JVM agent and others.
//!
//! A 40-byte header (`struct jitheader`: magic `JiTD`, version, total_size, elf_mach, pad1, pid,
//! timestamp, flags) is followed by records, each with a 16-byte prefix (`struct jr_prefix`: id,
//! total_size, timestamp). `JIT_CODE_LOAD` (0) gives pid, tid, vma, code_addr, code_size,
//! code_index, a NUL-terminated name and the code bytes; `JIT_CODE_MOVE` (1) relocates a code
//! index; `JIT_CODE_DEBUG_INFO` (2) maps code addresses to file:line. The byte order is the one in
//! which the magic reads `0x4A695444`. Framing stops at a record shorter than its prefix or
//! running past the end; what was read before is kept and the problem is reported in
//! [`JitDump::truncated`].

use super::error::SymbolError;
use super::table::{Binding, EndFixup, SymbolDef, SymbolTable, SymbolTableBuilder};

const MAGIC: u32 = 0x4A69_5444;
const JIT_CODE_LOAD: u32 = 0;
const JIT_CODE_MOVE: u32 = 1;
const JIT_CODE_DEBUG_INFO: u32 = 2;

/// `struct jr_code_load` without its code bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JitCodeLoad {
    /// Record timestamp (the clock the JIT was told to use).
    pub timestamp: u64,
    /// Process id.
    pub pid: u32,
    /// Thread id.
    pub tid: u32,
    /// Virtual address of the code (`vma`).
    pub vma: u64,
    /// Address of the code (`code_addr`), what samples hit.
    pub code_addr: u64,
    /// Size of the code in bytes.
    pub code_size: u64,
    /// Unique index of this code body.
    pub code_index: u64,
    /// Function name.
    pub name: String,
}

/// `struct jr_code_move`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JitCodeMove {
    /// Record timestamp.
    pub timestamp: u64,
    /// Old code address.
    pub old_code_addr: u64,
    /// New code address.
    pub new_code_addr: u64,
    /// Code size.
    pub code_size: u64,
    /// The code index that moved.
    pub code_index: u64,
}

/// One `struct debug_entry` of a `JIT_CODE_DEBUG_INFO` record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JitDebugEntry {
    /// Code address the entry starts at.
    pub addr: u64,
    /// Source line.
    pub lineno: i32,
    /// Discriminator.
    pub discrim: i32,
    /// Source file name (`"\xff"` repeats the previous entry's name and is resolved here).
    pub file: String,
}

/// `struct jr_code_debug_info`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JitDebugInfo {
    /// The code body this describes.
    pub code_addr: u64,
    /// Line entries.
    pub entries: Vec<JitDebugEntry>,
}

/// A parsed jitdump file.
#[derive(Clone, Debug, Default)]
pub struct JitDump {
    /// `jitheader.version`.
    pub version: u32,
    /// `jitheader.elf_mach`.
    pub elf_mach: u32,
    /// `jitheader.pid`.
    pub pid: u32,
    /// `jitheader.timestamp`.
    pub timestamp: u64,
    /// `jitheader.flags`.
    pub flags: u64,
    /// Code loads in file order.
    pub code_loads: Vec<JitCodeLoad>,
    /// Code moves in file order.
    pub code_moves: Vec<JitCodeMove>,
    /// Debug info records in file order.
    pub debug_info: Vec<JitDebugInfo>,
    /// Records of other types (unwinding info, close, unknown) that were skipped.
    pub skipped_records: usize,
    /// Why reading stopped early, if it did.
    pub truncated: Option<SymbolError>,
}

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    big_endian: bool,
}

impl<'a> Cursor<'a> {
    fn err(&self, what: &'static str) -> SymbolError {
        SymbolError::JitDumpTruncated {
            offset: self.pos as u64,
            what,
        }
    }
    fn take<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], SymbolError> {
        let bytes = self
            .data
            .get(self.pos..self.pos.saturating_add(N))
            .and_then(|s| <[u8; N]>::try_from(s).ok())
            .ok_or_else(|| self.err(what))?;
        self.pos += N;
        Ok(bytes)
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, SymbolError> {
        let b = self.take::<4>(what)?;
        Ok(if self.big_endian {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    }
    fn u64(&mut self, what: &'static str) -> Result<u64, SymbolError> {
        let b = self.take::<8>(what)?;
        Ok(if self.big_endian {
            u64::from_be_bytes(b)
        } else {
            u64::from_le_bytes(b)
        })
    }
    fn cstr(&mut self, what: &'static str) -> Result<String, SymbolError> {
        let rest = self.data.get(self.pos..).ok_or_else(|| self.err(what))?;
        let len = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| self.err(what))?;
        let s = String::from_utf8_lossy(rest.get(..len).unwrap_or_default()).into_owned();
        self.pos += len + 1;
        Ok(s)
    }
}

impl JitDump {
    /// Parses a jitdump file. Fails only when the header is missing or the magic is wrong.
    pub fn parse(bytes: &[u8]) -> Result<Self, SymbolError> {
        let magic_bytes: [u8; 4] = bytes.get(..4).and_then(|s| s.try_into().ok()).ok_or(
            SymbolError::JitDumpTruncated {
                offset: 0,
                what: "header",
            },
        )?;
        let big_endian = match u32::from_le_bytes(magic_bytes) {
            MAGIC => false,
            m if m.swap_bytes() == MAGIC => true,
            found => return Err(SymbolError::JitDumpMagic { found }),
        };
        let mut c = Cursor {
            data: bytes,
            pos: 4,
            big_endian,
        };
        let version = c.u32("header")?;
        let total_size = c.u32("header")?;
        let elf_mach = c.u32("header")?;
        let _pad1 = c.u32("header")?;
        let pid = c.u32("header")?;
        let timestamp = c.u64("header")?;
        let flags = c.u64("header")?;
        let mut dump = JitDump {
            version,
            elf_mach,
            pid,
            timestamp,
            flags,
            ..Default::default()
        };
        let mut pos = usize::try_from(total_size).unwrap_or(usize::MAX).max(c.pos);
        while pos < bytes.len() {
            c.pos = pos;
            match dump.read_record(&mut c) {
                Ok(next) => pos = next,
                Err(e) => {
                    dump.truncated = Some(e);
                    break;
                }
            }
        }
        Ok(dump)
    }

    /// Reads the record at `c.pos`; returns the offset of the next record.
    fn read_record(&mut self, c: &mut Cursor<'_>) -> Result<usize, SymbolError> {
        let start = c.pos;
        let id = c.u32("record prefix")?;
        let size = c.u32("record prefix")?;
        let timestamp = c.u64("record prefix")?;
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        let end = start
            .checked_add(size)
            .filter(|&e| size >= 16 && e <= c.data.len())
            .ok_or(SymbolError::JitDumpTruncated {
                offset: start as u64,
                what: "record",
            })?;
        // Parse the body within its own bounds.
        let mut body = Cursor {
            data: c.data.get(..end).unwrap_or_default(),
            pos: c.pos,
            big_endian: c.big_endian,
        };
        match id {
            JIT_CODE_LOAD => {
                let pid = body.u32("code load")?;
                let tid = body.u32("code load")?;
                let vma = body.u64("code load")?;
                let code_addr = body.u64("code load")?;
                let code_size = body.u64("code load")?;
                let code_index = body.u64("code load")?;
                let name = body.cstr("code load name")?;
                self.code_loads.push(JitCodeLoad {
                    timestamp,
                    pid,
                    tid,
                    vma,
                    code_addr,
                    code_size,
                    code_index,
                    name,
                });
            }
            JIT_CODE_MOVE => {
                let _pid = body.u32("code move")?;
                let _tid = body.u32("code move")?;
                let _vma = body.u64("code move")?;
                let old_code_addr = body.u64("code move")?;
                let new_code_addr = body.u64("code move")?;
                let code_size = body.u64("code move")?;
                let code_index = body.u64("code move")?;
                self.code_moves.push(JitCodeMove {
                    timestamp,
                    old_code_addr,
                    new_code_addr,
                    code_size,
                    code_index,
                });
            }
            JIT_CODE_DEBUG_INFO => {
                let code_addr = body.u64("debug info")?;
                let nr_entry = body.u64("debug info")?;
                let mut entries = Vec::new();
                let mut previous = String::new();
                for _ in 0..nr_entry {
                    let addr = body.u64("debug entry")?;
                    let lineno = body.u32("debug entry")? as i32;
                    let discrim = body.u32("debug entry")? as i32;
                    let mut file = body.cstr("debug entry name")?;
                    if file == "\u{fffd}" || file.as_bytes() == [0xff] {
                        file.clone_from(&previous);
                    }
                    previous.clone_from(&file);
                    entries.push(JitDebugEntry {
                        addr,
                        lineno,
                        discrim,
                        file,
                    });
                }
                self.debug_info.push(JitDebugInfo { code_addr, entries });
            }
            _ => self.skipped_records += 1,
        }
        Ok(end)
    }

    /// The jitted functions by code address, with moves applied in file order. When code is
    /// loaded twice at one address, the later load wins.
    pub fn table(&self) -> SymbolTable {
        // (timestamp order == file order for a single writer)
        let mut current: Vec<SymbolDef> = Vec::with_capacity(self.code_loads.len());
        let mut index_of: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
        for load in &self.code_loads {
            index_of.insert(load.code_index, current.len());
            current.push(SymbolDef {
                start: load.code_addr,
                size: load.code_size,
                name: load.name.clone(),
                binding: Binding::Global,
                module: None,
            });
        }
        for mv in &self.code_moves {
            if let Some(def) = index_of
                .get(&mv.code_index)
                .and_then(|&i| current.get_mut(i))
            {
                def.start = mv.new_code_addr;
                def.size = mv.code_size;
            }
        }
        current.sort_by_key(|d| d.start);
        let mut builder = SymbolTableBuilder::new();
        let mut iter = current.into_iter().peekable();
        while let Some(def) = iter.next() {
            if iter.peek().is_some_and(|n| n.start == def.start) {
                continue;
            }
            builder.push(def);
        }
        builder.build(EndFixup::Elf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(be: bool) -> Vec<u8> {
        let mut v = Vec::new();
        let put32 =
            |v: &mut Vec<u8>, x: u32| v.extend(if be { x.to_be_bytes() } else { x.to_le_bytes() });
        let put64 =
            |v: &mut Vec<u8>, x: u64| v.extend(if be { x.to_be_bytes() } else { x.to_le_bytes() });
        put32(&mut v, MAGIC);
        put32(&mut v, 1);
        put32(&mut v, 40);
        put32(&mut v, 62);
        put32(&mut v, 0);
        put32(&mut v, 1234);
        put64(&mut v, 99);
        put64(&mut v, 0);
        // JIT_CODE_LOAD "f" at 0x1000 size 0x20, index 7: 16 + 40 + 2 + 0x20 code bytes
        put32(&mut v, 0);
        put32(&mut v, 16 + 40 + 2 + 0x20);
        put64(&mut v, 100);
        put32(&mut v, 1234);
        put32(&mut v, 1235);
        put64(&mut v, 0x1000);
        put64(&mut v, 0x1000);
        put64(&mut v, 0x20);
        put64(&mut v, 7);
        v.extend(b"f\0");
        v.extend([0x90; 0x20]);
        // JIT_CODE_MOVE index 7 -> 0x3000
        put32(&mut v, 1);
        put32(&mut v, 16 + 48);
        put64(&mut v, 101);
        put32(&mut v, 1234);
        put32(&mut v, 1235);
        put64(&mut v, 0x3000);
        put64(&mut v, 0x1000);
        put64(&mut v, 0x3000);
        put64(&mut v, 0x20);
        put64(&mut v, 7);
        v
    }

    #[test]
    fn both_byte_orders_with_move() {
        for be in [false, true] {
            let d = JitDump::parse(&header(be)).unwrap();
            assert_eq!((d.pid, d.elf_mach, d.timestamp), (1234, 62, 99));
            assert_eq!(d.code_loads.len(), 1);
            assert_eq!(d.code_loads[0].name, "f");
            assert_eq!(d.code_loads[0].tid, 1235);
            assert_eq!(d.truncated, None);
            let t = d.table();
            assert_eq!(t.lookup(0x1000), None);
            assert_eq!(t.lookup(0x301f).map(|s| s.name), Some("f"));
        }
    }

    #[test]
    fn truncated_record_keeps_earlier_ones() {
        let mut bytes = header(false);
        bytes.truncate(bytes.len() - 1);
        let d = JitDump::parse(&bytes).unwrap();
        assert_eq!(d.code_loads.len(), 1);
        assert_eq!(d.code_moves.len(), 0);
        assert_eq!(
            d.truncated,
            Some(SymbolError::JitDumpTruncated {
                offset: 40 + 90,
                what: "record"
            })
        );
        assert_eq!(
            JitDump::parse(b"ELF\x7f....").unwrap_err().to_string(),
            "not a jitdump file: magic 0x7f464c45, expected 0x4a695444 (\"JiTD\")"
        );
    }
}
