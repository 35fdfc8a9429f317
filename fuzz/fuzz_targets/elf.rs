//! A dropped ELF file read in part (`symbols::compact::compact_elf`), as the page's worker reads
//! a big binary: byte 0's low bit is DWARF mode, the rest is the file. It must never panic, read
//! outside the file nor make an image much bigger than the file; whatever image it makes, the
//! symbol reader (`ElfSymbols::parse`) and the PLT names take without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perfscope_analysis::symbols::compact::compact_elf;
use perfscope_analysis::symbols::elf::ElfSymbols;

#[path = "common.rs"]
mod common;
use common::Reader;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, file)) = data.split_first() else {
        return;
    };
    let mut r = Reader::new(file);
    let Ok(Some(c)) = compact_elf(&mut r, mode & 1 != 0) else {
        return;
    };
    assert_eq!(c.read, r.read, "the bytes it says it read");
    // Each byte of the file at most once in the image, plus the headers.
    assert!(c.bytes.len() <= 3 * file.len() + 64, "{} bytes from {}", c.bytes.len(), file.len());
    let _ = ElfSymbols::parse(&c.bytes);
    let _ = perfscope_analysis::symbols::plt::plt_symbols(&c.bytes);
});
