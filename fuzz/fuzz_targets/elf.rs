//! A dropped ELF file read in part (`symbols::compact::compact_elf`), as the page's worker reads
//! a big binary: byte 0's low bit is DWARF mode, the rest is the file. It must never panic, read
//! outside the file nor make an image much bigger than the file; whatever image it makes, the
//! symbol reader (`ElfSymbols::parse`) and the PLT names take without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perfscope_analysis::symbols::compact::compact_elf;
use perfscope_analysis::symbols::elf::ElfSymbols;
use perfscope_format::file::ReadAt;

/// The input as a file that asserts `compact_elf` keeps to `ReadAt`'s contract.
struct Reader<'a>(&'a [u8], u64);

impl ReadAt for Reader<'_> {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }
    fn read_at(&mut self, offset: u64, size: u64) -> perfscope_format::Result<Vec<u8>> {
        let end = offset.checked_add(size).expect("read_at range overflows");
        assert!(end <= self.len(), "read_at({offset:#x}, {size:#x}) past the end {:#x}", self.len());
        self.1 += size;
        Ok(self.0[offset as usize..end as usize].to_vec())
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, file)) = data.split_first() else {
        return;
    };
    let mut r = Reader(file, 0);
    let Ok(Some(c)) = compact_elf(&mut r, mode & 1 != 0) else {
        return;
    };
    assert_eq!(c.read, r.1, "the bytes it says it read");
    // Each byte of the file at most once in the image, plus the headers.
    assert!(c.bytes.len() <= 3 * file.len() + 64, "{} bytes from {}", c.bytes.len(), file.len());
    let _ = ElfSymbols::parse(&c.bytes);
    let _ = perfscope_analysis::symbols::plt::plt_symbols(&c.bytes);
});
