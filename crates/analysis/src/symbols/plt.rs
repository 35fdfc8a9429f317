//! `name@plt` symbols for PLT entries, as perf's `dso__synthesize_plt_symbols` (perf 6.1) makes
//! them: the i-th relocation of `.rela.plt` (or `.rel.plt`) names the i-th PLT entry, entries
//! starting after the PLT header (x86: 16-byte header and entries; aarch64: 32 and 16). When
//! `.plt.sec` exists (x86 IBT), entries are in it with no header. An x86 PLT whose section
//! does not state its entry size (`sh_entsize` 0, as lld and BOLT leave it) gets no names, as in
//! perf 6.1, which sizes x86 entries by `sh_entsize`. Relocations without a symbol
//! (`R_X86_64_IRELATIVE`) are named `*ABS*+0xADDEND@plt` as objdump does.

use object::elf;
use object::read::elf::{FileHeader, Rel, Rela, SectionHeader};
use object::Endianness;

use super::table::{Binding, SymbolDef};

struct PltEntry {
    sym: u32,
    addend: i64,
}

fn synthesize<Elf: FileHeader<Endian = Endianness>>(data: &[u8]) -> Option<Vec<SymbolDef>> {
    let header = Elf::parse(data).ok()?;
    let endian = header.endian().ok()?;
    let (header_size, entry_size) = match header.e_machine(endian) {
        elf::EM_X86_64 | elf::EM_386 => (16u64, 16u64),
        elf::EM_AARCH64 => (32, 16),
        _ => return None,
    };
    let sections = header.sections(endian, data).ok()?;
    let (start, header_size, entsize): (u64, u64, u64) =
        match sections.section_by_name(endian, b".plt.sec") {
            Some((_, sec)) => (sec.sh_addr(endian).into(), 0, sec.sh_entsize(endian).into()),
            None => {
                let plt = sections.section_by_name(endian, b".plt")?.1;
                (
                    plt.sh_addr(endian).into(),
                    header_size,
                    plt.sh_entsize(endian).into(),
                )
            }
        };
    // perf 6.1 takes the x86 entry size from `sh_entsize`; a PLT that does not state it (lld,
    // BOLT) gets only empty symbols, so its entries stay unnamed.
    if entsize == 0 && matches!(header.e_machine(endian), elf::EM_X86_64 | elf::EM_386) {
        return None;
    }
    let rel_section = sections
        .section_by_name(endian, b".rela.plt")
        .or_else(|| sections.section_by_name(endian, b".rel.plt"))?
        .1;
    let is_mips64el = header.is_mips64el(endian);
    let entries: Vec<PltEntry> = if let Ok(Some((relas, _))) = rel_section.rela(endian, data) {
        relas
            .iter()
            .map(|r| PltEntry {
                sym: r.r_sym(endian, is_mips64el),
                addend: r.r_addend(endian).into(),
            })
            .collect()
    } else if let Ok(Some((rels, _))) = rel_section.rel(endian, data) {
        rels.iter()
            .map(|r| PltEntry {
                sym: r.r_sym(endian),
                addend: 0,
            })
            .collect()
    } else {
        return None;
    };
    let dynsym = sections.symbols(endian, data, elf::SHT_DYNSYM).ok()?;
    let mut out = Vec::with_capacity(entries.len());
    let mut addr = start.checked_add(header_size)?;
    for e in entries {
        let name = if e.sym == 0 {
            format!("*ABS*+0x{:x}@plt", e.addend)
        } else {
            let sym = dynsym
                .symbol(object::SymbolIndex(usize::try_from(e.sym).ok()?))
                .ok()?;
            let name = dynsym.symbol_name(endian, sym).ok()?;
            format!("{}@plt", String::from_utf8_lossy(name))
        };
        out.push(SymbolDef {
            start: addr,
            size: entry_size,
            name,
            binding: Binding::Global,
            module: None,
        });
        addr = addr.checked_add(entry_size)?;
    }
    Some(out)
}

/// The `@plt` symbols of an ELF image (empty when it has no PLT or an unsupported machine).
pub fn plt_symbols(data: &[u8]) -> Vec<SymbolDef> {
    let synthesized = match object::FileKind::parse(data) {
        Ok(object::FileKind::Elf64) => synthesize::<elf::FileHeader64<Endianness>>(data),
        Ok(object::FileKind::Elf32) => synthesize::<elf::FileHeader32<Endianness>>(data),
        _ => None,
    };
    synthesized.unwrap_or_default()
}
